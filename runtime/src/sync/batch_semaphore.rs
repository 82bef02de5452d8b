//! The fair counting semaphore under `Semaphore`, `Mutex`, `RwLock` and the bounded `mpsc`
//! channel's capacity (one implementation for all of them).
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
//! Coop budget, as tokio's: an acquire first takes its permits (or its place in the queue),
//! and only a granted one checks the task's budget (one look that also spends a unit:
//! `coop::poll_proceed`). With none left it keeps the permits,
//! wakes the task and returns `Pending`, handing them out at its next poll (its drop gives
//! them back); so a task short of budget keeps its FIFO place.
//!
//! Closing, as tokio's: every queued waiter is failed and woken, but keeps what it was
//! granted in part until its future looks (or is dropped), and a waiter granted in full
//! that looks only after the close fails too; either way its future then releases what it
//! held. So the permits a failing waiter holds stay out of the count until that waiter is
//! done, and whoever waits for every permit to come back (a closed channel's receiver)
//! is told by the waiter's owner then.
//!
//! Memory ordering: permits that travel through the word are taken with Acquire and given
//! with Release (so a `Mutex` guard's writes are seen by the next holder); permits handed
//! over through the queue are ordered by the waiters' mutex. A CAS that takes permits is
//! Acquire only (taking publishes nothing: the taker's writes go out with its own release)
//! and one that gives them is Release only (giving reads nothing); each loop's first load
//! and failure ordering only seed the CAS (Relaxed), except on the lock-free acquire path,
//! where a `Closed` answer read there must happen-after the `close` (Acquire, paired with
//! `close`'s Release; `is_closed` likewise), as tokio's does (the loom model
//! `closed_error_happens_after_close`, `closed_snapshot_happens_after_close`). `forget` and `available_permits` carry nothing
//! (Relaxed). Wakers are collected under the lock (a `SemWakes`, `sem_wakes.rs`: the first
//! inline, the rest spilled) and woken, or dropped, after it is released.
//!
//! Task dumps: a waiter that queues is recorded in the wait registry (`task::waits`, under
//! the key (this semaphore's address, its slot)) in the same lock hold, through the
//! `WaitSlot` in its node (again when a later poll brings another task's waker), and
//! forgotten wherever it leaves the queue (served in `release_locked`, failed by `close`,
//! cancelled), also under the lock; the record points at `holder`, the task a lock's wrapper stores
//! when it takes the lock (`note_holder`) and `release` clears (a lock's kind only). So
//! the uncontended paths pay one plain store each for a lock and nothing otherwise.

use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use shim::sync::atomic::{
    AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};
use shim::sync::Mutex;

use super::sem_wakes::SemWakes;
use super::wait_list::WaitList;

const CLOSED: usize = 1;
const WAITERS: usize = 2;
const SHIFT: usize = 2;

/// The most permits a semaphore can hold.
pub(crate) const MAX_PERMITS: usize = usize::MAX >> 3;

/// Acquiring from a closed semaphore.
pub(crate) struct Closed;

/// Why a `try_acquire` failed.
#[derive(Debug, PartialEq, Eq)]
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

/// A queued acquire: how many permits it wants and how many it still lacks, and its wait
/// record for task dumps (forgotten, under the lock, by whoever unlinks the node).
struct Need {
    needed: usize,
    remaining: usize,
    status: Status,
    rec: task::waits::WaitSlot,
}

pub(crate) struct Sem {
    permits: AtomicUsize,
    waiters: Mutex<WaitList<Need>>,
    /// What this semaphore implements, for task dumps (and whether it keeps a holder).
    kind: Kind,
    /// A lock's holder: the header address of the task that took it (0: none, or not a
    /// task; `task::waits::holder_word`). A std atomic even under loom: a label for dumps,
    /// Relaxed, ordering nothing.
    holder: std::sync::atomic::AtomicU64,
}

/// What a [`Sem`] implements, as task dumps name it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Semaphore,
    Mutex,
    RwLock,
    Channel,
}

