//! The wait registry: which task waits on which synchronization object, for task dumps.
//!
//! A leaf that has no list of its own a dump can reach (a sync primitive's waiter queue
//! lives inside the object; a `JoinHandle`'s waker inside the awaited task) records each
//! waiter here when it queues one, on the slow path only, and forgets it when the waiter
//! leaves the queue (served, cancelled, closed). An uncontended lock, a ready channel, a
//! `JoinHandle` whose task is done never come here.
//!
//! Process-wide, 16 shards, each a mutex over a map from a *wait key* to a record. The key
//! is chosen by the leaf and names one queued waiter uniquely while it is queued: a
//! semaphore uses (its address, the waiter's slot), a `JoinHandle` (the awaited task's
//! header, [`JOIN_KEY`]). A record stores the waiter's task id (read from its waker when it
//! is a runtime task's), what it waits on (a kind and the object's address), the awaited
//! task for a join, and optionally a *holder word*: an `AtomicU64` inside the object where
//! a lock stores its holder's task header address ([`holder_word`]: the current-task
//! pointer, one thread-local read; 0: none, or not a task), read when a dump takes its
//! snapshot. The address identifies the holder only while that task lives: a dump maps it
//! to a task it finds alive in the owned list. (A guard moved to another task still names
//! the task that took it; if that one finished and its memory went to a new task, the dump
//! would name the new one: a guard outliving its acquirer is the one case it can mislead.)
//! A `JoinSet` uses the same word for a number the dump reads live: its task count (kind
//! [`WaitKind::JoinSet`]; the kind tells a reader which the word holds).
//!
//! The API every leaf uses: a waiter's record lives in a [`WaitSlot`] (its key and the
//! task waker it was made with), which records once per new waker and forgets on drop;
//! what it waits on is a [`Wait`] of a [`WaitKind`]; a record kept between waits carries
//! an [`Active`] made from a value implementing the safe [`StillWaiting`] test. The two
//! waiters that keep their "recorded" state in bits they already have (the one-word
//! `JoinHandle`, a `oneshot` side) write their waits into the waiting task's own slots
//! instead ([`inline`]: a few stores, no lock, read by the dump from the task it walks),
//! and come here, through the keyed [`record`]/[`forget`] under the slot, only when those
//! slots are full.
//!
//! Lock order: a shard's mutex is innermost. Leaves take it under their own lock (which
//! is what makes "recorded" and "queued" agree), and nothing is taken, woken or dropped
//! under it but plain data; a dump takes one shard at a time. A leaf whose notifier
//! serves many waiters in one critical section (`Notify`) keeps the registry out of it
//! instead: each waiter records itself before its queue's lock is taken, in its task's
//! own slots ([`inline`]: the notifier that serves it forgets that record, through the
//! node's waker, before its handoff store), or, when they are full, here under a key
//! of its own (an address inside its pinned future, not its queue node, which the
//! notifier frees and another waiter may take), with an [`Active`] test that reads
//! whether it was served; and the waiter itself forgets the record (its slot) when it is
//! done or dropped. "Recorded" then only means "may be waiting"; the test decides. Under loom the registry is
//! compiled to nothing (it synchronizes nothing the models check).

use std::fmt;
use std::sync::atomic::AtomicU64;

/// The waiting task's own slots, where a `oneshot` side and a `JoinHandle` record
/// (`wait_block.rs`); this registry's map takes what does not fit.
pub mod inline {
    pub use crate::wait_block::{
        forget, is_recorded, record, InlineWait, Recorded, WaitBlock, SLOTS,
    };
}
use std::task::Waker;

use crate::id::Id;

/// The second half of a `JoinHandle`'s wait key (the first is the awaited task's header).
pub const JOIN_KEY: usize = usize::MAX;

/// A record's key: two words the leaf chooses so that they name one queued waiter while it
/// is queued (module doc).
pub type WaitKey = (usize, usize);

/// The primitive and the side a waiter waits on. [`WaitKind::name`] is the text a dump
/// prints for it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum WaitKind {
    /// A `Mutex`'s lock.
    Mutex,
    /// An `RwLock`'s read or write lock.
    RwLock,
    /// A `Semaphore`'s permits (also under `OnceCell`).
    Semaphore,
    /// A bounded `mpsc` channel's capacity.
    MpscSend,
    /// An `mpsc` receiver's next message.
    MpscRecv,
    /// An `mpsc` sender's `closed()`.
    MpscClosed,
    /// A `Notify` (also under `Barrier` and `SetOnce`).
    Notify,
    /// A `watch` receiver's `changed()`.
    WatchChanged,
    /// A `watch` sender's `closed()`.
    WatchClosed,
    /// A `broadcast` receiver's next value.
    BroadcastRecv,
    /// A `broadcast` sender's `closed()`.
    BroadcastClosed,
    /// A `oneshot` receiver's value.
    OneshotRecv,
    /// A `oneshot` sender's `closed()`.
    OneshotClosed,
    /// A `JoinHandle`'s task (the record's `target`).
    JoinHandle,
    /// A `JoinSet`'s next task (the record's word is the set's task count).
    JoinSet,
    /// A signal stream's next delivery (the record's object is the signal's number).
    Signal,
}

