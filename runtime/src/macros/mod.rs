//! tokio's declarative macros: `select!`, `join!`, `try_join!`, `pin!` (and `task_local!`,
//! in task/task_local.rs). Each is a `macro_rules!` exported at the crate root; this module
//! holds what their expansions call (`support`), reached as `$crate::macros::support`.
//!
//! Shared technique: a branch (or future) list is normalized by a token muncher that hands
//! each entry a name and an index from a fixed list of 64 (`_0 0`, `_1 1`, ...). The names
//! become local variables (`join!`/`try_join!` pin each future on the stack with
//! `core::pin::pin!`, with no `unsafe`; `select!` keeps its futures in one tuple and pins
//! each where it polls it) and, for `select!`, the variants of an output enum and tuple
//! field indices;
//! the indices become bits of the disabled mask and `match` arms. Nothing is allocated.
//! The one proc-macro helper, `select_priv_clean_pattern!` (runtime-macros), strips `mut`
//! and `ref` from a `select!` pattern so it can test an output by reference.

mod join;
mod pin;
mod select;
mod try_join;

#[doc(hidden)]
pub mod support {
    pub use std::future::{poll_fn, Future, IntoFuture};
    pub use std::pin::{pin, Pin};
    pub use std::task::Poll;

    pub use runtime_macros::select_priv_clean_pattern;

    /// A value in `0..n` from the thread's generator (seeded by `Builder::rng_seed`).
    #[inline]
    pub fn thread_rng_n(n: u32) -> u32 {
        crate::rand::thread_rng_n(n)
    }

    /// `Pending` (after waking the task, as a yield) when the task's cooperative budget is
    /// spent: `select!` checks it before polling any branch, so a loop whose ready branch
    /// always wins still gives its worker back. It spends nothing itself: the branches do.
    #[inline]
    pub fn poll_budget_available(cx: &mut std::task::Context<'_>) -> Poll<()> {
        if crate::coop::has_budget_remaining() {
            Poll::Ready(())
        } else {
            crate::coop::note_yield();
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    /// The branch to try first: 0 when `biased`, else a random one.
    #[inline]
    pub fn start(biased: bool, n: u32) -> u32 {
        if biased {
            0
        } else {
            thread_rng_n(n)
        }
    }

    /// A future, then its output, then nothing (the output was taken): `join!`'s slots.
    pub enum MaybeDone<F: Future> {
        Future(F),
        Done(F::Output),
        Gone,
    }

    /// Wraps `f` (any `IntoFuture`) for `join!`.
    pub fn maybe_done<F: IntoFuture>(f: F) -> MaybeDone<F::IntoFuture> {
        MaybeDone::Future(f.into_future())
    }

    impl<F: Future> MaybeDone<F> {
        /// Polls the future unless done; true once the output is stored.
        pub fn poll_done(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> bool {
            // SAFETY: the future is structurally pinned: it is polled in place and
            // replaced (dropped in place) by its output, never moved.
            let this = unsafe { self.get_unchecked_mut() };
            match this {
                MaybeDone::Future(f) => {
                    // SAFETY: see above.
                    match unsafe { Pin::new_unchecked(f) }.poll(cx) {
                        Poll::Ready(out) => {
                            *this = MaybeDone::Done(out);
                            true
                        }
                        Poll::Pending => false,
                    }
                }
                MaybeDone::Done(_) => true,
                MaybeDone::Gone => panic!("`join!` polled after it completed"),
            }
        }

        /// Takes the output.
        pub fn take_output(self: Pin<&mut Self>) -> F::Output {
            // SAFETY: only the output (unpinned) is moved out; the future is gone.
            let this = unsafe { self.get_unchecked_mut() };
            match std::mem::replace(this, MaybeDone::Gone) {
                MaybeDone::Done(out) => out,
                _ => panic!("`join!` took an output that is not there"),
            }
        }
    }

    impl<T, E, F: Future<Output = Result<T, E>>> MaybeDone<F> {
        /// Takes the error, when the output is one (`try_join!`), as the `Err` of the
        /// `try_join!`'s result type: the caller never holds a bare `E`, so an uninhabited
        /// error type (`Infallible`) makes no code of its unreachable.
        pub fn take_err<U>(self: Pin<&mut Self>) -> Option<Result<U, E>> {
            // SAFETY: as in `take_output`.
            let this = unsafe { self.get_unchecked_mut() };
            if !matches!(this, MaybeDone::Done(Err(_))) {
                return None;
            }
            match std::mem::replace(this, MaybeDone::Gone) {
                MaybeDone::Done(Err(e)) => Some(Err(e)),
                _ => unreachable!(),
            }
        }

        /// Takes the `Ok` value (`try_join!`, once every output is `Ok`).
        pub fn take_ok(self: Pin<&mut Self>) -> T {
            match self.take_output() {
                Ok(v) => v,
                Err(_) => panic!("`try_join!` took an error as a value"),
            }
        }
    }
}
