//! A one-shot channel: one value, sent once, from one [`Sender`] to one [`Receiver`].
//!
//! One allocation (`Inner`) holds the value slot, the receiver's waker, the sender's waker
//! (for [`Sender::closed`]) and one state word:
//!
//! - `COMPLETE`: the sender is done: it stored a value, or was dropped without one. Set once.
//! - `CLOSED`: the receiver is gone or called [`Receiver::close`]. Set once.
//! - `RX_WAKER` / `TX_WAKER`: the receiver's / sender's waker slot holds a waker that the
//!   other side may use.
//!
//! Invariants (who may touch which cell):
//! - The value slot is written by the sender only before it sets COMPLETE, and read by the
//!   receiver only after it saw COMPLETE (Release/Acquire on the state word). A sender that
//!   finds CLOSED when it tries to complete takes its value back instead.
//! - A waker slot is written by its owner only while its bit is clear. To replace its waker
//!   the owner clears the bit first; if that RMW shows the event already happened (COMPLETE
//!   for the receiver, CLOSED for the sender), it sets the bit back and leaves the slot
//!   alone, because the other side may be reading it. The other side reads a slot only if
//!   its own RMW (the one that set COMPLETE / CLOSED) saw the bit set. So a slot is never
//!   written while it may be read.
//! - Wakers are dropped only with `Inner` (last `Arc`) or when replaced as above.
//!
//! Task dumps: a side that stores a new waker (it goes to sleep; a repeated poll with the
//! same waker stores nothing) records that in its task's own wait slots
//! (`task::waits::inline`), before the RMW that publishes the waker, so the record stands
//! in the task of the waker the slot holds whenever its bit is set. When that task's
//! slots are full the record goes to the registry's map instead (keyed by the channel's
//! address and the side, with a test that shows it only while the side still waits), and
//! the side's `*_MAPPED` bit says so; only that side sets or clears it, flipping it in the
//! same RMW that sets its waker bit. The record is forgotten where the wait ends: by the
//! side itself when it replaces its waker (in the old waker's task), receives, closes or
//! lets go of the channel; by the other side when its RMW sets the event (COMPLETE /
//! CLOSED) and finds the waker bit set (it reads that waker anyway, to wake it). A forget
//! clears only the exact record, so the two never clear another's; a map record is left
//! to its test and its side.
//!
//! Costs: a send that finds the receiver waiting is one CAS and a wake; a receive that finds
//! the value is one load. Ready receives spend one unit of the task's cooperative budget.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use shim::cell::UnsafeCell;
use shim::sync::atomic::{
    AtomicUsize,
    Ordering::{AcqRel, Acquire, Relaxed},
};
use shim::sync::Arc;

use crate::coop;
use task::waits::WaitKind;

const COMPLETE: usize = 0b0001;
const CLOSED: usize = 0b0010;
const RX_WAKER: usize = 0b0100;
const TX_WAKER: usize = 0b1000;
/// The receiver's wait record is in the registry's map, not in its task's slots.
const RX_MAPPED: usize = 0b1_0000;
/// The sender's wait record is in the registry's map, not in its task's slots.
const TX_MAPPED: usize = 0b10_0000;

/// The kind and the map bit of the side whose waker bit is `bit`.
#[inline(always)]
fn side(bit: usize) -> (WaitKind, usize) {
    if bit == RX_WAKER {
        (WaitKind::OneshotRecv, RX_MAPPED)
    } else {
        (WaitKind::OneshotClosed, TX_MAPPED)
    }
}

/// Creates a one-shot channel: the [`Sender`] sends one value, the [`Receiver`] (a
/// future) resolves to it.
///
/// ```
/// # runtime::Runtime::new().unwrap().block_on(async {
/// let (tx, rx) = runtime::sync::oneshot::channel();
/// runtime::spawn(async move { tx.send(42).unwrap() });
/// assert_eq!(rx.await, Ok(42));
/// # });
/// ```
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let inner = Arc::new(Inner {
        state: AtomicUsize::new(0),
        value: UnsafeCell::new(None),
        rx_waker: UnsafeCell::new(None),
        tx_waker: UnsafeCell::new(None),
    });
    (
        Sender {
            inner: Some(inner.clone()),
        },
        Receiver { inner: Some(inner) },
    )
}

