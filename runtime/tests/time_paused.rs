//! Paused time: `time::pause` / `resume` / `advance`, `Builder::start_paused` and
//! `#[runtime::test(start_paused = true)]`; auto-advance to the next timer only when every
//! task is idle; `Instant::now()` follows the paused clock; the current-thread-only rule.
//!
//! Every test runs under a 10 s real-time watchdog while sleeping for hours of paused time:
//! finishing at all proves no real sleep happened. No real-time thresholds are asserted.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use runtime::time::{
    self, advance, interval, pause, resume, sleep, sleep_until, timeout, Instant,
    MissedTickBehavior,
};
use runtime::{Builder, Runtime};

const HOUR: Duration = Duration::from_secs(3600);
const WATCHDOG: Duration = Duration::from_secs(10);

fn paused() -> Runtime {
    Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap()
}

#[test]
fn an_hour_long_sleep_finishes_at_once_with_start_paused() {
    watchdog("the hour-long paused sleep", || {
        paused().block_on(async {
            let start = Instant::now();
            sleep(HOUR).await;
            let slept = start.elapsed();
            assert!(slept >= HOUR, "{slept:?}");
            // Auto-advance lands on the timer's millisecond, not beyond it.
            assert!(slept <= HOUR + Duration::from_millis(1), "{slept:?}");
        })
    });
}

#[runtime::test(start_paused = true)]
async fn macro_start_paused_sleeps_a_day_in_no_time() {
    let _watchdog = abort_after("the day-long paused sleep");
    // The macro's runtime is the test's; the watchdog is the harness's own timeout here,
    // so also bound it from inside: a paused clock would make a real-time bound useless,
    // hence the thread-based check below.
    let (tx, rx) = mpsc::channel::<()>();
    let guard = std::thread::spawn(move || {
        if rx.recv_timeout(WATCHDOG).is_err() {
            eprintln!("start_paused test ran past 10 s of real time");
            std::process::abort();
        }
    });
    let start = Instant::now();
    sleep(24 * HOUR).await;
    assert!(start.elapsed() >= 24 * HOUR);
    tx.send(()).unwrap();
    guard.join().unwrap();
}

#[test]
fn pause_inside_block_on_then_timers_fire_in_deadline_order_at_their_instants() {
    watchdog("the paused timers in deadline order", || {
        let rt = Builder::new_current_thread().enable_time().build().unwrap();
        rt.block_on(async {
            pause();
            let start = Instant::now();
            let fired = Arc::new(Mutex::new(Vec::new()));
            let mut handles = Vec::new();
            for mins in [50u64, 10, 40, 20, 30] {
                let fired = fired.clone();
                handles.push(runtime::spawn(async move {
                    sleep(Duration::from_secs(60 * mins)).await;
                    fired.lock().unwrap().push((mins, start.elapsed()));
                }));
            }
            for h in handles {
                h.await.unwrap();
            }
            let fired = fired.lock().unwrap().clone();
            let order: Vec<u64> = fired.iter().map(|&(m, _)| m).collect();
            assert_eq!(order, [10, 20, 30, 40, 50]);
            for (mins, at) in fired {
                let due = Duration::from_secs(60 * mins);
                assert!(
                    at >= due && at <= due + Duration::from_millis(1),
                    "{mins}: {at:?}"
                );
            }
        })
    });
}

#[test]
fn advance_moves_the_clock_and_runs_what_became_due() {
    watchdog("the timers made due by advance", || {
        paused().block_on(async {
            let start = Instant::now();
            let sleeper = runtime::spawn(sleep(Duration::from_secs(10)));
            runtime::task::yield_now().await; // the sleeper registers its timer
            advance(Duration::from_secs(9)).await;
            assert_eq!(start.elapsed(), Duration::from_secs(9));
            assert!(!sleeper.is_finished(), "fired a second early");
            advance(Duration::from_secs(1)).await;
            assert_eq!(start.elapsed(), Duration::from_secs(10));
            assert!(sleeper.is_finished(), "due timer did not fire on advance");
            sleeper.await.unwrap();
        })
    });
}

