//! The bounded channel's handles: [`Sender`], [`Receiver`], [`WeakSender`] (the permits
//! they reserve are in `permit`), each a wrapper of `handle`'s `Tx`, `Rx` and `WeakTx`
//! (the counting and the receiving, shared with the unbounded flavor). The machinery is in
//! `chan` (shared state), `semaphore` (the permits) and `ring` (the queue).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::chan::Chan;
use super::error::{SendError, TryRecvError, TrySendError};
use super::handle::{self, Rx, Tx, WeakTx};
use super::permit::{OwnedPermit, Permit, PermitIterator};
use super::semaphore::{Bounded, TryAcquireError, MAX_PERMITS};
use crate::sync::{poll_budget, spend_budget};

pub(super) type BChan<T> = Chan<T, Bounded>;

/// Creates a bounded channel with room for `buffer` messages: once that many are queued (or
/// reserved), [`Sender::send`] waits for the receiver to take one. That wait is the
/// backpressure a bounded channel exists for.
///
/// The queue is a ring of `buffer` slots (rounded up to a power of two) allocated here, so
/// sending and receiving allocate nothing. Unlike tokio's lazily grown blocks, a very large
/// `buffer` costs its memory up front (one slot is a message plus a word): for a channel
/// meant to be practically unbounded, use [`unbounded_channel`](super::unbounded_channel).
///
/// # Panics
///
/// When `buffer` is 0 (use [`oneshot`](crate::sync::oneshot) or a capacity of 1), or larger
/// than `usize::MAX >> 3`.
///
/// ```
/// # runtime::Runtime::new().unwrap().block_on(async {
/// use runtime::sync::mpsc;
///
/// let (tx, mut rx) = mpsc::channel(8);
/// runtime::spawn(async move {
///     for i in 0..10 {
///         tx.send(i).await.unwrap(); // waits while 8 are queued
///     }
/// });
/// let mut got = Vec::new();
/// while let Some(i) = rx.recv().await {
///     got.push(i);
/// }
/// assert_eq!(got, (0..10).collect::<Vec<_>>());
/// # });
/// ```
#[track_caller]
pub fn channel<T>(buffer: usize) -> (Sender<T>, Receiver<T>) {
    assert!(buffer > 0, "mpsc bounded channel requires buffer > 0");
    assert!(
        buffer <= MAX_PERMITS,
        "mpsc bounded channel requires buffer <= {MAX_PERMITS}"
    );
    let (tx, rx) = handle::channel(Bounded::new(buffer));
    (Sender { chan: tx }, Receiver { chan: rx })
}

/// Sends messages to the [`Receiver`] of a bounded channel. Clone it for more producers; the
/// channel is closed for the receiver once every sender is dropped.
pub struct Sender<T> {
    pub(super) chan: Tx<T, Bounded>,
}

/// A sender that does not keep the channel open: [`upgrade`](WeakSender::upgrade) it to
/// send, which fails once every [`Sender`] is gone.
///
/// ```
/// let (tx, _rx) = runtime::sync::mpsc::channel::<u8>(1);
/// let weak = tx.downgrade();
/// assert!(weak.upgrade().is_some());
/// drop(tx);
/// assert!(weak.upgrade().is_none());
/// ```
pub struct WeakSender<T> {
    chan: WeakTx<T, Bounded>,
}

/// Receives the messages of a bounded channel, in the order they were sent.
pub struct Receiver<T> {
    chan: Rx<T, Bounded>,
}

/// The wait for `n` permits: owns a node in the semaphore's FIFO once queued; dropping it
/// hands whatever it was given on to the next waiter, or back to a closed channel, and then
/// wakes the receiver if that left the closed channel idle (as a dropped [`Permit`] does).
/// Failing on a closed channel gives back what it held the same way (the semaphore
/// releases it in that poll) and wakes the receiver likewise: a closed receiver waits for
/// exactly these permits, and only the wait that held them knows when they are back.
struct Acquire<'a, T> {
    chan: &'a BChan<T>,
    n: usize,
    key: Option<usize>,
}

impl<T> Future for Acquire<'_, T> {
    type Output = Result<(), ()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), ()>> {
        std::task::ready!(poll_budget(cx));
        let this = &mut *self;
        // The first poll takes the permits with one CAS, no lock, when there is room and
        // nobody waits ahead; otherwise it queues.
        let out = std::task::ready!(this.chan.sem.poll_acquire(cx, this.n, &mut this.key));
        spend_budget(cx);
        if out.is_err() {
            this.chan.permit_returned();
        }
        Poll::Ready(out)
    }
}

