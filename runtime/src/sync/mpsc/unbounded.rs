//! The unbounded channel's handles: [`UnboundedSender`], [`UnboundedReceiver`],
//! [`WeakUnboundedSender`], each a wrapper of `handle`'s `Tx`, `Rx` and `WeakTx` (shared
//! with the bounded flavor). Sending never waits; the queue is `list` (recycled blocks of
//! slots, no allocation per message in the steady state), which also holds the CLOSED
//! bit; `semaphore::Unbounded` accounts nothing.

use std::fmt;
use std::task::{Context, Poll};

use super::error::{SendError, TryRecvError};
use super::handle::{self, Rx, Tx, WeakTx};
use super::semaphore::Unbounded;

/// Creates a channel without a bound: sending never waits, so nothing pushes back on a
/// producer that outruns the receiver (prefer [`channel`](super::channel) when that can
/// happen).
///
/// ```
/// # runtime::Runtime::new().unwrap().block_on(async {
/// let (tx, mut rx) = runtime::sync::mpsc::unbounded_channel();
/// for i in 0..3 {
///     tx.send(i).unwrap();
/// }
/// drop(tx);
/// let mut got = Vec::new();
/// while let Some(i) = rx.recv().await {
///     got.push(i);
/// }
/// assert_eq!(got, [0, 1, 2]);
/// # });
/// ```
pub fn unbounded_channel<T>() -> (UnboundedSender<T>, UnboundedReceiver<T>) {
    let (tx, rx) = handle::channel(Unbounded);
    (UnboundedSender { chan: tx }, UnboundedReceiver { chan: rx })
}

/// Sends messages to an [`UnboundedReceiver`]; clone it for more producers.
pub struct UnboundedSender<T> {
    chan: Tx<T, Unbounded>,
}

/// An unbounded sender that does not keep the channel open (see
/// [`WeakSender`](super::WeakSender)).
pub struct WeakUnboundedSender<T> {
    chan: WeakTx<T, Unbounded>,
}

/// Receives the messages of an unbounded channel, in the order they were sent.
pub struct UnboundedReceiver<T> {
    chan: Rx<T, Unbounded>,
}

impl<T> UnboundedSender<T> {
    /// Sends `value` without waiting; gives it back once the receiver is gone or closed
    /// the channel.
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        self.chan.try_push(value).map_err(SendError)
    }

    /// Waits until the receiver is dropped or closes the channel.
    ///
    /// Cancel safety: yes.
    pub async fn closed(&self) {
        self.chan.closed().await
    }

    /// True once the receiver is dropped or closed the channel.
    pub fn is_closed(&self) -> bool {
        self.chan.queue.is_closed()
    }

    /// True when both senders belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.chan.same_channel(&other.chan)
    }

    /// A [`WeakUnboundedSender`] for this channel.
    pub fn downgrade(&self) -> WeakUnboundedSender<T> {
        WeakUnboundedSender {
            chan: self.chan.downgrade(),
        }
    }

    /// The number of [`UnboundedSender`]s of the channel.
    pub fn strong_count(&self) -> usize {
        self.chan.strong_count()
    }

    /// The number of [`WeakUnboundedSender`]s of the channel.
    pub fn weak_count(&self) -> usize {
        self.chan.weak_count()
    }
}

impl<T> Clone for UnboundedSender<T> {
    fn clone(&self) -> Self {
        UnboundedSender {
            chan: self.chan.clone(),
        }
    }
}

impl<T> WeakUnboundedSender<T> {
    /// An [`UnboundedSender`], unless every sender is already gone.
    pub fn upgrade(&self) -> Option<UnboundedSender<T>> {
        self.chan.upgrade().map(|chan| UnboundedSender { chan })
    }

    /// The number of [`UnboundedSender`]s of the channel.
    pub fn strong_count(&self) -> usize {
        self.chan.strong_count()
    }

    /// The number of [`WeakUnboundedSender`]s of the channel.
    pub fn weak_count(&self) -> usize {
        self.chan.weak_count()
    }
}

impl<T> Clone for WeakUnboundedSender<T> {
    fn clone(&self) -> Self {
        WeakUnboundedSender {
            chan: self.chan.clone(),
        }
    }
}

impl<T> UnboundedReceiver<T> {
    /// Receives the next message, waiting for one; `None` once the channel is closed and
    /// drained.
    ///
    /// Cancel safety: yes.
    pub async fn recv(&mut self) -> Option<T> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Receives up to `limit` messages into `buffer`, waiting for the first; 0 when `limit`
    /// is 0 or the channel is closed and drained.
    ///
    /// Cancel safety: yes.
    pub async fn recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
        std::future::poll_fn(|cx| self.poll_recv_many(cx, buffer, limit)).await
    }

    /// Takes the next message if one is queued, without waiting.
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
    /// Inside a runtime: `.await` [`recv`](UnboundedReceiver::recv) instead.
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Option<T> {
        crate::context::assert_not_in_runtime(crate::misuse::UNBOUNDED_BLOCKING_RECV);
        futures_executor::block_on(self.recv())
    }

    /// As [`recv_many`](UnboundedReceiver::recv_many), blocking the thread.
    ///
    /// # Panics
    ///
    /// Inside a runtime: `.await` [`recv_many`](UnboundedReceiver::recv_many) instead.
    #[track_caller]
    pub fn blocking_recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
        crate::context::assert_not_in_runtime(crate::misuse::UNBOUNDED_BLOCKING_RECV_MANY);
        futures_executor::block_on(self.recv_many(buffer, limit))
    }

    /// Closes the channel for sending, keeping what is queued.
    pub fn close(&mut self) {
        self.chan.close();
    }

    /// Polls for the next message.
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        self.chan.poll_recv(cx)
    }

    /// Polls for up to `limit` messages.
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

    /// True once the channel is closed (by [`close`](UnboundedReceiver::close) or because
    /// every sender is gone).
    pub fn is_closed(&self) -> bool {
        self.chan.rx_is_closed()
    }

    /// The number of [`UnboundedSender`]s of the channel.
    pub fn sender_strong_count(&self) -> usize {
        self.chan.strong_count()
    }

    /// The number of [`WeakUnboundedSender`]s of the channel.
    pub fn sender_weak_count(&self) -> usize {
        self.chan.weak_count()
    }
}

impl<T> fmt::Debug for UnboundedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnboundedSender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for WeakUnboundedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeakUnboundedSender")
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for UnboundedReceiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnboundedReceiver").finish_non_exhaustive()
    }
}
