//! Tasks as users see them: `spawn`, `spawn_blocking`, `yield_now`, `JoinHandle`.
//!
//! `spawn` finds the current runtime through the thread's context; on a worker of that
//! runtime the new task goes into the worker's LIFO slot, elsewhere into the global queue.
//! `yield_now` wakes its own task while it runs, which the task harness turns into a
//! re-schedule at the back of the queue: every task already runnable on that worker runs
//! before the yielder resumes (it never sits in the LIFO slot).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

pub use ::task::{AbortHandle, JoinError, JoinHandle};

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
        None => panic!(
            "`runtime::spawn` called outside of a runtime: spawn from inside a task or \
             `Runtime::block_on`, or use `Runtime::spawn` / `Handle::spawn`"
        ),
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
        None => panic!(
            "`runtime::task::spawn_blocking` called outside of a runtime: call it from inside \
             a task or `Runtime::block_on`, or use `Runtime::spawn_blocking` / `Handle::spawn_blocking`"
        ),
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
