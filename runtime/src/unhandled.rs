//! The unhandled-panic policy: what a runtime does when a spawned task panics.
//!
//! `UnhandledPanic::Ignore` (the default, tokio's): the panic is caught, the task's
//! `JoinHandle` reports it as a `JoinError`, the runtime goes on.
//!
//! `UnhandledPanic::ShutdownRuntime`: every task spawned on the runtime is wrapped in
//! `ShutdownOnPanic`, which catches a panic of the task's poll, records it in the
//! runtime's `PanicState`, begins the runtime's shutdown (the multi-thread workers stop
//! and cancel the other tasks), and re-raises it into the task harness so the task's
//! `JoinHandle` still reports it. Every `block_on` on the runtime runs its future inside
//! `BlockOnGuard`, which registers its waker with the `PanicState` and, once a task has
//! panicked, panics itself with the task's panic message. The wrapper costs nothing when
//! the policy is `Ignore` (it is not applied); with `ShutdownRuntime`, an `Arc` clone per
//! spawn and a `catch_unwind` frame per poll.
//!
//! No lost wake-up: `BlockOnGuard` registers its waker (under the waiter lock), then reads
//! the flag; `fire` sets the flag, then takes the waiters under the same lock and wakes
//! them after releasing it.

use std::any::Any;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// What the runtime does when a spawned task panics (`Builder::unhandled_panic`).
///
/// ```
/// use runtime::{Builder, UnhandledPanic};
///
/// let rt = Builder::new_multi_thread()
///     .worker_threads(2)
///     .unhandled_panic(UnhandledPanic::ShutdownRuntime)
///     .build()
///     .unwrap();
/// let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
///     rt.block_on(async {
///         runtime::spawn(async { panic!("boom") });
///         // Never finishes by itself: the task's panic ends this block_on.
///         std::future::pending::<()>().await
///     })
/// }));
/// assert!(result.is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum UnhandledPanic {
    /// The panic goes to the task's `JoinHandle` (as a `JoinError`); the runtime goes on.
    #[default]
    Ignore,
    /// The runtime shuts down at the first panicking task and every `block_on` on it
    /// panics; the task's `JoinHandle` still reports the panic.
    ShutdownRuntime,
}

/// A runtime's record of the first unhandled panic (only with `ShutdownRuntime`).
pub(crate) struct PanicState {
    /// Begins the shutdown of the runtime the panicking task ran on (the scheduler's
    /// hook: this module knows no scheduler).
    close_current: fn(),
    fired: AtomicBool,
    message: Mutex<Option<String>>,
    waiters: Mutex<Vec<(u64, Waker)>>,
    next_id: AtomicU64,
}

/// Each scheduler handle's policy: `None` for `Ignore`.
pub(crate) type Policy = Option<Arc<PanicState>>;

/// The policy for `p`; `close_current` begins the shutdown of the runtime the calling
/// thread runs a task of.
pub(crate) fn policy(p: UnhandledPanic, close_current: fn()) -> Policy {
    match p {
        UnhandledPanic::Ignore => None,
        UnhandledPanic::ShutdownRuntime => Some(Arc::new(PanicState {
            close_current,
            fired: AtomicBool::new(false),
            message: Mutex::new(None),
            waiters: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(0),
        })),
    }
}

impl PanicState {
    fn fire(&self, payload: &(dyn Any + Send)) {
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(a panic payload that is not a string)".to_string());
        // Called inside the panicking task's poll: it is the current task.
        let text = match ::task::current_meta() {
            Some(meta) => format!("{meta} panicked with message {text:?}"),
            None => text,
        };
        {
            let mut message = self.message.lock().unwrap_or_else(|e| e.into_inner());
            if message.is_none() {
                *message = Some(text);
            }
        }
        self.fired.store(true, SeqCst);
        let waiters = std::mem::take(&mut *self.waiters.lock().unwrap_or_else(|e| e.into_inner()));
        for (_, waker) in waiters {
            waker.wake();
        }
    }

    #[track_caller]
    fn raise(&self) -> ! {
        let message = self
            .message
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .unwrap_or_default();
        panic!(
            "a spawned task panicked and the runtime is configured to shut down on an \
             unhandled panic (UnhandledPanic::ShutdownRuntime): {message}"
        );
    }
}

/// A spawned task's future under `ShutdownRuntime`.
pub(crate) struct ShutdownOnPanic<F> {
    future: F,
    state: Arc<PanicState>,
}

impl<F> ShutdownOnPanic<F> {
    pub(crate) fn new(future: F, state: Arc<PanicState>) -> Self {
        ShutdownOnPanic { future, state }
    }
}

impl<F: Future> Future for ShutdownOnPanic<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `future` is structurally pinned: never moved out of `self`, and
        // `ShutdownOnPanic` has no Drop impl and is not Unpin unless F is.
        let this = unsafe { self.get_unchecked_mut() };
        // SAFETY: as above.
        let future = unsafe { Pin::new_unchecked(&mut this.future) };
        match panic::catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(poll) => poll,
            Err(payload) => {
                this.state.fire(&*payload);
                // Shut the runtime this task runs on down (its workers stop, the other
                // tasks are cancelled); a current-thread runtime stops when its owner,
                // whose `block_on` now panics, drops it.
                (this.state.close_current)();
                // The task harness records it for the JoinHandle.
                panic::resume_unwind(payload)
            }
        }
    }
}

/// `block_on`'s future: panics once a task panicked under `ShutdownRuntime`.
pub(crate) struct BlockOnGuard<F> {
    future: F,
    state: Policy,
    id: u64,
}

impl<F> Drop for BlockOnGuard<F> {
    fn drop(&mut self) {
        if let Some(state) = &self.state {
            let id = self.id;
            state
                .waiters
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .retain(|(i, _)| *i != id);
        }
    }
}

impl<F> BlockOnGuard<F> {
    pub(crate) fn new(policy: &Policy, future: F) -> Self {
        let state = policy.clone();
        let id = state.as_ref().map_or(0, |s| s.next_id.fetch_add(1, SeqCst));
        BlockOnGuard { future, state, id }
    }
}

impl<F: Future> Future for BlockOnGuard<F> {
    type Output = F::Output;

    #[track_caller]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `future` is structurally pinned: never moved out; the Drop impl only
        // touches `state` and `id`.
        let this = unsafe { self.get_unchecked_mut() };
        if let Some(state) = &this.state {
            {
                let mut waiters = state.waiters.lock().unwrap_or_else(|e| e.into_inner());
                match waiters.iter_mut().find(|(i, _)| *i == this.id) {
                    Some((_, w)) if w.will_wake(cx.waker()) => {}
                    Some((_, w)) => *w = cx.waker().clone(),
                    None => waiters.push((this.id, cx.waker().clone())),
                }
            }
            if state.fired.load(SeqCst) {
                state.raise();
            }
        }
        // SAFETY: as above.
        unsafe { Pin::new_unchecked(&mut this.future) }.poll(cx)
    }
}