impl WaitKind {
    /// The text a dump prints for this kind.
    pub const fn name(self) -> &'static str {
        match self {
            WaitKind::Mutex => "Mutex",
            WaitKind::RwLock => "RwLock",
            WaitKind::Semaphore => "Semaphore",
            WaitKind::MpscSend => "mpsc send",
            WaitKind::MpscRecv => "mpsc recv",
            WaitKind::MpscClosed => "mpsc closed",
            WaitKind::Notify => "Notify",
            WaitKind::WatchChanged => "watch changed",
            WaitKind::WatchClosed => "watch closed",
            WaitKind::BroadcastRecv => "broadcast recv",
            WaitKind::BroadcastClosed => "broadcast closed",
            WaitKind::OneshotRecv => "oneshot recv",
            WaitKind::OneshotClosed => "oneshot closed",
            WaitKind::JoinHandle => "JoinHandle",
            WaitKind::JoinSet => "JoinSet",
            WaitKind::Signal => "signal",
        }
    }
}

impl fmt::Display for WaitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a queued waiter waits on, as its leaf records it.
#[derive(Clone, Copy, Debug)]
pub struct Wait {
    /// The primitive and the side.
    pub kind: WaitKind,
    /// The object's address (for a `JoinHandle`: the awaited task's header; for a
    /// signal: its number).
    pub object: usize,
    /// The awaited task, for a join.
    pub target: Option<Id>,
    /// Where the waiter awaits, when the leaf's API takes it (`#[track_caller]`): the
    /// future stores the caller's `Location` when made, and the leaf copies it here only
    /// when it records a wait.
    pub at: Option<&'static std::panic::Location<'static>>,
}

impl Wait {
    /// A wait of `kind` on the object at `object`, with no target and no location.
    #[inline]
    pub const fn on(kind: WaitKind, object: usize) -> Wait {
        Wait {
            kind,
            object,
            target: None,
            at: None,
        }
    }
}

/// The "is it still waiting" test of a leaf that keeps its record between waits instead
/// of forgetting it at every wake-up: a record made with an [`Active`] of a value counts
/// only while that value's test is true. It runs under the registry's shard lock, from a
/// dump's thread, so it only loads atomics.
pub trait StillWaiting {
    /// True while the waiter recorded with `kind` on `self` waits.
    fn still_waiting(&self, kind: WaitKind) -> bool;
}

/// A record's validity test: a value that implements [`StillWaiting`], type-erased
/// ([`Active::of`]). The recorder keeps the value alive until it forgets the record
/// ([`record`]'s and [`WaitSlot::record`]'s contracts).
#[derive(Clone, Copy, Debug)]
// Under loom the registry is compiled to nothing: no record is ever tested.
#[cfg_attr(loom, allow(dead_code))]
pub struct Active {
    data: *const (),
    check: unsafe fn(*const (), WaitKind) -> bool,
}

impl Active {
    /// The test of `value`.
    #[inline]
    pub fn of<A: StillWaiting>(value: &A) -> Active {
        Active {
            data: (value as *const A).cast(),
            check: still_waiting_of::<A>,
        }
    }

    /// Runs the test.
    ///
    /// # Safety
    /// The value given to [`Active::of`] is alive.
    #[cfg_attr(loom, allow(dead_code))]
    unsafe fn test(self, kind: WaitKind) -> bool {
        // SAFETY: forwarded from the caller.
        unsafe { (self.check)(self.data, kind) }
    }
}

/// The test [`Active::of`] stores for an `A`.
///
/// # Safety
/// `p` points at a live `A`.
unsafe fn still_waiting_of<A: StillWaiting>(p: *const (), kind: WaitKind) -> bool {
    // SAFETY: the caller's contract.
    unsafe { &*p.cast::<A>() }.still_waiting(kind)
}

