//! `Notify`: wake one waiting task, or all of them, with tokio's stored-permit semantics.
//!
//! One atomic word holds `calls << 2 | STATE`, where STATE is EMPTY, WAITING (the waiter
//! queue is non-empty) or NOTIFIED (one stored permit), and `calls` counts
//! `notify_waiters` calls. A spin lock guards the FIFO of waiters ([`WaitList`]), each node
//! pointing at its future's *handoff word*, an atomic inside the (pinned) future.
//!
//! - Serving a queued waiter, a notifier (under the lock) frees its node, then stores what
//!   it gave (`notify_one`, `notify_last` or `notify_waiters`) into the handoff word with
//!   Release, and wakes it after the lock. That store is the notifier's last touch of the
//!   future. So a woken future learns it was served from one Acquire load of its own word
//!   and returns without taking the lock (it owns no node any more); only a future that
//!   still reads "nothing" locks, to refresh its waker or to leave the queue when dropped.
//!   A future's drop that reads "nothing" locks and looks again before freeing its node, so
//!   a notifier never stores into a dropped future: while the node is linked, the future
//!   is alive.
//! - `notify_one` with nobody waiting stores the permit with one CAS (at most one is
//!   stored); otherwise, under the lock, it unlinks the queue's head (`notify_last`: its
//!   tail), records the notification in its slot, and wakes it after the lock.
//! - A `Notified` future snapshots `calls` when it is created. Its first poll (or
//!   `enable`) consumes a stored permit with one CAS, or is ready if `calls` moved;
//!   otherwise it queues under the lock, re-checking both first. So `notify_waiters` wakes
//!   exactly the futures created before it (queued or not yet polled) and stores nothing.
//!   With nobody queued (the word not WAITING) it only counts the call, with one CAS and
//!   no lock (tokio locks on every call): a future queueing concurrently changes the word
//!   with a CAS under the lock after re-reading `calls`, so one of the two CASes sees the
//!   other.
//! - A queued future that is dropped after it got a `notify_one`/`notify_last` it never
//!   returned passes it on (to the next waiter, or as the stored permit): no wake-up is
//!   lost to cancellation.
//!
//! Invariants: STATE is WAITING iff the queue is non-empty (both changed under the lock);
//! while WAITING no permit is stored. A node is linked exactly while its future's handoff
//! word reads "nothing" and the future holds its key; it is freed by whoever ends that (the
//! notifier that serves it, or the future's drop), once. Wakers are woken and dropped
//! after the lock: a `shim::sync::SpinMutex` (its module says why not parking_lot's).

use std::fmt;
use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use shim::sync::atomic::{
    AtomicUsize,
    Ordering::{Acquire, Relaxed, SeqCst},
};
use shim::sync::SpinMutex;

use super::wait_list::{Handoff, HandoffWord, WaitList, WakeList};

const EMPTY: usize = 0;
const WAITING: usize = 1;
const NOTIFIED: usize = 2;
const STATE: usize = 3;
const CALL: usize = 4;

/// Which waiter a single notification goes to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Strategy {
    /// `notify_one`: the longest waiting.
    Fifo,
    /// `notify_last`: the most recent.
    Lifo,
}

/// A handoff word's values: what a queued waiter was served.
const GOT_NOTHING: usize = 0;
/// `notify_one`.
const GOT_FIFO: usize = 1;
/// `notify_last`.
const GOT_LIFO: usize = 2;
/// `notify_waiters`.
const GOT_ALL: usize = 3;

impl Strategy {
    fn got(self) -> usize {
        match self {
            Strategy::Fifo => GOT_FIFO,
            Strategy::Lifo => GOT_LIFO,
        }
    }
}

