//! Tasks as users see them: `spawn`, `spawn_blocking`, `yield_now`, `JoinHandle`, task
//! ids, `JoinSet` (join_set.rs), `!Send` tasks (`LocalSet`, `spawn_local`: local.rs and
//! local_remote.rs), task-local storage (task_local.rs) and the cooperative
//! budget (budget.rs).
//!
//! `spawn` finds the current runtime through the thread's context; on a worker of that
//! runtime the new task goes into the worker's LIFO slot, elsewhere into the global queue.
//! `yield_now` wakes its own task while it runs, which the task harness turns into a
//! re-schedule at the back of the queue: every task already runnable on that worker runs
//! before the yielder resumes (it never sits in the LIFO slot).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

mod budget;
mod join_set;
mod local;
mod local_remote;
mod ready_list;
mod task_local;

pub use ::task::{AbortHandle, Id, JoinError, JoinHandle};

pub use self::budget::{consume_budget, unconstrained, Unconstrained};
pub use self::join_set::JoinSet;
pub use self::local::{spawn_local, LocalEnterGuard, LocalSet};
#[doc(hidden)]
pub use self::local_remote::RemoteQueue;
#[doc(hidden)]
pub use self::ready_list::ReadyList;
pub use self::task_local::{AccessError, LocalKey};

/// The cooperative budget (tokio's `task::coop`): the same functions as at this module's
/// root, plus [`has_budget_remaining`](coop::has_budget_remaining).
pub mod coop {
    pub use super::budget::{consume_budget, has_budget_remaining, unconstrained, Unconstrained};
}

/// Futures returned by this module's functions.
pub mod futures {
    pub use super::task_local::TaskLocalFuture;
}

use crate::context;

/// Spawns a task onto the current runtime.
///
/// ```
/// #![deny(unused_must_use)] // a detached spawn does not warn: `JoinHandle` is not `#[must_use]`
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// runtime::spawn(async { println!("detached") });
/// let handle = runtime::spawn(async { 40 + 2 });
/// assert_eq!(handle.await.unwrap(), 42);
/// # });
/// ```
///
/// # Panics
/// Outside a runtime: spawn from inside a task or `Runtime::block_on`, or use
/// `Runtime::spawn` / `Handle::spawn`.
#[track_caller]
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let mut future = Some(future);
    let join = context::with_handle(|h| h.map(|h| h.spawn(future.take().expect("once"))));
    match join {
        Some(join) => join,
        None => panic!("{}", crate::misuse::SPAWN_OUTSIDE_RUNTIME),
    }
}

/// Runs a blocking closure on the current runtime's blocking pool.
///
/// # Panics
/// Outside a runtime, as [`spawn`].
#[track_caller]
pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let mut f = Some(f);
    let join =
        context::with_handle(|h| h.map(|h| h.blocking().spawn_blocking(f.take().expect("once"))));
    match join {
        Some(join) => join,
        None => panic!("{}", crate::misuse::SPAWN_BLOCKING_OUTSIDE_RUNTIME),
    }
}

/// Yields once to the scheduler: the task goes to the back of the run queue.
pub async fn yield_now() {
    YieldNow { yielded: false }.await
}

struct YieldNow {
    yielded: bool,
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// The id of the task being polled.
///
/// ```
/// # let rt = runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let handle = runtime::spawn(async { runtime::task::id() });
/// let id = handle.id();
/// assert_eq!(handle.await.unwrap(), id);
/// # });
/// ```
///
/// # Panics
/// Outside a task (e.g. directly in `block_on`, which is no task); use [`try_id`] there.
#[track_caller]
pub fn id() -> Id {
    match ::task::current_id() {
        Some(id) => id,
        None => panic!("{}", crate::misuse::TASK_ID_OUTSIDE_TASK),
    }
}

/// The id of the task being polled, or `None` outside a task.
///
/// ```
/// assert!(runtime::task::try_id().is_none());
/// ```
pub fn try_id() -> Option<Id> {
    ::task::current_id()
}
