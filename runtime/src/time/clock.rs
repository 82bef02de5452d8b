//! Paused time: [`pause`], [`resume`] and [`advance`], tokio's test clock.
//!
//! The clock lives in the runtime's timer driver (`io_driver`'s `clock.rs`); these
//! functions find it through the current runtime. While it is paused, [`Instant::now`]
//! (this module's) and every timer read the frozen time, which moves only by [`advance`]
//! or by auto-advance: when the current-thread scheduler is about to park with no task
//! runnable, the driver polls for I/O without sleeping and, if nothing arrived, jumps the
//! clock to the next timer's deadline and fires it. So a test that sleeps for an hour runs
//! in microseconds, and timers fire in deadline order exactly as they would in real time.
//!
//! Only the current-thread flavor can pause (with several workers "every task is idle"
//! has no cheap, race-free meaning), as in tokio: elsewhere these functions panic with a
//! message saying so.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::Instant;

/// Set (for good) the first time any runtime in the process pauses its clock. Until then
/// `Instant::now()` is `std::time::Instant::now()` without looking up the runtime.
static ANY_PAUSED: AtomicBool = AtomicBool::new(false);

/// Records that some clock is (about to be) paused; before the pause itself.
pub(crate) fn note_paused() {
    // Relaxed: the flag publishes nothing. Nothing is written before it that a reader
    // reads because it saw `true`: such a reader only looks up its own thread's runtime
    // and reads that runtime's clock, which has its own flag and mutex (`io_driver`'s
    // `clock.rs`). What must hold is visibility, not ordering: a thread ordered after this
    // store by other synchronization (the runtime's threads after `Builder::build` or after
    // the task that paused) reads `true` by coherence whatever the ordering here; a thread
    // not ordered after it may read `false` (and the real time) with any ordering.
    ANY_PAUSED.store(true, Ordering::Relaxed);
}

/// Whether any clock was ever paused in this process.
pub(crate) fn any_paused() -> bool {
    // Relaxed: see `note_paused`; a `true` acquires nothing (the clock read after it
    // synchronizes through its own mutex).
    ANY_PAUSED.load(Ordering::Relaxed)
}
use crate::scheduler;

/// The current runtime's timer handle, for the clock functions, checking the flavor.
#[track_caller]
fn paused_clock(what: &str) -> std::sync::Arc<io_driver::Handle> {
    let Some(handle) = crate::context::current_handle() else {
        panic!(
            "`time::{what}()` {}",
            crate::misuse::PAUSE_OUTSIDE_RUNTIME_SUFFIX
        );
    };
    if let scheduler::Handle::MultiThread(_) = handle {
        panic!(
            "`time::{what}()` {}",
            crate::misuse::PAUSE_MULTI_THREAD_SUFFIX
        );
    }
    let driver = handle.driver().clone();
    driver.time_handle().clone()
}

/// Pauses time: [`Instant::now`] and every timer read a frozen clock from now on.
///
/// While paused, time moves only when every task is idle (the runtime jumps the clock to
/// the next timer instead of sleeping) or by [`advance`]. Tests of code with long timeouts
/// then run in no real time at all.
///
/// ```
/// use runtime::time::{self, Duration, Instant};
///
/// # runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// time::pause();
/// let start = Instant::now();
/// time::sleep(Duration::from_secs(3600)).await; // no real wait
/// assert!(start.elapsed() >= Duration::from_secs(3600));
/// # });
/// ```
///
/// # Panics
/// Outside a runtime, on a multi-thread runtime, on one without `enable_time()`, or when
/// time is already paused.
#[track_caller]
pub fn pause() {
    let clock = paused_clock("pause");
    note_paused();
    if let Err(msg) = clock.pause() {
        panic!("{msg}");
    }
}

/// Resumes paused time: the clock runs again at real speed, from the time it shows (so it
/// stays ahead of the system clock by what was skipped).
///
/// ```
/// use runtime::time::{self, Duration, Instant};
///
/// # runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// time::pause();
/// let start = Instant::now();
/// time::advance(Duration::from_secs(60)).await;
/// time::resume();
/// assert!(start.elapsed() >= Duration::from_secs(60));
/// # });
/// ```
///
/// # Panics
/// Outside a current-thread runtime with `enable_time()`, or when time is not paused.
#[track_caller]
pub fn resume() {
    if let Err(msg) = paused_clock("resume").resume() {
        panic!("{msg}");
    }
}

