//! `sleep` / `sleep_until`: never early, in deadline order, many at once, reset, re-arming
//! a driver that sleeps past a newly inserted deadline, on both flavors.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::sync::{mpsc, Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use runtime::time::{sleep, sleep_until, timeout, Instant};
use runtime::Builder;

/// Durations in a scrambled order, distinct by at least 2 ms.
fn scrambled(n: u64) -> Vec<Duration> {
    (0..n)
        .map(|i| Duration::from_millis(2 * ((i * 37) % n) + 1))
        .collect()
}

rt_test! {
    #[test]
    fn sleep_is_never_early() {
        watchdog("the sleeps", || {
            let rt = rt();
            rt.block_on(async {
                for d in [0, 1, 2, 3, 7, 15, 30]
                    .map(Duration::from_millis)
                    .into_iter()
                    .chain([
                        Duration::from_micros(100),
                        Duration::from_micros(1500),
                        Duration::from_nanos(1),
                    ])
                {
                    let start = Instant::now();
                    let s = sleep(d);
                    let deadline = s.deadline();
                    assert!(deadline >= start + d);
                    s.await;
                    assert!(Instant::now() >= deadline, "woke early for {d:?}");
                }
            });
        })
    }

    #[test]
    fn sub_millisecond_sleeps_never_complete_before_their_deadline() {
        watchdog("the sub-millisecond sleeps", || {
            let rt = rt();
            rt.block_on(async {
                for i in 0..200u64 {
                    // 0..1 ms, in a scattered order, with odd nanoseconds.
                    let d = Duration::from_nanos((i * 7919) % 1_000_000 + i % 7);
                    let s = sleep(d);
                    let deadline = s.deadline();
                    s.await;
                    assert!(
                        std::time::Instant::now() >= deadline.into_std(),
                        "a {d:?} sleep completed before its deadline"
                    );
                }
            });
        })
    }

    #[test]
    fn pinned_sleep_reset_deadline_and_is_elapsed() {
        watchdog("the pinned sleep", || {
            let rt = rt();
            rt.block_on(async {
                let mut s = Box::pin(sleep(Duration::from_secs(3600)));
                assert!(!s.is_elapsed());
                // Polled once, so the entry is in the wheel, then moved (tokio's pinned API).
                assert!(poll_fn(|cx| Poll::Ready(s.as_mut().poll(cx).is_pending())).await);
                let target = Instant::now() + Duration::from_millis(5);
                s.as_mut().reset(target);
                assert_eq!(s.deadline(), target);
                timeout(GENEROUS, s.as_mut())
                    .await
                    .expect("reset sleep never fired");
                assert!(s.is_elapsed());
                assert!(Instant::now() >= target);
            });
        })
    }
}

#[test]
fn timers_fire_in_deadline_order_on_current_thread() {
    watchdog("the timers in deadline order", || {
        let rt = current_thread();
        let order = Arc::new(Mutex::new(Vec::new()));
        rt.block_on(async {
            let base = Instant::now();
            let handles: Vec<_> = scrambled(40)
                .into_iter()
                .map(|d| {
                    let order = order.clone();
                    let deadline = base + d;
                    runtime::spawn(async move {
                        sleep_until(deadline).await;
                        assert!(Instant::now() >= deadline, "woke early");
                        order.lock().unwrap().push(deadline);
                    })
                })
                .collect();
            for h in handles {
                timeout(GENEROUS, h).await.unwrap().unwrap();
            }
        });
        let order = order.lock().unwrap();
        assert_eq!(order.len(), 40);
        assert!(
            order.windows(2).all(|w| w[0] <= w[1]),
            "timers completed out of deadline order"
        );
    })
}

#[test]
fn many_timers_on_multi_thread_all_fire_never_early() {
    watchdog("the timers on the workers", || {
        let rt = multi_thread(2);
        rt.block_on(async {
            let base = Instant::now();
            let handles: Vec<_> = (0..10_000u64)
                .map(|i| {
                    let deadline = base + Duration::from_micros((i * 7_919) % 200_000);
                    runtime::spawn(async move {
                        sleep_until(deadline).await;
                        Instant::now() >= deadline
                    })
                })
                .collect();
            for h in handles {
                assert!(timeout(GENEROUS, h).await.unwrap().unwrap(), "woke early");
            }
        });
    })
}

#[test]
fn one_task_sleeping_through_increasing_deadlines() {
    watchdog("the task's sleeps", || {
        let rt = multi_thread(1);
        rt.block_on(async {
            let base = Instant::now();
            let mut last = base;
            for i in 1..=20 {
                let deadline = base + Duration::from_millis(i * 3);
                sleep_until(deadline).await;
                let now = Instant::now();
                assert!(now >= deadline);
                assert!(now >= last);
                last = now;
            }
        });
    })
}