/// Wakes tasks waiting for an event, without sending data.
///
/// [`notify_one`](Notify::notify_one) wakes one waiting task, or, with nobody waiting,
/// stores a single permit that the next [`notified`](Notify::notified) consumes at once
/// (several calls still store one). [`notify_waiters`](Notify::notify_waiters) wakes every
/// future created before it, and stores nothing.
///
/// ```
/// use std::sync::Arc;
/// use runtime::sync::Notify;
///
/// # runtime::Runtime::new().unwrap().block_on(async {
/// let notify = Arc::new(Notify::new());
/// let n2 = notify.clone();
/// let waiter = runtime::spawn(async move {
///     n2.notified().await;
///     "woken"
/// });
/// notify.notify_one();
/// assert_eq!(waiter.await.unwrap(), "woken");
/// # });
/// ```
pub struct Notify {
    state: AtomicUsize,
    waiters: SpinMutex<WaitList<Handoff>>,
}

/// The future of [`Notify::notified`]: ready once notified.
#[must_use = "futures do nothing unless polled or enabled"]
pub struct Notified<'a> {
    notify: &'a Notify,
    w: Waiter,
}

/// The future of [`Notify::notified_owned`]: [`Notified`] holding an `Arc<Notify>`, so it
/// is `'static` (it can be stored or moved into a task).
#[must_use = "futures do nothing unless polled or enabled"]
pub struct OwnedNotified {
    notify: Arc<Notify>,
    w: Waiter,
}

/// The state of one `Notified` / `OwnedNotified`.
struct Waiter {
    /// `notify_waiters` calls seen when created.
    calls: usize,
    /// Our queue node while queued (until we see `got` served, or leave).
    slot: Option<usize>,
    done: bool,
    /// The handoff word: `GOT_*`, stored by the notifier that serves our node.
    got: HandoffWord,
    /// Our wait record in the registry's map, when our task's slots were full
    /// (`Waiter::record`).
    rec: task::waits::WaitSlot,
    /// The data pointer of the waker we last recorded with (0: none): a poll with a waker
    /// of the same task records nothing new.
    rec_task: usize,
    /// Our inline record stands in the task of our node's waker: the notifier that serves
    /// the node forgets it (`wait_list::forget_inline`); we do when we leave the queue or
    /// move it to another task.
    linked_rec: bool,
    /// The data pointer of a waker (one of this poll's) whose task holds an inline record
    /// our node's waker is not yet of (0: none): we forget it ourselves.
    own_rec: usize,
    /// The queue points at `got` from the first poll that queues until the node is freed.
    _pinned: PhantomPinned,
}

impl Notify {
    /// A new `Notify` with no stored permit.
    ///
    /// ```
    /// let n = runtime::sync::Notify::new();
    /// n.notify_one();
    /// ```
    pub fn new() -> Notify {
        Notify {
            state: AtomicUsize::new(EMPTY),
            waiters: SpinMutex::new(WaitList::new()),
        }
    }

    /// A new `Notify` usable in a `static`.
    ///
    /// ```
    /// use runtime::sync::Notify;
    /// static N: Notify = Notify::const_new();
    /// N.notify_one();
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new() -> Notify {
        Notify {
            state: AtomicUsize::new(EMPTY),
            waiters: SpinMutex::new(WaitList::new()),
        }
    }

