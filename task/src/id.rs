//! Task ids: unique for the life of the process, and the "current task" a thread is
//! polling.
//!
//! Assignment is lazy and costs no shared atomic per task: a task's id is taken when it is
//! first asked for (its trailer's identity word, meta.rs), from the thread's block of
//! `BLOCK` ids, which it takes from one global counter (one `fetch_add` per block) and
//! hands out from a thread-local cursor. Ids are therefore unique but in no particular
//! order (not spawn order).
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
    pub(crate) fn from_raw(id: NonZeroU64) -> Id {
        Id(id)
    }

    /// The id as a number (for logs and metrics).
    pub fn as_u64(&self) -> u64 {
        self.0.get()
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
}

// The current task is per thread under loom too (loom's thread-locals: its threads share
// one OS thread), because the self-wake record (waker.rs) is keyed by it.
#[cfg(not(loom))]
std::thread_local! {
    /// The task being polled on this thread, if any.
    static CURRENT: Cell<Option<NonNull<Header>>> = const { Cell::new(None) };
}

#[cfg(loom)]
shim::thread_local! {
    static CURRENT: Cell<Option<NonNull<Header>>> = Cell::new(None);
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

/// A fresh id from the global counter alone, touching no thread-local (for a signal
/// handler, which may have interrupted this thread's `next`). `None` past the id space.
pub(crate) fn next_global() -> Option<u64> {
    let id = NEXT_BLOCK.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    (id != 0).then_some(id)
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

/// The task this thread is polling (or dropping the future or output of), if any. The
/// pointer is set only while the harness polls (or drops the future or output of) that
/// task, holding a reference to it, and is reset when that call returns: the task is live
/// while it is current. A `const` thread-local with no destructor: reading it is one TLS load, safe
/// from a signal handler on this thread.
pub(crate) fn current_header() -> Option<NonNull<Header>> {
    CURRENT.try_with(|c| c.get()).ok().flatten()
}

/// The id of the task this thread is polling, if any.
pub fn current() -> Option<Id> {
    let task = current_header()?;
    // SAFETY: the current task is live while it is current (`current_header`).
    Some(unsafe { Header::trailer(task) }.meta.id())
}