/// One recorded waiter, as [`snapshot`] returns it.
#[derive(Clone, Debug)]
pub struct WaitRecord {
    /// The waiting task (only runtime tasks are recorded; `Option` for the tests' and
    /// callers' convenience of matching).
    pub waiter: Option<Id>,
    /// What it waits on.
    pub wait: Wait,
    /// The value of the record's holder word at the snapshot, when not 0. For a lock, its
    /// holder, when a task took it: the address of that task's header (see the module
    /// doc: match it against live tasks). For a "JoinSet" wait, the word is the set's
    /// task count instead.
    pub holder: Option<usize>,
}

/// One waiter's place in the registry: the key of its standing record and the task waker
/// it was made with. [`WaitSlot::record`] records once per new waker (a repeated poll
/// with a waker of the same task is one comparison), [`WaitSlot::forget`] forgets, and so
/// does the drop. A leaf keeps the slot where the record's owner is: in the queue node
/// when the notifier that unlinks the node forgets the record (under the leaf's lock), in
/// the waiter when the waiter forgets it itself (with an [`Active`] test meanwhile).
#[derive(Debug)]
pub struct WaitSlot {
    /// The key of the standing record (meaningless while `waker` is 0).
    key: WaitKey,
    /// The data pointer of the task waker the standing record was made with; 0: no record.
    waker: usize,
}

impl Default for WaitSlot {
    fn default() -> Self {
        WaitSlot::new()
    }
}

impl WaitSlot {
    /// A slot with no record.
    pub const fn new() -> WaitSlot {
        WaitSlot {
            key: (0, 0),
            waker: 0,
        }
    }

    /// Whether a record of this slot stands.
    #[inline]
    pub fn is_recorded(&self) -> bool {
        self.waker != 0
    }

    /// Records that the task of `waker` waits on `wait` under `key`, unless this slot's
    /// record already stands under `key` for the same task (then nothing). A waker that is
    /// no runtime task's (a `block_on`, a `JoinSet` entry, a foreign executor) records
    /// nothing and forgets the slot's record. Call it where the waiter is queued (under
    /// the leaf's lock for a slot in a queue node).
    ///
    /// # Safety
    /// The `holder` word and the value behind `active` stay alive until this slot forgets
    /// the record ([`WaitSlot::forget`], its drop, or a record under another key).
    #[inline]
    pub unsafe fn record(
        &mut self,
        key: WaitKey,
        waker: &Waker,
        wait: Wait,
        holder: Option<&AtomicU64>,
        active: Option<Active>,
    ) {
        if self.waker != waker.data() as usize || self.key != key {
            // SAFETY: forwarded from the caller.
            unsafe { self.record_new(key, waker, wait, holder, active) }
        }
    }

    /// [`WaitSlot::record`]'s slow path: a new task, a new key, or no record yet.
    ///
    /// # Safety
    /// As [`WaitSlot::record`].
    #[cold]
    unsafe fn record_new(
        &mut self,
        key: WaitKey,
        waker: &Waker,
        wait: Wait,
        holder: Option<&AtomicU64>,
        active: Option<Active>,
    ) {
        if self.waker != 0 && self.key != key {
            self.forget();
        }
        // SAFETY: forwarded from the caller; the slot forgets the record before the
        // caller's data goes (the contract).
        if unsafe { record(key, waker, wait, holder, active) } {
            self.key = key;
            self.waker = waker.data() as usize;
        } else {
            self.forget();
        }
    }

    /// Forgets this slot's record, if one stands.
    #[inline]
    pub fn forget(&mut self) {
        if self.waker != 0 {
            self.waker = 0;
            forget(self.key);
        }
    }
}

impl Drop for WaitSlot {
    fn drop(&mut self) {
        self.forget();
    }
}

#[cfg(not(loom))]
mod imp {
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    use std::sync::{Mutex, MutexGuard, OnceLock};

    use super::{Active, Wait, WaitRecord};
    use crate::id::Id;

    const SHARDS: usize = 16;

    struct Entry {
        waiter: Id,
        wait: Wait,
        holder: Option<*const AtomicU64>,
        active: Option<Active>,
    }

    // SAFETY: the holder and active pointers are only read (atomic loads) under the shard's
    // mutex, and the recorder keeps them alive until it forgets the record (`record`'s and
    // `WaitSlot::record`'s contracts).
    unsafe impl Send for Entry {}

    type Map = HashMap<(usize, usize), Entry, BuildKeyHasher>;

    /// Keys are two addresses-or-slots: one multiply-and-rotate per word is hash enough,
    /// and much cheaper than SipHash under the leaves' locks.
    #[derive(Default, Clone, Copy)]
    struct BuildKeyHasher;

    #[derive(Default)]
    struct KeyHasher(u64);

    impl std::hash::BuildHasher for BuildKeyHasher {
        type Hasher = KeyHasher;
        fn build_hasher(&self) -> KeyHasher {
            KeyHasher(0)
        }
    }