impl Kind {
    fn wait_kind(self) -> task::waits::WaitKind {
        use task::waits::WaitKind;
        match self {
            Kind::Semaphore => WaitKind::Semaphore,
            Kind::Mutex => WaitKind::Mutex,
            Kind::RwLock => WaitKind::RwLock,
            Kind::Channel => WaitKind::MpscSend,
        }
    }

    fn keeps_holder(self) -> bool {
        matches!(self, Kind::Mutex | Kind::RwLock)
    }
}

impl Sem {
    pub(crate) fn new(permits: usize) -> Sem {
        assert_permits(permits);
        Sem {
            permits: AtomicUsize::new(permits << SHIFT),
            waiters: Mutex::new(WaitList::new()),
            kind: Kind::Semaphore,
            holder: std::sync::atomic::AtomicU64::new(0),
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
            kind: Kind::Semaphore,
            holder: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Names what this semaphore implements (task dumps; a lock keeps its holder).
    pub(crate) const fn with_kind(mut self, kind: Kind) -> Sem {
        self.kind = kind;
        self
    }

    /// A lock's wrapper took the lock: remember the current task as its holder (a
    /// thread-local read and one plain store).
    #[inline]
    pub(crate) fn note_holder(&self) {
        // Relaxed: a label for dumps (see the field).
        self.holder.store(
            task::waits::holder_word(),
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    fn key(&self, slot: usize) -> (usize, usize) {
        (self as *const Sem as usize, slot)
    }

    pub(crate) fn available_permits(&self) -> usize {
        // Relaxed: a snapshot. A count read here entitles the caller to nothing (permits are
        // taken only by a CAS, which acquires), and the channel's idleness test
        // (`Bounded::is_idle`, after an Acquire `is_closed`) needs only the coherence of
        // this one word: a later load never reads an older value.
        self.permits.load(Relaxed) >> SHIFT
    }

    pub(crate) fn is_closed(&self) -> bool {
        // Acquire: pairs with `close`'s Release. A caller that sees the semaphore closed
        // sees what the closer wrote before `close` (tokio's contract; the loom model
        // `closed_snapshot_happens_after_close`).
        self.permits.load(Acquire) & CLOSED != 0
    }

    /// Takes `n` permits if they are there, without waiting.
    #[inline]
    pub(crate) fn try_acquire(&self, n: usize) -> Result<(), TryAcquire> {
        // Acquire (here and on the CAS's failure): the value may say CLOSED, and a `Closed`
        // answer happens-after the `close` (its Release), as `is_closed` does
        // (`closed_error_happens_after_close`; `OnceCell` reads its value on that edge:
        // `once_cell_get_or_init_racing`). A `NoPermits` answer hands over nothing.
        let mut cur = self.permits.load(Acquire);
        loop {
            if cur & CLOSED != 0 {
                return Err(TryAcquire::Closed);
            }
            if cur >> SHIFT < n {
                return Err(TryAcquire::NoPermits);
            }
            // Acquire: the data the permits guard, released by their last holder, is ours.
            // No Release: taking permits publishes nothing (our writes under them go out
            // with our own release of them).
            match self
                .permits
                .compare_exchange_weak(cur, cur - (n << SHIFT), Acquire, Acquire)
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
            key: None,
            done: false,
            held: false,
            at: None,
        }
    }

    /// Waits for `n` permits, awaited at `at` (what a task dump shows if it queues).
    #[inline]
    pub(crate) fn acquire_at(&self, n: usize, at: &'static Location<'static>) -> AcquireFut<'_> {
        AcquireFut {
            sem: self,
            needed: n,
            key: None,
            done: false,
            held: false,
            at: Some(at),
        }
    }

    /// Gives back (or adds) `n` permits: to the waiters first, in order, then to the word.
    #[inline]
    pub(crate) fn release(&self, n: usize) {
        if n == 0 {
            return;
        }
        if self.kind.keeps_holder() {
            // Relaxed: a label for dumps (see the field).
            self.holder.store(0, std::sync::atomic::Ordering::Relaxed);
        }
        // Relaxed: the value only seeds the CAS (which fails on a stale one), and a WAITERS
        // seen here sends us to the lock, which orders what follows.
        let mut cur = self.permits.load(Relaxed);
        while cur & WAITERS == 0 {
            check_add(cur, n);
            // Release: our writes under the permits go to whoever takes them next. No
            // Acquire: giving permits back reads nothing on the word's strength. Failure
            // Relaxed: as the first load.
            match self
                .permits
                .compare_exchange_weak(cur, cur + (n << SHIFT), Release, Relaxed)
            {
                Ok(_) => return,
                Err(now) => cur = now,
            }
        }
        self.release_to_waiters(n);
    }

    /// `release` when someone waits: under the lock.
    #[cold]
    fn release_to_waiters(&self, n: usize) {
        // Checked before any permit moves: a panic under the lock, after some waiters
        // were granted, would drop their wakers unwoken.
        check_add(0, n);
        let mut wakes = SemWakes::new();
        {
            let mut list = self.waiters.lock();
            self.release_locked(n, &mut list, &mut wakes);
        }
        wakes.wake_all();
    }

    /// Hands `n` permits to the queue's head waiters, then puts the rest in the word,
    /// clearing WAITERS when the queue is empty (also when `n` is 0).
    fn release_locked(&self, mut n: usize, list: &mut WaitList<Need>, wakes: &mut SemWakes) {
        while n > 0 {
            let Some(head) = list.front() else { break };
            let need = &mut list.node(head).data;
            let take = need.remaining.min(n);
            need.remaining -= take;
            n -= take;
            if need.remaining == 0 {
                need.status = Status::Granted;
                list.unlink(head);
                wakes.push(list.take_waker(head));
                list.node(head).data.rec.forget();
            }
        }
        let empty = list.is_empty();
        // Relaxed: the value seeds the CAS. The WAITERS bit it shows is current: that bit
        // is written only under the lock we hold, and the lock orders those writes before
        // this load (so coherence forbids an older value); the count may be stale, and
        // then the CAS fails.
        let mut cur = self.permits.load(Relaxed);
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
            // Release: the permits left over carry our writes to a lock-free taker (the
            // loom model `permits_left_over_after_the_queue_carry_the_releasers_writes`).
            // No Acquire: giving permits (or clearing WAITERS) reads nothing. Failure
            // Relaxed: as the first load.
            match self
                .permits
                .compare_exchange_weak(cur, next, Release, Relaxed)
            {
                Ok(_) => return,
                Err(now) => cur = now,
            }
        }
    }

    /// Removes up to `n` available permits for good; returns how many.
    pub(crate) fn forget(&self, n: usize) -> usize {
        // Relaxed throughout: forgotten permits are gone for good, so they guard nothing
        // for anyone (no later holder to publish to, nothing of an earlier holder to
        // read); the word's modification order alone keeps the count exact, and as an RMW
        // the CAS continues the release sequence of the release it follows.
        let mut cur = self.permits.load(Relaxed);
        loop {
            let take = (cur >> SHIFT).min(n);
            if take == 0 {
                return 0;
            }
            match self
                .permits
                .compare_exchange_weak(cur, cur - (take << SHIFT), Relaxed, Relaxed)
            {
                Ok(_) => return take,
                Err(now) => cur = now,
            }
        }
    }

    /// Closes the semaphore: every waiter (and every later acquire) fails. A waiter keeps
    /// the permits it was granted in part until its future looks or is dropped (then they
    /// come back), as tokio's.
    pub(crate) fn close(&self) {
        let mut wakes = SemWakes::new();
        {
            let mut list = self.waiters.lock();
            while let Some(head) = list.front() {
                let need = &mut list.node(head).data;
                need.status = Status::Closed;
                need.rec.forget();
                list.unlink(head);
                wakes.push(list.take_waker(head));
            }
            // Relaxed: the value only seeds the CAS.
            let mut cur = self.permits.load(Relaxed);
            loop {
                let next = (cur | CLOSED) & !WAITERS;
                // Release: a thread that reads CLOSED with Acquire (`is_closed`, a `Closed`
                // answer) sees what we wrote before closing. No Acquire: closing takes no
                // permit, and the waiters learn of the close under the lock. Failure
                // Relaxed: as the first load.
                match self
                    .permits
                    .compare_exchange_weak(cur, next, Release, Relaxed)
                {
                    Ok(_) => break,
                    Err(now) => cur = now,
                }
            }
        }
        wakes.wake_all();
    }

    /// Polls an acquisition of `n` permits; `key` is its node in the queue once queued
    /// (`None` before the first poll and after completion). The first poll takes the
    /// permits with one CAS when they are there (no lock); otherwise it queues under the
    /// lock, taking what there is on account. A queued waiter that is dropped must call
    /// [`Sem::cancel`] with its key. Spends no coop budget (the caller's future does).
    /// `at`: where the acquire is awaited, recorded for task dumps if it queues.
    #[inline]
    pub(crate) fn poll_acquire(
        &self,
        cx: &mut Context<'_>,
        n: usize,
        key: &mut Option<usize>,
        at: Option<&'static Location<'static>>,
    ) -> Poll<Result<(), Closed>> {
        match *key {
            None => match self.try_acquire(n) {
                Ok(()) => Poll::Ready(Ok(())),
                Err(TryAcquire::Closed) => Poll::Ready(Err(Closed)),
                Err(TryAcquire::NoPermits) => self.poll_enqueue(n, cx.waker(), key, at),
            },
            Some(k) => self.poll_queued(k, cx.waker(), key, at),
        }
    }

    /// The slow first poll: queue (or succeed) under the lock.
    #[cold]
    fn poll_enqueue(
        &self,
        n: usize,
        waker: &Waker,
        key: &mut Option<usize>,
        at: Option<&'static Location<'static>>,
    ) -> Poll<Result<(), Closed>> {
        let mut list = self.waiters.lock();
        // Relaxed: the value seeds the CAS; a CLOSED in it was set under the lock we hold
        // (`close` sets it there), so the lock already orders the close before us.
        let mut cur = self.permits.load(Relaxed);
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
            // Acquire: the permits taken carry their last lock-free releaser's writes. No
            // Release: taking publishes nothing (setting WAITERS included: the releasers
            // that see it take the lock, which orders them after us). Failure Relaxed: as
            // the first load.
            match self
                .permits
                .compare_exchange_weak(cur, next, Acquire, Relaxed)
            {
                Ok(_) if granted == n => return Poll::Ready(Ok(())),
                Ok(_) => {
                    let need = Need {
                        needed: n,
                        remaining: n - granted,
                        status: Status::Queued,
                        rec: task::waits::WaitSlot::new(),
                    };
                    let k = list.push_back(need, Some(waker.clone()));
                    *key = Some(k);
                    let wait = task::waits::Wait {
                        at,
                        ..task::waits::Wait::on(self.kind.wait_kind(), self as *const Sem as usize)
                    };
                    // SAFETY: the holder word lives in `self`, which every queued waiter
                    // borrows; the record is forgotten (under this lock) when the waiter
                    // leaves the queue, before its borrow can end.
                    unsafe {
                        list.node(k).data.rec.record(
                            self.key(k),
                            waker,
                            wait,
                            Some(&self.holder),
                            None,
                        )
                    };
                    return Poll::Pending;
                }
                Err(now) => cur = now,
            }
        }
    }

    /// A later poll of a queued acquire; frees its node (clearing `key`) once it is done.
    /// Once the semaphore is closed it fails, granted in full or not, and releases what
    /// it held (tokio's: a closed semaphore hands out nothing, not even a grant made
    /// before the close that its waiter had not seen yet).
    fn poll_queued(
        &self,
        k: usize,
        waker: &Waker,
        key: &mut Option<usize>,
        at: Option<&'static Location<'static>>,
    ) -> Poll<Result<(), Closed>> {
        let mut list = self.waiters.lock();
        // Relaxed: CLOSED is set under the lock we hold, which orders the close before us.
        let closed = self.permits.load(Relaxed) & CLOSED != 0;
        let data = &list.get(k).data;
        let (out, held) = match data.status {
            Status::Queued => {
                let old = list.set_waker(k, waker);
                let wait = task::waits::Wait {
                    at,
                    ..task::waits::Wait::on(self.kind.wait_kind(), self as *const Sem as usize)
                };
                // SAFETY: as in `poll_enqueue` (the slot is forgotten under this lock when
                // the waiter leaves the queue). A waker of the task recorded: nothing.
                unsafe {
                    list.node(k)
                        .data
                        .rec
                        .record(self.key(k), waker, wait, Some(&self.holder), None)
                };
                drop(list);
                drop(old);
                return Poll::Pending;
            }
            Status::Granted if !closed => (Poll::Ready(Ok(())), 0),
            Status::Granted => (Poll::Ready(Err(Closed)), data.needed),
            Status::Closed => (Poll::Ready(Err(Closed)), data.needed - data.remaining),
        };
        let node = list.remove(k);
        let mut wakes = SemWakes::new();
        if held > 0 {
            self.release_locked(held, &mut list, &mut wakes);
        }
        drop(list);
        drop(node);
        wakes.wake_all();
        *key = None;
        out
    }

    /// A queued acquire's future is dropped: give back what it was granted (to the next
    /// waiters first), so nothing is lost.
    pub(crate) fn cancel(&self, k: usize) {
        let mut wakes = SemWakes::new();
        let mut list = self.waiters.lock();
        let mut node = list.remove(k);
        node.data.rec.forget();
        let give = match node.data.status {
            Status::Queued | Status::Closed => node.data.needed - node.data.remaining,
            Status::Granted => node.data.needed,
        };
        self.release_locked(give, &mut list, &mut wakes);
        drop(list);
        drop(node);
        wakes.wake_all();
    }
}

fn assert_permits(n: usize) {
    assert!(
        n <= MAX_PERMITS,
        "a semaphore holds at most MAX_PERMITS ({MAX_PERMITS}) permits, {n} were asked for"
    );
}

/// Panics unless `n` more permits fit beside the `cur` word's (one compare when inlined).
#[inline]
fn check_add(cur: usize, n: usize) {
    let have = cur >> SHIFT;
    // `have <= MAX_PERMITS` always, so the subtraction cannot wrap.
    if n > MAX_PERMITS - have {
        too_many_permits(have, n);
    }
}

#[cold]
#[inline(never)]
fn too_many_permits(have: usize, n: usize) -> ! {
    panic!("adding {n} permits to {have} would exceed MAX_PERMITS ({MAX_PERMITS})")
}

/// The future of [`Sem::acquire`]. Dropping it gives back whatever it was granted.
pub(crate) struct AcquireFut<'a> {
    sem: &'a Sem,
    needed: usize,
    /// Our node in the queue while queued.
    key: Option<usize>,
    done: bool,
    /// Granted, not handed out yet: the task's coop budget was spent when they came (the
    /// order is tokio's: take the place in the queue first, then the budget). Dropping
    /// the future gives them back.
    held: bool,
    /// Where it is awaited (the caller of a `#[track_caller]` lock method), if known.
    at: Option<&'static Location<'static>>,
}

impl AcquireFut<'_> {
    /// The permits it asks for.
    pub(crate) fn needed(&self) -> usize {
        self.needed
    }
}

impl Future for AcquireFut<'_> {
    type Output = Result<(), Closed>;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        assert!(!this.done, "acquire future polled after completion");
        if !this.held {
            let out =
                std::task::ready!(this
                    .sem
                    .poll_acquire(cx, this.needed, &mut this.key, this.at));
            if out.is_err() {
                this.done = true;
                return Poll::Ready(out);
            }
            this.held = true;
        }
        // One look at the budget: spend a unit, or (none left) wake the task and keep
        // the permits for its next poll.
        std::task::ready!(crate::coop::poll_proceed(cx));
        this.held = false;
        this.done = true;
        Poll::Ready(Ok(()))
    }
}

impl Drop for AcquireFut<'_> {
    #[inline]
    fn drop(&mut self) {
        if let Some(k) = self.key.take() {
            self.sem.cancel(k);
        }
        if self.held {
            self.sem.release(self.needed);
        }
    }
}
