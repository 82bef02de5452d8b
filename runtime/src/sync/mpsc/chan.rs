//! The state both flavors of `mpsc` channel share: the queue, the capacity accounting
//! (the "semaphore": permits for the bounded flavor, nothing for the unbounded one), the
//! receiver's waker, the sender counts and the senders waiting in `closed()`.
//!
//! Closing: the channel is closed for sending once the receiver closes it or is dropped
//! (the semaphore's CLOSED bit; the unbounded flavor's is in its list's claim word), and
//! done for the receiver once it is empty and either every sender is gone
//! (`tx_count == 0`) or it is closed and idle (no message queued or reserved: a permit
//! taken before the close may still send; an unbounded claim made before the close is
//! still written). Every sender's last act on the queue
//! (a push) comes before its release decrement of `tx_count`, so a receiver that reads zero
//! with Acquire and then finds the queue empty has seen every message.
//!
//! Wake-ups of the receiver: every push, the last sender's drop, and capacity returned to a
//! closed channel (an unused permit, or a cancelled `reserve`/`send` that had been granted
//! room) wake it through the [`AtomicWaker`]; the one returning capacity gives it back
//! before it looks whether the channel is now closed and idle, and the receiver registers
//! before its last look at the queue and the counters, so none is lost. The receiver's
//! drop takes its registered waker out and drops it, so a receiving task is not kept alive
//! by the senders that outlive its receiver.
//!
//! Messages are dropped once: by the receiver (taken, or drained when it is dropped), or by
//! the queue's own `Drop` with the last `Arc` (messages sent after the receiver left). A
//! message whose `Drop` panics does not stop either drain: the rest are still dropped while
//! the panic unwinds, and the panic then goes on to the dropping code.

use std::task::{Context, Poll};

use shim::sync::atomic::{
    AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};
use shim::sync::Mutex;

use super::list::List;
use super::ring::Ring;
use super::semaphore::{Bounded, Unbounded};
use crate::sync::atomic_waker::AtomicWaker;
use crate::sync::wait_list::{notify_all, WaitList, Waiter};
use crate::sync::{poll_budget, spend_budget};

/// What one look at the queue found.
pub enum Pop<T> {
    Value(T),
    Empty,
    /// A producer claimed the next position but has not written it yet.
    Busy,
}

/// A many-producer, one-consumer queue.
// Public only as a doc-hidden export for the loom suites (`mpsc/mod.rs`); no caller asks a
// queue whether it is empty, so there is no `is_empty` to go with `len`.
#[allow(clippy::len_without_is_empty)]
pub trait Queue<T> {
    /// # Safety
    /// The caller is the one consumer.
    unsafe fn pop(&self) -> Pop<T>;
    /// # Safety
    /// The caller is the one consumer.
    unsafe fn len(&self) -> usize;
}

/// The capacity accounting of one flavor, and the queue that goes with it. The unbounded
/// flavor keeps its closed state in its queue (`list`'s `tail_pos`), so each method gets
/// the queue too.
pub(crate) trait Semaphore {
    type Queue<T>: Queue<T>;
    fn new_queue<T>(&self) -> Self::Queue<T>;
    /// The receiver took one message.
    fn add_permit(&self);
    /// # Safety
    /// Called by the receiver.
    unsafe fn close<T>(&self, queue: &Self::Queue<T>);
    fn is_closed<T>(&self, queue: &Self::Queue<T>) -> bool;
    /// Closed, and no message is queued or reserved (nothing more can arrive).
    ///
    /// # Safety
    /// Called by the receiver.
    unsafe fn is_closed_and_idle<T>(&self, queue: &Self::Queue<T>) -> bool;
}

