//! The user's thread callbacks (`Builder::on_thread_start`, `on_thread_stop`,
//! `on_thread_park`, `on_thread_unpark`), as tokio calls them.
//!
//! - start/stop: on every thread the runtime starts (its workers and its blocking-pool
//!   threads), first thing on the new thread and last thing before it exits (also when it
//!   unwinds). A current-thread runtime starts no worker: only its pool threads call them.
//! - park/unpark: on a worker (or the current-thread `block_on` thread) right before it
//!   blocks for lack of work, and right after it wakes up. Busy workers that only peek at
//!   the driver between tasks do not call them.
//!
//! The callbacks are shared (`Arc`) by every thread; an absent one costs a branch.
//!
//! Also the report `Builder::on_stall`'s callback receives ([`Stall`], built by the
//! monitor, `scheduler/multi_thread/monitor.rs`), and the helper behind
//! `#[runtime::test(fail_on_stall = "..")]`.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub use crate::observe::stack_capture::NativeBacktrace;
use task::TaskMeta;

/// One callback, shared by the runtime's threads.
pub(crate) type Callback = Arc<dyn Fn() + Send + Sync>;

/// The four optional thread callbacks of a runtime.
#[derive(Clone, Default)]
pub(crate) struct Hooks {
    pub(crate) thread_start: Option<Callback>,
    pub(crate) thread_stop: Option<Callback>,
    pub(crate) thread_park: Option<Callback>,
    pub(crate) thread_unpark: Option<Callback>,
}

impl Hooks {
    /// Calls `on_thread_start` now and `on_thread_stop` when the guard drops.
    pub(crate) fn enter_thread(&self) -> ThreadGuard {
        if let Some(f) = &self.thread_start {
            f();
        }
        ThreadGuard(self.thread_stop.clone())
    }

    #[inline]
    pub(crate) fn before_park(&self) {
        if let Some(f) = &self.thread_park {
            f();
        }
    }

    /// Whether an `on_thread_park` hook is set (it may make work just before a park).
    #[inline]
    pub(crate) fn has_before_park(&self) -> bool {
        self.thread_park.is_some()
    }

    #[inline]
    pub(crate) fn after_unpark(&self) {
        if let Some(f) = &self.thread_unpark {
            f();
        }
    }
}

impl fmt::Debug for Hooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hooks")
            .field("thread_start", &self.thread_start.is_some())
            .field("thread_stop", &self.thread_stop.is_some())
            .field("thread_park", &self.thread_park.is_some())
            .field("thread_unpark", &self.thread_unpark.is_some())
            .finish()
    }
}

/// Calls `on_thread_stop` (if any) when the thread's body ends, even by unwinding.
pub(crate) struct ThreadGuard(Option<Callback>);

impl Drop for ThreadGuard {
    fn drop(&mut self) {
        if let Some(f) = &self.0 {
            f();
        }
    }
}

/// A poll that has run longer than the `Builder::on_stall` threshold: which worker, for how
/// long, the task it polls and where that worker's thread is.
///
/// The task and the frames are taken by the stuck thread itself: the monitor signals it
/// and its handler records the task it is polling and walks its own stack (Linux only;
/// elsewhere, and when the thread does not answer within 50 ms, the report says why it
/// has no frames). `Display` prints the whole report, frames symbolized on the thread
/// that formats it.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Stall {
    /// The worker's index (as in `RuntimeMetrics::workers`).
    pub worker: usize,
    /// How long the poll has been running when the callback is called (at least).
    pub elapsed: Duration,
    /// The task in that poll (`None` when the thread did not answer, or not on Linux).
    pub task: Option<TaskMeta>,
    /// The stuck thread's native stack when the monitor asked, innermost frame first.
    pub backtrace: NativeBacktrace,
}

impl fmt::Display for Stall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "worker {} has been polling ", self.worker)?;
        match &self.task {
            Some(task) => write!(f, "{task}")?,
            None => f.write_str("an unidentified task")?,
        }
        writeln!(f, " for {:?} without yielding", self.elapsed)?;
        match self.backtrace.missing() {
            Some(why) => writeln!(f, "({why})"),
            None => write!(
                f,
                "native backtrace of the worker's thread:\n{}",
                self.backtrace
            ),
        }
    }
}

/// The `Builder::on_stall` callback.
pub(crate) type StallCallback = Arc<dyn Fn(&Stall) + Send + Sync>;

/// `#[runtime::test(fail_on_stall = "..")]`'s machinery: records every stall report, and
/// runs the test's body as a task (so that the monitor watches its polls) on a
/// multi-thread runtime, failing the test with the reports once the body is done.
///
/// Not an API: public for the attribute's expansion only.
#[doc(hidden)]
#[derive(Clone, Default)]
pub struct FailOnStall {
    reports: Arc<std::sync::Mutex<Vec<Stall>>>,
}

impl FailOnStall {
    /// The `on_stall` callback that records each report (symbolized later, on the test's
    /// thread: the monitor only clones the frames).
    pub fn callback(&self) -> impl Fn(&Stall) + Send + Sync + 'static {
        let reports = self.reports.clone();
        move |stall| {
            reports
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(stall.clone());
        }
    }

    /// Runs `body` as a task of `rt` and returns its output; panics with the stall
    /// reports if any poll went past the threshold (before a panic of the body itself,
    /// which is resumed otherwise). The runtime is shut down first, so that every report
    /// the monitor was making is in.
    #[track_caller]
    pub fn run<F>(
        &self,
        rt: crate::Runtime,
        threshold: Duration,
        shutdown_timeout: Option<Duration>,
        body: F,
    ) -> F::Output
    where
        F: std::future::Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let out = rt.block_on(rt.spawn(body));
        // Waits for the monitor thread, hence for a callback under way.
        match shutdown_timeout {
            Some(t) => rt.shutdown_timeout(t),
            None => drop(rt),
        }
        let reports = std::mem::take(&mut *self.reports.lock().unwrap_or_else(|e| e.into_inner()));
        if !reports.is_empty() {
            let reports: Vec<String> = reports.iter().map(Stall::to_string).collect();
            panic!(
                "a poll blocked its worker for longer than fail_on_stall ({threshold:?}): move \
                 blocking work to `spawn_blocking` or `block_in_place`\n{}",
                reports.join("\n")
            );
        }
        match out {
            Ok(v) => v,
            Err(e) => match e.try_into_panic() {
                Ok(payload) => std::panic::resume_unwind(payload),
                Err(e) => panic!("the test's task did not finish: {e}"),
            },
        }
    }
}