/// Moves paused time forward by `duration`, fires the timers that became due, and yields
/// once so that the tasks they woke run before the caller continues.
///
/// ```
/// use runtime::time::{self, Duration, Instant};
///
/// # runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(async {
/// let sleeper = runtime::spawn(time::sleep(Duration::from_secs(10)));
/// runtime::task::yield_now().await; // the sleeper registers its timer
/// let start = Instant::now();
/// time::advance(Duration::from_secs(10)).await;
/// assert_eq!(start.elapsed(), Duration::from_secs(10));
/// assert!(sleeper.is_finished());
/// # });
/// ```
///
/// # Panics
/// Outside a current-thread runtime with `enable_time()`, when time is not paused, or when
/// `duration` overflows the clock.
pub async fn advance(duration: Duration) {
    let clock = paused_clock("advance");
    if let Err(msg) = clock.advance(duration) {
        panic!("{msg}");
    }
    // Fire what became due now (the driver is free: this thread holds the core), then let
    // the woken tasks run.
    crate::scheduler::Handle::current_driver("`time::advance`").poll_now();
    crate::task::yield_now().await;
}

/// `now + duration`, or a deadline about 30 years away on overflow.
pub(crate) fn deadline_after(duration: Duration) -> Instant {
    Instant::now()
        .checked_add(duration)
        .unwrap_or_else(Instant::far_future)
}

/// Held by a blocking task while time is paused: the runtime must not skip time while
/// work it cannot see is still running (tokio's rule for `spawn_blocking`). Dropping it
/// lets auto-advance go on and unparks the driver so it looks again.
///
/// A task that ran drops it only once its completion is published (`after_run`, called
/// by the pool thread when the run returned), as tokio does in the blocking task's
/// release: dropped at the end of the closure, it would let the driver auto-advance
/// (firing timers) before the task's `JoinHandle` can see the output, so a task waiting
/// for both could see the timer first.
pub(crate) struct AutoAdvanceGuard(Option<std::sync::Arc<io_driver::Handle>>);

std::thread_local! {
    /// The guard of the blocking task this pool thread is running, parked by its closure
    /// (`AutoAdvanceGuard::defer`) until the run returned (`after_run`).
    static AFTER_RUN: std::cell::Cell<Option<AutoAdvanceGuard>> = const { std::cell::Cell::new(None) };
}

/// Test hook: called with nothing when a guard of a paused clock lets time advance.
#[cfg(test)]
pub(crate) static ON_RELEASE: std::sync::Mutex<Option<Box<dyn Fn() + Send>>> =
    std::sync::Mutex::new(None);

impl AutoAdvanceGuard {
    /// A guard that inhibits auto-advance if `clock` is paused now (else a no-op guard).
    pub(crate) fn new(clock: Option<&std::sync::Arc<io_driver::Handle>>) -> AutoAdvanceGuard {
        AutoAdvanceGuard(clock.filter(|c| c.is_paused()).map(|c| {
            c.inhibit_auto_advance();
            c.clone()
        }))
    }
}

impl AutoAdvanceGuard {
    /// Called by the task's closure when it ends (returning or unwinding), on the pool
    /// thread inside the run: parks the guard until `after_run`.
    pub(crate) fn defer(self) {
        if self.0.is_some() {
            AFTER_RUN.with(|slot| slot.set(Some(self)));
        }
    }

    /// Called by a pool thread after each run: the run published the task's completion,
    /// so the guard its closure parked may now let time advance.
    pub(crate) fn after_run() {
        // `try_with`: a thread being torn down has dropped the slot (and its guard) itself.
        let _ = AFTER_RUN.try_with(|slot| drop(slot.take()));
    }
}

impl Drop for AutoAdvanceGuard {
    fn drop(&mut self) {
        if let Some(clock) = self.0.take() {
            #[cfg(test)]
            if let Some(hook) = &*ON_RELEASE.lock().unwrap() {
                hook();
            }
            clock.allow_auto_advance();
            clock.unpark();
        }
    }
}