impl Semaphore for Bounded {
    type Queue<T> = Ring<T>;
    fn new_queue<T>(&self) -> Ring<T> {
        Ring::new(self.bound())
    }
    fn add_permit(&self) {
        self.release(1)
    }
    unsafe fn close<T>(&self, _: &Ring<T>) {
        Bounded::close(self)
    }
    fn is_closed<T>(&self, _: &Ring<T>) -> bool {
        Bounded::is_closed(self)
    }
    unsafe fn is_closed_and_idle<T>(&self, _: &Ring<T>) -> bool {
        Bounded::is_closed(self) && Bounded::is_idle(self)
    }
}

impl Semaphore for Unbounded {
    type Queue<T> = List<T>;
    fn new_queue<T>(&self) -> List<T> {
        List::new()
    }
    fn add_permit(&self) {}
    unsafe fn close<T>(&self, queue: &List<T>) {
        // SAFETY: the caller is the receiver, the list's one consumer.
        unsafe { queue.close() }
    }
    fn is_closed<T>(&self, queue: &List<T>) -> bool {
        queue.is_closed()
    }
    unsafe fn is_closed_and_idle<T>(&self, queue: &List<T>) -> bool {
        // SAFETY: the caller is the receiver, the list's one consumer.
        unsafe { queue.is_closed_and_drained() }
    }
}

pub(crate) struct Chan<T, S: Semaphore> {
    pub(crate) sem: S,
    pub(crate) queue: S::Queue<T>,
    rx_waker: AtomicWaker,
    /// Live senders (`Sender`s and `OwnedPermit`s: a `Permit` borrows a sender).
    tx_count: AtomicUsize,
    /// Live weak senders.
    weak_count: AtomicUsize,
    /// Senders waiting in `closed()`.
    closed_waiters: Mutex<WaitList<()>>,
}

// tokio's: the channel's state changes are atomic (or under its locks), so a panic
// caught around a sender or receiver leaves it consistent.
impl<T, S: Semaphore> std::panic::UnwindSafe for Chan<T, S> {}
impl<T, S: Semaphore> std::panic::RefUnwindSafe for Chan<T, S> {}

// SAFETY: the queue moves messages between threads (T: Send) and is accessed as its module
// doc says; the rest is atomics and locks.
unsafe impl<T: Send, S: Semaphore + Send> Send for Chan<T, S> {}
// SAFETY: as above.
unsafe impl<T: Send, S: Semaphore + Sync> Sync for Chan<T, S> {}

impl<T, S: Semaphore> Chan<T, S> {
    pub(crate) fn new(sem: S) -> Chan<T, S> {
        Chan {
            queue: sem.new_queue(),
            sem,
            rx_waker: AtomicWaker::new(),
            tx_count: AtomicUsize::new(1),
            weak_count: AtomicUsize::new(0),
            closed_waiters: Mutex::new(WaitList::new()),
        }
    }

    // ----- senders -----

    pub(crate) fn inc_tx(&self) {
        self.tx_count.fetch_add(1, Relaxed);
    }

    /// A sender is gone; the last one wakes the receiver (it may be done).
    pub(crate) fn dec_tx(&self) {
        // Release: orders this sender's pushes before the receiver's Acquire of zero. No
        // Acquire: the last sender reads nothing on the count's strength (it wakes the
        // receiver through the AtomicWaker, whose own protocol orders the wake).
        if self.tx_count.fetch_sub(1, Release) == 1 {
            self.rx_waker.wake();
        }
    }

    /// Makes a strong sender from a weak one, unless every sender is gone.
    pub(crate) fn try_inc_tx(&self) -> bool {
        let mut n = self.tx_count.load(Relaxed);
        loop {
            if n == 0 {
                return false;
            }
            match self
                .tx_count
                .compare_exchange_weak(n, n + 1, Relaxed, Relaxed)
            {
                Ok(_) => return true,
                Err(now) => n = now,
            }
        }
    }

    pub(crate) fn strong_count(&self) -> usize {
        self.tx_count.load(Relaxed)
    }

    pub(crate) fn weak_count(&self) -> usize {
        self.weak_count.load(Relaxed)
    }

    pub(crate) fn inc_weak(&self) {
        self.weak_count.fetch_add(1, Relaxed);
    }