    /// A future that completes when this `Notify` is notified.
    ///
    /// It counts as waiting for [`notify_waiters`](Notify::notify_waiters) from the moment
    /// it is created, and for [`notify_one`](Notify::notify_one) from its first poll (or
    /// [`Notified::enable`]).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: dropping the future after it received a `notify_one` it did not yet
    /// return passes that notification on to another waiter (or stores it).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let n = runtime::sync::Notify::new();
    /// n.notify_one(); // stored
    /// n.notified().await; // consumes it at once
    /// # });
    /// ```
    pub fn notified(&self) -> Notified<'_> {
        Notified {
            notify: self,
            w: self.waiter(),
        }
    }

    /// [`notified`](Notify::notified) for an `Arc<Notify>`: the future owns a clone of the
    /// `Arc`, so it is `'static`.
    ///
    /// # Cancel safety
    ///
    /// As [`notified`](Notify::notified).
    ///
    /// ```
    /// use std::sync::Arc;
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let n = Arc::new(runtime::sync::Notify::new());
    /// let waiting = n.clone().notified_owned();
    /// let task = runtime::spawn(waiting);
    /// n.notify_waiters();
    /// task.await.unwrap();
    /// # });
    /// ```
    pub fn notified_owned(self: Arc<Self>) -> OwnedNotified {
        let w = self.waiter();
        OwnedNotified { notify: self, w }
    }

    fn waiter(&self) -> Waiter {
        Waiter {
            calls: self.state.load(SeqCst) / CALL,
            slot: None,
            done: false,
            got: HandoffWord::new(),
            rec: task::waits::WaitSlot::new(),
            rec_task: 0,
            linked_rec: false,
            own_rec: 0,
            _pinned: PhantomPinned,
        }
    }

    /// Wakes the longest-waiting task, or stores a permit (at most one) when none waits.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let n = runtime::sync::Notify::new();
    /// n.notify_one();
    /// n.notify_one(); // still one permit
    /// n.notified().await;
    /// # });
    /// ```
    pub fn notify_one(&self) {
        self.notify(Strategy::Fifo);
    }

    /// Like [`notify_one`](Notify::notify_one), but wakes the most recent waiter.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let n = runtime::sync::Notify::new();
    /// n.notify_last();
    /// n.notified().await;
    /// # });
    /// ```
    pub fn notify_last(&self) {
        self.notify(Strategy::Lifo);
    }

    fn notify(&self, strategy: Strategy) {
        let mut cur = self.state.load(SeqCst);
        while cur & STATE != WAITING {
            match self
                .state
                .compare_exchange(cur, (cur & !STATE) | NOTIFIED, SeqCst, SeqCst)
            {
                Ok(_) => return,
                Err(now) => cur = now,
            }
        }
        let waker = {
            let mut list = self.waiters.lock();
            self.notify_locked(&mut list, strategy)
        };
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Hands one notification to a waiter (returning its waker) or stores the permit.
    fn notify_locked(&self, list: &mut WaitList<Handoff>, strategy: Strategy) -> Option<Waker> {
        let mut cur = self.state.load(SeqCst);
        loop {
            if cur & STATE == WAITING {
                break;
            }
            match self
                .state
                .compare_exchange(cur, (cur & !STATE) | NOTIFIED, SeqCst, SeqCst)
            {
                Ok(_) => return None,
                Err(now) => cur = now,
            }
        }
        let idx = match strategy {
            Strategy::Fifo => list.front(),
            Strategy::Lifo => list.back(),
        }
        .expect("WAITING with an empty queue");
        let waker = list.serve(idx, strategy.got(), Some(task::waits::WaitKind::Notify));
        if list.is_empty() {
            self.set_empty_locked();
        }
        waker
    }

    /// WAITING -> EMPTY, keeping the call count (under the lock, queue just emptied).
    fn set_empty_locked(&self) {
        let mut cur = self.state.load(SeqCst);
        loop {
            debug_assert_eq!(cur & STATE, WAITING);
            match self
                .state
                .compare_exchange(cur, (cur & !STATE) | EMPTY, SeqCst, SeqCst)
            {
                Ok(_) => return,
                Err(now) => cur = now,
            }
        }
    }

    /// Wakes every task waiting now: every [`Notified`] created before this call, polled
    /// or not. Stores no permit, and does not touch a permit already stored.
    ///
    /// ```
    /// use std::sync::Arc;
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let n = Arc::new(runtime::sync::Notify::new());
    /// let a = n.notified();
    /// let b = n.notified();
    /// n.notify_waiters();
    /// a.await;
    /// b.await;
    /// # });
    /// ```
    pub fn notify_waiters(&self) {
        // Nobody queued: count the call with one CAS, no lock. A waiter queueing meanwhile
        // moves EMPTY -> WAITING with a CAS under the lock after re-reading `calls`, so it
        // either sees this call (and is ready) or makes this CAS fail (and we take the lock).
        let mut cur = self.state.load(SeqCst);
        while cur & STATE != WAITING {
            match self.state.compare_exchange(cur, cur + CALL, SeqCst, SeqCst) {
                Ok(_) => return,
                Err(now) => cur = now,
            }
        }
        let mut wakes = WakeList::new();
        {
            let mut list = self.waiters.lock();
            let cur = self.state.load(SeqCst);
            if cur & STATE != WAITING {
                self.state.fetch_add(CALL, SeqCst);
                return;
            }
            list.serve_all(GOT_ALL, Some(task::waits::WaitKind::Notify), &mut wakes);
            // Under the lock, WAITING: nobody else changes the word now.
            self.state.store((cur & !STATE) + CALL, SeqCst);
        }
        wakes.wake_all();
    }
}