/// Sends the channel's one value. Dropping it unsent makes the receiver resolve to
/// [`error::RecvError`].
pub struct Sender<T> {
    inner: Option<Arc<Inner<T>>>,
}

/// Receives the channel's one value: `.await` it, or poll it with [`Receiver::try_recv`].
/// Dropping it (or calling [`Receiver::close`]) makes later sends fail.
pub struct Receiver<T> {
    /// `None` once the result was handed out.
    inner: Option<Arc<Inner<T>>>,
}

struct Inner<T> {
    state: AtomicUsize,
    value: UnsafeCell<Option<T>>,
    rx_waker: UnsafeCell<Option<Waker>>,
    tx_waker: UnsafeCell<Option<Waker>>,
}

// SAFETY: the value moves from the sender's thread to the receiver's (so `T: Send`); the
// cells are accessed as the module doc's invariants say, ordered by the state word, so
// sharing `&Inner` between the two sides never races on them. Wakers are `Send + Sync`.
unsafe impl<T: Send> Send for Inner<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Inner<T> {}

/// Errors of the channel.
pub mod error {
    use std::fmt;

    /// The sender was dropped without sending (what awaiting the [`Receiver`] gives).
    ///
    /// [`Receiver`]: super::Receiver
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct RecvError(pub(super) ());

    impl fmt::Display for RecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("channel closed: the sender was dropped without sending")
        }
    }

    impl std::error::Error for RecvError {}

    /// Why [`Receiver::try_recv`](super::Receiver::try_recv) gave no value.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum TryRecvError {
        /// Nothing sent yet; the sender is still there.
        Empty,
        /// The sender was dropped without sending, the receiver was closed before a value
        /// arrived, or the value was already received.
        Closed,
    }

    impl fmt::Display for TryRecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                TryRecvError::Empty => f.write_str("channel empty"),
                TryRecvError::Closed => f.write_str("channel closed"),
            }
        }
    }

    impl std::error::Error for TryRecvError {}
}

use error::{RecvError, TryRecvError};

impl<T> Drop for Inner<T> {
    /// The last `Arc` frees the value slot and both waker slots. Touching each mutably
    /// first lets loom check that the other side's accesses happen-before the free (a
    /// plain drop of the allocation is invisible to it); outside loom this is nothing.
    fn drop(&mut self) {
        self.value.with_mut(|_| ());
        self.rx_waker.with_mut(|_| ());
        self.tx_waker.with_mut(|_| ());
    }
}

/// The test of a side's wait record: a waiting receiver has its waker stored, nothing sent,
/// not closed; a sender in `closed()` its waker stored, the receiver still there, nothing
/// sent.
impl<T> task::waits::StillWaiting for Inner<T> {
    fn still_waiting(&self, kind: WaitKind) -> bool {
        let bit = if kind == WaitKind::OneshotRecv {
            RX_WAKER
        } else {
            TX_WAKER
        };
        // Relaxed: a label for a dump; it orders nothing.
        self.state.load(Relaxed) & (bit | COMPLETE | CLOSED) == bit
    }
}

impl<T> Inner<T> {
    /// The wait-registry key of the side whose waker bit is `bit`.
    fn wait_key(&self, bit: usize) -> (usize, usize) {
        (self as *const Self as usize, bit)
    }

    /// The address wait records name.
    fn object(&self) -> usize {
        self as *const Self as usize
    }

