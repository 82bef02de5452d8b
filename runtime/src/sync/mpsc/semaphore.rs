//! The channels' capacity accounting.
//!
//! [`Bounded`]: the bounded channel's permits. One word holds the free permits (shifted by
//! two), `WAITERS` and `CLOSED`; a FIFO [`WaitList`] behind a mutex holds the senders that
//! wait. A message holds one permit from the moment it is reserved until the receiver takes
//! it out of the queue.
//! - Fast path: with no waiter, acquiring and releasing are one CAS on the word.
//! - `WAITERS` is set (under the lock) while the list is not empty, and then the word holds
//!   no free permits: every permit released goes, under the lock, to the waiter at the front
//!   (partially, if it wants several), so a big `reserve_many` is not starved by small ones
//!   arriving later (FIFO). Releasers that see `WAITERS` take the lock; a releaser whose CAS
//!   raced the setting of `WAITERS` fails and retries, so none is lost.
//! - A waiter dropped while queued (a cancelled `reserve`) hands what it was given to the
//!   next waiters, or back to the word, under the same lock; one that was granted its
//!   permits but never saw them gives them back too.
//! - `close` sets `CLOSED` and releases every waiter (they fail); permits they had been
//!   given partially go back to the word, so "idle" (all permits free) still means no
//!   message is queued or reserved.
//!
//! Wakers are taken under the lock and woken after it is released.
//!
//! [`Unbounded`]: the unbounded channel only counts messages sent and not yet received
//! (`count << 1 | CLOSED`), so the receiver knows when a closed channel is drained.

use std::task::{Context, Poll};

use shim::sync::atomic::{
    AtomicUsize,
    Ordering::{AcqRel, Acquire, Release},
};
use shim::sync::Mutex;

use crate::sync::waiters::{WaitList, WakeList};

const CLOSED: usize = 0b01;
const WAITERS: usize = 0b10;
const SHIFT: usize = 2;

/// The most permits (the largest capacity) a bounded channel can have.
pub(crate) const MAX_PERMITS: usize = usize::MAX >> 3;

/// Why permits could not be taken without waiting.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TryAcquireError {
    Closed,
    NoPermits,
}

/// A queued waiter's account.
pub(crate) struct Waiter {
    needed: usize,
    assigned: usize,
    state: WaiterState,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum WaiterState {
    Waiting,
    Granted,
    Closed,
}

pub(crate) struct Bounded {
    state: AtomicUsize,
    waiters: Mutex<WaitList<Waiter>>,
    bound: usize,
}

impl Bounded {
    pub(crate) fn new(bound: usize) -> Bounded {
        assert!(
            bound <= MAX_PERMITS,
            "a bounded channel's capacity is at most {MAX_PERMITS}"
        );
        Bounded {
            state: AtomicUsize::new(bound << SHIFT),
            waiters: Mutex::new(WaitList::new()),
            bound,
        }
    }

    pub(crate) fn bound(&self) -> usize {
        self.bound
    }

    pub(crate) fn available(&self) -> usize {
        self.state.load(Acquire) >> SHIFT
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.state.load(Acquire) & CLOSED != 0
    }

    /// Every permit is free: no message is queued or reserved.
    pub(crate) fn is_idle(&self) -> bool {
        self.state.load(Acquire) >> SHIFT == self.bound
    }

    /// Takes `n` permits if they are free and nobody waits ahead.
    pub(crate) fn try_acquire(&self, n: usize) -> Result<(), TryAcquireError> {
        let mut s = self.state.load(Acquire);
        loop {
            if s & CLOSED != 0 {
                return Err(TryAcquireError::Closed);
            }
            if s & WAITERS != 0 || s >> SHIFT < n {
                return Err(TryAcquireError::NoPermits);
            }
            // Acquire: the receiver's take of the message whose permit this was is before our
            // use of its slot (the ring checks its stamp too).
            match self
                .state
                .compare_exchange_weak(s, s - (n << SHIFT), Acquire, Acquire)
            {
                Ok(_) => return Ok(()),
                Err(now) => s = now,
            }
        }
    }

    /// Polls an acquisition of `n` permits; `key` is the waiter's node once queued.
    /// `Ready(Err(()))` when the semaphore is closed.
    pub(crate) fn poll_acquire(
        &self,
        cx: &mut Context<'_>,
        n: usize,
        key: &mut Option<usize>,
    ) -> Poll<Result<(), ()>> {
        let mut old_waker = None;
        let mut list = self.waiters.lock();
        let out = match *key {
            Some(k) => {
                let node = list.node(k);
                match node.data.state {
                    WaiterState::Granted => {
                        drop(list.remove(k));
                        *key = None;
                        Poll::Ready(Ok(()))
                    }
                    WaiterState::Closed => {
                        drop(list.remove(k));
                        *key = None;
                        Poll::Ready(Err(()))
                    }
                    WaiterState::Waiting => {
                        old_waker = list.set_waker(k, cx.waker());
                        Poll::Pending
                    }
                }
            }
            None => {
                let mut s = self.state.load(Acquire);
                loop {
                    if s & CLOSED != 0 {
                        break Poll::Ready(Err(()));
                    }
                    let free = s >> SHIFT;
                    if list.is_empty() && free >= n {
                        match self.state.compare_exchange_weak(
                            s,
                            s - (n << SHIFT),
                            Acquire,
                            Acquire,
                        ) {
                            Ok(_) => break Poll::Ready(Ok(())),
                            Err(now) => s = now,
                        }
                    } else {
                        // Queue up, taking what is free now (less than `n`) on account.
                        let take = free.min(n);
                        match self.state.compare_exchange_weak(
                            s,
                            (s - (take << SHIFT)) | WAITERS,
                            Acquire,
                            Acquire,
                        ) {
                            Ok(_) => {
                                *key = Some(list.push_back(
                                    cx.waker().clone(),
                                    Waiter {
                                        needed: n,
                                        assigned: take,
                                        state: WaiterState::Waiting,
                                    },
                                ));
                                break Poll::Pending;
                            }
                            Err(now) => s = now,
                        }
                    }
                }
            }
        };
        drop(list);
        drop(old_waker);
        out
    }

