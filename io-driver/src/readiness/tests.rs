//! Unit tests of `ScheduledIo`: readiness set and cleared across ticks and generations,
//! waiters woken by the events their waits ask for, shutdown.

use super::*;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::task::Wake;

struct Count(AtomicUsize);
impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn waker() -> (Arc<Count>, Waker) {
    let c = Arc::new(Count(AtomicUsize::new(0)));
    (c.clone(), Waker::from(c))
}

#[test]
fn stale_tick_clear_keeps_newer_event() {
    let io = ScheduledIo::default();
    let (_c, w) = waker();
    let mut cx = Context::from_waker(&w);
    assert!(io.set_readiness(0, 1, Ready::READABLE));
    let ev = match io.poll_ready(&mut cx, Direction::Read) {
        Poll::Ready(Ok(ev)) => ev,
        other => panic!("expected ready, got {other:?}"),
    };
    assert_eq!(ev.tick(), 1);
    // A new event arrives (tick 2) between the WouldBlock and the clear.
    assert!(io.set_readiness(0, 2, Ready::READABLE));
    io.clear_readiness(ev);
    assert!(io.readiness().is_readable(), "newer event was erased");
    // Clearing with the current tick does clear.
    let ev2 = match io.poll_ready(&mut cx, Direction::Read) {
        Poll::Ready(Ok(ev)) => ev,
        other => panic!("expected ready, got {other:?}"),
    };
    assert_eq!(ev2.tick(), 2);
    io.clear_readiness(ev2);
    assert!(!io.readiness().is_readable());
    assert!(io.poll_ready(&mut cx, Direction::Read).is_pending());
}

#[test]
fn closed_bits_are_sticky_and_directions_are_separate() {
    let io = ScheduledIo::default();
    let (rc, rw) = waker();
    let (wc, ww) = waker();
    assert!(io
        .poll_ready(&mut Context::from_waker(&rw), Direction::Read)
        .is_pending());
    assert!(io
        .poll_ready(&mut Context::from_waker(&ww), Direction::Write)
        .is_pending());
    assert!(io.set_readiness(0, 1, Ready::WRITABLE));
    let mut out = Vec::new();
    io.take_wakers(0, Ready::WRITABLE, &mut out);
    assert_eq!(out.len(), 1);
    out.drain(..).for_each(Waker::wake);
    assert_eq!(rc.0.load(Ordering::SeqCst), 0);
    assert_eq!(wc.0.load(Ordering::SeqCst), 1);

    assert!(io.set_readiness(0, 2, Ready::READABLE | Ready::READ_CLOSED));
    let ev = match io.poll_ready(&mut Context::from_waker(&rw), Direction::Read) {
        Poll::Ready(Ok(ev)) => ev,
        other => panic!("expected ready, got {other:?}"),
    };
    io.clear_readiness(ev);
    let left = io.readiness();
    assert!(!left.is_readable());
    assert!(left.is_read_closed());
    assert!(io
        .poll_ready(&mut Context::from_waker(&rw), Direction::Read)
        .is_ready());
}

#[test]
fn stale_generation_is_rejected() {
    let io = ScheduledIo::default();
    let (c, w) = waker();
    assert_eq!(io.generation(), 0);
    let _ = io.reset();
    assert_eq!(io.generation(), 1);
    assert!(io
        .poll_ready(&mut Context::from_waker(&w), Direction::Read)
        .is_pending());
    assert!(!io.set_readiness(0, 1, Ready::READABLE));
    let mut out = Vec::new();
    io.take_wakers(0, Ready::READABLE, &mut out);
    assert!(out.is_empty());
    assert!(io.readiness().is_empty());
    assert_eq!(c.0.load(Ordering::SeqCst), 0);
}