    /// Records (for task dumps) that the side whose waker bit is `bit` waits with `waker`,
    /// which it is about to store; forgets the record of `old`, the waker it replaces (or
    /// the map's, when `mapped`). Returns whether the new record is in the map.
    #[inline]
    fn record_wait(&self, bit: usize, waker: &Waker, old: Option<&Waker>, mapped: bool) -> bool {
        let (kind, _) = side(bit);
        if mapped {
            task::waits::forget(self.wait_key(bit));
        } else if let Some(old) = old {
            task::waits::inline::forget(old, kind, self.object());
        }
        match task::waits::inline::record(waker, kind, self.object(), 0) {
            task::waits::inline::Recorded::Full => self.record_in_map(bit, waker),
            _ => false,
        }
    }

    /// `record_wait` when the task's slots are full: into the registry's map.
    #[cold]
    fn record_in_map(&self, bit: usize, waker: &Waker) -> bool {
        let (kind, _) = side(bit);
        let wait = task::waits::Wait::on(kind, self.object());
        let active = task::waits::Active::of(self);
        // SAFETY: `active` tests this channel; the side holds its `Arc` until it lets go,
        // which forgets the record first (`forget_own`, wherever its map bit is set).
        unsafe { task::waits::record(self.wait_key(bit), waker, wait, None, Some(active)) }
    }

    /// The side whose waker bit is `bit` ends its wait (it received, closed or lets go of
    /// the channel): forgets its record if it ever stored a waker (`state`: a value of the
    /// word it read after its last store, which holds its own bits as it left them).
    ///
    /// # Safety
    /// `slot` is that side's waker slot and the caller is that side.
    #[inline]
    unsafe fn forget_own(&self, slot: &UnsafeCell<Option<Waker>>, bit: usize, state: usize) {
        if state & bit == 0 {
            return;
        }
        let (kind, mapped) = side(bit);
        if state & mapped != 0 {
            task::waits::forget(self.wait_key(bit));
        } else {
            // SAFETY: our own slot; the other side may read it too, never write it.
            slot.with(|w| {
                // SAFETY: as above.
                if let Some(w) = unsafe { &*w } {
                    task::waits::inline::forget(w, kind, self.object());
                }
            });
        }
    }

    /// The other side's event ended the wait of the side whose waker bit is `bit`, whose
    /// waker `waker` the caller is about to wake: forgets that side's inline record (a map
    /// record is left to its test).
    #[inline]
    fn forget_other(&self, bit: usize, state: usize, waker: &Waker) {
        let (kind, mapped) = side(bit);
        if state & mapped == 0 {
            task::waits::inline::forget(waker, kind, self.object());
        }
    }

    /// Takes the value out of the slot.
    ///
    /// # Safety
    ///
    /// The caller is the receiver and has seen COMPLETE with Acquire (or holds `&mut`).
    unsafe fn take_value(&self) -> Option<T> {
        // SAFETY: the sender wrote the slot before its Release of COMPLETE, which the caller
        // acquired, and never touches it again; the receiver is the only other user.
        self.value.with_mut(|v| unsafe { (*v).take() })
    }

