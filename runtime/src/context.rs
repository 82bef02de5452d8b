//! Per-thread runtime context: which runtime this thread is in, and which scheduler core
//! (if any) it is running right now.
//!
//! - `handle`: set while a thread is inside a runtime (a worker, or `block_on`), so
//!   `spawn`, `Handle::current` and the I/O types find their runtime. Entering is scoped by
//!   an `EnterGuard` that restores the previous value.
//! - `in_runtime`: true on worker threads and inside `block_on`; `block_on` refuses to nest.
//! - `scheduler`: a scoped pointer to the running scheduler's per-thread context, so a
//!   task waking another task on the same worker pushes to that worker's local queue
//!   without any synchronization.
//! - `budget`: the cooperative budget of the task being polled (coop.rs).

use std::cell::{Cell, RefCell};

use crate::coop::Budget;
use crate::scheduler;

pub(crate) struct Context {
    handle: RefCell<Option<scheduler::Handle>>,
    in_runtime: Cell<bool>,
    scheduler: Cell<*const ()>,
    pub(crate) budget: Cell<Budget>,
}

impl Context {
    const fn new() -> Context {
        Context {
            handle: RefCell::new(None),
            in_runtime: Cell::new(false),
            scheduler: Cell::new(std::ptr::null()),
            budget: Cell::new(Budget::unconstrained()),
        }
    }
}

// A `const` initializer (no lazy-init check per access) normally; loom's macro has no
// `const` form.
#[cfg(not(loom))]
std::thread_local! {
    static CONTEXT: Context = const { Context::new() };
}

#[cfg(loom)]
shim::thread_local! {
    static CONTEXT: Context = Context::new();
}

/// Runs `f` with the thread's context (None while the thread-local is being destroyed).
pub(crate) fn with<R>(f: impl FnOnce(Option<&Context>) -> R) -> R {
    let mut f = Some(f);
    match CONTEXT.try_with(|cx| (f.take().expect("called once"))(Some(cx))) {
        Ok(r) => r,
        Err(_) => (f.take().expect("called once"))(None),
    }
}

/// The handle of the runtime this thread is in, if any.
pub(crate) fn current_handle() -> Option<scheduler::Handle> {
    with(|cx| cx.and_then(|cx| cx.handle.borrow().clone()))
}

/// Runs `f` with the current handle without cloning it.
pub(crate) fn with_handle<R>(f: impl FnOnce(Option<&scheduler::Handle>) -> R) -> R {
    with(|cx| match cx {
        Some(cx) => f(cx.handle.borrow().as_ref()),
        None => f(None),
    })
}

/// Restores the previous handle when dropped.
pub(crate) struct EnterGuard {
    prev: Option<scheduler::Handle>,
    _not_send: std::marker::PhantomData<*const ()>,
}

/// Makes `handle` the thread's current runtime until the guard drops.
pub(crate) fn enter(handle: scheduler::Handle) -> EnterGuard {
    let prev = with(|cx| {
        cx.expect("runtime context used while its thread is exiting")
            .handle
            .replace(Some(handle))
    });
    EnterGuard {
        prev,
        _not_send: std::marker::PhantomData,
    }
}

impl Drop for EnterGuard {
    fn drop(&mut self) {
        let prev = self.prev.take();
        with(|cx| {
            if let Some(cx) = cx {
                *cx.handle.borrow_mut() = prev;
            }
        });
    }
}

/// Panics with `msg` when this thread is inside a runtime (a worker, or `block_on`): for
/// the synchronous APIs that would block it.
#[track_caller]
pub(crate) fn assert_not_in_runtime(msg: &str) {
    if with(|cx| cx.is_some_and(|cx| cx.in_runtime.get())) {
        panic!("{msg}");
    }
}

/// Marks the thread as running a runtime (a worker, or inside `block_on`).
pub(crate) struct RuntimeGuard {
    prev: bool,
}

/// Enters "inside a runtime"; panics, with what to do instead, when already inside one.
#[track_caller]
pub(crate) fn enter_runtime() -> RuntimeGuard {
    let prev = with(|cx| cx.map(|cx| cx.in_runtime.replace(true)).unwrap_or(false));
    if prev {
        with(|cx| {
            if let Some(cx) = cx {
                cx.in_runtime.set(true);
            }
        });
        panic!(
            "cannot block_on inside a runtime: this would block a thread that is driving \
             asynchronous tasks. `.await` the future instead, or run blocking code with \
             `runtime::task::spawn_blocking`"
        );
    }
    RuntimeGuard { prev }
}

impl Drop for RuntimeGuard {
    fn drop(&mut self) {
        let prev = self.prev;
        with(|cx| {
            if let Some(cx) = cx {
                cx.in_runtime.set(prev);
            }
        });
    }
}

/// Sets the scheduler context for the duration of `f` (restored afterwards, even on unwind).
pub(crate) fn set_scheduler<R>(sched: &scheduler::Context, f: impl FnOnce() -> R) -> R {
    struct Reset(*const ());
    impl Drop for Reset {
        fn drop(&mut self) {
            let prev = self.0;
            with(|cx| {
                if let Some(cx) = cx {
                    cx.scheduler.set(prev);
                }
            });
        }
    }
    let prev = with(|cx| {
        cx.expect("runtime context used while its thread is exiting")
            .scheduler
            .replace(sched as *const scheduler::Context as *const ())
    });
    let _reset = Reset(prev);
    f()
}

/// Runs `f` with the scheduler context this thread is running, if any.
pub(crate) fn with_scheduler<R>(f: impl FnOnce(Option<&scheduler::Context>) -> R) -> R {
    let ptr = with(|cx| cx.map(|cx| cx.scheduler.get()).unwrap_or(std::ptr::null()));
    if ptr.is_null() {
        f(None)
    } else {
        // SAFETY: only `set_scheduler` stores this pointer, from a live
        // `&scheduler::Context` whose scope encloses this call: the pointer is reset when
        // that scope ends, even by unwinding.
        f(Some(unsafe { &*(ptr as *const scheduler::Context) }))
    }
}
