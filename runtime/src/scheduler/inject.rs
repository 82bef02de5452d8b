//! What both schedulers do around a global queue of tasks (`queue::Inject`): push from
//! outside or cancel on a closed queue, take a batch, drain at shutdown, and count the
//! tasks spawned from outside.
//!
//! - A push that finds the queue closed means the runtime is shutting down: the task is
//!   cancelled on the spot. A bound task (one that parked at least once) was, or will be,
//!   cancelled through the owned list, so dropping this reference loses nothing; an
//!   unbound one is in no list, and `Notified::shutdown` cancels it.
//! - Remote spawns are counted by their producer in a per-runtime counter (`RemoteSpawns`,
//!   one padded line), so the task itself carries no "spawned from outside" mark and the
//!   workers count only their own spawns. `live_tasks` is the workers' spawns plus this
//!   counter, less the completions. The counter is raised before the push (a worker may
//!   complete the task before the push returns) and lowered again if the push is refused.
//! - At shutdown the last thread out pops whatever is left and cancels it.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crossbeam_utils::CachePadded;
use queue::Inject;
use task::Notified;

/// Tasks spawned from outside the runtime's threads (a metrics counter: Relaxed, and a
/// std atomic even under loom, since it orders nothing). Relaxed suffices for all three
/// accesses (each checked by the weakening sweep, loom-tests/README.md): no memory is read on the
/// strength of the count. `metrics()` reads a snapshot: it may see a task's completion
/// (published Relaxed by a worker) before its raise here, which `live_tasks` clamps at 0
/// (metrics.rs) and no ordering on this side alone could prevent; the raise and the
/// lowering are RMWs, so no count is lost between racing producers.
#[derive(Default)]
pub(crate) struct RemoteSpawns(CachePadded<AtomicU64>);

impl RemoteSpawns {
    pub(crate) fn get(&self) -> u64 {
        self.0.load(Relaxed)
    }
}

/// Pushes a task from a thread that does not hold the scheduler's core. `spawned`: the
/// task is a new spawn, counted in that counter. False when the queue was closed and
/// the task cancelled.
pub(crate) fn push_remote<S: 'static>(
    queue: &Inject<Notified<S>>,
    task: Notified<S>,
    spawned: Option<&RemoteSpawns>,
) -> bool {
    if let Some(count) = spawned {
        count.0.fetch_add(1, Relaxed);
    }
    match queue.push(task) {
        Ok(()) => true,
        Err(task) => {
            if let Some(count) = spawned {
                count.0.fetch_sub(1, Relaxed);
            }
            task.shutdown();
            false
        }
    }
}

/// Takes up to `n` tasks: returns the first, hands the rest in queue order to `rest`.
pub(crate) fn take_batch<S: 'static>(
    queue: &Inject<Notified<S>>,
    n: usize,
    mut rest: impl FnMut(Notified<S>),
) -> Option<Notified<S>> {
    let mut batch = queue.pop_n(n);
    let first = batch.next()?;
    for task in batch {
        rest(task);
    }
    Some(first)
}

/// Shutdown: cancels every task left in a closed queue; the number it cancelled (each
/// counts as completed).
pub(crate) fn cancel_all<S: 'static>(queue: &Inject<Notified<S>>) -> u64 {
    let mut cancelled = 0;
    while let Some(task) = queue.pop() {
        cancelled += u64::from(task.shutdown());
    }
    cancelled
}