    /// Registers `waker` in the slot guarded by `bit`, unless `done` (the event the waker
    /// waits for) has happened, and records the wait for task dumps (module doc). Returns
    /// the state seen last, with `bit` and the side's map bit as the word holds them on
    /// return (`bit` set when a waker was ever stored): `state & done != 0` means the event
    /// happened and nothing is registered for it.
    ///
    /// # Safety
    ///
    /// `slot` is the slot guarded by `bit`, and the caller is its owner side.
    unsafe fn register(
        &self,
        slot: &UnsafeCell<Option<Waker>>,
        bit: usize,
        done: usize,
        waker: &Waker,
    ) -> usize {
        // Acquire: if `done` is set, what the other side wrote before it (the value) is ours.
        let mut state = self.state.load(Acquire);
        if state & done != 0 {
            return state;
        }
        if state & bit != 0 {
            // SAFETY: reading our own slot; the other side may read it too, never write it.
            let same = slot.with(|w| unsafe { (*w).as_ref() }.is_some_and(|w| w.will_wake(waker)));
            if same {
                return state;
            }
            // Take the slot back before writing it. Acquire: as above. No Release: our only
            // earlier access of the slot since the bit was set is the read just above, which
            // may run concurrently with the other side's reads; the slot write that follows
            // is published by the Release of the `fetch_xor` that sets the bit again, and
            // when this RMW shows `done` we leave the slot alone. (The weakening sweep found
            // no model that tells AcqRel here from Acquire.)
            state = self.state.fetch_and(!bit, Acquire);
            if state & done != 0 {
                // Too late: the other side saw the bit and may be reading the slot. Put the
                // bit back (so the waker is still accounted for) and leave the slot alone
                // (and the record where it is: the caller's end of the wait forgets it).
                self.state.fetch_or(bit, Relaxed);
                return state | bit;
            }
        }
        let (_, mapped_bit) = side(bit);
        let was_mapped = state & mapped_bit != 0;
        // SAFETY: the bit is clear, so the other side does not read the slot (it reads it
        // only after an RMW that saw the bit set, and our clearing RMW, or the slot never
        // having been set, comes before any such RMW can see it set again).
        let old = slot.with_mut(|w| unsafe { (*w).replace(waker.clone()) });
        // Before the RMW that publishes the waker: the other side, once it sees the bit,
        // sees the record too and can forget it.
        let mapped = self.record_wait(bit, waker, old.as_ref(), was_mapped);
        drop(old);
        // The bit is clear here (cleared above, or never set), and only we flip the map
        // bit: one XOR sets the one and leaves the other as `mapped` says.
        let flip = bit | if mapped != was_mapped { mapped_bit } else { 0 };
        // AcqRel: Release publishes the waker to the RMW that will read the bit; Acquire as
        // above for the value when `done` was set meanwhile.
        state = self.state.fetch_xor(flip, AcqRel);
        state ^ flip
    }

    /// Wakes the waker in `slot`, the slot of the side whose waker bit is `bit`, forgetting
    /// that side's wait record first (its wait ended; `state`: what the caller's RMW saw).
    ///
    /// # Safety
    ///
    /// The caller's RMW that set the event bit saw `slot`'s bit set (with Acquire).
    unsafe fn wake(&self, slot: &UnsafeCell<Option<Waker>>, bit: usize, state: usize) {
        // SAFETY: the owner set the slot before its Release RMW of the bit, which our RMW
        // acquired, and will not write it again (module doc); reading is shared.
        slot.with(|w| {
            // SAFETY: the slot was written before the Release RMW our caller's RMW
            // acquired and is not written again while the bit is set; readers only share.
            if let Some(w) = unsafe { &*w } {
                self.forget_other(bit, state, w);
                w.wake_by_ref();
            }
        });
    }

    /// Sets COMPLETE unless CLOSED; wakes the receiver if it waits. Returns false (and sets
    /// nothing) when the receiver is closed.
    fn complete(&self) -> bool {
        let mut state = self.state.load(Relaxed);
        loop {
            if state & CLOSED != 0 {
                return false;
            }
            // AcqRel: Release publishes the value to the receiver; Acquire makes its waker
            // visible if RX_WAKER is set.
            match self
                .state
                .compare_exchange_weak(state, state | COMPLETE, AcqRel, Relaxed)
            {
                Ok(_) => break,
                Err(now) => state = now,
            }
        }
        if state & RX_WAKER != 0 {
            // SAFETY: our CAS saw RX_WAKER set.
            unsafe { self.wake(&self.rx_waker, RX_WAKER, state) };
        }
        true
    }
}

impl<T> Sender<T> {
    /// Sends `value`; gives it back as `Err(value)` when the receiver is gone or closed.
    /// A value sent while the receiver exists is received or dropped with the channel,
    /// never lost silently.
    pub fn send(mut self, value: T) -> Result<(), T> {
        let inner = self.inner.take().expect("a sender sends once");
        // Relaxed: only we set TX_WAKER and TX_MAPPED, so our own last store is what this
        // sees of them.
        // SAFETY: the sender's slot, and we are the sender.
        unsafe { inner.forget_own(&inner.tx_waker, TX_WAKER, inner.state.load(Relaxed)) };
        // SAFETY: COMPLETE is not set (we are the only sender and have not completed), so
        // the receiver does not read the slot yet; we own it.
        inner.value.with_mut(|v| unsafe { *v = Some(value) });
        if inner.complete() {
            Ok(())
        } else {
            // SAFETY: not completed, so the slot is still ours.
            let value = inner.value.with_mut(|v| unsafe { (*v).take() });
            Err(value.expect("the value we just stored"))
        }
    }

