//! Where a task goes and where the next one comes from, on one worker's queues: its LIFO
//! slot, its ring, its deferred list, and its share of the global queues.
//!
//! A schedule from this worker (`schedule_local`) goes to the LIFO slot while a streak is
//! open, else to the back of the ring; a yield goes to the deferred list; a task woken by
//! another thread while it ran goes to the back of the ring. The result says whether a
//! parked sibling should be told: only when the task landed where it can be stolen and the
//! worker holds its parker (while it is parked, the driver's dispatch lands here and the
//! worker is about to run it). The next task (`next_task`) is a global batch first when a
//! fairness visit is due, else the LIFO slot, the ring, then a global batch. The deferred
//! list is released behind everything runnable when its tasks yielded (`flush_defer`).
//! Only the thread holding the core runs any of this.

use super::global_policy::GlobalPolicy;
use super::Core;
use crate::scheduler::defer::Defer;
use crate::scheduler::inject;
use crate::scheduler::multi_thread::Handle;
use crate::scheduler::{Arrival, RunTask};

impl Core {
    /// Pushes a task from this worker. True when a parked sibling should be notified
    /// (the task landed where it can be stolen).
    pub(super) fn schedule_local(
        &mut self,
        handle: &Handle,
        task: RunTask,
        arrival: Arrival,
    ) -> bool {
        self.stats.counts.local_schedules += 1;
        match arrival {
            Arrival::Yield => {
                self.defer.push(task);
                return false;
            }
            Arrival::Spawn => self.stats.counts.spawned += 1,
            Arrival::Wake => {}
            Arrival::Requeue => {
                // Behind the runnable tasks, where a sibling may take it.
                self.push_back(task, handle);
                return self.park.is_some();
            }
        }
        let stealable = if !self.lifo.streak_open() {
            self.push_back(task, handle);
            true
        } else {
            // A LIFO push alone wakes nobody (only a displaced task, now in the ring,
            // does); the monitor wakes a sibling if this worker then gets stuck.
            match self.me.lifo.push(task) {
                Some(prev) => {
                    self.push_back(prev, handle);
                    true
                }
                None => false,
            }
        };
        // While parked (`park` taken) the worker is about to run these itself.
        stealable && self.park.is_some()
    }

    pub(super) fn push_back(&mut self, task: RunTask, handle: &Handle) {
        let moved = self.run_queue.push_back(task, &handle.shared.overflow);
        if moved > 0 {
            self.stats.counts.overflows += 1;
            self.stats.counts.overflowed_tasks += moved as u64;
        }
    }

    // Always inlined: the run loop is its hot caller; the deterministic mode's stepper
    // (a second caller, in that feature's builds) must not change how it compiles there.
    #[inline(always)]
    pub(super) fn next_task(&mut self, handle: &Handle) -> Option<RunTask> {
        if self.global.visit_due(self.stats.counts.polls) {
            // Fairness: a share of the global queue first, now and then, however busy we
            // are. A batch (not one task) so a burst of remote spawns drains in a few visits.
            if let Some(task) = self.next_global_batch(handle, true) {
                return Some(task);
            }
            return self.next_local_task();
        }
        if let Some(task) = self.next_local_task() {
            return Some(task);
        }
        self.next_global_batch(handle, false)
    }

    pub(super) fn next_local_task(&mut self) -> Option<RunTask> {
        self.me.lifo.take().or_else(|| self.run_queue.pop())
    }

    /// Takes a fair share of a global queue into the ring and returns the first task
    /// (global_policy.rs picks the queue and the share; `fair`: a fairness visit).
    pub(in crate::scheduler::multi_thread) fn next_global_batch(
        &mut self,
        handle: &Handle,
        fair: bool,
    ) -> Option<RunTask> {
        let queue = self.global.choose(
            &handle.shared.inject,
            &handle.shared.overflow,
            fair,
            self.stats.counts.polls,
        )?;
        let n = GlobalPolicy::batch_size(queue, handle.num_workers(), self.run_queue.len());
        inject::take_batch(queue, n, |task| self.push_back(task, handle))
    }

    /// Releases the deferred (yielded) tasks, in yield order, behind everything that was
    /// runnable when they yielded: to the back of the remote queue while it holds work
    /// (remote spawns and wakes wait there, and the ring holds at most one batch of
    /// them, so a yielder put in the ring would run again after a ring's length of
    /// tasks, ahead of the rest of that queue), otherwise to the back of the ring.
    pub(super) fn flush_defer(&mut self, handle: &Handle) {
        if !handle.shared.inject.is_empty() {
            match handle.shared.inject.push_batch(self.defer.drain()) {
                // As after any push to a global queue: a parked sibling may take them.
                Ok(()) => {
                    handle.notify_parked();
                    return;
                }
                // Closed: the runtime is shutting down; the ring's drain cancels them.
                Err(refused) => {
                    for task in refused {
                        self.push_back(task, handle);
                    }
                    return;
                }
            }
        }
        let mut defer = std::mem::replace(&mut self.defer, Defer::with_capacity(0));
        defer.flush(|task| self.push_back(task, handle));
        // Keep the allocation for the next round.
        self.defer = defer;
    }

    pub(in crate::scheduler::multi_thread) fn has_tasks(&self) -> bool {
        !self.me.lifo.is_empty() || !self.run_queue.is_empty() || !self.defer.is_empty()
    }
}