    /// Gives back a queued waiter's node when its future is dropped: what it was given
    /// passes on to the next waiters.
    pub(crate) fn cancel(&self, key: usize) {
        let mut wakers = WakeList::new();
        let mut list = self.waiters.lock();
        let node = list.remove(key);
        let give_back = match node.data.state {
            WaiterState::Waiting => node.data.assigned,
            WaiterState::Granted => node.data.needed,
            WaiterState::Closed => 0,
        };
        if give_back > 0 || (list.is_empty() && self.state.load(Acquire) & WAITERS != 0) {
            self.assign_locked(&mut list, give_back, &mut wakers);
        }
        drop(list);
        drop(node);
        wakers.wake_all();
    }

    /// Releases `n` permits.
    pub(crate) fn release(&self, n: usize) {
        if n == 0 {
            return;
        }
        let mut s = self.state.load(Acquire);
        while s & WAITERS == 0 {
            // Release: our take of the message (its slot read) is before the next
            // acquirer's write of the slot.
            match self
                .state
                .compare_exchange_weak(s, s + (n << SHIFT), AcqRel, Acquire)
            {
                Ok(_) => return,
                Err(now) => s = now,
            }
        }
        let mut wakers = WakeList::new();
        let mut list = self.waiters.lock();
        self.assign_locked(&mut list, n, &mut wakers);
        drop(list);
        wakers.wake_all();
    }

    /// Hands `n` permits to the waiters in FIFO order; what is left (once nobody waits)
    /// goes back to the word, clearing `WAITERS`. Called with the lock held.
    fn assign_locked(&self, list: &mut WaitList<Waiter>, mut n: usize, wakers: &mut WakeList) {
        while n > 0 {
            let Some(k) = list.front() else { break };
            let node = list.node(k);
            let give = n.min(node.data.needed - node.data.assigned);
            node.data.assigned += give;
            n -= give;
            if node.data.assigned == node.data.needed {
                node.data.state = WaiterState::Granted;
                list.unlink(k);
                if let Some(w) = list.take_waker(k) {
                    wakers.push(w);
                }
            }
        }
        if list.is_empty() {
            // Release: as in `release`. Under the lock, only CLOSED can change meanwhile.
            let mut s = self.state.load(Acquire);
            loop {
                let new = (s & !WAITERS) + (n << SHIFT);
                match self.state.compare_exchange_weak(s, new, AcqRel, Acquire) {
                    Ok(_) => break,
                    Err(now) => s = now,
                }
            }
        } else {
            debug_assert_eq!(n, 0, "permits left while a waiter still waits");
        }
    }

    /// Closes: later acquisitions fail and every queued waiter is released with an error.
    pub(crate) fn close(&self) {
        let mut wakers = WakeList::new();
        let mut list = self.waiters.lock();
        self.state.fetch_or(CLOSED, AcqRel);
        let mut returned = 0;
        while let Some(k) = list.front() {
            list.unlink(k);
            let node = list.node(k);
            returned += node.data.assigned;
            node.data.assigned = 0;
            node.data.state = WaiterState::Closed;
            if let Some(w) = list.take_waker(k) {
                wakers.push(w);
            }
        }
        if self.state.load(Acquire) & WAITERS != 0 {
            self.assign_locked(&mut list, returned, &mut wakers);
        }
        drop(list);
        wakers.wake_all();
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
        let mut s = self.state.load(Acquire);
        loop {
            if s & CLOSED != 0 {
                return false;
            }
            assert!(
                s < usize::MAX - 2,
                "an unbounded channel holds at most usize::MAX / 2 messages"
            );
            match self.state.compare_exchange_weak(s, s + 2, AcqRel, Acquire) {
                Ok(_) => return true,
                Err(now) => s = now,
            }
        }
    }

    /// Counts one message out (the receiver took it).
    pub(crate) fn remove(&self) {
        self.state.fetch_sub(2, Release);
    }

    pub(crate) fn len(&self) -> usize {
        self.state.load(Acquire) >> 1
    }

    pub(crate) fn close(&self) {
        self.state.fetch_or(CLOSED, AcqRel);
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.state.load(Acquire) & CLOSED != 0
    }

    pub(crate) fn is_idle(&self) -> bool {
        self.state.load(Acquire) >> 1 == 0
    }
}
