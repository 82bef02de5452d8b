//! `timeout` / `timeout_at`: a pending future times out with `Elapsed` and is dropped; a
//! ready future passes through (even with a zero or past deadline); a future that keeps
//! exhausting the cooperative budget still times out.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use runtime::time::{sleep, timeout, timeout_at, Elapsed, Instant};
use runtime::Builder;

/// Pending forever; counts its drops.
struct Never(Arc<AtomicUsize>);

impl Future for Never {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        Poll::Pending
    }
}

impl Drop for Never {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

rt_test! {
    #[test]
    fn pending_future_times_out_and_is_dropped() {
        watchdog("the timeout of a pending future", || {
            let rt = rt();
            rt.block_on(async {
                let drops = Arc::new(AtomicUsize::new(0));
                let start = Instant::now();
                let res: Result<(), Elapsed> =
                    timeout(Duration::from_millis(20), Never(drops.clone())).await;
                assert!(res.is_err());
                assert!(Instant::now() >= start + Duration::from_millis(20));
                assert_eq!(drops.load(SeqCst), 1, "inner future not dropped");
            });
        })
    }

    #[test]
    fn ready_future_passes_through_even_with_an_expired_deadline() {
        watchdog("the ready future through timeout", || {
            let rt = rt();
            rt.block_on(async {
                assert_eq!(timeout(Duration::ZERO, async { 5 }).await, Ok(5));
                let past = Instant::now() - Duration::from_secs(1);
                assert_eq!(timeout_at(past, std::future::ready("x")).await, Ok("x"));
                assert_eq!(timeout(Duration::MAX, async { 6 }).await, Ok(6));
            });
        })
    }

    #[test]
    fn inner_future_finishing_first_wins() {
        watchdog("the inner future", || {
            let rt = rt();
            rt.block_on(async {
                let res = timeout(Duration::from_secs(60), async {
                    sleep(Duration::from_millis(5)).await;
                    "done"
                })
                .await;
                assert_eq!(res, Ok("done"));
                let drops = Arc::new(AtomicUsize::new(0));
                let past = Instant::now() - Duration::from_millis(1);
                assert!(timeout_at(past, Never(drops.clone())).await.is_err());
                assert_eq!(drops.load(SeqCst), 1);
            });
        })
    }

    /// A future that never finishes but always has ready work: every poll spends the whole
    /// cooperative budget on ready timers and then yields. The timeout must still fire.
    #[test]
    fn budget_hungry_future_still_times_out() {
        watchdog("the timeout of a budget-hungry future", || {
            let rt = rt();
            rt.block_on(async {
                let spins = async {
                    loop {
                        sleep(Duration::ZERO).await;
                    }
                };
                let res = timeout(Duration::from_millis(20), spins).await;
                assert!(res.is_err());
            });
        })
    }

    #[test]
    fn get_ref_get_mut_and_into_inner() {
        watchdog("the wrapped future", || {
            let rt = rt();
            rt.block_on(async {
                let drops = Arc::new(AtomicUsize::new(0));
                let mut t = timeout(Duration::from_secs(3600), Never(drops.clone()));
                assert_eq!(Arc::strong_count(&t.get_ref().0), 2);
                *t.get_mut() = Never(drops.clone());
                assert_eq!(drops.load(SeqCst), 1, "the replaced future was dropped");
                let inner = t.into_inner();
                // The timer is gone, the future is handed back undropped.
                assert_eq!(drops.load(SeqCst), 1);
                drop(inner);
                assert_eq!(drops.load(SeqCst), 2);
            });
        })
    }

    #[test]
    fn timeout_at_a_past_deadline_elapses_a_pending_future() {
        watchdog("the past-deadline timeout", || {
            let rt = rt();
            rt.block_on(async {
                let past = Instant::now();
                let res = timeout_at(past, std::future::pending::<()>()).await;
                assert_eq!(res.unwrap_err().to_string(), "deadline has elapsed");
            });
        })
    }
}

#[test]
fn elapsed_is_an_error_with_the_right_message() {
    watchdog("the Elapsed error", || {
        let rt = Builder::new_current_thread().enable_time().build().unwrap();
        let e = rt
            .block_on(async {
                timeout(Duration::from_millis(1), std::future::pending::<()>()).await
            })
            .unwrap_err();
        assert_eq!(e.to_string(), "deadline has elapsed");
        let dyn_err: &dyn std::error::Error = &e;
        assert!(dyn_err.source().is_none());
        let io_err: io::Error = e.into();
        assert_eq!(io_err.kind(), io::ErrorKind::TimedOut);
    })
}

#[runtime::test]
async fn timeout_deadline_is_reported() {
    let _watchdog = abort_after("the timeout");
    let before = Instant::now();
    let t = timeout(Duration::from_millis(30), async {});
    assert!(t.deadline() >= before + Duration::from_millis(30));
    assert_eq!(t.await, Ok(()));
}

#[test]
fn timeout_fires_exactly_at_its_deadline_under_paused_time() {
    watchdog("the paused timeout", || {
        let rt = Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        rt.block_on(async {
            let start = Instant::now();
            let deadline = start + Duration::from_secs(90);
            let res = timeout_at(deadline, sleep(Duration::from_secs(91))).await;
            assert!(res.is_err());
            assert_eq!(Instant::now(), deadline);
            // The inner future finishing first wins, even a long one.
            let res = timeout(Duration::from_secs(3600), sleep(Duration::from_secs(3599))).await;
            assert_eq!(res, Ok(()));
            assert_eq!(Instant::now(), deadline + Duration::from_secs(3599));
        });
    })
}
