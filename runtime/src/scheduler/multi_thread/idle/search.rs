//! One worker's side of the idle protocol: searching for work (stealing from siblings,
//! then the global queues), the brief spin and the park yields before it gives up, and
//! the transitions into and out of the searching and parked states that `word.rs` counts.
//!
//! Invariants (word.rs and spin.rs argue them; `loom_idle` and `loom_scheduler` check
//! them): at most half the workers search; only a searcher spins or yields, one at a time
//! (the spin token); the last searcher to find work wakes another when work is left; a
//! worker that parks with no searcher left behind re-checks every queue, so no push is
//! missed between its last look and its park.
//!
//! The order, once the worker's own queues and the global ones are empty (worker.rs,
//! `Context::run`): `steal_work` (become a searcher if allowed, then `steal_from_siblings`:
//! from a random sibling on, half of its ring, or the task in a stuck sibling's LIFO slot;
//! then a global batch),
//! `spin_for_work` (spin.rs's conditions), `yield_for_work` (the park yields), then
//! `Context::park`. There `transition_to_parked` refuses while the core has tasks; the
//! user's park hooks run with the core out of its slot (a task they wake takes the remote
//! path); the worker parks in the driver or on its condvar with the core reachable
//! (core_slot.rs). On waking, `transition_from_parked` decides: with tasks of its own it
//! runs; still listed as parked (nobody notified it) it parks again; notified, it runs as
//! a searcher. The park ends with the backlog check (worker.rs, `notify_backlog`).

use super::spin::SPIN_PAUSES;
use crate::scheduler::multi_thread::worker::Core;
use crate::scheduler::multi_thread::Handle;
use crate::scheduler::RunTask;

impl Core {
    pub(in crate::scheduler::multi_thread) fn steal_work(
        &mut self,
        handle: &Handle,
    ) -> Option<RunTask> {
        if !self.transition_to_searching(handle) {
            return None;
        }
        self.steal_from_siblings(handle, false)
            .or_else(|| self.next_global_batch(handle, false))
    }

    /// From a random sibling on: half of its ring, or the task in a stuck sibling's LIFO
    /// slot; with `only_stuck`, from stuck siblings only (the monitor found them inside
    /// one poll for a tick). That form is taken, without becoming a searcher, by a worker
    /// whose only work is its yielded tasks (worker.rs, `Context::step`): the tasks queued
    /// behind a sibling stuck in a long poll must not wait behind yielders polled again
    /// and again here (they may be waiting for exactly those tasks). Siblings that are
    /// running are left alone: their backlog is for the parked workers they wake
    /// (`notify_backlog`), and a yielder's worker taking it would keep the burst from
    /// spreading.
    pub(in crate::scheduler::multi_thread) fn steal_from_siblings(
        &mut self,
        handle: &Handle,
        only_stuck: bool,
    ) -> Option<RunTask> {
        let remotes = &handle.shared.remotes;
        let n = remotes.len();
        let start = self.rand.below(n as u32) as usize;
        for i in 0..n {
            let victim = (start + i) % n;
            if victim == self.index || (only_stuck && !handle.shared.workers[victim].is_stuck()) {
                continue;
            }
            let before = self.run_queue.len();
            if let Some(task) = remotes[victim].steal.steal_into(&mut self.run_queue) {
                self.stats.counts.steals += 1;
                self.stats.counts.stolen_tasks += (self.run_queue.len() - before + 1) as u64;
                return Some(task);
            }
            // A sibling stuck in a long poll: the task it put in its LIFO slot (a child it
            // spawned, a task it woke) would wait for the whole poll.
            if let Some(task) = handle.shared.workers[victim].steal_lifo() {
                self.stats.counts.steals += 1;
                self.stats.counts.stolen_tasks += 1;
                return Some(task);
            }
        }
        None
    }

    /// Briefly waits for work to show up, as a searcher only (at most half the workers),
    /// so a worker does not park just before the next task arrives.
    /// Only while recent idle episodes were short, and one spinner at a time (spin.rs).
    pub(in crate::scheduler::multi_thread) fn spin_for_work(
        &mut self,
        handle: &Handle,
    ) -> Option<RunTask> {
        self.idle.spin.begin_idle();
        if !self.is_searching || !self.idle.spin.worth_spinning() || !handle.driver_attended() {
            return None;
        }
        let token = &handle.shared.spinner;
        if !token.acquire() {
            return None;
        }
        let mut found = None;
        for _ in 0..self.idle.spin_rounds {
            for _ in 0..SPIN_PAUSES {
                shim::hint::spin_loop();
            }
            found = self.take_visible_work(handle);
            if found.is_some() {
                break;
            }
        }
        token.release();
        self.idle.spin.spun(found.is_some());
        if found.is_some() {
            self.idle.spin.end_idle();
        }
        found
    }