impl<T> Drop for Acquire<'_, T> {
    fn drop(&mut self) {
        if let Some(k) = self.key.take() {
            // First the permits go back (a grant the future never saw included), then the
            // receiver is told: it may be waiting on a closed channel for exactly these.
            self.chan.sem.cancel(k);
            self.chan.permit_returned();
        }
    }
}

impl<T> Sender<T> {
    async fn acquire(&self, n: usize) -> Result<(), ()> {
        Acquire {
            chan: &self.chan,
            n,
            key: None,
        }
        .await
    }

    /// Sends `value`, waiting for room while the channel is full. Fails, giving the value
    /// back, once the receiver is gone or closed the channel.
    ///
    /// Cancel safety: dropping the future before it completes sends nothing and loses
    /// nothing but the value (and its place in the queue of waiting senders; any room it
    /// was given passes on to the next sender). To keep the value, use [`reserve`] first.
    ///
    /// [`reserve`]: Sender::reserve
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let (tx, mut rx) = runtime::sync::mpsc::channel(1);
    /// tx.send("hello").await.unwrap();
    /// assert_eq!(rx.recv().await, Some("hello"));
    /// drop(rx);
    /// assert_eq!(tx.send("gone").await.unwrap_err().0, "gone");
    /// # });
    /// ```
    pub async fn send(&self, value: T) -> Result<(), SendError<T>> {
        match self.acquire(1).await {
            Ok(()) => {
                self.chan.push(value);
                Ok(())
            }
            Err(()) => Err(SendError(value)),
        }
    }

