//! The one waiter queue of `runtime::sync`: every primitive that makes a task wait (the
//! semaphore under `Semaphore`/`Mutex`/`RwLock` and the bounded `mpsc` capacity, `Notify`,
//! `watch`, `broadcast`, `mpsc`'s `closed`) parks its waiters here.
//!
//! A FIFO of waiter nodes kept in a slab: a `Vec` of slots, linked into a doubly linked list
//! by indices (the *keys*), plus a free list threaded through the unused slots. A waiting
//! future holds only its key. The slab grows to the largest number of simultaneous waiters
//! and is reused afterwards, so after warm-up a wait allocates nothing, and the list has no
//! `unsafe` (an intrusive list of pinned nodes would need it for no gain in the
//! uncontended case, which never queues).
//!
//! Invariants (the list lives behind its owner's mutex, so they hold between locks):
//! - A slot is in exactly one of three places: linked in the queue, allocated but unlinked
//!   (its waiter was served and has not looked yet), or on the free list.
//! - Only the future that allocated a node frees it ([`WaitList::remove`]); a notifier only
//!   unlinks. So a key held by a future always names that future's node (no ABA); a key
//!   used after its node was freed panics. The one exception is a list of [`Handoff`]
//!   nodes (`Notify`, `broadcast`): there the notifier frees the node it serves and tells
//!   the future so through the future's own handoff word, which the future reads before
//!   it uses its key again; so the woken future needs no lock to leave the list.
//! - `head` and `tail` are `NIL` together, exactly when nothing is linked.
//! - Wakers leave the list only by value ([`WaitList::set_waker`]'s old waker,
//!   [`WaitList::take_waker`], [`WaitList::remove`]'s node, [`notify_all`]), so a
//!   caller wakes or drops them after releasing the lock ([`WakeList`]).
//!
//! Also here: [`Waiter`] and [`notify_all`], the "wake me when something changes" wait that
//! `watch`, `broadcast` and `mpsc` build their `changed`/`closed` futures on. A [`Waiter`]
//! records itself in the wait registry (`task::waits`, for task dumps) under the list's
//! lock when it links its node: its node's data is its `WaitSlot`, which records once per
//! new waker (a repeated poll with the same waker leaves the record as it is), and
//! whoever unlinks the node (the notifier, or the waiter leaving) forgets it under the
//! same lock. A ready wait never links a node, so it never touches the registry. A
//! [`Handoff`] node carries no record: the waiters of a list whose notifier frees the
//! nodes it serves (`Notify`, `broadcast`) record themselves after the lock, keyed by
//! their handoff word, which is their record's `Active` test; so a notifier serving many
//! waiters in one critical section never enters the registry.

use std::mem::MaybeUninit;
use std::task::{Context, Poll, Waker};

use shim::sync::atomic::{
    AtomicUsize, Ordering,
    Ordering::{Relaxed, Release},
};
use shim::sync::Mutex;
use task::waits::{Wait, WaitKind, WaitSlot};

/// "No node".
const NIL: usize = usize::MAX;

/// One waiter: its waker, the owner's per-waiter state, and its links.
pub(crate) struct Node<D> {
    waker: Option<Waker>,
    prev: usize,
    next: usize,
    linked: bool,
    /// What the owner of the list keeps per waiter.
    pub(crate) data: D,
}

impl<D> Node<D> {
    /// The node's waker.
    pub(crate) fn waker(&self) -> Option<&Waker> {
        self.waker.as_ref()
    }
}

enum Slot<D> {
    Used(Node<D>),
    /// On the free list; the next free slot.
    Free(usize),
}

/// The queue of waiters (see the module doc).
pub(crate) struct WaitList<D> {
    slots: Vec<Slot<D>>,
    free: usize,
    head: usize,
    tail: usize,
}

impl<D> WaitList<D> {
    pub(crate) const fn new() -> WaitList<D> {
        WaitList {
            slots: Vec::new(),
            free: NIL,
            head: NIL,
            tail: NIL,
        }
    }

