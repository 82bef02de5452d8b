//! Timers through the real driver: order, never early, cancel, reset, past deadlines, and the
//! re-arm of a driver parked with a longer timeout.

mod common;

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use common::{noop_cx, wait_until, DriverThread, Recorder, Rng};
use io_driver::Driver;

/// Records, in wake order, `(id, deadline, instant woken)` into a shared log.
struct LogWaker {
    id: usize,
    deadline: Instant,
    log: Arc<Mutex<Vec<(usize, Instant, Instant)>>>,
}

impl Wake for LogWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref()
    }
    fn wake_by_ref(self: &Arc<Self>) {
        let now = Instant::now();
        self.log.lock().unwrap().push((self.id, self.deadline, now));
    }
}

#[test]
fn random_deadlines_fire_in_order_and_never_early() {
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut rng = Rng::new(42);
    let base = Instant::now() + Duration::from_millis(50);
    let mut timers = Vec::new();
    let mut registered = 0;
    for id in 0..300 {
        let deadline = base + Duration::from_micros(rng.below(400_000));
        let mut timer = handle.timer(deadline);
        let waker = Waker::from(Arc::new(LogWaker {
            id,
            deadline,
            log: log.clone(),
        }));
        if timer
            .poll_elapsed(&mut Context::from_waker(&waker))
            .is_pending()
        {
            registered += 1;
        }
        timers.push(timer);
    }
    assert_eq!(handle.pending_timers(), registered);
    let _dt = DriverThread::spawn(driver);
    assert!(wait_until(|| log.lock().unwrap().len() >= registered));
    let log = log.lock().unwrap().clone();
    assert_eq!(log.len(), registered, "a waker fired twice");
    for &(id, deadline, woken) in &log {
        assert!(woken >= deadline, "timer {id} woken before its deadline");
    }
    // Deadline order, up to the 1 ms granularity of a wheel slot.
    for w in log.windows(2) {
        assert!(
            w[1].1 + Duration::from_millis(1) > w[0].1,
            "timer {} (deadline {:?}) fired after timer {} (deadline {:?})",
            w[1].0,
            w[1].1,
            w[0].0,
            w[0].1
        );
    }
    for t in &mut timers {
        assert!(t.is_elapsed());
        assert_eq!(t.poll_elapsed(&mut noop_cx()), Poll::Ready(Ok(())));
    }
    assert_eq!(handle.pending_timers(), 0);
    drop(timers);
    assert_eq!(handle.timer_entries(), 0);
}

#[test]
fn drop_cancels_and_leaves_the_wheel_empty() {
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let far = Instant::now() + Duration::from_secs(3600);
    let mut timers: Vec<_> = (0..100u64)
        .map(|i| handle.timer(far + Duration::from_millis(i * 997)))
        .collect();
    assert_eq!(
        handle.timer_entries(),
        0,
        "creating a timer takes no wheel entry"
    );
    for t in &mut timers {
        assert!(t.poll_elapsed(&mut noop_cx()).is_pending());
    }
    assert_eq!(handle.timer_entries(), 100);
    timers.truncate(50);
    assert_eq!(handle.timer_entries(), 50);
    assert_eq!(handle.pending_timers(), 50);
    drop(timers);
    assert_eq!(handle.timer_entries(), 0);
    assert_eq!(handle.pending_timers(), 0);
    drop(driver);
}

#[test]
fn reset_earlier_rearms_a_driver_parked_without_timeout() {
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let mut timer = handle.timer(Instant::now() + Duration::from_secs(3600));
    let (rec, waker) = Recorder::new();
    assert!(timer
        .poll_elapsed(&mut Context::from_waker(&waker))
        .is_pending());
    // This driver only wakes for I/O, timers and unpark.
    let _dt = DriverThread::spawn_with(driver, None);
    std::thread::sleep(Duration::from_millis(20));
    let deadline = Instant::now() + Duration::from_millis(30);
    timer.reset(deadline);
    assert_eq!(timer.deadline(), deadline);
    assert!(
        rec.wait_for(1),
        "reset earlier did not re-arm the parked driver"
    );
    assert!(rec.first_wake().unwrap() >= deadline);
    assert_eq!(timer.poll_elapsed(&mut noop_cx()), Poll::Ready(Ok(())));
}