    /// Sends `value` if there is room now, without waiting.
    ///
    /// ```
    /// use runtime::sync::mpsc::{self, error::TrySendError};
    /// let (tx, _rx) = mpsc::channel(1);
    /// tx.try_send(1).unwrap();
    /// assert_eq!(tx.try_send(2), Err(TrySendError::Full(2)));
    /// ```
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        match self.chan.sem.try_acquire(1) {
            Ok(()) => {
                self.chan.push(value);
                Ok(())
            }
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(value)),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(value)),
        }
    }

    /// Sends `value`, waiting at most `timeout` for room.
    ///
    /// Cancel safety: as [`send`](Sender::send).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use std::time::Duration;
    /// use runtime::sync::mpsc::{self, error::SendTimeoutError};
    /// let (tx, _rx) = mpsc::channel(1);
    /// tx.send(1).await.unwrap();
    /// let err = tx.send_timeout(2, Duration::from_millis(10)).await.unwrap_err();
    /// assert_eq!(err, SendTimeoutError::Timeout(2));
    /// # });
    /// ```
    #[cfg(not(loom))]
    pub async fn send_timeout(
        &self,
        value: T,
        timeout: std::time::Duration,
    ) -> Result<(), super::error::SendTimeoutError<T>> {
        use super::error::SendTimeoutError;
        match crate::time::timeout(timeout, self.acquire(1)).await {
            Ok(Ok(())) => {
                self.chan.push(value);
                Ok(())
            }
            Ok(Err(())) => Err(SendTimeoutError::Closed(value)),
            Err(_) => Err(SendTimeoutError::Timeout(value)),
        }
    }

    /// Sends from synchronous code, blocking the thread while the channel is full.
    ///
    /// # Panics
    ///
    /// Inside a runtime (it would block a thread that drives tasks): `.await`
    /// [`send`](Sender::send) instead.
    ///
    /// ```
    /// let (tx, mut rx) = runtime::sync::mpsc::channel(1);
    /// let t = std::thread::spawn(move || tx.blocking_send(5).unwrap());
    /// assert_eq!(rx.blocking_recv(), Some(5));
    /// t.join().unwrap();
    /// ```
    #[track_caller]
    pub fn blocking_send(&self, value: T) -> Result<(), SendError<T>> {
        crate::context::assert_not_in_runtime(crate::misuse::MPSC_BLOCKING_SEND);
        futures_executor::block_on(self.send(value))
    }

    /// Waits for room for one message and reserves it.
    ///
    /// Cancel safety: yes; dropping the future gives up its place in the FIFO of waiting
    /// senders, and room it was already given passes on to the next.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let (tx, mut rx) = runtime::sync::mpsc::channel(1);
    /// let permit = tx.reserve().await.unwrap();
    /// assert!(tx.try_send(0).is_err()); // the one slot is reserved
    /// permit.send(1);
    /// assert_eq!(rx.recv().await, Some(1));
    /// # });
    /// ```
    pub async fn reserve(&self) -> Result<Permit<'_, T>, SendError<()>> {
        self.acquire(1).await.map_err(|()| SendError(()))?;
        Ok(Permit { chan: &self.chan })
    }

    /// Waits for room for `n` messages and reserves it all at once (FIFO: later, smaller
    /// reservations do not overtake it). Fails when `n` exceeds the channel's capacity.
    ///
    /// Cancel safety: as [`reserve`](Sender::reserve).
    pub async fn reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, SendError<()>> {
        if n > self.max_capacity() {
            return Err(SendError(()));
        }
        if n == 0 {
            // Nothing to wait for (and nothing to queue behind others for).
            return if self.is_closed() {
                Err(SendError(()))
            } else {
                Ok(PermitIterator {
                    chan: &self.chan,
                    n: 0,
                })
            };
        }
        self.acquire(n).await.map_err(|()| SendError(()))?;
        Ok(PermitIterator {
            chan: &self.chan,
            n,
        })
    }

    /// Reserves room for one message if there is some now.
    pub fn try_reserve(&self) -> Result<Permit<'_, T>, TrySendError<()>> {
        match self.chan.sem.try_acquire(1) {
            Ok(()) => Ok(Permit { chan: &self.chan }),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(())),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(())),
        }
    }

    /// Reserves room for `n` messages if there is that much now (`Full` when `n` exceeds
    /// the capacity).
    pub fn try_reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, TrySendError<()>> {
        if n > self.max_capacity() {
            return Err(TrySendError::Full(()));
        }
        if n == 0 {
            return if self.is_closed() {
                Err(TrySendError::Closed(()))
            } else {
                Ok(PermitIterator {
                    chan: &self.chan,
                    n: 0,
                })
            };
        }
        match self.chan.sem.try_acquire(n) {
            Ok(()) => Ok(PermitIterator {
                chan: &self.chan,
                n,
            }),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(())),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(())),
        }
    }

    /// As [`reserve`](Sender::reserve), but the permit owns the sender (so it can move
    /// into another task). On a closed channel the sender is dropped and the error carries
    /// nothing (tokio's `SendError<()>`).
    ///
    /// Cancel safety: as [`reserve`](Sender::reserve) (the sender is dropped with the
    /// future).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let (tx, mut rx) = runtime::sync::mpsc::channel(1);
    /// let permit = tx.clone().reserve_owned().await.unwrap();
    /// runtime::spawn(async move { permit.send(7) }).await.unwrap();
    /// assert_eq!(rx.recv().await, Some(7));
    /// rx.close();
    /// let err: runtime::sync::mpsc::error::SendError<()> = tx.reserve_owned().await.unwrap_err();
    /// assert_eq!(err.0, ());
    /// # });
    /// ```
    pub async fn reserve_owned(self) -> Result<OwnedPermit<T>, SendError<()>> {
        match self.acquire(1).await {
            Ok(()) => Ok(OwnedPermit { tx: Some(self) }),
            Err(()) => Err(SendError(())),
        }
    }

    /// As [`try_reserve`](Sender::try_reserve), owning the sender.
    pub fn try_reserve_owned(self) -> Result<OwnedPermit<T>, TrySendError<Self>> {
        match self.chan.sem.try_acquire(1) {
            Ok(()) => Ok(OwnedPermit { tx: Some(self) }),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(self)),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(self)),
        }
    }

    /// Waits until the receiver is dropped or closes the channel.
    ///
    /// Cancel safety: yes.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let (tx, rx) = runtime::sync::mpsc::channel::<u8>(1);
    /// runtime::spawn(async move { drop(rx) });
    /// tx.closed().await;
    /// assert!(tx.is_closed());
    /// # });
    /// ```
    pub async fn closed(&self) {
        self.chan.closed().await
    }

    /// True once the receiver is dropped or closed the channel.
    pub fn is_closed(&self) -> bool {
        self.chan.sem.is_closed()
    }

    /// The room free now (capacity minus queued and reserved messages).
    pub fn capacity(&self) -> usize {
        self.chan.sem.available()
    }

    /// The capacity the channel was created with.
    pub fn max_capacity(&self) -> usize {
        self.chan.sem.bound()
    }

    /// True when both senders belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.chan.same_channel(&other.chan)
    }

    /// A [`WeakSender`] for this channel.
    pub fn downgrade(&self) -> WeakSender<T> {
        WeakSender {
            chan: self.chan.downgrade(),
        }
    }

    /// The number of [`Sender`]s (and [`OwnedPermit`]s) of the channel.
    pub fn strong_count(&self) -> usize {
        self.chan.strong_count()
    }

    /// The number of [`WeakSender`]s of the channel.
    pub fn weak_count(&self) -> usize {
        self.chan.weak_count()
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender {
            chan: self.chan.clone(),
        }
    }
}