    /// The wait-registry key of node `key` (`task::waits`): the list's address and the
    /// slot, unique while the node lives (the list does not move while it has waiters,
    /// who borrow its owner).
    pub(crate) fn dump_key(&self, key: usize) -> (usize, usize) {
        (self as *const Self as usize, key)
    }

    /// True when no node is linked.
    pub(crate) fn is_empty(&self) -> bool {
        self.head == NIL
    }

    /// The first (oldest) linked node's key.
    pub(crate) fn front(&self) -> Option<usize> {
        (self.head != NIL).then_some(self.head)
    }

    /// The last (newest) linked node's key.
    pub(crate) fn back(&self) -> Option<usize> {
        (self.tail != NIL).then_some(self.tail)
    }

    /// Allocates a node holding `data` and `waker` and links it at the back. Returns its key.
    pub(crate) fn push_back(&mut self, data: D, waker: Option<Waker>) -> usize {
        let node = Node {
            waker,
            prev: NIL,
            next: NIL,
            linked: false,
            data,
        };
        let key = if self.free != NIL {
            let key = self.free;
            match std::mem::replace(&mut self.slots[key], Slot::Used(node)) {
                Slot::Free(next) => self.free = next,
                Slot::Used(_) => unreachable!("the free list points at a used slot"),
            }
            key
        } else {
            assert!(self.slots.len() < NIL, "too many waiters");
            self.slots.push(Slot::Used(node));
            self.slots.len() - 1
        };
        self.link_back(key);
        key
    }

    /// The node named by `key`. Panics if `key` is not in use.
    pub(crate) fn node(&mut self, key: usize) -> &mut Node<D> {
        match &mut self.slots[key] {
            Slot::Used(n) => n,
            Slot::Free(_) => panic!("wait list key {key} is not in use"),
        }
    }

    /// The node named by `key`, shared. Panics if `key` is not in use.
    pub(crate) fn get(&self, key: usize) -> &Node<D> {
        match &self.slots[key] {
            Slot::Used(n) => n,
            Slot::Free(_) => panic!("wait list key {key} is not in use"),
        }
    }

    /// Links an unlinked node at the back (a waiter that waits again).
    pub(crate) fn link_back(&mut self, key: usize) {
        let tail = self.tail;
        let n = self.node(key);
        debug_assert!(!n.linked, "wait list node linked twice");
        n.linked = true;
        n.prev = tail;
        n.next = NIL;
        if tail == NIL {
            self.head = key;
        } else {
            self.node(tail).next = key;
        }
        self.tail = key;
    }

    /// Unlinks a node (if linked); it stays allocated to its waiter.
    pub(crate) fn unlink(&mut self, key: usize) {
        let n = self.node(key);
        if !n.linked {
            return;
        }
        n.linked = false;
        let (prev, next) = (n.prev, n.next);
        n.prev = NIL;
        n.next = NIL;
        if prev == NIL {
            self.head = next;
        } else {
            self.node(prev).next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.node(next).prev = prev;
        }
    }

    /// Unlinks `key` and moves its waker into `wakers` (a waiter served under the lock).
    #[inline]
    pub(crate) fn unlink_and_wake(&mut self, key: usize, wakers: &mut WakeList) {
        self.unlink(key);
        wakers.push(self.take_waker(key));
    }

    /// Unlinks and frees a node, returning it (drop it, and so its waker, after releasing
    /// the lock).
    pub(crate) fn remove(&mut self, key: usize) -> Node<D> {
        self.unlink(key);
        match std::mem::replace(&mut self.slots[key], Slot::Free(self.free)) {
            Slot::Used(n) => {
                self.free = key;
                n
            }
            Slot::Free(_) => panic!("wait list key {key} removed twice"),
        }
    }

    pub(crate) fn is_linked(&self, key: usize) -> bool {
        self.get(key).linked
    }

    /// Stores `waker` in the node unless it already wakes the same task; returns the
    /// replaced waker (drop it after releasing the lock).
    pub(crate) fn set_waker(&mut self, key: usize, waker: &Waker) -> Option<Waker> {
        let n = self.node(key);
        match &n.waker {
            Some(w) if w.will_wake(waker) => None,
            _ => n.waker.replace(waker.clone()),
        }
    }