    impl std::hash::Hasher for KeyHasher {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            for &b in bytes {
                self.write_u64(u64::from(b));
            }
        }
        fn write_u64(&mut self, n: u64) {
            self.0 = (self.0 ^ n)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .rotate_left(29);
        }
        fn write_usize(&mut self, n: usize) {
            self.write_u64(n as u64);
        }
    }

    fn shards() -> &'static [Mutex<Map>; SHARDS] {
        static SHARDS_: OnceLock<[Mutex<Map>; SHARDS]> = OnceLock::new();
        SHARDS_.get_or_init(|| {
            std::array::from_fn(|_| Mutex::new(HashMap::with_hasher(BuildKeyHasher)))
        })
    }

    fn shard(key: (usize, usize)) -> MutexGuard<'static, Map> {
        let h = (key.0 >> 4) ^ key.1.wrapping_mul(0x9E37_79B9);
        // A panic under the lock cannot leave a map half-edited in a way that matters to
        // a diagnostic: take the data either way.
        shards()[h % SHARDS]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn record(
        key: (usize, usize),
        waiter: Id,
        wait: Wait,
        holder: Option<*const AtomicU64>,
        active: Option<Active>,
    ) {
        let entry = Entry {
            waiter,
            wait,
            holder,
            active,
        };
        shard(key).insert(key, entry);
    }

    pub(super) fn forget(key: (usize, usize)) {
        shard(key).remove(&key);
    }

    pub(super) fn snapshot() -> Vec<WaitRecord> {
        let mut out = Vec::new();
        for s in shards() {
            let map = s.lock().unwrap_or_else(|e| e.into_inner());
            out.reserve(map.len());
            for e in map.values() {
                // SAFETY: the recorder keeps `data` alive until it forgets this record
                // (`record`'s contract), which takes the shard's mutex, held here.
                if e.active.is_some_and(|a| !unsafe { a.test(e.wait.kind) }) {
                    continue;
                }
                let holder = e.holder.and_then(|h| {
                    // SAFETY: the recorder keeps the word alive until it forgets this
                    // record, which takes this shard's mutex, held here.
                    // Relaxed: a label; it orders nothing.
                    Some(unsafe { &*h }.load(Relaxed) as usize).filter(|&a| a != 0)
                });
                out.push(WaitRecord {
                    waiter: Some(e.waiter),
                    wait: e.wait,
                    holder,
                });
            }
        }
        out
    }
}

#[cfg(loom)]
mod imp {
    use super::{Active, Wait, WaitRecord};
    use crate::id::Id;
    use std::sync::atomic::AtomicU64;

    pub(super) fn record(
        _: (usize, usize),
        _: Id,
        _: Wait,
        _: Option<*const AtomicU64>,
        _: Option<Active>,
    ) {
    }
    pub(super) fn forget(_: (usize, usize)) {}
    pub(super) fn snapshot() -> Vec<WaitRecord> {
        Vec::new()
    }
}

/// Records that the task of `waker` waits on `wait`, under `key` (replacing any record
/// under it), and returns true; for a waker that is no runtime task's (a `block_on`, a
/// `JoinSet` entry, a foreign executor) records nothing and returns false. The keyed form
/// under [`WaitSlot`], for a waiter that keeps its "recorded" state elsewhere (the
/// one-word `JoinHandle`'s tag bits, a `oneshot` side's state bits) when its task's own
/// slots ([`inline`]) are full; the record counts only while `active`'s test, when given,
/// is true.
///
/// # Safety
/// The `holder` word and the value behind `active` stay alive until the caller calls
/// [`forget`] with `key` (an object with queued waiters is borrowed by them, so it lives
/// until they leave the queue, which is where the leaf forgets them).
pub unsafe fn record(
    key: WaitKey,
    waker: &Waker,
    wait: Wait,
    holder: Option<&AtomicU64>,
    active: Option<Active>,
) -> bool {
    let Some(waiter) = crate::inspect::waker_task_id(waker) else {
        return false;
    };
    imp::record(key, waiter, wait, holder.map(|h| h as *const _), active);
    true
}

/// Forgets the record under `key`, if any.
pub fn forget(key: WaitKey) {
    imp::forget(key)
}

/// Every recorded waiter, one shard at a time (so not one instant: a waiter may leave or
/// join while the walk is in another shard).
pub fn snapshot() -> Vec<WaitRecord> {
    imp::snapshot()
}

/// The current task's header address as a holder word's value (0 outside a task): one
/// thread-local read.
#[inline]
pub fn holder_word() -> u64 {
    crate::id::current_header().map_or(0, |h| h.as_ptr() as u64)
}
