//! What a runtime's shutdown left behind when its deadline passed: the answer of
//! `Runtime::shutdown_timeout_report`, which `Runtime::shutdown_timeout` prints to stderr.
//!
//! Three kinds of work hold a shutdown: a task inside a poll that has not returned (its
//! worker cannot cancel it until it does), a blocking closure still running (the pool
//! never cancels one), and a task inside `block_in_place` (its thread handed its core
//! away and is no worker, but the shutdown waits for it to leave). The first two are
//! identified by the thread running them: it is signalled, and its handler records the
//! task it is polling (`stack_capture.rs`; a blocking closure is a task of the pool,
//! named by `task::Builder::name(..).spawn_blocking`). A thread that does not answer
//! within 50 ms, or a platform without the capture (not Linux), leaves the entry without
//! an identity, saying why. The third is known without asking: the hand-off listed the
//! task and its time (`scheduler/multi_thread/in_place.rs`). The report is built only
//! after the deadline passed with work held: a shutdown that finishes in time sends no
//! signal.

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

/// A task inside `task::block_in_place` (its closure, or the rest of the poll that called
/// it) when the shutdown's deadline passed.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct InBlockInPlace {
    /// The task that called `block_in_place` (`None` if it was called outside a task's
    /// poll).
    pub task: Option<TaskMeta>,
    /// How long since it handed its worker's core off, at the report.
    pub running_for: Duration,
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
    /// Tasks inside `block_in_place` at the deadline.
    pub in_block_in_place: Vec<InBlockInPlace>,
}

impl ShutdownReport {
    /// True when nothing held the shutdown past its deadline.
    pub fn is_empty(&self) -> bool {
        self.stuck_polls.is_empty()
            && self.running_closures.is_empty()
            && self.queued_closures == 0
            && self.in_block_in_place.is_empty()
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
        for b in &self.in_block_in_place {
            f.write_str("  block_in_place: ")?;
            who(f, &b.task, None)?;
            writeln!(f, " still inside it after {:?}", b.running_for)?;
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