    pub(crate) fn take_waker(&mut self, key: usize) -> Option<Waker> {
        self.node(key).waker.take()
    }
}

/// A waiter's *handoff word*: an atomic inside the waiting future, 0 while its node is
/// linked, which the notifier that serves the node sets (after freeing the node) with
/// [`WaitList::serve`]. A woken future that reads a non-zero word with Acquire knows it
/// owns no node any more, so it returns without taking the lock.
///
/// Under loom it also holds a cell standing for the word's memory: the notifier writes it
/// just before its last access (the store) and the owner writes it when it is done with
/// the word (`release`, from its drop), so loom reports the race if the owner could free
/// the future while a notifier may still store into it (a Relaxed store or load there).
pub(crate) struct HandoffWord {
    word: AtomicUsize,
    #[cfg(loom)]
    memory: shim::cell::UnsafeCell<()>,
}

impl HandoffWord {
    pub(crate) fn new() -> HandoffWord {
        HandoffWord {
            word: AtomicUsize::new(0),
            #[cfg(loom)]
            memory: shim::cell::UnsafeCell::new(()),
        }
    }

    /// The word (0: not served).
    #[inline]
    pub(crate) fn load(&self, order: Ordering) -> usize {
        self.word.load(order)
    }

    /// Clears the word of a waiter that has no node (so nothing points at it).
    pub(crate) fn reset(&self) {
        // Relaxed: no node points at the word; the next node is linked under the lock.
        self.word.store(0, Relaxed);
    }

    /// The owner is done with the word (it is about to be freed or reused): under loom, a
    /// write to its memory, which must happen after any notifier's last access to it.
    #[inline]
    pub(crate) fn release(&self) {
        #[cfg(loom)]
        self.memory.with_mut(|_| ());
    }
}

/// A waiter recorded with its handoff word as its test waits while the word reads 0 (not
/// served).
impl task::waits::StillWaiting for HandoffWord {
    fn still_waiting(&self, _: WaitKind) -> bool {
        // Relaxed: a label for a dump; it orders nothing.
        self.load(Relaxed) == 0
    }
}

/// A node's pointer to its waiter's [`HandoffWord`] (the waiter keeps its wait record
/// itself, but for an inline record the notifier forgets: [`forget_inline`]).
pub(crate) struct Handoff {
    word: *const HandoffWord,
}

impl Handoff {
    /// Points a new node at `word`.
    ///
    /// # Safety
    ///
    /// Until the waiter either reads a non-zero `word` (with Acquire) or removes the node
    /// itself under the list's lock, `word` stays at its address and alive: a waiter that
    /// has read 0 locks the list and looks again before it leaves (or moves).
    pub(crate) unsafe fn new(word: &HandoffWord) -> Handoff {
        Handoff { word }
    }
}

// SAFETY: the pointer is only dereferenced under the list's lock while its node is linked,
// when the word is alive (`Handoff::new`'s contract); an atomic may be stored from any
// thread.
unsafe impl Send for Handoff {}

impl WaitList<Handoff> {
    /// Serves the linked node `key`: frees it, forgets the waiter's inline record of
    /// `inline` (when given: [`forget_inline`]), then stores `got` (not 0) into its
    /// waiter's handoff word. Returns the node's waker, to wake once the lock is released.
    pub(crate) fn serve(
        &mut self,
        key: usize,
        got: usize,
        inline: Option<WaitKind>,
    ) -> Option<Waker> {
        debug_assert!(got != 0, "a served handoff word reads non-zero");
        debug_assert!(self.is_linked(key), "only a linked node is served");
        let node = self.remove(key);
        let word = node.data.word;
        forget_inline(inline, node.waker.as_ref(), word);
        // SAFETY: the node was linked, so its waiter has not read a non-zero word and has
        // not removed it, so the word is alive (`Handoff::new`). This store is the last
        // access to it. Release: a waiter that reads it with Acquire owns nothing here any
        // more (its node was freed above) and may free the word's memory.
        unsafe {
            #[cfg(loom)]
            (*word).memory.with_mut(|_| ());
            (*word).word.store(got, Release);
        }
        node.waker
    }

