//! The threads inside `task::block_in_place`, for the shutdown report.
//!
//! A worker that calls `block_in_place` hands its core to a new thread and is no worker
//! any more (worker.rs, `hand_off_core`): no worker slot shows its poll, yet the shutdown
//! latch counts it until it leaves. So the hand-off lists the thread here, under a mutex,
//! with the task it polls (its identity, read once, on that thread) and the hand-off's
//! time; the thread takes its entry back when its poll returns and it leaves the worker
//! loop, just before it counts out of the latch. A shutdown past its deadline reports
//! what is still listed: each task inside `block_in_place`'s closure (or in the rest of the
//! poll that called it) and for how long.
//!
//! Costs: one lock and one push per hand-off (which starts a thread anyway), one lock and
//! one removal when that thread leaves; nothing on any other path.

use std::sync::Mutex;
use std::thread::ThreadId;
use std::time::Instant;

use task::TaskMeta;

/// One thread inside `block_in_place`.
struct Entry {
    thread: ThreadId,
    task: Option<TaskMeta>,
    since: Instant,
}

/// The threads of one runtime inside `block_in_place` (module doc).
#[derive(Default)]
pub(crate) struct InPlace {
    threads: Mutex<Vec<Entry>>,
}

impl InPlace {
    /// The calling thread, polling the current task, has just handed off its core.
    pub(crate) fn enter(&self) {
        let entry = Entry {
            thread: std::thread::current().id(),
            task: task::current_meta(),
            since: Instant::now(),
        };
        self.lock().push(entry);
    }

    /// The calling thread, which handed off its core, leaves the worker loop.
    pub(crate) fn leave(&self) {
        let me = std::thread::current().id();
        self.lock().retain(|e| e.thread != me);
    }

    /// The threads still listed, as the shutdown report names them.
    pub(crate) fn report(&self) -> Vec<crate::observe::shutdown_report::InBlockInPlace> {
        self.lock()
            .iter()
            .map(|e| crate::observe::shutdown_report::InBlockInPlace {
                task: e.task.clone(),
                running_for: e.since.elapsed(),
            })
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        // The list stays whole whatever panicked while it was held.
        self.threads.lock().unwrap_or_else(|e| e.into_inner())
    }
}