// tokio's: every state change is one atomic operation or made under the waiters' lock,
// so a panic elsewhere leaves nothing half-done.
impl std::panic::UnwindSafe for Notify {}
impl std::panic::RefUnwindSafe for Notify {}

impl Default for Notify {
    fn default() -> Self {
        Notify::new()
    }
}

impl fmt::Debug for Notify {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Notify").finish_non_exhaustive()
    }
}

impl Notified<'_> {
    /// Makes this future wait for [`notify_one`](Notify::notify_one) now, without polling
    /// it (so a notification sent before the first `.await` is not missed). Returns true
    /// when it is already notified (the `.await` will be ready at once).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let n = runtime::sync::Notify::new();
    /// let mut waiter = std::pin::pin!(n.notified());
    /// assert!(!waiter.as_mut().enable());
    /// n.notify_one(); // goes to `waiter`, not to a stored permit
    /// waiter.await;
    /// # });
    /// ```
    pub fn enable(self: Pin<&mut Self>) -> bool {
        // SAFETY: nothing is moved out; `w` stays where it is (see `Waiter::_pinned`).
        let this = unsafe { self.get_unchecked_mut() };
        this.w.poll(this.notify, None)
    }
}

impl OwnedNotified {
    /// As [`Notified::enable`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let n = Arc::new(runtime::sync::Notify::new());
    /// let mut waiter = std::pin::pin!(n.clone().notified_owned());
    /// assert!(!waiter.as_mut().enable());
    /// n.notify_one();
    /// waiter.await;
    /// # });
    /// ```
    pub fn enable(self: Pin<&mut Self>) -> bool {
        // SAFETY: nothing is moved out; `w` stays where it is (see `Waiter::_pinned`).
        let this = unsafe { self.get_unchecked_mut() };
        this.w.poll(&this.notify, None)
    }
}

/// The second word of a waiter's wait-registry key (the first is the address of its
/// handoff word): no other leaf keys a record by an address with this tag.
const WAIT_KEY_TAG: usize = usize::MAX - 1;

const KIND: task::waits::WaitKind = task::waits::WaitKind::Notify;

impl Waiter {
    /// The address that names this waiter's records: its handoff word's, stable from the
    /// first poll (the future is pinned) to the drop.
    fn got_addr(&self) -> usize {
        &self.got as *const HandoffWord as usize
    }

    /// The wait-registry key of this waiter (the map's fallback record).
    fn wait_key(&self) -> (usize, usize) {
        (self.got_addr(), WAIT_KEY_TAG)
    }

    /// Records, for task dumps, that the task of `waker` waits on `n`, before the waiters'
    /// lock is taken (the notifier's critical section only forgets). Nothing when our last
    /// record was made with a waker of the same task (`rec_task`).
    ///
    /// The record goes to the task's own slots (`task::waits::inline`), under our handoff
    /// word's address (unique to us while we live) with `n` as the object: `own_rec` until
    /// our node carries a waker of that task (`linked_rec`), from then on the notifier that
    /// serves the node forgets it (before its store into our word, so a dump of an idle
    /// task never shows a served waiter, even one its task no longer polls); no `Active`
    /// test is needed and the dump never touches us. With the task's slots full, it goes
    /// to the registry's map instead, with the `Active` test of our word (`GOT_NOTHING`),
    /// forgotten by us (`unrecord`).
    /// Returns whether it was a waker of a new task (then the caller, once our node holds
    /// it, calls `link_record`).
    fn record(&mut self, n: &Notify, waker: &Waker) -> bool {
        if waker.data() as usize == self.rec_task {
            return false;
        }
        self.rec_task = waker.data() as usize;
        match task::waits::inline::record(waker, KIND, self.got_addr(), n as *const Notify as u64) {
            task::waits::inline::Recorded::Inline => {
                self.own_rec = self.rec_task;
                self.rec.forget();
            }
            task::waits::inline::Recorded::NotATask => self.rec.forget(),
            task::waits::inline::Recorded::Full => self.record_in_map(n, waker),
        }
        true
    }