    /// [`serve`](WaitList::serve)s every linked node with `got`, oldest first, collecting
    /// the wakers: one walk down the links, freeing each node without unlinking it from
    /// its neighbours (they all go).
    pub(crate) fn serve_all(
        &mut self,
        got: usize,
        inline: Option<WaitKind>,
        wakers: &mut WakeList,
    ) {
        let mut key = std::mem::replace(&mut self.head, NIL);
        self.tail = NIL;
        while key != NIL {
            let node = match std::mem::replace(&mut self.slots[key], Slot::Free(self.free)) {
                Slot::Used(n) => n,
                Slot::Free(_) => unreachable!("a linked key is free"),
            };
            debug_assert!(node.linked, "only a linked node is served");
            self.free = key;
            key = node.next;
            forget_inline(inline, node.waker.as_ref(), node.data.word);
            // SAFETY: as in `serve`: the node was linked, so the word is alive; this store
            // is the last access to it, Release so that its waiter may free it.
            unsafe {
                #[cfg(loom)]
                (*node.data.word).memory.with_mut(|_| ());
                (*node.data.word).word.store(got, Release);
            }
            wakers.push(node.waker);
        }
    }
}

/// A notifier serving a waiter that records its wait in its task's own slots under its
/// handoff word (`Notify`: `task::waits::inline`, kind `kind`) forgets that record, through
/// the node's waker (which keeps the task alive), before its store into the word: once
/// served, a waiter is not waiting, whether or not its task ever polls it again; and the
/// word's address names only this waiter until that store lets it go. A waiter whose
/// record went to the map, or was never made, has no such record: the forget finds
/// nothing. Only the word's address is used; nothing is dereferenced.
#[inline]
fn forget_inline(kind: Option<WaitKind>, waker: Option<&Waker>, word: *const HandoffWord) {
    if let (Some(kind), Some(w)) = (kind, waker) {
        task::waits::inline::forget(w, kind, word as usize);
    }
}

impl<D: Default> WaitList<D> {
    /// Queues the waiter whose key is in `key` with `waker`: a new node (with default data)
    /// if it has none, else its node with the waker refreshed and linked again if a
    /// notifier unlinked it. Returns the replaced waker (drop it after the lock).
    pub(crate) fn register(&mut self, key: &mut Option<usize>, waker: &Waker) -> Option<Waker> {
        match *key {
            Some(k) => {
                let old = self.set_waker(k, waker);
                if !self.is_linked(k) {
                    self.link_back(k);
                }
                old
            }
            None => {
                *key = Some(self.push_back(D::default(), Some(waker.clone())));
                None
            }
        }
    }
}

impl<D> Default for WaitList<D> {
    fn default() -> Self {
        WaitList::new()
    }
}

/// Wakers collected under a lock, woken (and dropped) once it is released. Up to 32 need
/// no allocation, and creating or dropping an empty one touches none of the 32 (they are
/// uninitialised until pushed: this sits on every contended release's path).
pub(crate) struct WakeList {
    /// `inline[..len]` are initialised.
    inline: [MaybeUninit<Waker>; 32],
    len: usize,
    spill: Vec<Waker>,
}

impl WakeList {
    #[inline]
    pub(crate) fn new() -> WakeList {
        WakeList {
            inline: [const { MaybeUninit::uninit() }; 32],
            len: 0,
            spill: Vec::new(),
        }
    }

    /// Keeps `waker` (if any) for [`WakeList::wake_all`].
    #[inline]
    pub(crate) fn push(&mut self, waker: Option<Waker>) {
        let Some(waker) = waker else { return };
        if self.len < self.inline.len() {
            self.inline[self.len].write(waker);
            self.len += 1;
        } else {
            self.spill.push(waker);
        }
    }