    /// True once the receiver was dropped or closed: a send would fail.
    pub fn is_closed(&self) -> bool {
        let inner = self.inner.as_ref().expect("a live sender");
        // Relaxed: a snapshot; the sender reads nothing the receiver wrote on the strength of
        // it (`send` decides with its own RMW). (The weakening sweep found no model that
        // tells Acquire here from Relaxed.)
        inner.state.load(Relaxed) & CLOSED != 0
    }

    /// Ready once the receiver is dropped or closed. Only the last waker registered is kept.
    pub fn poll_closed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let inner = self.inner.as_ref().expect("a live sender");
        // SAFETY: the sender owns `tx_waker`.
        let state = unsafe { inner.register(&inner.tx_waker, TX_WAKER, CLOSED, cx.waker()) };
        if state & CLOSED != 0 {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    /// Waits until the receiver is dropped or closed (e.g. to stop computing a value nobody
    /// wants any more).
    pub async fn closed(&mut self) {
        std::future::poll_fn(|cx| self.poll_closed(cx)).await
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take() {
            // Relaxed: only we set TX_WAKER and TX_MAPPED, so our own last store is what
            // this sees of them.
            // SAFETY: the sender's slot, and we are the sender.
            unsafe { inner.forget_own(&inner.tx_waker, TX_WAKER, inner.state.load(Relaxed)) };
            // Dropped unsent: complete with an empty slot; the receiver sees RecvError.
            inner.complete();
        }
    }
}

impl<T> Receiver<T> {
    /// Closes the channel without dropping the receiver: later sends fail, and a value sent
    /// before can still be received.
    pub fn close(&mut self) {
        let state = self.close_state();
        if let Some(inner) = &self.inner {
            // Closed, the receiver waits no more: a later poll resolves at once.
            // SAFETY: the receiver's slot, and we are the receiver.
            unsafe { inner.forget_own(&inner.rx_waker, RX_WAKER, state) };
        }
    }

    /// [`close`](Receiver::close), returning the state word before it (0 when the result
    /// was handed out already).
    fn close_state(&mut self) -> usize {
        let mut seen = 0;
        if let Some(inner) = &self.inner {
            // Acquire: makes the sender's waker visible if TX_WAKER is set. No Release: the
            // close publishes nothing; a sender that sees CLOSED only takes its own value
            // back, and our waker reaches it through `register`'s Release. (The weakening
            // sweep found no model that tells AcqRel here from Acquire.)
            let state = inner.state.fetch_or(CLOSED, Acquire);
            if state & (TX_WAKER | COMPLETE | CLOSED) == TX_WAKER {
                // SAFETY: our RMW saw TX_WAKER set.
                unsafe { inner.wake(&inner.tx_waker, TX_WAKER, state) };
            }
            seen = state;
        }
        seen
    }

    /// Takes the value if it is there, without waiting. `Empty`: nothing yet, try again.
    /// `Closed` (the sender is gone, or the receiver was closed, with nothing sent) and a
    /// value are final, as with tokio: the receiver is spent, and polling it afterwards
    /// panics.
    ///
    /// ```
    /// use runtime::sync::oneshot::{self, error::TryRecvError};
    ///
    /// let (tx, mut rx) = oneshot::channel();
    /// assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    /// tx.send(7).unwrap();
    /// assert_eq!(rx.try_recv(), Ok(7));
    /// ```
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let inner = self.inner.as_ref().ok_or(TryRecvError::Closed)?;
        // Acquire: pairs with the sender's Release of COMPLETE (the value).
        let state = inner.state.load(Acquire);
        if state & COMPLETE != 0 {
            // SAFETY: COMPLETE seen with Acquire.
            let value = unsafe { inner.take_value() };
            // SAFETY: the receiver's slot, and we are the receiver.
            unsafe { inner.forget_own(&inner.rx_waker, RX_WAKER, state) };
            self.inner = None;
            value.ok_or(TryRecvError::Closed)
        } else if state & CLOSED != 0 {
            // Closed by us and nothing was sent: this is the final answer, as a received
            // value would be (polling the receiver afterwards panics).
            // SAFETY: the receiver's slot, and we are the receiver.
            unsafe { inner.forget_own(&inner.rx_waker, RX_WAKER, state) };
            self.inner = None;
            Err(TryRecvError::Closed)
        } else {
            Err(TryRecvError::Empty)
        }
    }