    /// `record` when the task's slots are full.
    #[cold]
    fn record_in_map(&mut self, n: &Notify, waker: &Waker) {
        let wait = task::waits::Wait::on(KIND, n as *const Notify as usize);
        let active = task::waits::Active::of(&self.got);
        let key = self.wait_key();
        // SAFETY: no holder word; `got` lives until our drop, which calls `unrecord` first.
        unsafe { self.rec.record(key, waker, wait, None, Some(active)) };
    }

    /// Our node now carries `old`'s replacement, of the task of our `own_rec`: the record
    /// there is the notifier's to forget from now on, and the one in `old`'s task (if we
    /// had one linked) is ours to forget now.
    fn link_record(&mut self, old: Option<&Waker>) {
        if self.linked_rec {
            if let Some(old) = old {
                task::waits::inline::forget(old, KIND, self.got_addr());
            }
        }
        self.linked_rec = self.own_rec != 0;
        self.own_rec = 0;
    }

    /// Forgets the records that are ours to forget (`own_rec`, through `waker`, a waker of
    /// this poll's, of the task it names; the map's), once we are done.
    fn unrecord(&mut self, waker: Option<&Waker>) {
        if self.own_rec != 0 {
            if let Some(w) = waker.filter(|w| w.data() as usize == self.own_rec) {
                task::waits::inline::forget(w, KIND, self.got_addr());
            }
            self.own_rec = 0;
        }
        self.rec.forget();
    }

    /// Returns true once notified; queues (with `waker`, if any) otherwise.
    fn poll(&mut self, n: &Notify, waker: Option<&Waker>) -> bool {
        if self.done {
            return true;
        }
        let Some(slot) = self.slot else {
            let mut cur = n.state.load(SeqCst);
            loop {
                if cur / CALL != self.calls {
                    self.done = true;
                    return true;
                }
                if cur & STATE != NOTIFIED {
                    break;
                }
                match n
                    .state
                    .compare_exchange(cur, (cur & !STATE) | EMPTY, SeqCst, SeqCst)
                {
                    Ok(_) => {
                        self.done = true;
                        return true;
                    }
                    Err(now) => cur = now,
                }
            }
            // Recorded and cloned before the lock, which stays as short as it can.
            let new_task = waker.is_some_and(|w| self.record(n, w));
            let waker = waker.cloned();
            let mut list = n.waiters.lock_briefly();
            let mut cur = n.state.load(SeqCst);
            loop {
                if cur / CALL != self.calls {
                    self.done = true;
                    return true;
                }
                let next = match cur & STATE {
                    NOTIFIED => (cur & !STATE) | EMPTY,
                    EMPTY => (cur & !STATE) | WAITING,
                    _ => break,
                };
                match n.state.compare_exchange(cur, next, SeqCst, SeqCst) {
                    Ok(_) if cur & STATE == NOTIFIED => {
                        self.done = true;
                        return true;
                    }
                    Ok(_) => break,
                    Err(now) => cur = now,
                }
            }
            // SAFETY: we are pinned (`_pinned`) and our drop (`cancel`) reads `got` and,
            // seeing 0, locks and looks again before it removes the node: `got` outlives
            // the node's time on the list.
            let handoff = unsafe { Handoff::new(&self.got) };
            let slot = list.push_back(handoff, waker);
            self.slot = Some(slot);
            drop(list);
            if new_task {
                self.link_record(None);
            }
            return false;
        };
        // Queued. Acquire: a notifier that served us freed our node before its Release
        // store; we own nothing in the queue now.
        // Served: the notifier forgot our linked record.
        if self.got.load(Acquire) != GOT_NOTHING {
            self.slot = None;
            self.linked_rec = false;
            self.done = true;
            return true;
        }
        // A new record only for a waker of another task than the one recorded.
        let new_task = waker.is_some_and(|w| self.record(n, w));
        let old = {
            let mut list = n.waiters.lock_briefly();
            // Relaxed: notifiers store under the lock we hold.
            if self.got.load(Relaxed) != GOT_NOTHING {
                self.slot = None;
                self.linked_rec = false;
                self.done = true;
                return true;
            }
            match waker {
                Some(w) => list.set_waker(slot, w),
                None => None,
            }
        };
        if new_task {
            self.link_record(old.as_ref());
        }
        drop(old);
        false
    }

