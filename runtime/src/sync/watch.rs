//! A single-value channel whose receivers are told about changes, as tokio's `sync::watch`:
//! senders replace (or modify) the value; each receiver sees the latest value and can wait
//! for a newer one. Receivers may miss intermediate values, never the last one.
//!
//! State: the value behind a reader-writer lock; one `state` word holding the version
//! (counted in steps of 2) and `CLOSED` (bit 0: every sender is gone); the receiver and
//! sender counts; two waiter lists (receivers in `changed()`, senders in `closed()`).
//!
//! Invariants:
//! - The version moves only under the value's write lock, so a receiver that reads it under
//!   the read lock (`borrow_and_update`) marks exactly the value it reads as seen.
//! - A change is published by bumping the version (Release) and then waking every receiver
//!   on the list (the lock of the list, woken after it is released). A waiting receiver
//!   checks the version again under that same lock before it sleeps, so no change is missed
//!   (`wait_list::Waiter`). Closing (the last sender's drop) works the same way.
//! - Receivers wait for `receiver_count` reaching 0 in `Sender::closed()` the same way.
//!
//! Every wait that completes ready spends one unit of the task's cooperative budget.

use std::fmt;
use std::ops::Deref;
use std::task::Poll;

use shim::sync::atomic::{
    AtomicUsize,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};
use shim::sync::{Arc, Mutex, RwLock, RwLockReadGuard};

use crate::sync::wait_list::{notify_all, WaitList, Waiter, WaiterList};
use crate::sync::{poll_budget, spend_budget};

const CLOSED: usize = 1;
const STEP: usize = 2;

/// Errors of the watch channel.
pub mod error {
    use std::fmt;

    /// Every receiver is gone: the value comes back (from [`Sender::send`]).
    ///
    /// [`Sender::send`]: super::Sender::send
    #[derive(PartialEq, Eq, Clone, Copy)]
    pub struct SendError<T>(pub T);

    impl<T> fmt::Debug for SendError<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("SendError").finish_non_exhaustive()
        }
    }

    impl<T> fmt::Display for SendError<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("channel closed")
        }
    }

    impl<T> std::error::Error for SendError<T> {}

    /// Every sender is gone (from [`Receiver::changed`] and friends).
    ///
    /// [`Receiver::changed`]: super::Receiver::changed
    #[derive(Debug, PartialEq, Eq, Clone, Copy)]
    pub struct RecvError(pub(super) ());

    impl fmt::Display for RecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("channel closed")
        }
    }

    impl std::error::Error for RecvError {}
}

use error::{RecvError, SendError};

struct Shared<T> {
    value: RwLock<T>,
    state: AtomicUsize,
    rx_count: AtomicUsize,
    tx_count: AtomicUsize,
    /// Receivers waiting in `changed()`.
    rx_waiters: WaiterList,
    /// Senders waiting in `closed()`.
    tx_waiters: WaiterList,
}

impl<T> Shared<T> {
    /// The channel's address, as task dumps name it.
    fn addr(&self) -> usize {
        self as *const Self as usize
    }

    fn version(&self) -> usize {
        // Relaxed: read under the value's lock (`borrow*`, `subscribe`, `wait_for`), which
        // orders it after the write-locked bump of the value it goes with, or as a bare
        // marker (`mark_changed` / `mark_unchanged`) that reads no data.
        self.state.load(Relaxed) & !CLOSED
    }
}

/// Creates a watch channel holding `init`.
///
/// ```
/// # runtime::Runtime::new().unwrap().block_on(async {
/// let (tx, mut rx) = runtime::sync::watch::channel("v1");
/// runtime::spawn(async move {
///     tx.send("v2").unwrap();
/// });
/// rx.changed().await.unwrap();
/// assert_eq!(*rx.borrow_and_update(), "v2");
/// # });
/// ```
pub fn channel<T>(init: T) -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        value: RwLock::new(init),
        state: AtomicUsize::new(0),
        rx_count: AtomicUsize::new(1),
        tx_count: AtomicUsize::new(1),
        rx_waiters: Mutex::new(WaitList::new()),
        tx_waiters: Mutex::new(WaitList::new()),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared, version: 0 },
    )
}

