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
//! "JoinSet"; the kind tells a reader which the word holds).
//!
//! Lock order: a shard's mutex is innermost. Leaves take it under their own lock (which
//! is what makes "recorded" and "queued" agree), and nothing is taken, woken or dropped
//! under it but plain data; a dump takes one shard at a time. A leaf whose notifier
//! serves many waiters in one critical section (`Notify`) keeps the registry out of it
//! instead: each waiter records itself after its queue's lock is released, under a key
//! of its own (an address inside its pinned future, not its queue node, which the
//! notifier frees and another waiter may take), with an [`Active`] test that reads
//! whether it was served; and the waiter itself forgets the record when it is done or
//! dropped. "Recorded" then only means "may be waiting"; the test decides. Under loom the registry is
//! compiled to nothing (it synchronizes nothing the models check).

use std::task::Waker;

use crate::id::Id;

/// The second half of a `JoinHandle`'s wait key (the first is the awaited task's header).
pub const JOIN_KEY: usize = usize::MAX;

/// What a queued waiter waits on, as its leaf records it.
#[derive(Clone, Copy, Debug)]
pub struct Wait {
    /// The primitive and the side: "Mutex", "RwLock", "Semaphore", "Notify", "mpsc send",
    /// "mpsc recv", "watch changed", "broadcast recv", "oneshot recv", a channel's
    /// "... closed", "JoinHandle", "JoinSet", "signal".
    pub kind: &'static str,
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

/// A record's validity test, for a leaf that keeps its record between waits instead of
/// forgetting it at every wake-up: the record counts only while `check(data)` is true
/// (read under the registry's shard lock, so it must only load atomics).
#[derive(Clone, Copy, Debug)]
pub struct Active {
    /// What `check` reads (e.g. the leaf's waker slot).
    pub data: *const (),
    /// True while the waiter is waiting.
    pub check: unsafe fn(*const ()) -> bool,
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
    // `record_active`'s contracts).
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
                if e.active.is_some_and(|a| !unsafe { (a.check)(a.data) }) {
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
/// `JoinSet` entry, a foreign executor) records nothing and returns false. Call it under
/// the leaf's own lock, where the waiter is queued.
///
/// # Safety
/// When `holder` is given, the caller keeps that word alive until it calls
/// [`forget`] with `key` (an object with queued waiters is borrowed by them, so it lives
/// until they leave the queue, which is where the leaf forgets them).
pub unsafe fn record(
    key: (usize, usize),
    waker: &Waker,
    wait: Wait,
    holder: Option<&std::sync::atomic::AtomicU64>,
) -> bool {
    // SAFETY: forwarded (no `active`).
    unsafe { record_active(key, waker, wait, holder, None) }
}

/// [`record`], with a validity test: the record stays until forgotten but shows only while
/// `active` says the task waits.
///
/// # Safety
/// As [`record`]; also `active.data` stays valid for `active.check` until [`forget`].
pub unsafe fn record_active(
    key: (usize, usize),
    waker: &Waker,
    wait: Wait,
    holder: Option<&std::sync::atomic::AtomicU64>,
    active: Option<Active>,
) -> bool {
    let Some(waiter) = crate::inspect::waker_task_id(waker) else {
        return false;
    };
    imp::record(key, waiter, wait, holder.map(|h| h as *const _), active);
    true
}

/// Forgets the record under `key`, if any.
pub fn forget(key: (usize, usize)) {
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