#[test]
fn clock_does_not_move_while_a_task_is_runnable() {
    watchdog("the runnable task under paused time", || {
        paused().block_on(async {
            let start = Instant::now();
            let sleeper = runtime::spawn(sleep(Duration::from_millis(1)));
            let busy = runtime::spawn(async move {
                for _ in 0..1000 {
                    // Yielding keeps this task runnable: no auto-advance meanwhile.
                    assert_eq!(Instant::now(), start);
                    runtime::task::yield_now().await;
                }
            });
            busy.await.unwrap();
            assert!(!sleeper.is_finished());
            sleeper.await.unwrap();
            assert!(start.elapsed() >= Duration::from_millis(1));
        })
    });
}

#[test]
fn timeout_and_interval_follow_the_paused_clock() {
    watchdog("the paused timeout and interval", || {
        paused().block_on(async {
            let start = Instant::now();
            let res = timeout(HOUR, std::future::pending::<()>()).await;
            assert!(res.is_err());
            assert!(start.elapsed() >= HOUR);

            let start = Instant::now();
            let mut tick = interval(Duration::from_secs(600));
            let mut at = Vec::new();
            for _ in 0..4 {
                at.push(tick.tick().await - start);
            }
            let want: Vec<Duration> = (0..4).map(|k| Duration::from_secs(600 * k)).collect();
            assert_eq!(at, want);
        })
    });
}

#[test]
fn interval_missed_ticks_under_advance() {
    watchdog("the interval's missed ticks", || {
        paused().block_on(async {
            let p = Duration::from_secs(10);
            for (behavior, want) in [
                // After a 35 s stall at t=0: ticks scheduled at 10, 20, 30 are missed.
                (MissedTickBehavior::Burst, [10, 20, 30, 40]),
                (MissedTickBehavior::Delay, [10, 45, 55, 65]),
                (MissedTickBehavior::Skip, [10, 40, 50, 60]),
            ] {
                let start = Instant::now();
                let mut tick = interval(p);
                tick.set_missed_tick_behavior(behavior);
                assert_eq!(tick.missed_tick_behavior(), behavior);
                tick.tick().await; // immediate
                advance(Duration::from_secs(35)).await;
                let mut got = Vec::new();
                for _ in 0..4 {
                    let scheduled = tick.tick().await;
                    got.push((scheduled - start).as_secs());
                }
                // What `tick` returns is the tick's scheduled instant; the first late one
                // is the one at 10 s under every behavior.
                let want: Vec<u64> = want.to_vec();
                assert_eq!(got, want, "{behavior:?}");
            }
        })
    });
}

#[test]
fn resume_lets_time_run_again_from_where_it_stands() {
    watchdog("the sleep after resume", || {
        let rt = Builder::new_current_thread().enable_time().build().unwrap();
        rt.block_on(async {
            let real = std::time::Instant::now();
            pause();
            let start = Instant::now();
            advance(HOUR).await;
            resume();
            // Running again, an hour ahead of the system clock.
            let ahead = Instant::now().into_std();
            assert!(ahead >= real + HOUR);
            sleep(Duration::from_millis(5)).await;
            assert!(start.elapsed() >= HOUR + Duration::from_millis(5));
            // It can be paused again, at a reading no earlier than before.
            pause();
            assert!(Instant::now() >= Instant::from_std(ahead));
        })
    });
}

#[test]
fn instant_now_outside_a_runtime_is_the_system_clock() {
    let before = std::time::Instant::now();
    let now = Instant::now().into_std();
    let after = std::time::Instant::now();
    assert!(before <= now && now <= after);
    // And a paused runtime's clock does not leak to other threads.
    let rt = paused();
    rt.block_on(async { advance(HOUR).await });
    assert!(Instant::now().into_std() <= std::time::Instant::now());
}

