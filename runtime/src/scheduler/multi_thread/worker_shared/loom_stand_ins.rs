//! Loom-only stand-ins for the two threads that act on a worker from outside its run loop
//! and have no loom build: the monitor and the I/O driver. `loom_worker_view` calls them
//! from inside a task, on the worker that runs it; the scheduler itself calls only
//! [`WorkerShared::loom_dispatch_at_park`], from its park path under loom. Compiled under `--cfg loom` only: the ordinary build has neither the methods nor
//! the `loom_held` slot they use.

use queue::Link;

use super::WorkerShared;
use crate::scheduler::multi_thread::{worker, Handle};

/// Loom-only stand-ins for the two threads that act on a worker from outside its run loop
/// and do not exist under loom: the monitor (it marks a long poll stuck and wakes a parked
/// worker for the stuck worker's tasks) and the I/O driver (it dispatches a woken task into
/// the LIFO slot of the worker parked in it, then returns from the park without a notify).
/// A model calls them from inside a task, on the worker that runs it; the scheduler
/// itself never does. They return false when the caller is not a multi-thread worker.
impl<T: Link> WorkerShared<T> {
    /// What a monitor tick does to the worker running the calling task once the poll has
    /// lasted a tick (monitor.rs): marks the poll stuck, so siblings may take the LIFO
    /// task, and wakes a parked worker when the stuck worker has tasks waiting.
    pub fn loom_monitor_finds_current_poll_stuck() -> bool {
        with_current_worker(|handle, index| {
            let w = &handle.shared.workers[index];
            w.mark_stuck(w.poll_seq());
            if !w.lifo.is_empty() || !handle.shared.remotes[index].steal.is_empty() {
                handle.notify_parked();
            }
        })
        .is_some()
    }

    /// Takes the task in the LIFO slot of the worker running the calling task (a child it
    /// just spawned) and holds it for the driver stand-in: when that worker next parks,
    /// [`WorkerShared::loom_dispatch_at_park`] puts it back into the slot, as the driver
    /// dispatches a task it wakes on the parked worker's thread. False when the slot was
    /// empty or the caller is not a worker.
    pub fn loom_driver_holds_current_lifo() -> bool {
        with_current_worker(|handle, index| {
            let w = &handle.shared.workers[index];
            let task = w.lifo.take();
            let held = task.is_some();
            *w.loom_held.lock().unwrap_or_else(|e| e.into_inner()) = task;
            held
        })
        .unwrap_or(false)
    }

    /// Owner, registered as parked: the held task (if any) into the empty LIFO slot. True
    /// when one was dispatched; the caller then unparks itself, as the driver's return
    /// from the park (not a notify: the idle word still lists the worker as parked).
    pub(in crate::scheduler::multi_thread) fn loom_dispatch_at_park(&self) -> bool {
        if !self.lifo.is_empty() {
            return false;
        }
        let held = self
            .loom_held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        match held {
            Some(task) => self.lifo.push(task).is_none(),
            None => false,
        }
    }
}

/// Runs `f` with the multi-thread handle and worker index of the calling thread, when it
/// is a worker (the stand-ins above).
fn with_current_worker<R>(f: impl FnOnce(&Handle, usize) -> R) -> Option<R> {
    let crate::scheduler::Handle::MultiThread(handle) = crate::context::current_handle()? else {
        return None;
    };
    let index = worker::current_index(&handle)?;
    Some(f(&handle, index))
}
