//! The cooperative budget as users reach it: `consume_budget` spends one unit from code
//! that does no I/O, and `unconstrained` opts a future out of the budget.
//!
//! Both are thin layers over `crate::coop`: `consume_budget` is one `poll_proceed`
//! (which, with the budget spent, wakes the task and returns `Pending`, so the task goes
//! to the back of the queue), and `Unconstrained` polls its inner future with an
//! unlimited budget, restoring the task's own budget after each poll.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::coop;

/// Spends one unit of the current task's cooperative budget, yielding to the scheduler
/// once the budget is spent. Call it in loops that compute without ever awaiting I/O or
/// timers, so they give their worker back as an I/O-bound task would. Outside a runtime,
/// or inside [`unconstrained`], it never yields.
///
/// ```
/// # let rt = runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let mut sum = 0u64;
/// for i in 0..10_000u64 {
///     sum += i; // CPU work
///     runtime::task::consume_budget().await;
/// }
/// assert_eq!(sum, 49_995_000);
/// # });
/// ```
pub async fn consume_budget() {
    let mut done = false;
    std::future::poll_fn(move |cx| {
        if done {
            return Poll::Ready(());
        }
        let res = coop::poll_proceed(cx);
        done = res.is_ready();
        res
    })
    .await
}

/// True when the current task may still do work before it is made to yield (or when it
/// runs unconstrained, or outside a task).
///
/// ```
/// # let rt = runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(rt.spawn(async {
/// assert!(runtime::task::coop::has_budget_remaining());
/// # })).unwrap();
/// ```
pub fn has_budget_remaining() -> bool {
    coop::has_budget_remaining()
}

/// Turns off cooperative scheduling for `inner`: the operations it awaits never yield for
/// lack of budget. The task's own budget is left as it was. Use it sparingly: a future
/// that is always ready can then hold its worker forever.
///
/// ```
/// # let rt = runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let n = runtime::task::unconstrained(async {
///     let mut n = 0;
///     for _ in 0..1000 {
///         runtime::task::consume_budget().await; // never yields in here
///         n += 1;
///     }
///     n
/// })
/// .await;
/// assert_eq!(n, 1000);
/// # });
/// ```
pub fn unconstrained<F: Future>(inner: F) -> Unconstrained<F> {
    Unconstrained { inner }
}

/// The future returned by [`unconstrained`].
#[must_use = "futures do nothing unless you `.await` or poll them"]
#[derive(Debug)]
pub struct Unconstrained<F> {
    inner: F,
}

impl<F: Future> Future for Unconstrained<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `inner` is structurally pinned: it is never moved out of `self`, and
        // `Unconstrained` has no `Drop` or `Unpin` impl that would move it.
        let inner = unsafe { self.map_unchecked_mut(|s| &mut s.inner) };
        coop::with_budget(coop::Budget::unconstrained(), || inner.poll(cx))
    }
}