    /// True when no value is waiting to be received: nothing was sent yet, the sender
    /// went away without sending, or the result was already taken.
    ///
    /// ```
    /// let (tx, mut rx) = runtime::sync::oneshot::channel();
    /// assert!(rx.is_empty());
    /// tx.send(1).unwrap();
    /// assert!(!rx.is_empty());
    /// assert_eq!(rx.try_recv(), Ok(1));
    /// assert!(rx.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        let Some(inner) = self.inner.as_ref() else {
            return true;
        };
        // Acquire: pairs with the sender's Release of COMPLETE (the value slot).
        if inner.state.load(Acquire) & COMPLETE == 0 {
            return true;
        }
        // SAFETY: COMPLETE seen with Acquire: the sender no longer touches the slot, and
        // only we (the receiver) do.
        inner.value.with(|v| unsafe { (*v).is_none() })
    }

    /// True once the receiver has handed out its result (a value or an error), through
    /// `.await` or [`try_recv`](Receiver::try_recv); polling it again would panic.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let (tx, mut rx) = runtime::sync::oneshot::channel();
    /// tx.send(1).unwrap();
    /// assert!(!rx.is_terminated());
    /// (&mut rx).await.unwrap();
    /// assert!(rx.is_terminated());
    /// # });
    /// ```
    pub fn is_terminated(&self) -> bool {
        self.inner.is_none()
    }

    /// Blocks this thread until the value arrives. For synchronous code outside the
    /// runtime, like `block_on`.
    ///
    /// # Panics
    ///
    /// Inside a runtime (it would block a worker): `.await` the receiver instead.
    #[track_caller]
    pub fn blocking_recv(self) -> Result<T, RecvError> {
        crate::context::assert_not_in_runtime(crate::misuse::ONESHOT_BLOCKING_RECV);
        futures_executor::block_on(self)
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let state = self.close_state();
        if let Some(inner) = &self.inner {
            // SAFETY: the receiver's slot, and we are the receiver.
            unsafe { inner.forget_own(&inner.rx_waker, RX_WAKER, state) };
        }
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, RecvError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.inner.as_ref().expect(
            "oneshot Receiver polled after it returned its result (a value or an error, \
             from `.await` or `try_recv`): a receiver resolves once; do not poll it again",
        );
        std::task::ready!(coop::poll_proceed(cx));
        // SAFETY: the receiver owns `rx_waker`.
        let state = unsafe { inner.register(&inner.rx_waker, RX_WAKER, COMPLETE, cx.waker()) };
        if state & COMPLETE != 0 {
            // SAFETY: `register` saw COMPLETE with Acquire.
            let value = unsafe { inner.take_value() };
            // SAFETY: the receiver's slot, and we are the receiver.
            unsafe { inner.forget_own(&inner.rx_waker, RX_WAKER, state) };
            self.inner = None;
            Poll::Ready(value.ok_or(RecvError(())))
        } else if state & CLOSED != 0 {
            // Closed by us and nothing was sent before: nothing will come.
            // SAFETY: the receiver's slot, and we are the receiver.
            unsafe { inner.forget_own(&inner.rx_waker, RX_WAKER, state) };
            self.inner = None;
            Poll::Ready(Err(RecvError(())))
        } else {
            Poll::Pending
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
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}