/// Replaces or modifies the value and notifies the receivers. Cloneable; the channel closes
/// for the receivers when the last sender is dropped.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// Reads the latest value and waits for changes. Cloneable (a clone has seen what the
/// original has seen).
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The version this receiver has seen.
    version: usize,
}

/// A read borrow of the value (holds the value's read lock: keep it short, and never hold
/// it across an `.await` or while sending on the same channel).
pub struct Ref<'a, T> {
    guard: RwLockReadGuard<'a, T>,
    has_changed: bool,
}

impl<T> Ref<'_, T> {
    /// Whether this value was new to the receiver that borrowed it (not yet marked seen
    /// when borrowed). Always false for [`Sender::borrow`].
    pub fn has_changed(&self) -> bool {
        self.has_changed
    }
}

impl<T> Deref for Ref<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T: fmt::Debug> fmt::Debug for Ref<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl<T> Sender<T> {
    /// A sender with no receiver yet (make them with [`subscribe`](Sender::subscribe)).
    pub fn new(init: T) -> Sender<T> {
        let (tx, rx) = channel(init);
        drop(rx);
        tx
    }

    /// Stores `value` and notifies the receivers. Fails, handing `value` back and storing
    /// nothing, when there is no receiver.
    ///
    /// ```
    /// let (tx, rx) = runtime::sync::watch::channel(0);
    /// tx.send(1).unwrap();
    /// assert_eq!(*rx.borrow(), 1);
    /// drop(rx);
    /// assert!(tx.send(2).is_err());
    /// ```
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        if self.receiver_count() == 0 {
            return Err(SendError(value));
        }
        self.send_replace(value);
        Ok(())
    }

    /// Modifies the value in place and notifies the receivers (even with none).
    ///
    /// ```
    /// let (tx, rx) = runtime::sync::watch::channel(vec![1]);
    /// tx.send_modify(|v| v.push(2));
    /// assert_eq!(*rx.borrow(), [1, 2]);
    /// ```
    pub fn send_modify(&self, modify: impl FnOnce(&mut T)) {
        self.send_if_modified(|v| {
            modify(v);
            true
        });
    }

    /// Modifies the value in place; notifies the receivers only if `modify` returns true
    /// (it must return true if it changed anything). Returns what `modify` returned.
    ///
    /// ```
    /// let (tx, rx) = runtime::sync::watch::channel(1);
    /// assert!(!tx.send_if_modified(|v| false));
    /// assert!(!rx.has_changed().unwrap());
    /// assert!(tx.send_if_modified(|v| { *v = 2; true }));
    /// assert!(rx.has_changed().unwrap());
    /// ```
    pub fn send_if_modified(&self, modify: impl FnOnce(&mut T) -> bool) -> bool {
        let mut guard = self.shared.value.write();
        let modified = modify(&mut guard);
        if modified {
            // Release: the new value is before the version a receiver acquires.
            self.shared.state.fetch_add(STEP, Release);
        }
        drop(guard);
        if modified {
            notify_all(&self.shared.rx_waiters);
        }
        modified
    }

    /// Stores `value` (even with no receiver), notifies, and returns the previous value.
    pub fn send_replace(&self, value: T) -> T {
        let mut old = Some(value);
        self.send_modify(|v| old = Some(std::mem::replace(v, old.take().expect("once"))));
        old.expect("replaced")
    }

    /// Borrows the current value ([`Ref::has_changed`] is false).
    pub fn borrow(&self) -> Ref<'_, T> {
        Ref {
            guard: self.shared.value.read(),
            has_changed: false,
        }
    }

    /// True when every receiver is gone.
    pub fn is_closed(&self) -> bool {
        self.receiver_count() == 0
    }

    /// Waits until every receiver is gone.
    ///
    /// Cancel safety: yes.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let (tx, rx) = runtime::sync::watch::channel(());
    /// runtime::spawn(async move { drop(rx) });
    /// tx.closed().await;
    /// # });
    /// ```
    pub async fn closed(&self) {
        let shared = &*self.shared;
        let mut waiter = Waiter::new(
            &shared.tx_waiters,
            task::waits::WaitKind::WatchClosed,
            shared.addr(),
        );
        std::future::poll_fn(|cx| {
            std::task::ready!(poll_budget(cx));
            std::task::ready!(waiter.poll_until(cx, || shared.rx_count.load(Acquire) == 0));
            spend_budget(cx);
            Poll::Ready(())
        })
        .await
    }

    /// A new receiver, which has seen the current value.
    pub fn subscribe(&self) -> Receiver<T> {
        self.shared.rx_count.fetch_add(1, Relaxed);
        // Read under the lock so the version matches a value the receiver could borrow.
        let version = {
            let _g = self.shared.value.read();
            self.shared.version()
        };
        Receiver {
            shared: self.shared.clone(),
            version,
        }
    }

    /// The number of receivers.
    pub fn receiver_count(&self) -> usize {
        self.shared.rx_count.load(Acquire)
    }

    /// The number of senders.
    pub fn sender_count(&self) -> usize {
        self.shared.tx_count.load(Relaxed)
    }

    /// True when both senders belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl<T: Default> Default for Sender<T> {
    /// A sender whose value is `T::default()`, with no receiver yet.
    fn default() -> Self {
        Sender::new(T::default())
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.shared.tx_count.fetch_add(1, Relaxed);
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        // AcqRel: each sender releases what it wrote; the last one acquires them all before
        // it sets CLOSED (the loom model
        // `watch_receiver_closed_happens_after_every_sender_left`).
        if self.shared.tx_count.fetch_sub(1, AcqRel) == 1 {
            // Release: CLOSED carries every sender's writes (this one acquired the others'
            // through `tx_count` above) to a receiver that reads it with Acquire. No
            // Acquire: setting the flag reads nothing.
            self.shared.state.fetch_or(CLOSED, Release);
            notify_all(&self.shared.rx_waiters);
        }
    }
}

