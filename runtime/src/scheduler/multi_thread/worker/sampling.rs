//! A multi-thread worker's sampled poll (metrics/sampler.rs): the poll that reaches the
//! sampler's due count. It is timed when it is a sample, and it then marks the task it
//! queued last on this worker: the one it left in the LIFO slot (polled next, out of the
//! slot), else the back of the ring (read with `Local::last_node`, its turn the ring's
//! length away). Only the worker's own core state is touched; a core handed off during
//! the poll (`block_in_place`) belongs to its new thread, and the sample is dropped.

use super::super::worker_shared::WorkerShared;
use super::{Context, Core};
use crate::observe::metrics::Queued;
use crate::scheduler::RunTask;

impl Context {
    /// Polls a task whose poll reached the sampler's due count (metrics/sampler.rs): a
    /// marked task's turn, or a sample, which is timed and marks the task it queued last.
    /// The core is in its slot, as for any poll; `from_lifo`: `task` came from the LIFO
    /// slot.
    #[cold]
    #[inline(never)]
    pub(super) fn poll_sampled(
        &self,
        task: RunTask,
        me: &WorkerShared<RunTask>,
        polls: u64,
        from_lifo: bool,
    ) -> bool {
        let slot = &self.handle.shared.metrics[self.index];
        let (start, ring_before) = {
            let mut core = self.core.borrow_mut();
            let core = core
                .as_mut()
                .expect("the core sits in its slot before a poll");
            let addr = crate::observe::metrics::address_of(&task);
            let start = core.sampler.begin(polls, addr, from_lifo, slot);
            (start, core.run_queue.len())
        };
        // Empty before every poll: the loop after a poll takes what the poll left there.
        let lifo_before = me.lifo.is_empty();
        me.begin_poll(polls);
        let completed = task.run(&self.sched);
        let Some(start) = start else {
            return completed;
        };
        // A core handed off during the poll (`block_in_place`) is its new thread's to
        // write: this sample goes unrecorded.
        if let Some(core) = self.core.borrow_mut().as_mut() {
            let Core {
                sampler, run_queue, ..
            } = &mut **core;
            sampler.end_sample(polls, start, slot, || {
                if lifo_before && !me.lifo.is_empty() {
                    return Some(Queued::Lifo);
                }
                let len = run_queue.len();
                let last = run_queue.last_node().filter(|_| len > ring_before)?;
                Some(Queued::Fifo {
                    addr: last.as_ptr() as usize,
                    ahead: len as u64 - 1,
                })
            });
        }
        completed
    }
}
