//! The spread statistics of a deterministic run (`Runtime::sim_spread`): how the idle
//! protocol's promises held, sampled after every step.
//!
//! The promises (scheduler/multi_thread/idle/word.rs and worker.rs): at most half the
//! workers search at once (one, when a notify starts the first); while a worker holds more
//! runnable tasks than it can start (a LIFO task and ring tasks, more than one) and a
//! sibling is parked, someone is searching or a parked worker has been notified, except
//! for the pushes that by design wake nobody (a LIFO streak's displaced task, a driver
//! turn's dispatch), which the next backlog check makes up for. A run's longest stretch
//! of steps in which the second promise did not hold is `max_idle_with_backlog`: bounded
//! by the backlog checks' interval in a healthy pool, the length of the burst when the
//! checks are missing. Sampling is O(workers) per step, in this mode only.

/// The pool's state after one step, as the spread rules see it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sample {
    /// Workers searching (the idle word's count).
    pub(crate) searching: usize,
    /// Some worker is parked with no notification.
    pub(crate) parked: bool,
    /// Some parked worker holds a notification (it runs at its next step).
    pub(crate) on_the_way: bool,
    /// Some worker holds more than one runnable task.
    pub(crate) backlog: bool,
}

/// How a deterministic run's pool spread its work (module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spread {
    /// Steps sampled.
    pub steps: u64,
    /// The most workers searching after any step.
    pub max_searching: usize,
    /// The searching cap: half the workers (at least one).
    pub searching_cap: usize,
    /// The longest run of consecutive steps with a parked, un-notified worker while
    /// another held a backlog and nobody searched.
    pub max_idle_with_backlog: u64,
    /// Polls per worker.
    pub polls: Vec<u64>,
    run: u64,
}

impl Spread {
    pub(crate) fn new(workers: usize) -> Spread {
        Spread {
            searching_cap: (workers / 2).max(1),
            polls: vec![0; workers],
            ..Spread::default()
        }
    }

    pub(crate) fn sample(&mut self, s: Sample) {
        self.steps += 1;
        self.max_searching = self.max_searching.max(s.searching);
        if s.parked && s.backlog && s.searching == 0 && !s.on_the_way {
            self.run += 1;
            self.max_idle_with_backlog = self.max_idle_with_backlog.max(self.run);
        } else {
            self.run = 0;
        }
    }

    /// How many workers polled at least one task.
    pub fn workers_that_polled(&self) -> usize {
        self.polls.iter().filter(|&&p| p > 0).count()
    }
}
