//! The fair counting semaphore under `Semaphore`, `Mutex` and `RwLock`.
//!
//! One atomic word holds `available << 2 | WAITERS | CLOSED`; a mutex guards the FIFO of
//! waiters ([`WaitList`]). The uncontended paths touch only the word: an acquire that finds
//! enough permits takes them with one CAS; a release with no waiter adds them with one CAS.
//!
//! Fairness (FIFO, so a big `acquire_many` is not starved by small ones) comes from one
//! invariant: **while WAITERS is set, `available` is 0.** A waiter that queues takes the
//! permits there are (a partial grant kept in its slot) and sets WAITERS in the same CAS;
//! a release that sees WAITERS takes the lock and hands its permits to the queue's head
//! first (completing waiters in order), putting back into the word only what is left once
//! the queue is empty, in the CAS that clears WAITERS. So a newcomer never finds permits
//! while someone waits: it queues behind them.
//!
//! Cancellation: a waiter's future that is dropped while queued unlinks itself and releases
//! the permits it was partially granted (to the next waiters); one dropped after it was
//! granted but before it looked releases all of them. Either way nothing is lost.
//!
//! Memory ordering: permits that travel through the word are taken with Acquire and given
//! with Release (so a `Mutex` guard's writes are seen by the next holder); permits handed
//! over through the queue are ordered by the waiters' mutex. Wakers are collected under
//! the lock and woken, or dropped, after it is released.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use shim::sync::atomic::{AtomicUsize, Ordering::AcqRel, Ordering::Acquire};
use shim::sync::Mutex;

use super::wait_list::{WaitList, WakeList, NIL};

const CLOSED: usize = 1;
const WAITERS: usize = 2;
const SHIFT: usize = 2;

/// The most permits a semaphore can hold.
pub(crate) const MAX_PERMITS: usize = usize::MAX >> 3;

/// Acquiring from a closed semaphore.
pub(crate) struct Closed;

/// Why a `try_acquire` failed.
pub(crate) enum TryAcquire {
    Closed,
    NoPermits,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Status {
    Queued,
    Granted,
    Closed,
}

/// A queued acquire: how many permits it wants and how many it still lacks.
struct Need {
    needed: usize,
    remaining: usize,
    status: Status,
}

pub(crate) struct Sem {
    permits: AtomicUsize,
    waiters: Mutex<WaitList<Need>>,
}

impl Sem {
    pub(crate) fn new(permits: usize) -> Sem {
        assert_permits(permits);
        Sem {
            permits: AtomicUsize::new(permits << SHIFT),
            waiters: Mutex::new(WaitList::new()),
        }
    }

    #[cfg(not(loom))]
    pub(crate) const fn const_new(permits: usize) -> Sem {
        assert!(
            permits <= MAX_PERMITS,
            "a semaphore holds at most MAX_PERMITS permits"
        );
        Sem {
            permits: AtomicUsize::new(permits << SHIFT),
            waiters: Mutex::new(WaitList::new()),
        }
    }

    pub(crate) fn available_permits(&self) -> usize {
        self.permits.load(Acquire) >> SHIFT
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.permits.load(Acquire) & CLOSED != 0
    }

    /// Takes `n` permits if they are there, without waiting.
    pub(crate) fn try_acquire(&self, n: usize) -> Result<(), TryAcquire> {
        let mut cur = self.permits.load(Acquire);
        loop {
            if cur & CLOSED != 0 {
                return Err(TryAcquire::Closed);
            }
            if cur >> SHIFT < n {
                return Err(TryAcquire::NoPermits);
            }
            // Acquire: the data the permits guard, released by their last holder, is ours.
            match self
                .permits
                .compare_exchange_weak(cur, cur - (n << SHIFT), AcqRel, Acquire)
            {
                Ok(_) => return Ok(()),
                Err(now) => cur = now,
            }
        }
    }

    /// Waits for `n` permits.
    pub(crate) fn acquire(&self, n: usize) -> AcquireFut<'_> {
        AcquireFut {
            sem: self,
            needed: n,
            slot: NIL,
            done: false,
        }
    }

    /// Gives back (or adds) `n` permits: to the waiters first, in order, then to the word.
    pub(crate) fn release(&self, n: usize) {
        if n == 0 {
            return;
        }
        // Checked before any permit moves: a panic under the lock, after some waiters
        // were granted, would drop their wakers unwoken.
        check_add(0, n);
        let mut cur = self.permits.load(Acquire);
        while cur & WAITERS == 0 {
            check_add(cur, n);
            // Release: our writes under the permits go to whoever takes them next.
            match self
                .permits
                .compare_exchange_weak(cur, cur + (n << SHIFT), AcqRel, Acquire)
            {
                Ok(_) => return,
                Err(now) => cur = now,
            }
        }
        let mut wakes = WakeList::new();
        {
            let mut list = self.waiters.lock();
            self.release_locked(n, &mut list, &mut wakes);
        }
        wakes.wake_all();
    }

    /// Hands `n` permits to the queue's head waiters, then puts the rest in the word,
    /// clearing WAITERS when the queue is empty (also when `n` is 0).
    fn release_locked(&self, mut n: usize, list: &mut WaitList<Need>, wakes: &mut WakeList) {
        while n > 0 {
            let Some(head) = list.front() else { break };
            let slot = list.get_mut(head);
            let take = slot.state.remaining.min(n);
            slot.state.remaining -= take;
            n -= take;
            if slot.state.remaining == 0 {
                slot.state.status = Status::Granted;
                wakes.push(slot.waker.take());
                list.unlink(head);
            }
        }
        let empty = list.is_empty();
        let mut cur = self.permits.load(Acquire);
        loop {
            if n > 0 {
                check_add(cur, n);
            }
            let mut next = cur + (n << SHIFT);
            if empty {
                next &= !WAITERS;
            }
            if next == cur {
                return;
            }
            match self
                .permits
                .compare_exchange_weak(cur, next, AcqRel, Acquire)
            {
                Ok(_) => return,
                Err(now) => cur = now,
            }
        }
    }