    pub(crate) fn dec_weak(&self) {
        self.weak_count.fetch_sub(1, Relaxed);
    }

    /// Waits until the receiver closed the channel or is gone (`Sender::closed`).
    pub(crate) async fn closed(&self) {
        let mut waiter = Waiter::new(&self.closed_waiters);
        std::future::poll_fn(|cx| waiter.poll_until(cx, || self.sem.is_closed(&self.queue))).await
    }

    // ----- the receiver (one at a time: `&mut Receiver`) -----

    /// Closes the channel for sending; wakes the senders waiting for capacity (they fail)
    /// and those waiting in `closed()`.
    ///
    /// # Safety
    /// The caller is the receiver.
    pub(crate) unsafe fn close(&self) {
        // SAFETY: the caller is the receiver.
        unsafe { self.sem.close(&self.queue) };
        notify_all(&self.closed_waiters);
    }

    /// True when nothing more can arrive (see the module doc); the caller looks at the
    /// queue once more afterwards.
    ///
    /// # Safety
    /// The caller is the receiver.
    unsafe fn is_done(&self) -> bool {
        // Acquire: pairs with the senders' release decrements (their pushes).
        // SAFETY: the caller is the receiver.
        self.tx_count.load(Acquire) == 0 || unsafe { self.sem.is_closed_and_idle(&self.queue) }
    }

    /// Takes one message, waiting out a producer caught between claim and write.
    ///
    /// # Safety
    /// The caller is the receiver.
    unsafe fn pop_wait(&self) -> Option<T> {
        loop {
            // SAFETY: the caller is the receiver.
            match unsafe { self.queue.pop() } {
                Pop::Value(v) => {
                    self.sem.add_permit();
                    return Some(v);
                }
                Pop::Empty => return None,
                // The producer is a few instructions from done (it runs no user code
                // between claim and write); let it finish.
                Pop::Busy => shim::thread::yield_now(),
            }
        }
    }

    /// Takes one message if one is there.
    ///
    /// # Safety
    /// The caller is the receiver.
    unsafe fn pop(&self) -> Option<T> {
        // SAFETY: the caller is the receiver.
        match unsafe { self.queue.pop() } {
            Pop::Value(v) => {
                self.sem.add_permit();
                Some(v)
            }
            Pop::Empty | Pop::Busy => None,
        }
    }