/// Waits until the version differs from `*seen` (then marks it seen: `Ok`) or the channel is
/// closed with nothing unseen (`Err`).
async fn changed_impl<T>(shared: &Shared<T>, seen: &mut usize) -> Result<(), RecvError> {
    let mut waiter = Waiter::new(
        &shared.rx_waiters,
        task::waits::WaitKind::WatchChanged,
        shared.addr(),
    );
    std::future::poll_fn(|cx| {
        std::task::ready!(poll_budget(cx));
        // Relaxed: a test only. Once it says ready, the load below reads the word again
        // (the same value or a later one, by coherence) and its Acquire carries the edge
        // from the send (or the close) to our caller.
        let done = || {
            let s = shared.state.load(Relaxed);
            s & !CLOSED != *seen || s & CLOSED != 0
        };
        std::task::ready!(waiter.poll_until(cx, done));
        spend_budget(cx);
        // Acquire: pairs with the send's Release (or the last sender's, for CLOSED): a
        // change seen happens-after the send (tokio's contract; the loom model
        // `watch_change_seen_happens_after_send`).
        let s = shared.state.load(Acquire);
        Poll::Ready(if s & !CLOSED != *seen {
            *seen = s & !CLOSED;
            Ok(())
        } else {
            Err(RecvError(()))
        })
    })
    .await
}

