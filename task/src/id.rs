//! Task ids: unique for the life of the process, assigned at spawn, and the "current task"
//! a thread is polling.
//!
//! Assignment is lazy and costs no shared atomic per task: a task's id is taken when it is
//! first asked for (`LazyId`: the spawn path writes a zero), from the thread's block of
//! `BLOCK` ids, which it takes from one global counter (one `fetch_add` per block) and
//! hands out from a thread-local cursor. Ids are therefore unique but in no particular
//! order (not spawn order). The id lives in the task's cold trailer.
//!
//! The current task is a thread-local pointer to the header of the task being polled (or
//! having its future dropped), set by the harness around that call and restored after it;
//! `current()` reads the id from that task's trailer. Nothing on the hot path reads the
//! trailer: the harness stores a pointer it already has.

use std::cell::Cell;
use std::fmt;
use std::num::NonZeroU64;
use std::ptr::NonNull;

use crate::core::Header;

/// An opaque id that uniquely identifies a task among all tasks of the process, for as
/// long as the process lives (ids are never reused). `Debug` prints `Id(7)`, `Display`
/// prints `7`. (Examples: `runtime::task::Id`; this crate cannot spawn.)
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(NonZeroU64);

impl Id {
    /// The id as a number (for logs and metrics).
    pub fn as_u64(&self) -> u64 {
        self.0.get()
    }

    /// The id whose number is `n` (0 is no id): for words that store an id as a number
    /// (the wait registry's holder words, compiled out under loom).
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn from_u64(n: u64) -> Option<Id> {
        NonZeroU64::new(n).map(Id)
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id({})", self.0)
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// Ids a thread takes from the global counter at once.
const BLOCK: u64 = 1024;

/// The next unassigned block's first id. A plain std atomic, not the shim: it carries no
/// synchronization (only uniqueness matters, and `fetch_add` gives it in any order).
static NEXT_BLOCK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

std::thread_local! {
    /// This thread's cursor: (next id, end of its block).
    static CURSOR: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
    /// The task being polled on this thread, if any.
    static CURRENT: Cell<Option<NonNull<Header>>> = const { Cell::new(None) };
}

/// A task's id slot: 0 until the id is first asked for (`get`), then the id for good.
///
/// Most tasks never have their id read (nobody calls `task::id()`, `JoinHandle::id()`, and
/// they neither panic nor get cancelled), so the spawn path only writes a zero; the first
/// reader takes a fresh id and installs it with a CAS, and racing first readers agree on
/// the one that won. A std atomic even under loom: it carries no synchronization (only
/// the id's uniqueness matters, and the CAS gives every reader the same one).
pub(crate) struct LazyId(std::sync::atomic::AtomicU64);

impl LazyId {
    pub(crate) const fn new() -> LazyId {
        LazyId(std::sync::atomic::AtomicU64::new(0))
    }

    /// The task's id, assigned now if this is its first use.
    pub(crate) fn get(&self) -> Id {
        use std::sync::atomic::Ordering::Relaxed;
        // Relaxed: the value is all that is read; ids publish nothing.
        let id = match self.0.load(Relaxed) {
            0 => {
                let fresh = next().0.get();
                match self.0.compare_exchange(0, fresh, Relaxed, Relaxed) {
                    Ok(_) => fresh,
                    // Another first reader won: its id is the task's (ours is skipped).
                    Err(won) => won,
                }
            }
            id => id,
        };
        Id(NonZeroU64::new(id).expect("an assigned id is never 0"))
    }
}

/// A fresh id.
pub(crate) fn next() -> Id {
    let id = CURSOR
        .try_with(|c| {
            let (mut next, mut end) = c.get();
            if next == end {
                next = NEXT_BLOCK.fetch_add(BLOCK, std::sync::atomic::Ordering::Relaxed);
                end = next + BLOCK;
            }
            c.set((next + 1, end));
            next
        })
        // A spawn from a thread-local destructor: take one id alone.
        .unwrap_or_else(|_| NEXT_BLOCK.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    Id(NonZeroU64::new(id).expect("task id counter overflowed"))
}

/// Marks `task` as the thread's current task until the guard drops.
pub(crate) struct CurrentGuard {
    prev: Option<NonNull<Header>>,
}

pub(crate) fn enter(task: NonNull<Header>) -> CurrentGuard {
    let prev = CURRENT.try_with(|c| c.replace(Some(task))).unwrap_or(None);
    CurrentGuard { prev }
}

impl Drop for CurrentGuard {
    fn drop(&mut self) {
        let prev = self.prev;
        let _ = CURRENT.try_with(|c| c.set(prev));
    }
}

/// The id of the task this thread is polling, if any.
pub fn current() -> Option<Id> {
    let task = CURRENT.try_with(|c| c.get()).ok().flatten()?;
    // SAFETY: the pointer is set only while the harness polls (or drops the future of)
    // that task, holding a reference to it, and is reset when that call returns.
    Some(unsafe { Header::trailer(task) }.id.get())
}
