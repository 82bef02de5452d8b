//! Unit tests that look inside the driver: wheel occupancy after timers are dropped,
//! fired, reset or wrapped in a `Timeout`.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::time::{sleep, sleep_until, timeout, Instant, Sleep};
use crate::Builder;

fn rt() -> crate::Runtime {
    Builder::new_current_thread().enable_time().build().unwrap()
}

fn entries() -> usize {
    crate::scheduler::Handle::current_time().timer_entries()
}

fn poll_once<F: Future>(f: std::pin::Pin<&mut F>) -> Poll<F::Output> {
    f.poll(&mut Context::from_waker(std::task::Waker::noop()))
}

#[test]
fn dropped_sleep_leaves_nothing_in_the_wheel() {
    let rt = rt();
    rt.block_on(async {
        assert_eq!(entries(), 0);
        let mut sleeps: Vec<std::pin::Pin<Box<Sleep>>> = (1..=100)
            .map(|i| Box::pin(sleep(Duration::from_secs(60 + i))))
            .collect();
        // Creating a sleep takes no wheel entry; the first pending poll inserts one.
        assert_eq!(entries(), 0);
        for s in &mut sleeps {
            assert!(poll_once(s.as_mut()).is_pending());
        }
        assert_eq!(entries(), 100);
        sleeps.truncate(40);
        assert_eq!(entries(), 40);
        drop(sleeps);
        assert_eq!(entries(), 0);
    });
}

#[test]
fn fired_sleep_is_removed_when_dropped_and_expired_one_never_inserted() {
    let rt = rt();
    rt.block_on(async {
        let mut s = Box::pin(sleep(Duration::from_millis(5)));
        assert!(poll_once(s.as_mut()).is_pending());
        assert_eq!(entries(), 1);
        s.as_mut().await;
        assert!(s.is_elapsed());
        drop(s);
        assert_eq!(entries(), 0);

        // Already due when first polled: completes without touching the wheel.
        let past = sleep_until(Instant::now() - Duration::from_millis(1));
        past.await;
        assert_eq!(entries(), 0);
    });
}

#[test]
fn timeout_removes_its_timer_on_both_outcomes() {
    let rt = rt();
    rt.block_on(async {
        // Inner future wins.
        {
            let mut t = pin!(timeout(Duration::from_secs(60), async {
                crate::task::yield_now().await;
                7
            }));
            assert!(poll_once(t.as_mut()).is_pending());
            assert_eq!(entries(), 1);
            assert_eq!(t.as_mut().await, Ok(7));
        }
        assert_eq!(entries(), 0);

        // Deadline wins.
        let res = timeout(Duration::from_millis(5), std::future::pending::<()>()).await;
        assert!(res.is_err());
        assert_eq!(entries(), 0);
    });
}

#[test]
fn reset_moves_the_single_entry() {
    let rt = rt();
    rt.block_on(async {
        let mut s = Box::pin(sleep(Duration::from_secs(3600)));
        assert!(poll_once(s.as_mut()).is_pending());
        let target = Instant::now() + Duration::from_millis(10);
        s.as_mut().reset(target);
        assert_eq!(s.deadline(), target);
        assert_eq!(entries(), 1);
        s.as_mut().await;
        assert!(Instant::now() >= target);
        // Re-arm a completed sleep.
        let again = Instant::now() + Duration::from_millis(5);
        s.as_mut().reset(again);
        assert!(!s.is_elapsed());
        s.as_mut().await;
        assert!(Instant::now() >= again);
        // The completing poll freed the entry (so the drop takes no lock).
        assert_eq!(entries(), 0);
        drop(s);
        assert_eq!(entries(), 0);
    });
}

/// Compile-time: the timer types are `Send + Sync`; `Interval` and `Elapsed` are `Unpin`,
/// `Sleep` and `Timeout` are not (tokio's auto traits; `tests/auto_traits.rs` checks the
/// negative side).
#[test]
fn timer_types_are_send_sync() {
    fn check<T: Send + Sync>() {}
    fn unpin<T: Unpin>() {}
    check::<Sleep>();
    check::<crate::time::Interval>();
    check::<crate::time::Timeout<std::future::Ready<()>>>();
    check::<crate::time::Elapsed>();
    unpin::<crate::time::Interval>();
    unpin::<crate::time::Elapsed>();
}

#[test]
fn a_blocking_task_lets_paused_time_advance_only_once_it_completed() {
    use std::sync::{mpsc, Arc, Mutex};
    // Each release of a paused clock's guard records whether the blocking task that held
    // it had completed (its `JoinHandle` sees the output): released before that, the driver
    // could auto-advance and fire timers while the task's waiter still sees it running.
    let handle: Arc<Mutex<Option<crate::task::JoinHandle<()>>>> = Arc::default();
    let seen: Arc<Mutex<Vec<bool>>> = Arc::default();
    {
        let (handle, seen) = (handle.clone(), seen.clone());
        *super::clock::ON_RELEASE.lock().unwrap() = Some(Box::new(move || {
            if let Some(h) = &*handle.lock().unwrap() {
                seen.lock().unwrap().push(h.is_finished());
            }
        }));
    }
    let rt = Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let task = crate::task::spawn_blocking(move || go_rx.recv().unwrap());
        *handle.lock().unwrap() = Some(task);
        go_tx.send(()).unwrap();
        // Watchdog: the release comes within moments; fail rather than hang.
        let start = std::time::Instant::now();
        while seen.lock().unwrap().is_empty() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "the blocking task's guard was never released"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    });
    *super::clock::ON_RELEASE.lock().unwrap() = None;
    assert_eq!(
        *seen.lock().unwrap(),
        [true],
        "the guard let time advance before the blocking task's completion was published"
    );
}