    /// Removes up to `n` available permits for good; returns how many.
    pub(crate) fn forget(&self, n: usize) -> usize {
        let mut cur = self.permits.load(Acquire);
        loop {
            let take = (cur >> SHIFT).min(n);
            if take == 0 {
                return 0;
            }
            match self
                .permits
                .compare_exchange_weak(cur, cur - (take << SHIFT), AcqRel, Acquire)
            {
                Ok(_) => return take,
                Err(now) => cur = now,
            }
        }
    }

    /// Closes the semaphore: every waiter (and every later acquire) fails; permits granted
    /// in part to the waiters go back to the count.
    pub(crate) fn close(&self) {
        let mut wakes = WakeList::new();
        {
            let mut list = self.waiters.lock();
            let mut back = 0;
            while let Some(head) = list.front() {
                let slot = list.get_mut(head);
                back += slot.state.needed - slot.state.remaining;
                slot.state.remaining = slot.state.needed;
                slot.state.status = Status::Closed;
                wakes.push(slot.waker.take());
                list.unlink(head);
            }
            let mut cur = self.permits.load(Acquire);
            loop {
                let next = ((cur | CLOSED) & !WAITERS) + (back << SHIFT);
                match self
                    .permits
                    .compare_exchange_weak(cur, next, AcqRel, Acquire)
                {
                    Ok(_) => break,
                    Err(now) => cur = now,
                }
            }
        }
        wakes.wake_all();
    }

    /// The first poll of an acquire: the fast path, else queue (or succeed) under the lock.
    fn poll_first(&self, n: usize, waker: &Waker, slot: &mut u32) -> Poll<Result<(), Closed>> {
        match self.try_acquire(n) {
            Ok(()) => return Poll::Ready(Ok(())),
            Err(TryAcquire::Closed) => return Poll::Ready(Err(Closed)),
            Err(TryAcquire::NoPermits) => {}
        }
        let mut list = self.waiters.lock();
        let mut cur = self.permits.load(Acquire);
        loop {
            if cur & CLOSED != 0 {
                return Poll::Ready(Err(Closed));
            }
            let avail = cur >> SHIFT;
            let (next, granted) = if avail >= n {
                (cur - (n << SHIFT), n)
            } else {
                // Take what there is and mark the queue non-empty, in one step.
                ((cur & CLOSED) | WAITERS, avail)
            };
            match self
                .permits
                .compare_exchange_weak(cur, next, AcqRel, Acquire)
            {
                Ok(_) if granted == n => return Poll::Ready(Ok(())),
                Ok(_) => {
                    let need = Need {
                        needed: n,
                        remaining: n - granted,
                        status: Status::Queued,
                    };
                    *slot = list.push_back(need, Some(waker.clone()));
                    return Poll::Pending;
                }
                Err(now) => cur = now,
            }
        }
    }

    /// A later poll of a queued acquire.
    fn poll_queued(&self, idx: u32, waker: &Waker) -> Poll<Result<(), Closed>> {
        let (out, old) = {
            let mut list = self.waiters.lock();
            match list.get(idx).state.status {
                Status::Queued => (Poll::Pending, list.set_waker(idx, waker)),
                Status::Granted => (Poll::Ready(Ok(())), list.free(idx)),
                Status::Closed => (Poll::Ready(Err(Closed)), list.free(idx)),
            }
        };
        drop(old);
        out
    }

    /// A queued acquire's future is dropped: give back what it was granted.
    fn cancel(&self, idx: u32) {
        let mut wakes = WakeList::new();
        let old = {
            let mut list = self.waiters.lock();
            let need = &list.get(idx).state;
            let give = match need.status {
                Status::Queued => need.needed - need.remaining,
                Status::Granted => need.needed,
                Status::Closed => 0,
            };
            let old = list.free(idx);
            self.release_locked(give, &mut list, &mut wakes);
            old
        };
        drop(old);
        wakes.wake_all();
    }
}

fn assert_permits(n: usize) {
    assert!(
        n <= MAX_PERMITS,
        "a semaphore holds at most MAX_PERMITS ({MAX_PERMITS}) permits, {n} were asked for"
    );
}

fn check_add(cur: usize, n: usize) {
    let have = cur >> SHIFT;
    assert!(
        n <= MAX_PERMITS && have + n <= MAX_PERMITS,
        "adding {n} permits to {have} would exceed MAX_PERMITS ({MAX_PERMITS})"
    );
}

/// The future of [`Sem::acquire`]. Dropping it gives back whatever it was granted.
pub(crate) struct AcquireFut<'a> {
    sem: &'a Sem,
    needed: usize,
    /// Our slot in the queue, or NIL while not queued.
    slot: u32,
    done: bool,
}

impl Future for AcquireFut<'_> {
    type Output = Result<(), Closed>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        assert!(!this.done, "acquire future polled after completion");
        std::task::ready!(super::poll_budget(cx));
        let out = if this.slot == NIL {
            this.sem.poll_first(this.needed, cx.waker(), &mut this.slot)
        } else {
            this.sem.poll_queued(this.slot, cx.waker())
        };
        if out.is_ready() {
            this.slot = NIL;
            this.done = true;
            super::spend_budget(cx);
        }
        out
    }
}

impl Drop for AcquireFut<'_> {
    fn drop(&mut self) {
        if self.slot != NIL {
            self.sem.cancel(self.slot);
        }
    }
}
