//! The deferred list: tasks that woke themselves while running (`yield_now`, a spent coop
//! budget) and wait for the core's next driver turn.
//!
//! Both schedulers keep one per core. A yielding task is pushed here instead of onto the
//! run queue, so the tasks runnable before it run first; at the core's next driver turn
//! (when its queues come up empty, and at least every `event_interval` tasks however busy
//! it is) the scheduler moves the whole list, in yield order, to the back of its run
//! queue, or to the back of the remote (inject) queue while that holds work, so that a
//! yielder never overtakes remote work queued before it. The list lives in the core, so only the thread holding the core touches it:
//! no synchronization. Its allocation is kept across rounds.

/// Generic over the task handle only so that it names nothing of the scheduler's; both
/// schedulers hold `RunTask`s.
pub(crate) struct Defer<T> {
    tasks: Vec<T>,
}

impl<T> Defer<T> {
    pub(crate) fn with_capacity(n: usize) -> Defer<T> {
        Defer {
            tasks: Vec::with_capacity(n),
        }
    }

    pub(crate) fn push(&mut self, task: T) {
        self.tasks.push(task);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Removes every deferred task, in yield order (for a batch push to a global queue);
    /// the allocation stays for the next round.
    pub(crate) fn drain(&mut self) -> std::vec::Drain<'_, T> {
        self.tasks.drain(..)
    }

    /// Hands every deferred task, in yield order, to `to` (the back of a run queue), and
    /// keeps the allocation for the next round.
    pub(crate) fn flush(&mut self, mut to: impl FnMut(T)) {
        for task in self.tasks.drain(..) {
            to(task);
        }
    }
}