    /// # Safety
    /// The caller is the receiver.
    pub(crate) unsafe fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        std::task::ready!(poll_budget(cx));
        // SAFETY: the caller is the receiver, the one consumer `pop` requires.
        if let Some(v) = unsafe { self.pop() } {
            spend_budget(cx);
            return Poll::Ready(Some(v));
        }
        self.rx_waker.register(cx.waker());
        // SAFETY: as above, the caller is the receiver.
        if let Some(v) = unsafe { self.pop() } {
            spend_budget(cx);
            return Poll::Ready(Some(v));
        }
        // SAFETY: as above, the caller is the receiver.
        if unsafe { self.is_done() } {
            // SAFETY: as above, the caller is the receiver, the one consumer `pop_wait`
            // requires.
            let v = unsafe { self.pop_wait() };
            spend_budget(cx);
            return Poll::Ready(v);
        }
        Poll::Pending
    }

    /// Moves up to `limit` messages into `buf`, waiting for the first.
    ///
    /// # Safety
    /// The caller is the receiver.
    pub(crate) unsafe fn poll_recv_many(
        &self,
        cx: &mut Context<'_>,
        buf: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        if limit == 0 {
            return Poll::Ready(0);
        }
        // SAFETY: the caller is the receiver.
        match unsafe { self.poll_recv(cx) } {
            Poll::Pending => Poll::Pending,
            Poll::Ready(None) => Poll::Ready(0),
            Poll::Ready(Some(v)) => {
                // Room for what is there now (claims in flight included), not for `limit`:
                // a large limit on a quiet channel does not grow the buffer.
                // SAFETY: the caller is the receiver.
                let queued = unsafe { self.queue.len() };
                buf.reserve(queued.min(limit - 1) + 1);
                buf.push(v);
                let mut n = 1;
                while n < limit {
                    // SAFETY: the caller is the receiver.
                    match unsafe { self.pop() } {
                        Some(v) => {
                            buf.push(v);
                            n += 1;
                        }
                        None => break,
                    }
                }
                Poll::Ready(n)
            }
        }
    }

    /// `Ok(Some)`: a message; `Ok(None)`: empty for now; `Err(())`: done.
    ///
    /// # Safety
    /// The caller is the receiver.
    pub(crate) unsafe fn try_recv(&self) -> Result<Option<T>, ()> {
        // SAFETY: the caller is the receiver.
        if let Some(v) = unsafe { self.pop_wait() } {
            return Ok(Some(v));
        }
        // SAFETY: as above.
        if unsafe { self.is_done() } {
            // SAFETY: as above.
            return unsafe { self.pop_wait() }.map(Some).ok_or(());
        }
        Ok(None)
    }

    /// Whether the receiver sees the channel closed (closed by it, or every sender gone).
    pub(crate) fn rx_is_closed(&self) -> bool {
        // Acquire: a receiver told "closed" because every sender is gone sees what they
        // wrote before leaving (their Release decrements), as `is_done` does (the loom
        // model `receiver_is_closed_happens_after_the_last_sender_left`).
        self.sem.is_closed(&self.queue) || self.tx_count.load(Acquire) == 0
    }

    /// The receiver is dropped: close, drop the registered waker, and drop what is queued
    /// now (a message still being written goes with the queue). A message whose `Drop`
    /// panics does not keep the others queued: the guard drains them while the panic
    /// unwinds.
    ///
    /// # Safety
    /// The caller is the receiver.
    pub(crate) unsafe fn rx_drop(&self) {
        // SAFETY: the caller is the receiver.
        unsafe { self.close() };
        // No registration follows (the receiver is going): the waker, and the task it
        // keeps alive, go now rather than with the last sender.
        drop(self.rx_waker.take());
        struct Drain<'a, T, S: Semaphore>(&'a Chan<T, S>);
        impl<T, S: Semaphore> Drain<'_, T, S> {
            fn run(&mut self) {
                // SAFETY: `rx_drop`'s caller is the receiver, and the guard lives in it.
                // `pop` takes each message out (and returns its permit) before it is
                // dropped, so a message whose drop panics is not dropped again.
                while let Some(v) = unsafe { self.0.pop() } {
                    drop(v);
                }
            }
        }
        impl<T, S: Semaphore> Drop for Drain<'_, T, S> {
            fn drop(&mut self) {
                // Reached with messages left only while a message's drop unwinds.
                self.run();
            }
        }
        Drain(self).run();
    }
}

impl<T> Chan<T, Bounded> {
    /// Pushes a message the caller holds a permit for, and wakes the receiver.
    pub(crate) fn push(&self, value: T) {
        self.queue.push(value);
        self.rx_waker.wake();
    }

    /// Capacity came back unused (called after it is back in the semaphore): if the
    /// receiver closed the channel it may now be done.
    pub(crate) fn permit_returned(&self) {
        if self.sem.is_closed() && self.sem.is_idle() {
            self.rx_waker.wake();
        }
    }
}

impl<T> Chan<T, Unbounded> {
    /// Sends `value` and wakes the receiver, unless the channel is closed (then gives the
    /// value back).
    pub(crate) fn try_push(&self, value: T) -> Result<(), T> {
        self.queue.try_push(value)?;
        self.rx_waker.wake();
        Ok(())
    }

    /// The number of messages queued (claims in flight included).
    ///
    /// # Safety
    /// The caller is the receiver.
    pub(crate) unsafe fn len(&self) -> usize {
        // SAFETY: the caller is the receiver, the list's one consumer.
        unsafe { self.queue.len() }
    }
}