    /// Gives the CPU away up to `park_yields` times before parking, looking for work after
    /// each, but only when tasks were woken from outside the pool since this worker last
    /// ran out of work and a `block_on` caller is polling, likely waking more (spin.rs,
    /// `PARK_YIELDS`): it may share this CPU. Not parked meanwhile, so its pushes make no
    /// unpark and `block_on` does not count this CPU as free.
    pub(in crate::scheduler::multi_thread) fn yield_for_work(
        &mut self,
        handle: &Handle,
    ) -> Option<RunTask> {
        if self.idle.park_yields == 0 {
            return None;
        }
        let remote_wakes = handle.shared.hints.remote_wakes();
        let woken_from_outside = remote_wakes != self.idle.remote_wakes_seen;
        self.idle.remote_wakes_seen = remote_wakes;
        if !woken_from_outside || !handle.shared.hints.block_on_polling() {
            return None;
        }
        // As a searcher holding the spin token only, like the spin: notifiers see the
        // searcher and wake nobody for the work it is about to take, and at most one
        // worker hunts this way (spin.rs, `PARK_YIELDS`).
        if !self.is_searching || !handle.shared.spinner.acquire() {
            return None;
        }
        let found = self.yield_rounds(handle);
        handle.shared.spinner.release();
        found
    }

    /// One look of the spin or the yields: steals (siblings, then the global queues) only
    /// when some queue shows work, so an idle look reads and takes no line.
    fn take_visible_work(&mut self, handle: &Handle) -> Option<RunTask> {
        if handle.has_visible_work() {
            self.steal_work(handle)
        } else {
            None
        }
    }

    /// The yields themselves: `park_yields` of them, a look for work after each.
    fn yield_rounds(&mut self, handle: &Handle) -> Option<RunTask> {
        for _ in 0..self.idle.park_yields {
            shim::thread::yield_now();
            if let Some(task) = self.take_visible_work(handle) {
                self.idle.spin.end_idle();
                return Some(task);
            }
        }
        None
    }

    fn transition_to_searching(&mut self, handle: &Handle) -> bool {
        if !self.is_searching {
            self.is_searching = handle.shared.idle.transition_worker_to_searching();
        }
        self.is_searching
    }

    /// Found work: stop searching; the last searcher to stop wakes another worker when
    /// there is work left for it (a searcher that finds work wakes the next one).
    ///
    /// Only when work is left: a searcher that took the one task there was (a remote wake
    /// of a ping-pong partner, a request) would otherwise wake a sibling that finds
    /// nothing and parks again, a futex pair per task for nobody's benefit. No wake-up is
    /// lost by skipping it: work pushed before our `fetch_sub` in the idle word's
    /// modification order is seen by the check below (the pusher's notify is an RMW on
    /// that word, which our `fetch_sub` reads after, acquiring the push), and work pushed
    /// after it meets a notifier that sees no searcher and wakes someone itself
    /// (idle.rs; loom: `loom_idle`, and `searcher_hand_off_two_workers` for the hand-off).
    pub(in crate::scheduler::multi_thread) fn transition_from_searching(
        &mut self,
        handle: &Handle,
    ) {
        if !self.is_searching {
            return;
        }
        self.is_searching = false;
        let idle = &handle.shared.idle;
        if idle.transition_worker_from_searching(|| handle.has_visible_work()) {
            handle.notify_parked();
        }
    }

    pub(in crate::scheduler::multi_thread) fn should_notify_others(&self) -> bool {
        // A searcher will notify when it finds work; otherwise, more than one runnable
        // task here means a sibling could take some.
        !self.is_searching && usize::from(!self.me.lifo.is_empty()) + self.run_queue.len() > 1
    }

    /// False when there is still work here; otherwise registers as parked.
    pub(in crate::scheduler::multi_thread) fn transition_to_parked(
        &mut self,
        handle: &Handle,
    ) -> bool {
        if self.has_tasks() {
            return false;
        }
        // No searcher left behind us: nobody else would see work pushed meanwhile.
        let must_recheck = handle
            .shared
            .idle
            .transition_worker_to_parked(self.index, self.is_searching);
        self.is_searching = false;
        if must_recheck {
            handle.notify_if_work_pending();
        }
        // Loom only (no driver there): a task the driver stand-in holds is dispatched into
        // the LIFO slot now that the worker is listed as parked, and the driver's return
        // from the park is an unpark that notifies nobody (worker_shared.rs,
        // `loom_driver_holds_current_lifo`).
        #[cfg(loom)]
        if self.me.loom_dispatch_at_park() {
            handle.shared.remotes[self.index].unpark.unpark();
        }
        true
    }

    /// After a wake-up: true when the worker should run again.
    pub(in crate::scheduler::multi_thread) fn transition_from_parked(
        &mut self,
        handle: &Handle,
    ) -> bool {
        if self.has_tasks() {
            // Woken with work of its own (e.g. the driver dispatched here): unpark as a
            // non-searcher unless someone already counted us as a notified searcher.
            self.is_searching = !handle.shared.idle.unpark_worker_by_id(self.index);
            return true;
        }
        if handle.shared.idle.is_parked(self.index) {
            // Nobody notified us (spurious, or driver events for other threads).
            return false;
        }
        // Notified: `worker_to_notify` counted us as searching.
        self.is_searching = true;
        true
    }
}
