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
//!
//! This file holds the shared state and the senders' side; the receiver's side (its
//! receives, `close`, the drain at its drop) is `handle::Rx`, the channel's one consumer.

use shim::sync::atomic::{
    AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};
use shim::sync::Mutex;

use super::list::List;
use super::queue::Queue;
use super::ring::Ring;
use super::semaphore::{Bounded, Unbounded};
use crate::sync::atomic_waker::AtomicWaker;
use crate::sync::wait_list::{WaitList, Waiter, WaiterList};

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
    pub(super) rx_waker: AtomicWaker,
    /// Live senders (`Sender`s and `OwnedPermit`s: a `Permit` borrows a sender).
    pub(super) tx_count: AtomicUsize,
    /// Live weak senders.
    weak_count: AtomicUsize,
    /// Senders waiting in `closed()`.
    pub(super) closed_waiters: WaiterList,
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
        let object = self as *const Self as usize;
        let mut waiter = Waiter::new(
            &self.closed_waiters,
            task::waits::WaitKind::MpscClosed,
            object,
        );
        std::future::poll_fn(|cx| waiter.poll_until(cx, || self.sem.is_closed(&self.queue))).await
    }

    /// Whether the receiver sees the channel closed (closed by it, or every sender gone).
    pub(crate) fn rx_is_closed(&self) -> bool {
        // Acquire: a receiver told "closed" because every sender is gone sees what they
        // wrote before leaving (their Release decrements), as `Rx::is_done` does (the loom
        // model `receiver_is_closed_happens_after_the_last_sender_left`).
        self.sem.is_closed(&self.queue) || self.tx_count.load(Acquire) == 0
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
}