#[test]
fn instant_api() {
    let a = Instant::now();
    let b = a + Duration::from_secs(5);
    assert_eq!(b - a, Duration::from_secs(5));
    assert_eq!(a - b, Duration::ZERO, "subtraction saturates");
    assert_eq!(b.duration_since(a), Duration::from_secs(5));
    assert_eq!(a.checked_duration_since(b), None);
    assert_eq!(b.checked_sub(Duration::from_secs(5)), Some(a));
    assert_eq!(a.checked_add(Duration::MAX), None);
    let mut c = b;
    c -= Duration::from_secs(5);
    assert_eq!(c, a);
    c += Duration::from_secs(1);
    assert_eq!(c, a + Duration::from_secs(1));
    assert_eq!(Instant::from_std(a.into_std()), a);
    let std: std::time::Instant = b.into();
    assert_eq!(Instant::from(std), b);
}

#[test]
fn pausing_a_multi_thread_runtime_panics_with_a_message() {
    watchdog("the refused pause", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let err = rt
            .block_on(async { catch_unwind(pause) })
            .expect_err("pause on multi_thread");
        let msg = panic_message(err);
        assert!(msg.contains("current-thread"), "{msg}");

        let err = catch_unwind(|| {
            Builder::new_multi_thread()
                .enable_all()
                .start_paused(true)
                .build()
        })
        .expect_err("start_paused on multi_thread");
        assert!(panic_message(err).contains("current-thread"));
    })
}

#[test]
fn misuse_panics_with_messages() {
    watchdog("the refused advance and resume", || {
        let msg = panic_message(catch_unwind(pause).unwrap_err());
        assert!(msg.contains("context of a runtime"), "{msg}");

        let err = catch_unwind(|| Builder::new_current_thread().start_paused(true).build())
            .expect_err("start_paused without time");
        assert!(panic_message(err).contains("enable_time"));

        let rt = Builder::new_current_thread().enable_time().build().unwrap();
        rt.block_on(async {
            let msg = panic_message(catch_unwind(resume).unwrap_err());
            assert!(msg.contains("not frozen"), "{msg}");
            let adv = std::pin::pin!(advance(Duration::from_secs(1)));
            let msg = panic_message(
                catch_unwind(AssertUnwindSafe(|| {
                    let waker = std::task::Waker::noop();
                    let _ =
                        std::future::Future::poll(adv, &mut std::task::Context::from_waker(waker));
                }))
                .unwrap_err(),
            );
            assert!(msg.contains("not frozen"), "{msg}");
            pause();
            let msg = panic_message(catch_unwind(pause).unwrap_err());
            assert!(msg.contains("already frozen"), "{msg}");
        });

        let rt = Builder::new_current_thread().enable_io().build().unwrap();
        let msg = panic_message(rt.block_on(async { catch_unwind(pause) }).unwrap_err());
        assert!(msg.contains("enable_time"), "{msg}");
    })
}

#[test]
fn a_running_blocking_task_holds_off_auto_advance() {
    watchdog("the blocking task under paused time", || {
        paused().block_on(async {
            let start = Instant::now();
            let (release_tx, release_rx) = mpsc::channel::<()>();
            let blocking = runtime::task::spawn_blocking(move || {
                release_rx.recv().unwrap();
            });
            // The sleep cannot be auto-advanced past while the blocking task runs, so it is
            // the channel that decides: release it from a real thread after the sleep was
            // registered, then the sleep finishes by auto-advance.
            let observed = Arc::new(AtomicUsize::new(0));
            let seen = observed.clone();
            let sleeper = runtime::spawn(async move {
                sleep(HOUR).await;
                seen.store(1, Ordering::SeqCst);
            });
            runtime::task::yield_now().await;
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                release_tx.send(()).unwrap();
            });
            blocking.await.unwrap();
            // The blocking task held the clock: the hour cannot have passed yet unless the
            // runtime auto-advanced while it ran.
            assert_eq!(
                observed.load(Ordering::SeqCst),
                0,
                "auto-advanced past blocking work"
            );
            assert!(start.elapsed() < HOUR);
            sleeper.await.unwrap();
            assert!(start.elapsed() >= HOUR);
        })
    });
}

#[test]
fn sleep_until_a_paused_instant_and_time_module_reexports() {
    watchdog("sleep_until under paused time", || {
        paused().block_on(async {
            let at = Instant::now() + Duration::from_secs(90);
            sleep_until(at).await;
            assert!(Instant::now() >= at);
            let _: time::Duration = Duration::ZERO;
        })
    });
}
