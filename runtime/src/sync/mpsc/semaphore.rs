//! The channels' capacity accounting.
//!
//! [`Bounded`]: the bounded channel's permits, on the crate's one fair counting semaphore
//! (`sync::batch_semaphore::Sem`, the one under `Semaphore`, `Mutex` and `RwLock`; its
//! module doc gives the algorithm). A message holds one permit from the moment it is
//! reserved until the receiver takes it out of the ring, so "every permit free" means no
//! message is queued or reserved. What the channel inherits from it:
//! - Fast path: with room and no waiter, reserving and releasing are one CAS on the word.
//! - FIFO: while a sender waits, the word holds no free permit; released permits go to the
//!   waiter at the front (partially, if it wants several), so a big `reserve_many` is not
//!   starved by small ones arriving later.
//! - A cancelled `reserve` hands what it was given on to the next waiters (or the word).
//! - `close` fails every waiter and later acquisitions (a waiter granted in full that had
//!   not looked yet fails too, as tokio's); a failed waiter keeps what it was given in part
//!   until its future fails or is dropped, which gives it back and then wakes a closed
//!   receiver if the channel is idle, so idleness stays exact and the receiver is woken
//!   once, when the last permit is back.
//!
//! [`Unbounded`]: nothing to account. The unbounded channel keeps its one piece of
//! sender-side state, the CLOSED bit, in its list's claim word (`list`'s module doc), so a
//! send is one claim and a receive touches no shared counter.

use std::task::{Context, Poll};

use crate::sync::batch_semaphore::{Kind, Sem};
pub(crate) use crate::sync::batch_semaphore::{TryAcquire as TryAcquireError, MAX_PERMITS};

/// The bounded channel's permits: a [`Sem`] of `bound` permits.
pub(crate) struct Bounded {
    sem: Sem,
    bound: usize,
}

impl Bounded {
    pub(crate) fn new(bound: usize) -> Bounded {
        assert!(
            bound <= MAX_PERMITS,
            "a bounded channel's capacity is at most {MAX_PERMITS}"
        );
        Bounded {
            sem: Sem::new(bound).with_kind(Kind::Channel),
            bound,
        }
    }

    pub(crate) fn bound(&self) -> usize {
        self.bound
    }

    pub(crate) fn available(&self) -> usize {
        self.sem.available_permits()
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.sem.is_closed()
    }

    /// Every permit is free: no message is queued or reserved.
    pub(crate) fn is_idle(&self) -> bool {
        self.sem.available_permits() == self.bound
    }

    /// Takes `n` permits if they are free (then nobody waits ahead), without waiting.
    #[inline]
    pub(crate) fn try_acquire(&self, n: usize) -> Result<(), TryAcquireError> {
        self.sem.try_acquire(n)
    }

    /// Polls an acquisition of `n` permits (see `Sem::poll_acquire`); `key` is the
    /// waiter's node once queued. `Ready(Err(()))` when the channel is closed.
    #[inline]
    pub(crate) fn poll_acquire(
        &self,
        cx: &mut Context<'_>,
        n: usize,
        key: &mut Option<usize>,
    ) -> Poll<Result<(), ()>> {
        self.sem
            .poll_acquire(cx, n, key, None)
            .map(|r| r.map_err(|_| ()))
    }

    /// A queued waiter's future was dropped: what it was given passes on.
    pub(crate) fn cancel(&self, key: usize) {
        self.sem.cancel(key)
    }

    /// Releases `n` permits (to the waiters first).
    #[inline]
    pub(crate) fn release(&self, n: usize) {
        self.sem.release(n)
    }

    /// Closes: later acquisitions fail and every queued waiter is released with an error.
    pub(crate) fn close(&self) {
        self.sem.close()
    }
}

/// The unbounded channel's (empty) accounting: see the module doc.
pub(crate) struct Unbounded;
