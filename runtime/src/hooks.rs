//! The user's thread callbacks (`Builder::on_thread_start`, `on_thread_stop`,
//! `on_thread_park`, `on_thread_unpark`), as tokio calls them.
//!
//! - start/stop: on every thread the runtime starts (its workers and its blocking-pool
//!   threads), first thing on the new thread and last thing before it exits (also when it
//!   unwinds). A current-thread runtime starts no worker: only its pool threads call them.
//! - park/unpark: on a worker (or the current-thread `block_on` thread) right before it
//!   blocks for lack of work, and right after it wakes up. Busy workers that only peek at
//!   the driver between tasks do not call them.
//!
//! The callbacks are shared (`Arc`) by every thread; an absent one costs a branch.

use std::fmt;
use std::sync::Arc;

/// One callback, shared by the runtime's threads.
pub(crate) type Callback = Arc<dyn Fn() + Send + Sync>;

/// The four optional thread callbacks of a runtime.
#[derive(Clone, Default)]
pub(crate) struct Hooks {
    pub(crate) thread_start: Option<Callback>,
    pub(crate) thread_stop: Option<Callback>,
    pub(crate) thread_park: Option<Callback>,
    pub(crate) thread_unpark: Option<Callback>,
}

impl Hooks {
    /// Calls `on_thread_start` now and `on_thread_stop` when the guard drops.
    pub(crate) fn enter_thread(&self) -> ThreadGuard {
        if let Some(f) = &self.thread_start {
            f();
        }
        ThreadGuard(self.thread_stop.clone())
    }

    #[inline]
    pub(crate) fn before_park(&self) {
        if let Some(f) = &self.thread_park {
            f();
        }
    }

    #[inline]
    pub(crate) fn after_unpark(&self) {
        if let Some(f) = &self.thread_unpark {
            f();
        }
    }
}

impl fmt::Debug for Hooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hooks")
            .field("thread_start", &self.thread_start.is_some())
            .field("thread_stop", &self.thread_stop.is_some())
            .field("thread_park", &self.thread_park.is_some())
            .field("thread_unpark", &self.thread_unpark.is_some())
            .finish()
    }
}

/// Calls `on_thread_stop` (if any) when the thread's body ends, even by unwinding.
pub(crate) struct ThreadGuard(Option<Callback>);

impl Drop for ThreadGuard {
    fn drop(&mut self) {
        if let Some(f) = &self.0 {
            f();
        }
    }
}
