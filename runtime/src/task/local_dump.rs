//! Which `LocalSet`s exist and which runtime drives each, so a task dump can list their
//! tasks (`spawn_local`) beside the runtime's own.
//!
//! A process-wide list of weak references to every live set's shared half (`Shared`: its
//! owned list and remote queue), pushed when a set is made and pruned of dead entries at
//! each push and each walk; a set is never kept alive by it. Each set's shared half holds
//! the id of the runtime that drove it last (0: none yet), stored at each drive (one
//! thread-local read and one plain store per `run_until` poll or poll of the set, never
//! per task). A dump of runtime `r` walks the owned list of every set whose last driver is
//! `r`, one set at a time, under that list's shard lock as for the runtime's own tasks.
//! A set's tasks are bound to its owned list at their first park, as a runtime's are; a
//! local task that never parked waits in the set's thread-private local queue, which
//! only the owner thread reads: not seen (nor counted). The set's remote queue, which any
//! thread may walk under its lock, is walked too (`RemoteQueue::for_each_node`): it holds
//! woken tasks, which are bound, and a never-polled one only when the owner's local queue
//! was borrowed at its spawn.
//!
//! Lock order: the list's mutex is held only to clone the live entries out; the sets'
//! owned lists are walked after it is released.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, Weak};

use shim::sync::Arc;

use super::local::Shared;

/// Every set made and not yet dropped (weakly).
static SETS: Mutex<Vec<Weak<Shared>>> = Mutex::new(Vec::new());

/// The runtime that drove a set last, as its shared half keeps it.
#[derive(Default)]
pub(crate) struct DrivenBy(AtomicU64);

impl DrivenBy {
    /// Notes the runtime whose context this thread is in, if any, as the driver.
    #[inline]
    pub(crate) fn note(&self) {
        let id = crate::context::with_handle(|h| h.map_or(0, |h| h.id()));
        // Relaxed: a label for dumps; it orders nothing.
        if id != 0 && self.0.load(Relaxed) != id {
            self.0.store(id, Relaxed);
        }
    }
}

/// Lists a new set.
pub(crate) fn register(set: &Arc<Shared>) {
    let mut sets = SETS.lock().unwrap_or_else(|e| e.into_inner());
    sets.retain(|w| w.strong_count() > 0);
    sets.push(Arc::downgrade(set));
}

/// The live sets that runtime `runtime` (its owned list's id) drove last.
pub(crate) fn driven_by(runtime: u64) -> Vec<Arc<Shared>> {
    let mut sets = SETS.lock().unwrap_or_else(|e| e.into_inner());
    sets.retain(|w| w.strong_count() > 0);
    sets.iter()
        .filter_map(Weak::upgrade)
        // Relaxed: as in `note`.
        .filter(|s| s.driven_by().0.load(Relaxed) == runtime)
        .collect()
}
