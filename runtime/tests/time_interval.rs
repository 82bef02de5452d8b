//! `interval`: the first tick is immediate, ticks follow the schedule exactly (each tick
//! returns its scheduled instant, `period` apart), `k` ticks take at least
//! `(k - 1) * period`, and the three missed-tick behaviors.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::time::Duration;

use runtime::time::{interval, interval_at, sleep, timeout, Instant, MissedTickBehavior};
use runtime::{Builder, Runtime};

#[test]
fn ticks_follow_the_schedule_and_never_come_early() {
    watchdog("the interval's ticks", || {
        const PERIOD: Duration = Duration::from_millis(15);
        const K: u32 = 6;
        for rt in runtimes() {
            rt.block_on(async {
                let start = Instant::now();
                let mut iv = interval(PERIOD);
                assert_eq!(iv.period(), PERIOD);
                assert_eq!(iv.missed_tick_behavior(), MissedTickBehavior::Burst);
                let mut ticks = Vec::new();
                for _ in 0..K {
                    let t = timeout(GENEROUS, iv.tick()).await.unwrap();
                    assert!(Instant::now() >= t, "tick returned before its instant");
                    ticks.push(t);
                }
                assert!(start.elapsed() >= PERIOD * (K - 1));
                assert!(ticks[0] >= start);
                for (i, t) in ticks.iter().enumerate() {
                    assert_eq!(*t, ticks[0] + PERIOD * i as u32, "tick {i} off schedule");
                }
            });
        }
    })
}

#[runtime::test]
async fn first_tick_is_immediate_even_for_a_long_period() {
    let _watchdog = abort_after("the first tick");
    let mut iv = interval(Duration::from_secs(3600));
    let t = timeout(GENEROUS, iv.tick()).await.unwrap();
    assert!(t <= Instant::now());
}

#[runtime::test]
async fn interval_at_starts_at_the_given_instant() {
    let _watchdog = abort_after("the interval_at ticks");
    let start = Instant::now() + Duration::from_millis(20);
    let mut iv = interval_at(start, Duration::from_millis(5));
    let t = iv.tick().await;
    assert_eq!(t, start);
    assert!(Instant::now() >= start);
}

#[runtime::test]
async fn burst_catches_up_on_the_original_grid() {
    let _watchdog = abort_after("the burst ticks");
    let period = Duration::from_millis(10);
    let mut iv = interval(period);
    let t0 = iv.tick().await;
    sleep(period * 5).await;
    // Missed ticks come back to back, each still on the grid.
    for i in 1..=5u32 {
        assert_eq!(iv.tick().await, t0 + period * i);
    }
}

#[runtime::test]
async fn delay_restarts_the_schedule_from_the_late_tick() {
    let _watchdog = abort_after("the delayed ticks");
    let period = Duration::from_millis(10);
    let mut iv = interval(period);
    iv.set_missed_tick_behavior(MissedTickBehavior::Delay);
    iv.tick().await;
    sleep(period * 3).await;
    let before_late = Instant::now();
    iv.tick().await; // due long ago: returned at once, and the schedule restarts
    let next = iv.tick().await;
    // Burst would have scheduled this tick in the past (t0 + 2 * period).
    assert!(next >= before_late + period);
    assert!(Instant::now() >= next);
}

#[runtime::test]
async fn skip_drops_missed_ticks_but_keeps_the_grid() {
    let _watchdog = abort_after("the skipped ticks");
    let period = Duration::from_millis(10);
    let mut iv = interval(period);
    iv.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let t0 = iv.tick().await;
    sleep(period * 4 + Duration::from_millis(3)).await;
    let late = iv.tick().await;
    assert_eq!(late, t0 + period);
    let before_next = Instant::now();
    let next = iv.tick().await;
    let offset = next.duration_since(t0).as_nanos() % period.as_nanos();
    assert_eq!(offset, 0, "skip left the original grid");
    assert!(next > before_next - period, "skip fired a missed tick");
    assert!(next >= t0 + period * 5);
}

#[runtime::test]
async fn reset_pushes_the_next_tick_a_period_out() {
    let _watchdog = abort_after("the reset tick");
    let period = Duration::from_millis(20);
    let mut iv = interval(period);
    iv.tick().await;
    let at = Instant::now();
    iv.reset();
    let t = iv.tick().await;
    assert!(t >= at + period);
    let before = Instant::now();
    iv.reset_immediately();
    let t = iv.tick().await;
    assert!(t <= Instant::now() && t >= before);
}

#[test]
#[should_panic(expected = "`period` must be non-zero")]
fn zero_period_panics() {
    let rt = Builder::new_current_thread().enable_time().build().unwrap();
    let _g = rt.enter();
    let _ = interval(Duration::ZERO);
}

fn paused() -> Runtime {
    Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap()
}

rt_test! {
    #[test]
    fn reset_after_and_reset_at_never_tick_early() {
        watchdog("the reset interval's ticks", || {
            let rt = rt();
            rt.block_on(async {
                let mut iv = interval(Duration::from_secs(3600));
                iv.tick().await;
                let before = Instant::now();
                iv.reset_after(Duration::from_millis(5));
                let t = timeout(Duration::from_secs(60), iv.tick()).await.unwrap();
                assert!(t >= before + Duration::from_millis(5));
                assert!(Instant::now() >= t);
                let at = Instant::now() + Duration::from_millis(3);
                iv.reset_at(at);
                assert_eq!(
                    timeout(Duration::from_secs(60), iv.tick()).await.unwrap(),
                    at
                );
                assert!(Instant::now() >= at);
                assert_eq!(iv.period(), Duration::from_secs(3600));
            });
        })
    }
}

#[test]
fn reset_family_lands_exactly_under_paused_time() {
    watchdog("the paused interval's ticks", || {
        paused().block_on(async {
            let period = Duration::from_secs(60);
            let start = Instant::now();
            let mut iv = interval(period);
            assert_eq!(iv.tick().await, start);
            assert_eq!(iv.tick().await, start + period);
            iv.reset_after(Duration::from_secs(7));
            assert_eq!(iv.tick().await, start + period + Duration::from_secs(7));
            let at = Instant::now() + Duration::from_secs(1000);
            iv.reset_at(at);
            assert_eq!(iv.tick().await, at);
            iv.reset_immediately();
            assert_eq!(iv.tick().await, at);
            iv.reset();
            assert_eq!(iv.tick().await, at + period);
            // The schedule continues from the reset tick.
            assert_eq!(iv.tick().await, at + period * 2);
        });
    })
}

#[test]
fn interval_at_and_poll_tick_under_paused_time() {
    watchdog("poll_tick under paused time", || {
        paused().block_on(async {
            let start = Instant::now() + Duration::from_secs(30);
            let mut iv = interval_at(start, Duration::from_secs(5));
            let mut got = Vec::new();
            while got.len() < 3 {
                got.push(std::future::poll_fn(|cx| iv.poll_tick(cx)).await);
            }
            let want: Vec<Instant> = (0..3).map(|k| start + Duration::from_secs(5 * k)).collect();
            assert_eq!(got, want);
            assert_eq!(Instant::now(), start + Duration::from_secs(10));
        });
    })
}

#[test]
fn default_missed_tick_behavior_is_burst() {
    watchdog("the paused interval", || {
        paused().block_on(async {
            let iv = interval(Duration::from_secs(1));
            assert_eq!(iv.missed_tick_behavior(), MissedTickBehavior::Burst);
            assert_eq!(MissedTickBehavior::default(), MissedTickBehavior::Burst);
        });
    })
}