#[test]
fn reset_later_does_not_fire_at_the_old_deadline() {
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let mut timer = handle.timer(Instant::now() + Duration::from_millis(20));
    let (rec, waker) = Recorder::new();
    assert!(timer
        .poll_elapsed(&mut Context::from_waker(&waker))
        .is_pending());
    let later = Instant::now() + Duration::from_millis(150);
    timer.reset(later);
    let _dt = DriverThread::spawn(driver);
    assert!(rec.wait_for(1));
    assert!(
        rec.first_wake().unwrap() >= later,
        "fired at the old deadline"
    );
    assert!(timer.is_elapsed());
    // A fired timer can be re-armed.
    let again = Instant::now() + Duration::from_millis(20);
    timer.reset(again);
    assert!(!timer.is_elapsed() || Instant::now() >= again);
    assert!(wait_until(|| timer.poll_elapsed(&mut noop_cx()).is_ready()));
    assert!(Instant::now() >= again);
}

#[test]
fn foreign_poll_rearms_a_parked_driver() {
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let _dt = DriverThread::spawn_with(driver, None);
    for round in 0..5 {
        std::thread::sleep(Duration::from_millis(10));
        let deadline = Instant::now() + Duration::from_millis(25);
        let mut timer = handle.timer(deadline);
        let (rec, waker) = Recorder::new();
        assert!(timer
            .poll_elapsed(&mut Context::from_waker(&waker))
            .is_pending());
        assert!(
            rec.wait_for(1),
            "round {round}: parked driver never re-armed"
        );
        assert!(rec.first_wake().unwrap() >= deadline);
    }
}

#[test]
fn past_deadlines_fire_on_next_park() {
    let mut driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    // Already past when first polled: ready at once, no wheel entry.
    let mut past = handle.timer(Instant::now() - Duration::from_millis(5));
    assert_eq!(past.poll_elapsed(&mut noop_cx()), Poll::Ready(Ok(())));
    assert_eq!(handle.timer_entries(), 0);

    // In the wheel, and its deadline passes while nobody parks: the next park fires it
    // (and does not block, even with no timeout).
    let deadline = Instant::now() + Duration::from_millis(10);
    let mut t = handle.timer(deadline);
    let (rec, waker) = Recorder::new();
    assert!(t
        .poll_elapsed(&mut Context::from_waker(&waker))
        .is_pending());
    std::thread::sleep(Duration::from_millis(30));
    driver.park(None);
    assert_eq!(rec.count(), 1);
    assert!(rec.first_wake().unwrap() >= deadline);

    // Due but the driver has not run: a poll completes it by itself.
    let deadline = Instant::now() + Duration::from_millis(5);
    let mut u = handle.timer(deadline);
    assert!(u.poll_elapsed(&mut noop_cx()).is_pending());
    std::thread::sleep(Duration::from_millis(15));
    assert_eq!(u.poll_elapsed(&mut noop_cx()), Poll::Ready(Ok(())));
    assert_eq!(handle.pending_timers(), 0);
    drop((t, u));
    assert_eq!(handle.timer_entries(), 0);
}

#[test]
fn a_due_timer_first_polled_after_shutdown_reports_shutdown() {
    let mut driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    // Due, never polled: before the shutdown its first poll would complete at once
    // (`past_deadlines_fire_on_next_park`); after it, it reports the shutdown as tokio's
    // timers do (`poll_elapsed` checks `Handle::is_shutdown` before the shortcut).
    let mut due = handle.timer(Instant::now() - Duration::from_millis(5));
    driver.shutdown();
    assert_eq!(
        due.poll_elapsed(&mut noop_cx()),
        Poll::Ready(Err(io_driver::TimerShutdown)),
        "a due timer polled after the shutdown completed as if the driver ran"
    );
    assert_eq!(handle.timer_entries(), 0);
}