#[test]
fn shutdown_wakes_and_errors() {
    let io = ScheduledIo::default();
    let (c, w) = waker();
    assert!(io
        .poll_ready(&mut Context::from_waker(&w), Direction::Write)
        .is_pending());
    let mut out = Vec::new();
    io.shutdown(&mut out);
    out.drain(..).for_each(Waker::wake);
    assert_eq!(c.0.load(Ordering::SeqCst), 1);
    match io.poll_ready(&mut Context::from_waker(&w), Direction::Write) {
        Poll::Ready(Err(e)) => assert!(e.to_string().contains("shutting down")),
        other => panic!("expected shutdown error, got {other:?}"),
    }
}

/// The driver sets readiness and looks for a waker after the poller's first load but
/// before the poller registered: the poller's re-check under the lock must catch it.
#[test]
fn readiness_set_while_poller_waits_for_the_lock_is_not_lost() {
    let io = Arc::new(ScheduledIo::default());
    let guard = io.waiters.lock();
    let io2 = io.clone();
    let poller = std::thread::spawn(move || {
        let (c, w) = waker();
        let res = io2.poll_ready(&mut Context::from_waker(&w), Direction::Read);
        (res.is_ready(), c)
    });
    // Let the poller pass its lock-free load and block on the mutex (if it is slower,
    // it simply sees the readiness in its first load and the test passes trivially).
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert!(io.set_readiness(0, 1, Ready::READABLE));
    // What `take_wakers` does, done under the held guard: nothing registered yet.
    assert_eq!(guard.count(Direction::Read), 0);
    drop(guard);
    let (ready, count) = poller.join().unwrap();
    assert!(
        ready,
        "poller registered too late and returned Pending: wakeup lost"
    );
    assert_eq!(count.0.load(Ordering::SeqCst), 0);
}

#[test]
fn same_task_waker_is_not_recloned() {
    let io = ScheduledIo::default();
    let (c, w) = waker();
    let mut cx = Context::from_waker(&w);
    for _ in 0..3 {
        assert!(io.poll_ready(&mut cx, Direction::Read).is_pending());
    }
    // Only the original plus one stored clone exist.
    drop(w);
    assert_eq!(Arc::strong_count(&c), 2);
}

fn pending(io: &ScheduledIo, w: &Waker, dir: Direction) {
    assert!(io.poll_ready(&mut Context::from_waker(w), dir).is_pending());
}

fn woken(counts: &[Arc<Count>]) -> Vec<usize> {
    counts.iter().map(|c| c.0.load(Ordering::SeqCst)).collect()
}

#[test]
fn every_waiter_of_a_direction_is_woken_and_only_once_listed() {
    let io = ScheduledIo::default();
    let (counts, wakers): (Vec<_>, Vec<_>) = (0..5).map(|_| waker()).unzip();
    for w in &wakers {
        pending(&io, w, Direction::Read);
        pending(&io, w, Direction::Read); // polling again adds nothing
    }
    let (wc, ww) = waker();
    pending(&io, &ww, Direction::Write);
    assert_eq!(io.waiters.lock().count(Direction::Read), 5);
    assert_eq!(io.waiters.lock().count(Direction::Write), 1);

    assert!(io.set_readiness(0, 1, Ready::READABLE));
    let mut out = Vec::new();
    io.take_wakers(0, Ready::READABLE, &mut out);
    assert_eq!(out.len(), 5);
    out.drain(..).for_each(Waker::wake);
    assert_eq!(woken(&counts), [1; 5]);
    assert_eq!(wc.0.load(Ordering::SeqCst), 0, "the writer waits on");
    assert_eq!(io.waiters.lock().count(Direction::Read), 0);
    assert_eq!(io.waiters.lock().count(Direction::Write), 1);
}

