//! A multi-producer, multi-consumer channel where every receiver sees every value, as
//! tokio's `sync::broadcast`: a bounded ring of `capacity` slots (rounded up to a power of
//! two). A receiver that falls more than a ring behind is told how many values it missed
//! ([`error::RecvError::Lagged`]) and resumes at the oldest value still kept.
//!
//! State: `tail` (behind a mutex: the next position to write, the closed flag, the list of
//! waiting receivers and the receiver count) and the slots, each behind a mutex holding
//! the position it was last written for, its value, and `rem`, the number of receivers yet
//! to read that value. A receiver clones the value under the slot's mutex, so receivers of
//! one value clone it one at a time and `T` need only be `Send` (tokio's bound: a value
//! is never touched from two threads at once, so it need not be `Sync`).
//!
//! Freeing: a send sets `rem` to the receiver count (under the tail lock, where receivers
//! join and leave), which counts exactly the receivers that will read the position: a
//! receiver joins at the tail, reads positions in order, and one that lags resumes at the
//! oldest kept. A receive moves its `next` past the value, clones it under the slot's
//! lock, then decrements `rem` (one RMW per receive, AcqRel, also when the clone panics);
//! the receive that brings it to zero takes the value out and drops it after releasing the
//! lock: every other reader has finished its clone (each decremented after cloning, and the
//! decrements form one release sequence), and no later reader touches the value. A
//! receiver that is dropped decrements the kept positions it has not read, in order. A
//! value is therefore dropped once every receiver has read it or is gone, when its slot is
//! overwritten, or with the channel: exactly once.
//!
//! [`Sender::len`] (values kept that some receiver alive when they were sent has not read)
//! reads the counts: receivers read and leave in order, and a receiver counted at a
//! position is counted at the next, so among the kept positions those with `rem > 0` are
//! the newest ones, and `len` finds where they start by binary search.
//!
//! Invariants:
//! - Slot `p & mask` holds position `p` exactly when its stamp says `p`; slot `i` starts
//!   stamped `i - len` (one lap before position `i`), so for a receiver at `next`, the
//!   stamp `next - len` means "not written yet" and anything else but `next` means
//!   "overwritten: lagged".
//! - A slot's value is touched only under the slot's lock: written by a send, read (cloned)
//!   only by a receiver counted in `rem` that has not decremented it, and taken out only by
//!   the one whose decrement reached zero.
//! - A sender writes a slot (under its lock) and advances `tail.pos` while holding the
//!   tail lock; a receiver that finds its slot not written yet looks again at `tail.pos`
//!   under the tail lock and only then registers its waker, so it cannot miss the send (which
//!   serves every waiting receive under that lock and wakes them after releasing it).
//! - A send (or the close) *serves* a waiting receive: it frees the receive's node and
//!   then marks the receive's own handoff word (wait_list.rs's `Handoff`), so the woken
//!   receive, reading that word, leaves without taking the tail lock again (tokio's
//!   receive does the same with its intrusive node's `queued` flag).
//!
//! Every wait that completes ready spends one unit of the task's cooperative budget.

use std::fmt;
use std::task::{Context, Poll};

use shim::cell::UnsafeCell;
use shim::sync::atomic::{
    AtomicUsize,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};
use shim::sync::{Arc, Mutex, MutexGuard};

use crate::sync::wait_list::{notify_all, Handoff, WaitList, Waiter, WaiterList, WakeList};
use crate::sync::{poll_budget, spend_budget};

pub mod error;
mod recv_wait;
mod weak;

use error::{RecvError, SendError, TryRecvError};
use recv_wait::{Recv, Wait, SERVED};
pub use weak::WeakSender;

struct Slot<T> {
    inner: Mutex<SlotInner<T>>,
}

struct SlotInner<T> {
    pos: u64,
    /// Receivers yet to read position `pos`'s value (module doc).
    rem: AtomicUsize,
    /// Touched only under the slot's lock (module doc).
    val: UnsafeCell<Option<T>>,
}

/// A receive of one position, holding the slot's lock; dropping it (also while a
/// panicking `clone` unwinds) decrements `rem`, and the last reader drops the value after
/// releasing the lock.
struct Read<'a, T> {
    inner: Option<MutexGuard<'a, SlotInner<T>>>,
}

impl<T> Read<'_, T> {
    fn clone_value(&self) -> T
    where
        T: Clone,
    {
        let inner = self.inner.as_ref().expect("a live read holds its lock");
        // SAFETY: we are counted in `rem` and have not decremented it, so nobody takes the
        // value out or writes it meanwhile (module doc).
        inner
            .val
            .with(|v| unsafe { (*v).clone() })
            .expect("a written slot holds a value")
    }
}