    /// Wakes every collected waker, in the order they were pushed. Call with no lock held.
    #[inline]
    pub(crate) fn wake_all(mut self) {
        // Zeroed first, so `Drop` skips them (a panicking wake leaks the rest, no more).
        let len = std::mem::take(&mut self.len);
        for w in &self.inline[..len] {
            // SAFETY: `inline[..len]` were initialised by `push`; each is read once, and
            // `len` is 0 now, so `Drop` will not read them again.
            unsafe { w.assume_init_read() }.wake();
        }
        for w in self.spill.drain(..) {
            w.wake();
        }
    }
}

impl Drop for WakeList {
    fn drop(&mut self) {
        for w in &mut self.inline[..self.len] {
            // SAFETY: `inline[..len]` are initialised and not read elsewhere (`wake_all`
            // zeroes `len` before reading them).
            unsafe { w.assume_init_drop() };
        }
    }
}

/// A [`Waiter`] list: each node's data is the waiter's record in the wait registry
/// (`task::waits`), under the node's [`WaitList::dump_key`].
pub(crate) type WaiterList = Mutex<WaitList<WaitSlot>>;

/// Wakes (outside the lock) every waiter linked on `list`, forgetting their records.
pub(crate) fn notify_all(list: &WaiterList) {
    let mut wakers = WakeList::new();
    let mut list = list.lock();
    while let Some(key) = list.front() {
        list.unlink_and_wake(key, &mut wakers);
        forget_record(&mut list, key);
    }
    drop(list);
    wakers.wake_all();
}

/// Forgets node `key`'s wait-registry record, if it has one (under the list's lock).
#[inline]
fn forget_record(list: &mut WaitList<WaitSlot>, key: usize) {
    list.node(key).data.forget();
}

/// A future's place on a [`WaiterList`] of "wake me when something changes" waiters
/// (notified all at once by [`notify_all`]). Dropping it takes the node back.
pub(crate) struct Waiter<'a> {
    list: &'a WaiterList,
    key: Option<usize>,
    /// What a task dump says this waiter waits on.
    wait: Wait,
}

impl<'a> Waiter<'a> {
    /// A waiter on `list`, shown in task dumps as waiting on `kind` at `object` (the
    /// channel's address, the same for every waiter on one channel).
    pub(crate) fn new(list: &'a WaiterList, kind: WaitKind, object: usize) -> Waiter<'a> {
        Waiter {
            list,
            key: None,
            wait: Wait::on(kind, object),
        }
    }

    /// Ready once `ready()` holds; otherwise (re)links this waiter with the task's waker.
    /// `ready` is checked again under the list's lock, so a notifier that changes the state
    /// and then calls [`notify_all`] cannot slip between the check and the registration.
    pub(crate) fn poll_until(
        &mut self,
        cx: &mut Context<'_>,
        ready: impl Fn() -> bool,
    ) -> Poll<()> {
        if ready() {
            self.forget();
            return Poll::Ready(());
        }
        let mut list = self.list.lock();
        if ready() {
            let node = self.key.take().map(|k| {
                forget_record(&mut list, k);
                list.remove(k)
            });
            drop(list);
            drop(node);
            return Poll::Ready(());
        }
        let old = list.register(&mut self.key, cx.waker());
        let key = self.key.expect("registered");
        let dump_key = list.dump_key(key);
        // The same task's waker: the record stands (a repeated poll, e.g. in a `select!`
        // loop, does not touch the registry).
        // SAFETY: no holder word, no test.
        unsafe {
            list.node(key)
                .data
                .record(dump_key, cx.waker(), self.wait, None, None)
        };
        drop(list);
        drop(old);
        Poll::Pending
    }

    fn forget(&mut self) {
        if let Some(k) = self.key.take() {
            let mut list = self.list.lock();
            forget_record(&mut list, k);
            let node = list.remove(k);
            drop(list);
            drop(node);
        }
    }
}

impl Drop for Waiter<'_> {
    fn drop(&mut self) {
        self.forget();
    }
}
