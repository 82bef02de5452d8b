//! Cooperative scheduling budget.
//!
//! A task that keeps finding its resources ready would never return `Pending` and so never
//! give its worker back. Each poll of a task starts with a budget of `BUDGET` operations;
//! every I/O or timer operation that is ready spends one (`poll_proceed`). When the budget
//! is spent the operation returns `Pending` after waking the task, so the task goes to the
//! deferred list (the wake is marked as a yield, `note_yield`) and the others, and the
//! driver, get their turn.
//! Outside a task the budget is unconstrained.

use std::task::{Context, Poll};

use crate::context;

/// Operations per task poll (as tokio).
pub(crate) const BUDGET: u8 = 128;

/// A poll's budget (None: unconstrained), and whether the task being polled asked to be
/// deferred: it woke itself to give way (`yield_now`, a spent budget), as opposed to being
/// woken by someone else while it ran. Reset with the budget at each poll.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget(Option<u8>, bool);

impl Budget {
    pub(crate) const fn initial() -> Budget {
        Budget(Some(BUDGET), false)
    }

    pub(crate) const fn unconstrained() -> Budget {
        Budget(None, false)
    }
}

/// The task being polled gives way: the self-wake that follows is a yield, and its
/// scheduler defers it (scheduler/defer.rs) rather than queueing it as a wake.
pub(crate) fn note_yield() {
    context::with(|c| {
        if let Some(c) = c {
            let mut b = c.budget.get();
            b.1 = true;
            c.budget.set(b);
        }
    });
}

/// Whether the task whose poll just ended asked to be deferred (`note_yield`); clears it.
/// A task notified while it ran without asking (another thread, or its own waker used
/// for something else) is a plain wake and goes to the back of the run queue.
pub(crate) fn take_yield() -> bool {
    context::with(|c| {
        let Some(c) = c else { return false };
        let mut b = c.budget.get();
        let yielded = b.1;
        b.1 = false;
        c.budget.set(b);
        yielded
    })
}

/// Runs `f` (a task poll) with a fresh budget, restoring the previous one afterwards.
#[inline]
pub(crate) fn budget<R>(f: impl FnOnce() -> R) -> R {
    with_budget(Budget::initial(), f)
}

/// Runs `f` with budget `b`, restoring the previous one afterwards (even on unwind).
pub(crate) fn with_budget<R>(b: Budget, f: impl FnOnce() -> R) -> R {
    struct Reset(Option<Budget>);
    impl Drop for Reset {
        fn drop(&mut self) {
            if let Some(prev) = self.0 {
                context::with(|cx| {
                    if let Some(cx) = cx {
                        cx.budget.set(prev);
                    }
                });
            }
        }
    }
    let prev = context::with(|cx| cx.map(|cx| cx.budget.replace(b)));
    let _reset = Reset(prev);
    f()
}

/// Spends one unit of budget, or (none left) wakes the task and returns `Pending`.
// Its callers (net, time) are not built under loom.
#[cfg_attr(loom, allow(dead_code))]
#[inline]
pub(crate) fn poll_proceed(cx: &mut Context<'_>) -> Poll<()> {
    let exhausted = context::with(|c| {
        let Some(c) = c else { return false };
        let mut b = c.budget.get();
        match b.0 {
            None => false,
            Some(0) => {
                // The wake below is a yield.
                b.1 = true;
                c.budget.set(b);
                true
            }
            Some(ref mut n) => {
                *n -= 1;
                c.budget.set(b);
                false
            }
        }
    });
    if exhausted {
        ::task::wake_self_by_ref(cx.waker());
        Poll::Pending
    } else {
        Poll::Ready(())
    }
}

/// The current poll's budget (unconstrained outside a runtime's context), for
/// `task::coop::RestoreOnPending`.
pub(crate) fn current() -> Budget {
    context::with(|c| c.map_or(Budget::unconstrained(), |c| c.budget.get()))
}

/// Puts back the operation count of `b` (a budget read by [`current`] earlier in this
/// poll), keeping the current yield mark; nothing for an unconstrained `b`.
pub(crate) fn restore_count(b: Budget) {
    if b.0.is_none() {
        return;
    }
    context::with(|c| {
        if let Some(c) = c {
            let mut now = c.budget.get();
            now.0 = b.0;
            c.budget.set(now);
        }
    });
}

/// Cuts the current poll's budget to `n` operations (the deterministic mode's inserted
/// yields: the task gives way at its `n + 1`-th budgeted operation). Nothing outside a
/// budget.
#[cfg(all(feature = "deterministic", not(loom)))]
pub(crate) fn cut_to(n: u8) {
    context::with(|c| {
        if let Some(c) = c {
            let mut b = c.budget.get();
            if let Some(left) = b.0 {
                b.0 = Some(left.min(n));
                c.budget.set(b);
            }
        }
    });
}

/// True when the current task still has budget (or runs unconstrained).
pub(crate) fn has_budget_remaining() -> bool {
    context::with(|c| c.is_none_or(|c| !matches!(c.budget.get().0, Some(0))))
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::task::Waker;

    #[test]
    fn budget_runs_out_and_resets() {
        let mut cx = Context::from_waker(Waker::noop());
        budget(|| {
            for _ in 0..BUDGET {
                assert!(poll_proceed(&mut cx).is_ready());
            }
            assert!(poll_proceed(&mut cx).is_pending());
            assert!(!has_budget_remaining());
            // A nested poll (another task) gets its own budget, and ours is restored.
            budget(|| assert!(poll_proceed(&mut cx).is_ready()));
            assert!(poll_proceed(&mut cx).is_pending());
        });
        // Outside a task: unconstrained.
        for _ in 0..1000 {
            assert!(poll_proceed(&mut cx).is_ready());
        }
    }
}