impl<T> Drop for Read<'_, T> {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else {
            return;
        };
        // AcqRel: Release orders our clone before the last reader's take; the last reader's
        // Acquire sees every other reader's clone (the decrements are RMWs, so they form
        // one release sequence).
        let val = if inner.rem.fetch_sub(1, AcqRel) == 1 {
            // SAFETY: we hold the slot's lock, and every counted reader has decremented:
            // nobody else reads the value until the next send.
            inner.val.with_mut(|v| unsafe { (*v).take() })
        } else {
            None
        };
        // The value's drop runs outside the slot's lock.
        drop(inner);
        drop(val);
    }
}

struct Tail {
    pos: u64,
    closed: bool,
    /// Receives waiting for the next value; a send or the close serves (frees) them all.
    waiters: WaitList<Handoff>,
    /// Live receivers.
    rx_cnt: usize,
}

struct Shared<T> {
    buffer: Box<[Slot<T>]>,
    mask: u64,
    tail: Mutex<Tail>,
    num_tx: AtomicUsize,
    /// Weak senders.
    num_weak: AtomicUsize,
    /// Receivers, mirrored outside the tail lock for `Sender::closed`.
    num_rx: AtomicUsize,
    /// Senders waiting in `closed()`.
    closed_waiters: WaiterList,
}

/// Creates a broadcast channel keeping the last `capacity` values (rounded up to a power of
/// two) for receivers that have not read them.
///
/// # Panics
///
/// When `capacity` is 0 or larger than `usize::MAX / 2`.
///
/// ```
/// # runtime::Runtime::new().unwrap().block_on(async {
/// let (tx, mut rx1) = runtime::sync::broadcast::channel(16);
/// let mut rx2 = tx.subscribe();
/// tx.send(10).unwrap();
/// assert_eq!(rx1.recv().await, Ok(10));
/// assert_eq!(rx2.recv().await, Ok(10));
/// # });
/// ```
#[track_caller]
pub fn channel<T: Clone>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let tx = Sender::new(capacity);
    let rx = tx.subscribe();
    (tx, rx)
}

/// Sends values to every receiver. Cloneable; the channel closes when the last sender is
/// dropped.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// Receives every value sent after it subscribed (unless it lags).
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    next: u64,
}

impl<T> Shared<T> {
    fn slot(&self, pos: u64) -> &Slot<T> {
        &self.buffer[(pos & self.mask) as usize]
    }
}

impl<T> Sender<T> {
    /// A sender with no receiver yet (make them with [`subscribe`](Sender::subscribe)).
    ///
    /// # Panics
    ///
    /// As [`channel`].
    #[track_caller]
    pub fn new(capacity: usize) -> Sender<T> {
        assert!(capacity > 0, "broadcast channel capacity cannot be zero");
        assert!(
            capacity <= usize::MAX >> 1,
            "broadcast channel capacity exceeded `usize::MAX / 2`"
        );
        let len = capacity.next_power_of_two();
        let buffer = (0..len)
            .map(|i| Slot {
                inner: Mutex::new(SlotInner {
                    pos: (i as u64).wrapping_sub(len as u64),
                    rem: AtomicUsize::new(0),
                    val: UnsafeCell::new(None),
                }),
            })
            .collect();
        Sender {
            shared: Arc::new(Shared {
                buffer,
                mask: len as u64 - 1,
                tail: Mutex::new(Tail {
                    pos: 0,
                    closed: false,
                    waiters: WaitList::new(),
                    rx_cnt: 0,
                }),
                num_tx: AtomicUsize::new(1),
                num_weak: AtomicUsize::new(0),
                num_rx: AtomicUsize::new(0),
                closed_waiters: Mutex::new(WaitList::new()),
            }),
        }
    }

    /// Sends `value` to every current receiver; returns how many there are. Fails, giving
    /// the value back, when there is none. Never waits: a full ring overwrites its oldest
    /// value (the receivers that had not read it will see `Lagged`).
    ///
    /// ```
    /// let (tx, rx) = runtime::sync::broadcast::channel(2);
    /// assert_eq!(tx.send(1), Ok(1));
    /// drop(rx);
    /// assert!(tx.send(2).is_err());
    /// ```
    pub fn send(&self, value: T) -> Result<usize, SendError<T>> {
        let shared = &*self.shared;
        let mut wakers = WakeList::new();
        let mut tail = shared.tail.lock();
        let rx_cnt = tail.rx_cnt;
        if rx_cnt == 0 {
            return Err(SendError(value));
        }
        let pos = tail.pos;
        let slot = shared.slot(pos);
        let old = {
            let mut inner = slot.inner.lock();
            inner.pos = pos;
            // Relaxed: the slot's lock orders it before the readers' decrements.
            inner.rem.store(rx_cnt, Relaxed);
            // SAFETY: the slot's lock excludes every other access to the cell.
            inner.val.with_mut(|v| unsafe { (*v).replace(value) })
        };
        tail.pos = pos.wrapping_add(1);
        // A waiting receive keeps its own wait record (recv_wait.rs): none is touched here.
        tail.waiters.serve_all(SERVED, None, &mut wakers);
        drop(tail);
        drop(old);
        wakers.wake_all();
        Ok(rx_cnt)
    }