    /// `Future::poll` of both futures: budget, then [`Waiter::poll`].
    fn poll_future(&mut self, n: &Notify, cx: &mut Context<'_>) -> Poll<()> {
        if self.done {
            return Poll::Ready(());
        }
        std::task::ready!(super::poll_budget(cx));
        if self.poll(n, Some(cx.waker())) {
            self.unrecord(Some(cx.waker()));
            super::spend_budget(cx);
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    /// The future is dropped: leave the queue, passing on a single notification we got.
    fn cancel(&mut self, n: &Notify) {
        let Some(slot) = self.slot.take() else {
            return;
        };
        // Acquire: as in `poll`; served by `notify_waiters`, there is nothing to pass on.
        let mut got = self.got.load(Acquire);
        if got == GOT_ALL {
            return;
        }
        let (old, forward) = {
            let mut list = n.waiters.lock_briefly();
            if got == GOT_NOTHING {
                // Relaxed: notifiers store under the lock we hold.
                got = self.got.load(Relaxed);
            }
            match got {
                GOT_NOTHING => {
                    // Still linked: leave the queue (no notifier will touch us after this).
                    let old = list.remove(slot);
                    if list.is_empty() {
                        n.set_empty_locked();
                    }
                    (Some(old), None)
                }
                // A single notification we will never return: pass it on.
                GOT_FIFO => (None, n.notify_locked(&mut list, Strategy::Fifo)),
                GOT_LIFO => (None, n.notify_locked(&mut list, Strategy::Lifo)),
                _ => (None, None),
            }
        };
        // Left the queue: our linked record is ours to forget, through the node's waker.
        if let Some(node) = &old {
            if self.linked_rec {
                if let Some(w) = node.waker() {
                    task::waits::inline::forget(w, KIND, self.got_addr());
                }
            }
        }
        self.linked_rec = false;
        drop(old);
        if let Some(w) = forward {
            w.wake();
        }
    }
}

impl Future for Notified<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: nothing is moved out; `w` stays where it is (see `Waiter::_pinned`).
        let this = unsafe { self.get_unchecked_mut() };
        this.w.poll_future(this.notify, cx)
    }
}

impl Future for OwnedNotified {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: nothing is moved out; `w` stays where it is (see `Waiter::_pinned`).
        let this = unsafe { self.get_unchecked_mut() };
        this.w.poll_future(&this.notify, cx)
    }
}

impl Drop for Notified<'_> {
    fn drop(&mut self) {
        self.w.cancel(self.notify);
        self.w.unrecord(None);
        self.w.got.release();
    }
}

impl Drop for OwnedNotified {
    fn drop(&mut self) {
        self.w.cancel(&self.notify);
        self.w.unrecord(None);
        self.w.got.release();
    }
}

impl fmt::Debug for Notified<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Notified")
            .field("done", &self.w.done)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for OwnedNotified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedNotified")
            .field("done", &self.w.done)
            .finish_non_exhaustive()
    }
}
