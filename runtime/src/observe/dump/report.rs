//! The readable report a [`Dump`] prints: a summary line, the deadlock cycles, the
//! unwakeable tasks, one line per task (state, and what an idle one waits on), then the
//! blocking pool's closures (running for how long, or queued).

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
        if !self.blocking.is_empty() {
            let running = self.blocking.iter().filter(|b| b.running).count();
            writeln!(
                f,
                "blocking pool: {running} closure(s) running, {} queued:",
                self.blocking.len() - running
            )?;
            for b in &self.blocking {
                match (b.running, b.running_for) {
                    (true, Some(d)) => writeln!(f, "  {}: running for {d:.1?}", b.meta)?,
                    (true, None) => writeln!(f, "  {}: running", b.meta)?,
                    (false, _) => writeln!(f, "  {}: queued", b.meta)?,
                }
            }
        }
        Ok(())
    }
}

fn write_task(f: &mut fmt::Formatter<'_>, t: &TaskDump, now: Instant) -> fmt::Result {
    write!(f, "  {}", t.meta)?;
    if let Some(set) = t.local_set {
        write!(f, " (LocalSet {set})")?;
    }
    write!(f, ": {}", t.state)?;
    if t.unpolled {
        f.write_str(", not yet polled")?;
    }
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
            at,
        } => {
            write!(f, "{kind} {object:#x}")?;
            if let Some(h) = holder {
                write!(f, " (held by task {h})")?;
            }
            match at {
                Some(at) => write!(f, " at {at}"),
                None => Ok(()),
            }
        }
        WaitsOn::Join { task } => write!(f, "the JoinHandle of task {task}"),
        WaitsOn::JoinSet { object, tasks } => {
            write!(f, "JoinSet {object:#x} ({tasks} task(s) in it)")
        }
        WaitsOn::Signal { signal } => match signal_name(*signal) {
            Some(name) => write!(f, "signal {signal} ({name})"),
            None => write!(f, "signal {signal}"),
        },
    }
}

/// The usual name of a signal number, for the report.
fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGCHLD => "SIGCHLD",
        libc::SIGWINCH => "SIGWINCH",
        libc::SIGIO => "SIGIO",
        _ => return None,
    })
}