    /// A new receiver, which will see the values sent from now on.
    pub fn subscribe(&self) -> Receiver<T> {
        new_receiver(self.shared.clone())
    }

    /// The number of receivers.
    pub fn receiver_count(&self) -> usize {
        self.shared.tail.lock().rx_cnt
    }

    /// The number of values kept that some receiver (alive when it was sent) has not read.
    pub fn len(&self) -> usize {
        let tail = self.shared.tail.lock();
        let n = self.shared.buffer.len();
        // The ring from the tail's slot on holds the kept positions oldest first (a slot
        // never written counts 0); those some receiver has not read are a suffix (module
        // doc): find where it starts.
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let slot = self.shared.slot(tail.pos.wrapping_add(mid as u64));
            // Relaxed: a snapshot; no value is read on its strength.
            if slot.inner.lock().rem.load(Relaxed) == 0 {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        n - lo
    }

    /// True when every receiver has read every value kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when both senders belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// True when there is no receiver (a send would fail).
    pub fn is_closed(&self) -> bool {
        self.shared.num_rx.load(Acquire) == 0
    }

    /// Waits until there is no receiver.
    ///
    /// Cancel safety: yes.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let (tx, rx) = runtime::sync::broadcast::channel::<u8>(1);
    /// runtime::spawn(async move { drop(rx) });
    /// tx.closed().await;
    /// assert!(tx.is_closed());
    /// # });
    /// ```
    pub async fn closed(&self) {
        let shared = &*self.shared;
        let object = shared as *const Shared<T> as usize;
        let mut waiter = Waiter::new(
            &shared.closed_waiters,
            task::waits::WaitKind::BroadcastClosed,
            object,
        );
        std::future::poll_fn(|cx| {
            std::task::ready!(poll_budget(cx));
            std::task::ready!(waiter.poll_until(cx, || shared.num_rx.load(Acquire) == 0));
            spend_budget(cx);
            Poll::Ready(())
        })
        .await
    }

    /// The number of senders.
    pub fn strong_count(&self) -> usize {
        self.shared.num_tx.load(Relaxed)
    }

    /// The number of [`WeakSender`]s.
    pub fn weak_count(&self) -> usize {
        self.shared.num_weak.load(Relaxed)
    }

    /// A [`WeakSender`] for this channel.
    pub fn downgrade(&self) -> WeakSender<T> {
        self.shared.num_weak.fetch_add(1, Relaxed);
        WeakSender {
            shared: self.shared.clone(),
        }
    }
}

fn new_receiver<T>(shared: Arc<Shared<T>>) -> Receiver<T> {
    let next = {
        let mut tail = shared.tail.lock();
        shared.num_rx.fetch_add(1, Relaxed);
        tail.rx_cnt += 1;
        tail.pos
    };
    Receiver { shared, next }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.shared.num_tx.fetch_add(1, Relaxed);
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        // AcqRel: each sender releases what it wrote; the last one acquires them all before
        // it closes the channel under the tail lock, where receivers learn of it (the loom
        // model `broadcast_recv_closed_happens_after_every_sender_left`).
        if self.shared.num_tx.fetch_sub(1, AcqRel) == 1 {
            let mut wakers = WakeList::new();
            let mut tail = self.shared.tail.lock();
            tail.closed = true;
            tail.waiters.serve_all(SERVED, None, &mut wakers);
            drop(tail);
            wakers.wake_all();
        }
    }
}

