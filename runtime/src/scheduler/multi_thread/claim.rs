//! A task dump's look at the tasks queued on the workers themselves: in a worker's ring
//! or its LIFO slot, which no other thread can read without taking them.
//!
//! The dump takes them (`queue::claim_and_requeue`: repeated steals into a scratch ring, a
//! bounded number of rounds, then the LIFO slot's swap), reads each one's identity while
//! it holds the queue's reference (which keeps the task alive), and pushes them all to the
//! global queue (`inject`) in one batch, then wakes a parked worker, as a worker does
//! after it releases its deferred tasks there (`flush_defer`). Each task is then run
//! once, by whichever worker takes it. A closed global queue means shutdown: the tasks
//! are cancelled on the spot, as a refused remote push's are (`inject::push_remote`): an
//! unbound one by its `Notified`, a bound one through the closed owned list. Such a
//! cancellation is counted by no worker (the completion counters are the workers' own), so
//! after a dump that raced shutdown `num_alive_tasks` may over-count by those tasks.
//!
//! The cost lands on the queued tasks: they move from their worker to the back of the
//! global queue, and a worker stuck in a poll has its queued work run by the others. The
//! workers' own paths are unchanged: a claim is one more thief to the ring (whose protocol
//! serves any number of them, one steal at a time) and to the LIFO slot (whose swap gives
//! an item to exactly one taker, whatever the stuck-poll permission says).

use super::Handle;
use crate::scheduler::RunTask;

impl Handle {
    /// Claims every task queued in each worker's ring and LIFO slot, shows each to `see`
    /// while it is held, and requeues them on the global queue (module docs).
    pub(crate) fn claim_worker_queues(&self, mut see: impl FnMut(&RunTask)) {
        for (remote, worker) in self.shared.remotes.iter().zip(self.shared.workers.iter()) {
            let requeued = queue::claim_and_requeue(
                &remote.steal,
                &worker.lifo,
                &self.shared.inject,
                &mut see,
            );
            match requeued {
                Ok(0) => {}
                // As after any push to a global queue: a parked worker may take them.
                Ok(_) => self.notify_parked(),
                Err(refused) => {
                    for task in refused {
                        task.shutdown();
                    }
                }
            }
        }
    }
}
