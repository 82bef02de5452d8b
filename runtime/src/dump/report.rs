//! The readable report a [`Dump`] prints: a summary line, the deadlock cycles, the
//! unwakeable tasks, then one line per task (state, and what an idle one waits on).

use std::fmt;
use std::time::Instant;

use super::{Dump, IoDirection, TaskDump, WaitsOn};
use task::TaskState;

impl fmt::Display for Dump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = |s| self.tasks.iter().filter(|t| t.state == s).count();
        writeln!(
            f,
            "task dump: {} listed ({} idle, {} scheduled, {} running, {} complete), {} not yet parked (queued or running)",
            self.tasks.len(),
            count(TaskState::Idle),
            count(TaskState::Scheduled),
            count(TaskState::Running),
            count(TaskState::Complete),
            self.unlisted(),
        )?;
        if !self.cycles.is_empty() {
            writeln!(
                f,
                "deadlocks (each task waits for a lock held by the next, or for it to finish):"
            )?;
            let now = Instant::now();
            for cycle in &self.cycles {
                f.write_str("  cycle: ")?;
                for id in cycle {
                    write!(f, "task {id} -> ")?;
                }
                writeln!(f, "task {}", cycle[0])?;
                for t in cycle.iter().filter_map(|&id| self.task(id)) {
                    f.write_str("  ")?;
                    write_task(f, t, now)?;
                }
            }
        }
        let mut stuck = self.unwakeable().peekable();
        if stuck.peek().is_some() {
            writeln!(
                f,
                "unwakeable (idle, and no waker of it exists: only abort or shutdown ends it):"
            )?;
            for t in stuck {
                writeln!(f, "  {}", t.meta)?;
            }
        }
        writeln!(f, "tasks:")?;
        let now = Instant::now();
        for t in &self.tasks {
            write_task(f, t, now)?;
        }
        Ok(())
    }
}

fn write_task(f: &mut fmt::Formatter<'_>, t: &TaskDump, now: Instant) -> fmt::Result {
    write!(f, "  {}: {}", t.meta, t.state)?;
    if t.state == TaskState::Idle {
        if t.unwakeable {
            f.write_str(", UNWAKEABLE")?;
        }
        if t.waits.is_empty() {
            f.write_str(", waiting on nothing the runtime recorded")?;
        }
        for (i, w) in t.waits.iter().enumerate() {
            f.write_str(if i == 0 { ", waiting on " } else { " and " })?;
            write_wait(f, w, now)?;
        }
    }
    writeln!(f)
}

fn write_wait(f: &mut fmt::Formatter<'_>, w: &WaitsOn, now: Instant) -> fmt::Result {
    match w {
        WaitsOn::Sleep { deadline } => {
            let left = deadline.saturating_duration_since(now);
            write!(f, "a timer (fires in {left:.1?})")
        }
        WaitsOn::Io { fd, direction } => {
            let dir = match direction {
                IoDirection::Read => "readable",
                IoDirection::Write => "writable",
            };
            write!(f, "fd {fd} becoming {dir}")
        }
        WaitsOn::Sync {
            kind,
            object,
            holder,
        } => {
            write!(f, "{kind} {object:#x}")?;
            match holder {
                Some(h) => write!(f, " (held by task {h})"),
                None => Ok(()),
            }
        }
        WaitsOn::Join { task } => write!(f, "the JoinHandle of task {task}"),
    }
}