impl<T> Receiver<T> {
    /// Borrows the latest value without marking it seen.
    ///
    /// ```
    /// let (tx, rx) = runtime::sync::watch::channel(1);
    /// tx.send(2).unwrap();
    /// let r = rx.borrow();
    /// assert_eq!(*r, 2);
    /// assert!(r.has_changed());
    /// ```
    pub fn borrow(&self) -> Ref<'_, T> {
        let guard = self.shared.value.read();
        let has_changed = self.shared.version() != self.version;
        Ref { guard, has_changed }
    }

    /// Borrows the latest value and marks it seen.
    pub fn borrow_and_update(&mut self) -> Ref<'_, T> {
        let guard = self.shared.value.read();
        let version = self.shared.version();
        let has_changed = version != self.version;
        self.version = version;
        Ref { guard, has_changed }
    }

    /// Whether a value this receiver has not seen was sent. `Err` once every sender is gone.
    pub fn has_changed(&self) -> Result<bool, RecvError> {
        let s = self.shared.state.load(Acquire);
        if s & CLOSED != 0 {
            return Err(RecvError(()));
        }
        Ok(s & !CLOSED != self.version)
    }

    /// True once every sender is gone.
    pub fn is_closed(&self) -> bool {
        self.shared.state.load(Acquire) & CLOSED != 0
    }

    /// Marks the current value unseen, so [`changed`](Receiver::changed) completes at once.
    pub fn mark_changed(&mut self) {
        self.version = self.shared.version().wrapping_sub(STEP);
    }

    /// Marks the current value seen.
    pub fn mark_unchanged(&mut self) {
        self.version = self.shared.version();
    }

    /// Waits for a value this receiver has not seen, and marks it seen. `Err` once every
    /// sender is gone and nothing unseen is left.
    ///
    /// Cancel safety: yes (nothing is marked seen unless it completes).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let (tx, mut rx) = runtime::sync::watch::channel(0);
    /// tx.send(1).unwrap();
    /// drop(tx);
    /// assert!(rx.changed().await.is_ok()); // the last value is never missed
    /// assert!(rx.changed().await.is_err());
    /// # });
    /// ```
    pub async fn changed(&mut self) -> Result<(), RecvError> {
        changed_impl(&self.shared, &mut self.version).await
    }

    /// Waits until the value satisfies `f` (checking the current value first), marks it
    /// seen and returns it borrowed. `Err` once every sender is gone and the last value does
    /// not satisfy `f`.
    ///
    /// Each call spends one unit of the task's cooperative budget (yielding first when it
    /// is spent), even when the current value satisfies `f` at once: a loop around
    /// `wait_for` gives its worker back like any loop of ready operations.
    ///
    /// Cancel safety: yes.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let (tx, mut rx) = runtime::sync::watch::channel(0);
    /// runtime::spawn(async move {
    ///     for i in 1..=5 {
    ///         tx.send(i).unwrap();
    ///     }
    /// });
    /// assert_eq!(*rx.wait_for(|v| *v == 5).await.unwrap(), 5);
    /// # });
    /// ```
    pub async fn wait_for(
        &mut self,
        mut f: impl FnMut(&T) -> bool,
    ) -> Result<Ref<'_, T>, RecvError> {
        // One unit of the task's budget, like any ready operation: a loop around a
        // `wait_for` whose condition already holds still yields once the budget is spent.
        crate::task::consume_budget().await;
        let shared = &*self.shared;
        let seen = &mut self.version;
        loop {
            {
                let guard = shared.value.read();
                let version = shared.version();
                let has_changed = version != *seen;
                *seen = version;
                if f(&guard) {
                    return Ok(Ref { guard, has_changed });
                }
            }
            changed_impl(shared, seen).await?;
        }
    }

    /// True when both receivers belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        self.shared.rx_count.fetch_add(1, Relaxed);
        Receiver {
            shared: self.shared.clone(),
            version: self.version,
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        // Release: a sender told every receiver is gone (`is_closed`, `closed()`, with
        // Acquire) sees what the receivers did first (the loom model
        // `watch_sender_closed_happens_after_receiver_drop`); with several receivers the
        // count's release sequence (all its writes are RMWs) carries each one's. No
        // Acquire: the last receiver reads nothing (it notifies under the list's lock).
        if self.shared.rx_count.fetch_sub(1, Release) == 1 {
            notify_all(&self.shared.tx_waiters);
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T: fmt::Debug> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}
