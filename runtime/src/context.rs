//! Per-thread runtime context: which runtime this thread is in, and which scheduler core
//! (if any) it is running right now.
//!
//! - `handle`: set while a thread is inside a runtime (a worker, or `block_on`), so
//!   `spawn`, `Handle::current` and the I/O types find their runtime. Entering is scoped by
//!   an `EnterGuard` that restores the previous value. `depth` counts the guards alive on
//!   the thread; each remembers its own, so a guard dropped out of order (not the last one
//!   entered) is caught and refused with a panic instead of leaving the wrong runtime
//!   current.
//! - `in_runtime`: true on worker threads and inside `block_on`; `block_on` refuses to nest.
//! - `scheduler`: a scoped pointer to the running scheduler's per-thread context, so a
//!   task waking another task on the same worker pushes to that worker's local queue
//!   without any synchronization.
//! - `budget`: the cooperative budget of the task being polled (coop.rs).
//! - `blocking_pool`: on a blocking-pool thread, which pool it belongs to (so a runtime
//!   dropped from its own pool does not wait for the thread doing the drop).
//!
//! Every accessor tolerates a thread whose thread-locals are being destroyed (a runtime
//! kept in a `thread_local!` is dropped then): entering is then a no-op, and the code
//! runs without a context rather than aborting the process.

use std::cell::{Cell, RefCell};

use crate::coop::Budget;
use crate::scheduler;

pub(crate) struct Context {
    handle: RefCell<Option<scheduler::Handle>>,
    /// How many `EnterGuard`s are alive on this thread.
    depth: Cell<usize>,
    in_runtime: Cell<bool>,
    /// Whether `task::block_in_place` may block this thread while `in_runtime`: a
    /// multi-thread worker (it hands its core off first) or a thread in a `block_on` that
    /// drives no scheduler (multi-thread `Runtime::block_on`, any `Handle::block_on`);
    /// not the thread holding a current-thread core.
    block_in_place_ok: Cell<bool>,
    scheduler: Cell<*const ()>,
    blocking_pool: Cell<*const ()>,
    pub(crate) budget: Cell<Budget>,
}

