//! Whether a worker's schedules go to its LIFO slot, and how long a LIFO streak runs.
//!
//! At the start of each task's run the streak is open (unless `Builder::disable_lifo_slot`):
//! a task the running one spawns or wakes goes to the LIFO slot and runs next, without a
//! trip through the ring (message passing and spawn chains stay hot in cache). After each
//! LIFO poll the worker decides whether the streak goes on: at most `MAX_LIFO_POLLS` in a
//! row while its ring or deferred list holds tasks (so two tasks ping-ponging cannot
//! starve them), up to `MAX_LIFO_POLLS_ALONE` with nothing waiting there (pushing the task
//! to the ring would only hand it to a searcher, a cross-core hop for a chain of spawns,
//! for no one's benefit; still bounded so the tick ends and the driver gets its turn), and
//! never past a spent coop budget or a due global visit (`GlobalPolicy::streak_cut_due`).
//! Once cut, the streak stays closed for the rest of that run: later schedules go to the
//! back of the ring, where siblings can steal them.

/// Polls of LIFO-slot tasks in a row before the ring gets a turn (when it holds tasks).
const MAX_LIFO_POLLS: u32 = 3;

/// The same when the ring and the deferred list are empty: nobody here waits, so only the
/// driver's turn (the tick must end now and then) bounds the streak.
const MAX_LIFO_POLLS_ALONE: u32 = 16;

/// The most polls one `run_task` makes: its task, then a streak of LIFO polls.
pub(super) const MAX_RUN_POLLS: u64 = 1 + MAX_LIFO_POLLS_ALONE as u64;

/// One worker's LIFO policy (module docs).
pub(super) struct LifoPolicy {
    /// `Builder::disable_lifo_slot` not set.
    enabled: bool,
    /// Whether schedules from this worker go to its LIFO slot right now.
    streak_open: bool,
}

impl LifoPolicy {
    pub(super) fn new(enabled: bool) -> LifoPolicy {
        LifoPolicy {
            enabled,
            streak_open: enabled,
        }
    }

    /// A task's run starts: its schedules may go to the LIFO slot.
    #[inline]
    pub(super) fn open_streak(&mut self) {
        self.streak_open = self.enabled;
    }

    /// The streak was cut: the rest of this run's schedules go to the ring.
    #[inline]
    pub(super) fn close_streak(&mut self) {
        self.streak_open = false;
    }

    #[inline]
    pub(super) fn streak_open(&self) -> bool {
        self.streak_open
    }

    /// Whether a streak of `polls` LIFO polls so far has reached its cap, given whether
    /// other tasks wait on this worker (ring or deferred list).
    #[inline]
    pub(super) fn capped(polls: u32, others_waiting: bool) -> bool {
        let limit = if others_waiting {
            MAX_LIFO_POLLS
        } else {
            MAX_LIFO_POLLS_ALONE
        };
        polls >= limit
    }
}