impl<T> WeakSender<T> {
    /// A [`Sender`], unless every sender is already gone.
    pub fn upgrade(&self) -> Option<Sender<T>> {
        self.chan.upgrade().map(|chan| Sender { chan })
    }

    /// The number of [`Sender`]s of the channel.
    pub fn strong_count(&self) -> usize {
        self.chan.strong_count()
    }

    /// The number of [`WeakSender`]s of the channel.
    pub fn weak_count(&self) -> usize {
        self.chan.weak_count()
    }
}

impl<T> Clone for WeakSender<T> {
    fn clone(&self) -> Self {
        WeakSender {
            chan: self.chan.clone(),
        }
    }
}

impl<T> Receiver<T> {
    /// Receives the next message, waiting for one; `None` once the channel is closed and
    /// every message sent before was received.
    ///
    /// Cancel safety: yes; a message is only taken by the poll that returns it.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let (tx, mut rx) = runtime::sync::mpsc::channel(2);
    /// tx.send(1).await.unwrap();
    /// drop(tx);
    /// assert_eq!(rx.recv().await, Some(1)); // sent before the close: delivered
    /// assert_eq!(rx.recv().await, None);
    /// # });
    /// ```
    pub async fn recv(&mut self) -> Option<T> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Receives up to `limit` messages into `buffer` (appended), waiting for the first.
    /// Returns how many; 0 when `limit` is 0 or the channel is closed and drained.
    ///
    /// Cancel safety: yes.
    pub async fn recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
        std::future::poll_fn(|cx| self.poll_recv_many(cx, buffer, limit)).await
    }

    /// Takes the next message if one is queued, without waiting.
    ///
    /// ```
    /// use runtime::sync::mpsc::{self, error::TryRecvError};
    /// let (tx, mut rx) = mpsc::channel(1);
    /// assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    /// tx.try_send(3).unwrap();
    /// assert_eq!(rx.try_recv(), Ok(3));
    /// drop(tx);
    /// assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    /// ```
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        match self.chan.try_recv() {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(TryRecvError::Empty),
            Err(()) => Err(TryRecvError::Disconnected),
        }
    }

    /// Receives from synchronous code, blocking the thread until a message comes.
    ///
    /// # Panics
    ///
    /// Inside a runtime: `.await` [`recv`](Receiver::recv) instead.
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Option<T> {
        crate::context::assert_not_in_runtime(crate::misuse::MPSC_BLOCKING_RECV);
        futures_executor::block_on(self.recv())
    }

    /// As [`recv_many`](Receiver::recv_many), blocking the thread.
    ///
    /// # Panics
    ///
    /// Inside a runtime: `.await` [`recv_many`](Receiver::recv_many) instead.
    #[track_caller]
    pub fn blocking_recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
        crate::context::assert_not_in_runtime(crate::misuse::MPSC_BLOCKING_RECV_MANY);
        futures_executor::block_on(self.recv_many(buffer, limit))
    }

    /// Closes the channel for sending, keeping what is queued: later sends fail, while
    /// messages already sent, or sent through permits reserved before, are still received.
    pub fn close(&mut self) {
        self.chan.close();
    }

    /// Polls for the next message (what [`recv`](Receiver::recv) awaits).
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        self.chan.poll_recv(cx)
    }

    /// Polls for up to `limit` messages (what [`recv_many`](Receiver::recv_many) awaits).
    pub fn poll_recv_many(
        &mut self,
        cx: &mut Context<'_>,
        buffer: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        self.chan.poll_recv_many(cx, buffer, limit)
    }

    /// The number of messages queued.
    pub fn len(&self) -> usize {
        self.chan.len()
    }

    /// True when no message is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True once the channel is closed: by [`close`](Receiver::close) or because every
    /// sender is gone (messages may still be queued).
    pub fn is_closed(&self) -> bool {
        self.chan.rx_is_closed()
    }

    /// The room free now.
    pub fn capacity(&self) -> usize {
        self.chan.sem.available()
    }

    /// The capacity the channel was created with.
    pub fn max_capacity(&self) -> usize {
        self.chan.sem.bound()
    }

    /// The number of [`Sender`]s of the channel.
    pub fn sender_strong_count(&self) -> usize {
        self.chan.strong_count()
    }

    /// The number of [`WeakSender`]s of the channel.
    pub fn sender_weak_count(&self) -> usize {
        self.chan.weak_count()
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for WeakSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeakSender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}
