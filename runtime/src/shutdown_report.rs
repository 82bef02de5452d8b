//! What a runtime's shutdown left behind when its deadline passed: the answer of
//! `Runtime::shutdown_timeout_report`, which `Runtime::shutdown_timeout` prints to stderr.
//!
//! Two kinds of work hold a shutdown: a task inside a poll that has not returned (its
//! worker cannot cancel it until it does), and a blocking closure still running (the pool
//! never cancels one). Both are identified by the thread running them: it is signalled,
//! and its handler records the task it is polling (`stack_capture.rs`; a blocking closure
//! is a task of the pool, named by `task::Builder::name(..).spawn_blocking`). A thread
//! that does not answer within 50 ms, or a platform without the capture (not Linux),
//! leaves the entry without an identity, saying why. The report is built only after the
//! deadline passed with work held: a shutdown that finishes in time sends no signal.

use std::fmt;
use std::time::Duration;

use task::TaskMeta;

/// A task still inside a poll when the shutdown's deadline passed.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct StuckPoll {
    /// The worker polling it.
    pub worker: usize,
    /// The task (`None` when its thread did not answer; `missing` says why).
    pub task: Option<TaskMeta>,
    /// How long the poll had run at the report (from the monitor's first sighting, within
    /// a millisecond of its start; from the shutdown's start for a poll it never saw).
    pub in_poll: Duration,
    /// Why `task` is `None`.
    pub missing: Option<&'static str>,
}

/// A blocking closure (`spawn_blocking`) still running when the shutdown's deadline passed.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RunningClosure {
    /// The closure's task (`None` when its thread did not answer; `missing` says why).
    pub task: Option<TaskMeta>,
    /// How long it had run at the report.
    pub running_for: Duration,
    /// Why `task` is `None`.
    pub missing: Option<&'static str>,
}

/// What still held a runtime when `shutdown_timeout`'s deadline passed (empty when the
/// shutdown finished in time). `Display` prints it as `shutdown_timeout` does on stderr.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ShutdownReport {
    /// The timeout that passed.
    pub timeout: Duration,
    /// Tasks that had not yielded: stuck in a poll at the deadline.
    pub stuck_polls: Vec<StuckPoll>,
    /// Blocking closures still running at the deadline.
    pub running_closures: Vec<RunningClosure>,
    /// Blocking closures spawned before the shutdown that had not started yet.
    pub queued_closures: usize,
}

impl ShutdownReport {
    /// True when nothing held the shutdown past its deadline.
    pub fn is_empty(&self) -> bool {
        self.stuck_polls.is_empty() && self.running_closures.is_empty() && self.queued_closures == 0
    }
}

fn who(f: &mut fmt::Formatter<'_>, task: &Option<TaskMeta>, missing: Option<&str>) -> fmt::Result {
    match (task, missing) {
        (Some(task), _) => write!(f, "{task}"),
        (None, Some(why)) => write!(f, "an unidentified task ({why})"),
        (None, None) => f.write_str("an unidentified task"),
    }
}

impl fmt::Display for ShutdownReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("runtime shutdown: nothing held it past its deadline");
        }
        writeln!(
            f,
            "runtime shutdown: still held after its {:?} timeout; left running in the \
             background:",
            self.timeout
        )?;
        for p in &self.stuck_polls {
            write!(f, "  worker {}: ", p.worker)?;
            who(f, &p.task, p.missing)?;
            writeln!(f, " has not yielded: inside one poll for {:?}", p.in_poll)?;
        }
        for c in &self.running_closures {
            f.write_str("  blocking pool: ")?;
            who(f, &c.task, c.missing)?;
            writeln!(f, " still running after {:?}", c.running_for)?;
        }
        if self.queued_closures > 0 {
            writeln!(
                f,
                "  blocking pool: {} closure(s) queued, not started yet",
                self.queued_closures
            )?;
        }
        Ok(())
    }
}
