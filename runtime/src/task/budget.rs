//! The cooperative budget as users reach it: `consume_budget` spends one unit from code
//! that does no I/O, and `unconstrained` opts a future out of the budget.
//!
//! Both are thin layers over `crate::coop`: `consume_budget` is one `poll_proceed`
//! (which, with the budget spent, wakes the task and returns `Pending`, so the task goes
//! to the back of the queue), and `Unconstrained` polls its inner future with an
//! unlimited budget, restoring the task's own budget after each poll.
//!
//! For leaf futures written outside this crate, [`poll_proceed`] spends one unit
//! provisionally: it returns a [`RestoreOnPending`] holding the budget as it was before,
//! which puts that count back when dropped unless the caller says it made progress
//! ([`RestoreOnPending::made_progress`]), so an operation that ends `Pending` costs
//! nothing. [`cooperative`] wraps a whole future that way: each of its polls spends one
//! unit if (and only if) it completes.

use std::future::Future;
use std::marker::PhantomData;
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

/// What [`poll_proceed`] returns when the task may go on: the budget as it was before the
/// call. Dropped without [`made_progress`](RestoreOnPending::made_progress), it puts that
/// count back (the operation that asked made no progress, so it spends nothing).
#[derive(Debug)]
#[must_use = "dropping it at once gives the unit of budget back"]
pub struct RestoreOnPending {
    prev: std::cell::Cell<coop::Budget>,
    /// Tied to the thread (and the poll) whose budget it restores.
    _not_send: PhantomData<*mut ()>,
}

impl RestoreOnPending {
    /// The operation made progress: keep the unit of budget spent.
    pub fn made_progress(&self) {
        self.prev.set(coop::Budget::unconstrained());
    }
}

impl Drop for RestoreOnPending {
    fn drop(&mut self) {
        coop::restore_count(self.prev.get());
    }
}

/// Spends one unit of the current task's budget for an operation about to be tried, or
/// (none left) wakes the task and returns `Pending`, so it yields. Call
/// [`made_progress`](RestoreOnPending::made_progress) on the result when the operation
/// completed; otherwise its drop gives the unit back. Outside a runtime, or inside
/// [`unconstrained`], it is always ready and spends nothing.
///
/// ```
/// use std::future::Future;
/// use std::pin::Pin;
/// use std::task::{ready, Context, Poll};
/// use runtime::task::coop;
///
/// /// A counter that is always ready: without the budget it could hold its worker.
/// struct Ticks(u32);
///
/// impl Future for Ticks {
///     type Output = ();
///     fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
///         loop {
///             let restore = ready!(coop::poll_proceed(cx));
///             restore.made_progress();
///             self.0 -= 1;
///             if self.0 == 0 {
///                 return Poll::Ready(());
///             }
///         }
///     }
/// }
///
/// # runtime::Runtime::new().unwrap().block_on(async {
/// runtime::spawn(Ticks(1000)).await.unwrap(); // yields every 128 ticks
/// # });
/// ```
#[inline]
pub fn poll_proceed(cx: &mut Context<'_>) -> Poll<RestoreOnPending> {
    let prev = coop::current();
    std::task::ready!(coop::poll_proceed(cx));
    Poll::Ready(RestoreOnPending {
        prev: std::cell::Cell::new(prev),
        _not_send: PhantomData,
    })
}

/// Makes `fut` take part in cooperative scheduling: each poll first asks for a unit of
/// budget ([`poll_proceed`]), yielding when none is left, and spends it only when the
/// poll completes. For futures from outside this runtime (another crate's channel) that
/// could otherwise stay ready forever.
///
/// ```
/// # runtime::Runtime::new().unwrap().block_on(async {
/// let v = runtime::task::coop::cooperative(async { 7 }).await;
/// assert_eq!(v, 7);
/// # });
/// ```
pub fn cooperative<F: Future>(fut: F) -> Coop<F> {
    Coop { fut }
}

/// The future returned by [`cooperative`].
#[must_use = "futures do nothing unless you `.await` or poll them"]
#[derive(Debug)]
pub struct Coop<F> {
    fut: F,
}

impl<F: Future> Future for Coop<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let restore = std::task::ready!(poll_proceed(cx));
        // SAFETY: `fut` is structurally pinned: never moved out of `self`, and `Coop` has
        // no `Drop` or `Unpin` impl that would move it.
        let fut = unsafe { self.map_unchecked_mut(|s| &mut s.fut) };
        let out = fut.poll(cx);
        if out.is_ready() {
            restore.made_progress();
        }
        out
    }
}