#[test]
fn a_mask_wait_sees_closed_error_and_priority_and_is_woken_by_them() {
    let io = ScheduledIo::default();
    // Error alone: a read-side wait, woken by an error event.
    let (ec, ew) = waker();
    let err = Ready::ERROR;
    assert!(io
        .poll_ready_mask(&mut Context::from_waker(&ew), err)
        .is_pending());
    // Priority alone, and a write-side wait on write-closed.
    let (pc, pw) = waker();
    assert!(io
        .poll_ready_mask(&mut Context::from_waker(&pw), Ready::PRIORITY)
        .is_pending());
    let (wc, ww) = waker();
    assert!(io
        .poll_ready_mask(&mut Context::from_waker(&ww), Ready::WRITE_CLOSED)
        .is_pending());
    // A readable event does not satisfy the error wait, but wakes the read side.
    assert!(io.set_readiness(0, 1, Ready::READABLE));
    let mut out = Vec::new();
    io.take_wakers(0, Ready::READABLE, &mut out);
    out.drain(..).for_each(Waker::wake);
    assert_eq!(woken(&[ec.clone(), pc.clone(), wc.clone()]), [1, 1, 0]);
    assert!(io
        .poll_ready_mask(&mut Context::from_waker(&ew), err)
        .is_pending());
    assert!(io.set_readiness(0, 2, Ready::ERROR | Ready::PRIORITY));
    io.take_wakers(0, Ready::ERROR | Ready::PRIORITY, &mut out);
    out.drain(..).for_each(Waker::wake);
    // The error wakes the write side too.
    assert_eq!(woken(&[ec, pc, wc]), [2, 1, 1]);
    match io.poll_ready_mask(&mut Context::from_waker(&ew), err) {
        Poll::Ready(Ok(ev)) => assert_eq!(ev.ready(), Ready::ERROR),
        other => panic!("expected the error, got {other:?}"),
    }
    match io.poll_ready_mask(
        &mut Context::from_waker(&pw),
        Ready::PRIORITY | Ready::READ_CLOSED,
    ) {
        Poll::Ready(Ok(ev)) => {
            assert_eq!(ev.ready(), Ready::PRIORITY);
            // Clearing only what was asked leaves readable alone.
            io.clear_readiness(ev.with_ready(Ready::PRIORITY));
            assert_eq!(io.readiness(), Ready::READABLE | Ready::ERROR);
        }
        other => panic!("expected priority, got {other:?}"),
    }
    assert!(io.set_readiness(0, 3, Ready::READ_CLOSED));
    match io.poll_ready_mask(
        &mut Context::from_waker(&pw),
        Ready::READABLE | Ready::READ_CLOSED,
    ) {
        Poll::Ready(Ok(ev)) => assert_eq!(ev.ready(), Ready::READABLE | Ready::READ_CLOSED),
        other => panic!("expected readable and read-closed, got {other:?}"),
    }
}

#[test]
fn an_entry_is_one_cache_line() {
    assert!(
        std::mem::size_of::<ScheduledIo>() <= 64,
        "one cache line per entry"
    );
}

#[test]
fn reset_and_shutdown_hand_over_every_waiter() {
    let io = ScheduledIo::default();
    let (counts, wakers): (Vec<_>, Vec<_>) = (0..3).map(|_| waker()).unzip();
    for w in &wakers {
        pending(&io, w, Direction::Read);
        pending(&io, w, Direction::Write);
    }
    let mut out = Vec::new();
    io.shutdown(&mut out);
    assert_eq!(out.len(), 6);
    out.drain(..).for_each(Waker::wake);
    assert_eq!(woken(&counts), [2; 3]);

    let io = ScheduledIo::default();
    for w in &wakers {
        pending(&io, w, Direction::Read);
    }
    let waiters = io.reset();
    assert_eq!(waiters.count(Direction::Read), 3);
    assert_eq!(io.waiters.lock().count(Direction::Read), 0);
    drop(waiters);
    // Dropped, not woken; the wakers' counts are back to our handles only.
    assert_eq!(woken(&counts), [2; 3]);
    assert!(counts.iter().all(|c| Arc::strong_count(c) == 2));
}
