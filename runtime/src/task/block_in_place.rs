//! `block_in_place`: run blocking code on the current worker thread without starving the
//! tasks queued behind it.
//!
//! On a worker of the multi-thread flavor, the worker first hands its core (its run
//! queue, LIFO slot and parker) to a freshly started worker thread, so every task that
//! was queued on it keeps running there; then the closure runs on this thread, outside
//! the runtime context (so it may block, even call `Handle::block_on`). The rest of the
//! calling task's poll continues on this thread without a core, and once that poll
//! returns the thread leaves the scheduler. Outside any runtime, in a multi-thread
//! `Runtime::block_on`, in any `Handle::block_on` (which drives no scheduler), or on a
//! blocking-pool thread the closure simply runs. On the thread that drives a
//! current-thread runtime, or inside a `LocalSet` (whose tasks only that thread can run),
//! there is nobody to hand the work to: it panics, as tokio's does. The closure runs with
//! no coop budget (unconstrained), as tokio's; the task's budget is restored after it.

use crate::context;
use crate::scheduler;

/// Runs the blocking function `f` on this thread, first moving this worker's queued tasks
/// to another thread so they keep running.
///
/// ```
/// # let rt = runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
/// # rt.block_on(async {
/// let sum = runtime::spawn(async {
///     // A blocking call in the middle of async code: the tasks queued on this worker
///     // move to another thread while it runs.
///     runtime::task::block_in_place(|| (1..=100u64).sum::<u64>())
/// })
/// .await
/// .unwrap();
/// assert_eq!(sum, 5050);
/// # });
/// ```
///
/// Prefer [`spawn_blocking`](crate::task::spawn_blocking) where the blocking code can be
/// moved off the task: `block_in_place` costs a thread start per call, and the calling
/// task's other work (`join!`, `select!` branches) cannot make progress while `f` runs.
///
/// # Panics
/// On the thread driving a current-thread runtime (its `Runtime::block_on` and its tasks,
/// a `LocalRuntime`), and inside a `LocalSet` on any runtime: there is no other worker to
/// take the queued tasks. Use `spawn_blocking` there, or a multi-thread runtime.
/// `Handle::block_on` of a current-thread runtime, from a thread that does not drive it,
/// may call it: that thread runs no tasks.
#[track_caller]
pub fn block_in_place<F, R>(f: F) -> R
where
    F: FnOnce() -> R,
{
    if !context::block_in_place_ok() {
        panic!("{}", crate::misuse::BLOCK_IN_PLACE_ON_CURRENT_THREAD);
    }
    // A deterministic runtime built by `new_current_thread()` is that flavor to its tasks.
    #[cfg(all(feature = "deterministic", not(loom)))]
    if context::in_runtime() && crate::sim::current().is_some_and(|s| s.current_thread) {
        panic!("{}", crate::misuse::BLOCK_IN_PLACE_ON_CURRENT_THREAD);
    }
    if context::in_runtime() && super::local::is_entered() {
        // The set's other tasks live on this thread only: nothing can run them meanwhile.
        panic!("{}", crate::misuse::BLOCK_IN_PLACE_IN_LOCAL_SET);
    }
    scheduler::multi_thread::hand_off_core();
    // The closure runs unconstrained (a future it drives by hand would otherwise find the
    // task's budget spent and never be ready again); the task's budget is back afterwards.
    crate::coop::with_budget(crate::coop::Budget::unconstrained(), || {
        context::exit_runtime(f)
    })
}