#[test]
fn reset_earlier_later_and_after_completion() {
    watchdog("the reset sleeps", || {
        let rt = current_thread();
        rt.block_on(async {
            let mut s = pin!(sleep(Duration::from_secs(3600)));
            let first = poll_fn(|cx| Poll::Ready(s.as_mut().poll(cx))).await;
            assert!(first.is_pending());
            assert!(!s.is_elapsed());
            let soon = Instant::now() + Duration::from_millis(10);
            s.as_mut().reset(soon);
            assert_eq!(s.deadline(), soon);
            timeout(GENEROUS, s.as_mut()).await.unwrap();
            assert!(Instant::now() >= soon);
            assert!(s.is_elapsed());
            // Re-arm after completion, then push further out before it fires.
            let later = Instant::now() + Duration::from_millis(20);
            s.as_mut().reset(Instant::now() + Duration::from_millis(5));
            s.as_mut().reset(later);
            timeout(GENEROUS, s.as_mut()).await.unwrap();
            assert!(Instant::now() >= later);
        });
    })
}

#[test]
fn zero_and_past_deadlines_complete_and_huge_ones_do_not_overflow() {
    watchdog("the zero and past sleeps", || {
        let rt = current_thread();
        rt.block_on(async {
            sleep(Duration::ZERO).await;
            sleep_until(Instant::now() - Duration::from_millis(5)).await;
            let s = sleep(Duration::MAX);
            assert!(s.deadline() > Instant::now() + Duration::from_secs(86_400 * 365));
            assert!(!s.is_elapsed());
            let res = timeout(Duration::from_millis(5), s).await;
            assert!(res.is_err());
        });
    })
}

/// A worker parked in the driver with a long timeout (an hour-long sleep is the only
/// timer) must be re-armed when a short timer is added from another thread.
#[test]
fn short_timer_added_while_the_driver_sleeps_long_fires() {
    watchdog("the short timer behind a long one", || {
        let rt = multi_thread(2);
        let _long = rt.spawn(async { sleep(Duration::from_secs(3600)).await });
        // Let the workers go idle and park in the driver with the one-hour timeout.
        std::thread::sleep(Duration::from_millis(50));
        let (tx, rx) = mpsc::channel();
        let handle = rt.handle().clone();
        std::thread::spawn(move || {
            // `block_on` on a multi-thread runtime polls here, on a non-worker thread.
            let d = handle.block_on(async {
                let deadline = Instant::now() + Duration::from_millis(20);
                sleep_until(deadline).await;
                Instant::now() >= deadline
            });
            let _ = tx.send(d);
        });
        let ok = rx
            .recv_timeout(GENEROUS)
            .expect("the short sleep never fired: the parked driver was not re-armed");
        assert!(ok);
    })
}

#[runtime::test]
async fn sleep_with_the_test_macro_current_thread() {
    let _watchdog = abort_after("the sleep");
    let start = Instant::now();
    sleep(Duration::from_millis(10)).await;
    assert!(start.elapsed() >= Duration::from_millis(10));
}

#[runtime::test(flavor = "multi_thread", worker_threads = 2)]
async fn sleep_with_the_test_macro_multi_thread() {
    let _watchdog = abort_after("the sleep");
    let start = Instant::now();
    let h = runtime::spawn(sleep(Duration::from_millis(10)));
    h.await.unwrap();
    assert!(start.elapsed() >= Duration::from_millis(10));
}

#[test]
fn sub_millisecond_sleeps_are_rounded_up_under_paused_time() {
    watchdog("the paused sub-millisecond sleeps", || {
        let rt = Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        rt.block_on(async {
            for d in [1, 999, 1_000, 999_999, 1_000_001].map(Duration::from_nanos) {
                let start = Instant::now();
                sleep(d).await;
                let slept = start.elapsed();
                // Never early; at most one wheel tick (1 ms) late on the paused clock.
                assert!(slept >= d, "{d:?}: {slept:?}");
                assert!(slept <= d + Duration::from_millis(1), "{d:?}: {slept:?}");
            }
        });
    })
}

/// `is_elapsed` is tokio's: a sleep whose deadline already passed is not elapsed until it
/// was polled (or fired by the driver).
#[test]
fn is_elapsed_only_once_polled_or_fired() {
    watchdog("a due sleep to complete", || {
        for rt in runtimes() {
            rt.block_on(async {
                let mut s = pin!(sleep_until(Instant::now()));
                assert!(!s.is_elapsed(), "elapsed before any poll");
                s.as_mut().await;
                assert!(s.is_elapsed());
            });
        }
    })
}
