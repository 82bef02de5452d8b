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
//! - `close` fails every waiter and later acquisitions; permits given to the waiters in part
//!   go back to the word, so idleness stays exact.
//!
//! [`Unbounded`]: the unbounded channel only counts messages sent and not yet received
//! (`count << 1 | CLOSED`), so the receiver knows when a closed channel is drained. The
//! count publishes no message (each travels through its list slot's own Release/Acquire),
//! so it moves Relaxed; only CLOSED carries an edge: `close` is a Release and every read
//! that can answer "closed" (`is_closed`, a refused `try_add`) an Acquire, so a sender told
//! the channel is closed sees what the receiver wrote before closing, as in tokio (the loom
//! models `unbounded_*_happens_after_close` in `loom_sync_chan`).

use std::task::{Context, Poll};

use shim::sync::atomic::{
    AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};

use crate::sync::batch_semaphore::Sem;
pub(crate) use crate::sync::batch_semaphore::{TryAcquire as TryAcquireError, MAX_PERMITS};

const CLOSED: usize = 0b01;

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
            sem: Sem::new(bound),
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
        self.sem.poll_acquire(cx, n, key).map(|r| r.map_err(|_| ()))
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

/// The unbounded channel's count of messages sent and not yet received.
pub(crate) struct Unbounded {
    state: AtomicUsize,
}

impl Unbounded {
    pub(crate) fn new() -> Unbounded {
        Unbounded {
            state: AtomicUsize::new(0),
        }
    }

    /// Counts one message in, unless closed.
    pub(crate) fn try_add(&self) -> bool {
        // Acquire (here and on the CAS's failure): a CLOSED read here refuses the send,
        // which then happens-after the close (its Release).
        let mut s = self.state.load(Acquire);
        loop {
            if s & CLOSED != 0 {
                return false;
            }
            assert!(
                s < usize::MAX - 2,
                "an unbounded channel holds at most usize::MAX / 2 messages"
            );
            // Success Relaxed: counting a message in publishes nothing and reads nothing
            // (the message travels through its slot); the count stays exact by the word's
            // modification order alone.
            match self.state.compare_exchange_weak(s, s + 2, Relaxed, Acquire) {
                Ok(_) => return true,
                Err(now) => s = now,
            }
        }
    }

    /// Counts one message out (the receiver took it).
    pub(crate) fn remove(&self) {
        // Relaxed: the receiver's read of the message is ordered by nothing here (no sender
        // reuses its slot on the count's strength; the list's own stamps do that).
        self.state.fetch_sub(2, Relaxed);
    }

    pub(crate) fn len(&self) -> usize {
        // Relaxed: a snapshot of the count, which carries no message (module doc).
        self.state.load(Relaxed) >> 1
    }

    pub(crate) fn close(&self) {
        // Release: pairs with the Acquire of every read that answers "closed". No Acquire:
        // closing reads nothing.
        self.state.fetch_or(CLOSED, Release);
    }

    pub(crate) fn is_closed(&self) -> bool {
        // Acquire: a caller told "closed" sees what the closer wrote first (tokio's
        // contract; the loom model `unbounded_is_closed_happens_after_close`).
        self.state.load(Acquire) & CLOSED != 0
    }

    pub(crate) fn is_idle(&self) -> bool {
        // Relaxed: the receiver's drained test (`Chan::is_done`) reads `is_closed` first,
        // then this, on the same word: coherence alone makes this value no older, so every
        // message counted in before the close is counted here unless the receiver itself
        // took it out.
        self.state.load(Relaxed) >> 1 == 0
    }
}