#[test]
fn far_future_timer_stays_pending_across_parks() {
    let mut driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let mut t = handle.timer(Instant::now() + Duration::from_secs(5 * 3600));
    let (rec, waker) = Recorder::new();
    assert!(t
        .poll_elapsed(&mut Context::from_waker(&waker))
        .is_pending());
    for _ in 0..10 {
        driver.park(Some(Duration::from_millis(2)));
    }
    assert_eq!(rec.count(), 0);
    assert!(!t.is_elapsed());
    assert_eq!(handle.pending_timers(), 1);
}

#[test]
fn block_on_sleep() {
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let _dt = DriverThread::spawn(driver);
    let deadline = Instant::now() + Duration::from_millis(40);
    let mut timer = handle.timer(deadline);
    futures::executor::block_on(std::future::poll_fn(|cx| timer.poll_elapsed(cx))).unwrap();
    assert!(Instant::now() >= deadline);
}

/// Several threads sleep on short timers over and over while the driver parks with no
/// timeout of its own: every sleep must end (no lost re-arm), none early.
#[test]
fn concurrent_sleepers_never_hang_or_wake_early() {
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let _dt = DriverThread::spawn_with(driver, None);
    let (tx, rx) = std::sync::mpsc::channel();
    for t in 0..4u64 {
        let handle = handle.clone();
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut rng = Rng::new(t + 100);
            for _ in 0..100 {
                let deadline = Instant::now() + Duration::from_micros(rng.below(3_000));
                let mut timer = handle.timer(deadline);
                futures::executor::block_on(std::future::poll_fn(|cx| timer.poll_elapsed(cx)))
                    .unwrap();
                assert!(Instant::now() >= deadline);
            }
            tx.send(()).unwrap();
        });
    }
    for _ in 0..4 {
        rx.recv_timeout(common::EVENTUALLY * 3)
            .expect("a sleeper hung: lost re-arm");
    }
    assert_eq!(handle.timer_entries(), 0);
}

/// Timers inserted by many threads (every shard, several threads per shard) and then
/// polled, reset and dropped on another thread stay in the wheel they were inserted into:
/// each completes once, none early, and the wheels end empty.
#[test]
fn timers_moved_between_threads_complete_in_their_own_shard() {
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let _dt = DriverThread::spawn_with(driver, None);
    let (tx, rx) = std::sync::mpsc::channel();
    for t in 0..40u64 {
        let handle = handle.clone();
        let tx = tx.clone();
        std::thread::spawn(move || {
            let soon = Instant::now() + Duration::from_millis(5 + t % 7);
            let mut fires = handle.timer(soon);
            let mut dropped = handle.timer(Instant::now() + Duration::from_secs(3600));
            let mut moved = handle.timer(Instant::now() + Duration::from_secs(3600));
            for timer in [&mut fires, &mut dropped, &mut moved] {
                assert!(timer.poll_elapsed(&mut noop_cx()).is_pending());
            }
            tx.send((fires, dropped, moved)).unwrap();
        });
    }
    drop(tx);
    let mut pending = Vec::new();
    for _ in 0..40 {
        let (fires, dropped, mut moved) =
            rx.recv_timeout(common::EVENTUALLY).expect("a timer thread");
        drop(dropped);
        moved.reset(Instant::now() + Duration::from_millis(3));
        pending.push(fires);
        pending.push(moved);
    }
    for mut timer in pending {
        let deadline = timer.deadline();
        futures::executor::block_on(std::future::poll_fn(|cx| timer.poll_elapsed(cx))).unwrap();
        assert!(Instant::now() >= deadline);
    }
    assert_eq!(handle.timer_entries(), 0);
}