impl Context {
    const fn new() -> Context {
        Context {
            handle: RefCell::new(None),
            depth: Cell::new(0),
            in_runtime: Cell::new(false),
            block_in_place_ok: Cell::new(false),
            scheduler: Cell::new(std::ptr::null()),
            blocking_pool: Cell::new(std::ptr::null()),
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
#[inline(always)]
pub(crate) fn with<R>(f: impl FnOnce(Option<&Context>) -> R) -> R {
    // Held without a drop flag: `try_with` either runs its closure (which takes `f`) and
    // returns `Ok`, or returns `Err` without running it (and `f` is taken there).
    let mut f = std::mem::ManuallyDrop::new(f);
    match CONTEXT.try_with(|cx| {
        // SAFETY: taken once: this closure runs at most once, and only when it does not
        // run is `f` taken in the `Err` arm below.
        (unsafe { std::mem::ManuallyDrop::take(&mut f) })(Some(cx))
    }) {
        Ok(r) => r,
        // SAFETY: the closure above did not run, so `f` is still there; taken once.
        Err(_) => (unsafe { std::mem::ManuallyDrop::take(&mut f) })(None),
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
    /// This guard's place in the thread's stack of guards (1 = outermost); 0 when nothing
    /// was entered (the thread's context was already destroyed).
    depth: usize,
    /// `!Send` (it restores this thread's context) but `Sync` (a `&EnterGuard` gives no
    /// access to anything), as tokio's: a std `MutexGuard` has exactly those auto traits.
    _not_send: std::marker::PhantomData<std::sync::MutexGuard<'static, ()>>,
}

/// Makes `handle` the thread's current runtime until the guard drops. On a thread whose
/// thread-locals are being destroyed nothing is entered.
pub(crate) fn enter(handle: scheduler::Handle) -> EnterGuard {
    let entered = with(|cx| {
        cx.map(|cx| {
            let depth = cx.depth.get() + 1;
            cx.depth.set(depth);
            (cx.handle.replace(Some(handle)), depth)
        })
    });
    let (prev, depth) = entered.unwrap_or((None, 0));
    EnterGuard {
        prev,
        depth,
        _not_send: std::marker::PhantomData,
    }
}

impl Drop for EnterGuard {
    fn drop(&mut self) {
        if self.depth == 0 {
            return;
        }
        let prev = self.prev.take();
        let in_order = with(|cx| {
            let Some(cx) = cx else { return true };
            if cx.depth.get() != self.depth {
                return false;
            }
            cx.depth.set(self.depth - 1);
            // Swapped out first: the old handle may be a runtime's last, and dropping it
            // must not find the cell borrowed.
            let _current = cx.handle.replace(prev);
            true
        });
        if !in_order && !std::thread::panicking() {
            panic!("{}", crate::misuse::ENTER_GUARDS_OUT_OF_ORDER);
        }
    }
}

/// True when this thread is inside a runtime (a worker, or `block_on`), where blocking
/// would stall asynchronous tasks.
pub(crate) fn in_runtime() -> bool {
    with(|cx| cx.is_some_and(|cx| cx.in_runtime.get()))
}

/// Marks this thread as a thread of the blocking pool `pool` (an address identifying it)
/// for the rest of its life.
pub(crate) fn set_blocking_pool(pool: *const ()) {
    with(|cx| {
        if let Some(cx) = cx {
            cx.blocking_pool.set(pool);
        }
    });
}

/// True when this thread is a thread of the blocking pool `pool`.
pub(crate) fn is_blocking_pool(pool: *const ()) -> bool {
    with(|cx| cx.is_some_and(|cx| cx.blocking_pool.get() == pool))
}

/// Panics with `msg` when this thread is inside a runtime (a worker, or `block_on`): for
/// the synchronous APIs that would block it.
#[track_caller]
pub(crate) fn assert_not_in_runtime(msg: &str) {
    if in_runtime() {
        panic!("{msg}");
    }
}

/// Marks the thread as running a runtime (a worker, or inside `block_on`).
pub(crate) struct RuntimeGuard {
    prev: bool,
    prev_block_in_place_ok: bool,
}

/// Enters "inside a runtime"; panics, with what to do instead, when already inside one.
/// `block_in_place_ok`: whether `task::block_in_place` may block this thread meanwhile.
#[track_caller]
pub(crate) fn enter_runtime(block_in_place_ok: bool) -> RuntimeGuard {
    let prev = with(|cx| {
        cx.map(|cx| {
            (
                cx.in_runtime.replace(true),
                cx.block_in_place_ok.replace(block_in_place_ok),
            )
        })
        .unwrap_or((false, false))
    });
    if prev.0 {
        // Put the outer `block_on`'s marks back before unwinding.
        drop(RuntimeGuard {
            prev: prev.0,
            prev_block_in_place_ok: prev.1,
        });
        panic!("{}", crate::misuse::BLOCK_ON_INSIDE_RUNTIME);
    }
    RuntimeGuard {
        prev: prev.0,
        prev_block_in_place_ok: prev.1,
    }
}

impl Drop for RuntimeGuard {
    fn drop(&mut self) {
        with(|cx| {
            if let Some(cx) = cx {
                cx.in_runtime.set(self.prev);
                cx.block_in_place_ok.set(self.prev_block_in_place_ok);
            }
        });
    }
}

/// True when `task::block_in_place` may block this thread: outside any runtime, or where
/// the runtime allows it (`enter_runtime`).
pub(crate) fn block_in_place_ok() -> bool {
    with(|cx| cx.is_none_or(|cx| !cx.in_runtime.get() || cx.block_in_place_ok.get()))
}

/// Runs `f` as if outside any runtime (restored afterwards, even on unwind): inside
/// `task::block_in_place`, where blocking, and so a nested `block_on`, is allowed.
pub(crate) fn exit_runtime<R>(f: impl FnOnce() -> R) -> R {
    let prev = with(|cx| {
        cx.map(|cx| (cx.in_runtime.replace(false), cx.block_in_place_ok.get()))
            .unwrap_or((false, false))
    });
    let _restore = RuntimeGuard {
        prev: prev.0,
        prev_block_in_place_ok: prev.1,
    };
    f()
}

/// Sets the scheduler context for the duration of `f` (restored afterwards, even on unwind).
/// On a thread whose thread-locals are being destroyed `f` runs without one.
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
        cx.map(|cx| {
            cx.scheduler
                .replace(sched as *const scheduler::Context as *const ())
        })
    });
    let _reset = prev.map(Reset);
    f()
}

/// Runs `f` with the scheduler context this thread is running, if any.
#[inline(always)]
pub(crate) fn with_scheduler<R>(f: impl FnOnce(Option<&scheduler::Context>) -> R) -> R {
    let ptr = with(|cx| cx.map(|cx| cx.scheduler.get()).unwrap_or(std::ptr::null()));
    f(scheduler_at(ptr))
}

/// The scheduler context behind a pointer read from `Context::scheduler`.
#[inline(always)]
fn scheduler_at<'a>(ptr: *const ()) -> Option<&'a scheduler::Context> {
    // SAFETY: only `set_scheduler` stores this pointer, from a live `&scheduler::Context`
    // whose scope encloses every caller's use (the pointer is reset when that scope ends,
    // even by unwinding), and the callers use it only within their call.
    (!ptr.is_null()).then(|| unsafe { &*(ptr as *const scheduler::Context) })
}

/// Runs `f` with the current handle and the scheduler context this thread is running,
/// read in one access to the thread-local (a spawn needs both: the runtime it goes to,
/// and whether this thread holds that runtime's core). None outside a runtime.
#[inline(always)]
pub(crate) fn with_spawn_site<R>(
    f: impl FnOnce(Option<(&scheduler::Handle, Option<&scheduler::Context>)>) -> R,
) -> R {
    with(|cx| match cx {
        Some(cx) => match cx.handle.borrow().as_ref() {
            Some(handle) => f(Some((handle, scheduler_at(cx.scheduler.get())))),
            None => f(None),
        },
        None => f(None),
    })
}