impl<T: Clone> Receiver<T> {
    /// Looks for the value at `self.next`; when there is none yet and `register` is given,
    /// links the waiter (under the tail lock, so no send is missed).
    fn recv_ref(&mut self, register: Option<(&mut Context<'_>, &Wait)>) -> Result<T, TryRecvError> {
        let shared = &*self.shared;
        let len = shared.buffer.len() as u64;
        let slot = shared.slot(self.next);
        {
            let inner = slot.inner.lock();
            if inner.pos == self.next {
                // Past the value before cloning it: a `clone` that panics is not retried
                // by the next receive, which gets the next value.
                self.next = self.next.wrapping_add(1);
                let read = Read { inner: Some(inner) };
                return Ok(read.clone_value());
            }
            let unwritten = inner.pos.wrapping_add(len) == self.next;
            drop(inner);
            if !unwritten {
                // Overwritten: we lag. Resume at the oldest value kept.
                let tail = shared.tail.lock();
                let oldest = tail.pos.wrapping_sub(len);
                let missed = oldest.wrapping_sub(self.next);
                self.next = oldest;
                return Err(TryRecvError::Lagged(missed));
            }
        }
        let mut tail = shared.tail.lock();
        if tail.pos != self.next {
            // Sent meanwhile: read it (the slot is written before `tail.pos` moves).
            drop(tail);
            return self.recv_ref(None);
        }
        if tail.closed {
            return Err(TryRecvError::Closed);
        }
        let mut old = None;
        if let Some((cx, wait)) = register {
            // SAFETY: under the tail lock, the list's lock.
            old = unsafe { wait.register(&mut tail.waiters, cx.waker()) };
        }
        drop(tail);
        drop(old);
        Err(TryRecvError::Empty)
    }

    /// Receives the next value, waiting for one. `Err(Lagged(n))` when `n` values were
    /// overwritten before this receiver read them (the next call gives the oldest kept);
    /// `Err(Closed)` once every sender is gone and every value was received.
    ///
    /// Cancel safety: yes; a value is only taken by the poll that returns it.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::broadcast::{self, error::RecvError};
    /// let (tx, mut rx) = broadcast::channel(2);
    /// for i in 0..4 {
    ///     tx.send(i).unwrap();
    /// }
    /// assert_eq!(rx.recv().await, Err(RecvError::Lagged(2)));
    /// assert_eq!(rx.recv().await, Ok(2));
    /// # });
    /// ```
    pub async fn recv(&mut self) -> Result<T, RecvError> {
        let mut recv = Recv {
            rx: self,
            wait: Wait::new(),
            rec: task::waits::WaitSlot::new(),
        };
        // `recv` stays here (borrowed by the closure) until it is dropped, which its node
        // on the waiter list relies on (`Wait`).
        std::future::poll_fn(|cx| recv.poll(cx)).await
    }

    /// Receives the next value if there is one, without waiting.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.recv_ref(None)
    }

    /// Receives from synchronous code, blocking the thread until a value comes.
    ///
    /// # Panics
    ///
    /// Inside a runtime: `.await` [`recv`](Receiver::recv) instead.
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Result<T, RecvError> {
        crate::context::assert_not_in_runtime(crate::misuse::BROADCAST_BLOCKING_RECV);
        futures_executor::block_on(self.recv())
    }
}

impl<T> Receiver<T> {
    /// A new receiver of the same channel, starting at the values sent from now on.
    pub fn resubscribe(&self) -> Self {
        new_receiver(self.shared.clone())
    }

    /// The number of values sent that this receiver has yet to receive.
    pub fn len(&self) -> usize {
        let tail = self.shared.tail.lock();
        tail.pos.wrapping_sub(self.next) as usize
    }

    /// True when this receiver has received everything sent.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when both receivers belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// The number of senders.
    pub fn sender_strong_count(&self) -> usize {
        self.shared.num_tx.load(Relaxed)
    }

    /// The number of [`WeakSender`]s.
    pub fn sender_weak_count(&self) -> usize {
        self.shared.num_weak.load(Relaxed)
    }

    /// True when every [`Sender`] is gone (the channel is closed; what is still buffered
    /// can be received).
    ///
    /// ```
    /// let (tx, rx) = runtime::sync::broadcast::channel::<u8>(4);
    /// assert!(!rx.is_closed());
    /// drop(tx);
    /// assert!(rx.is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        // Acquire: pairs with the last sender's AcqRel decrement, so a receiver told
        // "closed" sees everything every sender did before it left.
        self.shared.num_tx.load(Acquire) == 0
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let shared = &*self.shared;
        // Leaving under the tail lock: the sends up to `until` counted us, later ones not.
        let until = {
            let mut tail = shared.tail.lock();
            tail.rx_cnt -= 1;
            tail.pos
        };
        // The kept values we have not read no longer wait for us (oldest first, as a
        // receive would take them; `len` relies on the order).
        let len = shared.buffer.len() as u64;
        let mut pos = until.wrapping_sub(until.wrapping_sub(self.next).min(len));
        while pos != until {
            let inner = shared.slot(pos).inner.lock();
            // A slot holding another position was overwritten (our value went with it).
            if inner.pos == pos {
                drop(Read { inner: Some(inner) });
            }
            pos = pos.wrapping_add(1);
        }
        // Release: a sender told every receiver is gone (`is_closed`, `closed()`, with
        // Acquire) sees what the receivers did first (the loom model
        // `broadcast_sender_closed_happens_after_receiver_drop`); with several receivers the
        // count's release sequence (all its writes are RMWs) carries each one's. No
        // Acquire: the last receiver reads nothing (it notifies under the list's lock).
        if shared.num_rx.fetch_sub(1, Release) == 1 {
            notify_all(&shared.closed_waiters);
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}
