//! The panic messages for misuse: an API called from the wrong place (outside a runtime,
//! inside one, outside a `LocalSet`, ...) or on a runtime built without what it needs.
//!
//! Every such message is written here once, so that the wording stays consistent (what
//! went wrong, then what to do instead) and tests can match on it. A site panics with
//! `panic!("{}", misuse::NAME)` (or a format that adds the API's name in front, for the
//! messages ending in `_SUFFIX`). Argument checks (`capacity > 0`, permit limits) stay
//! next to the argument they check.

//! Each message opens with tokio's text for the same condition, word for word, so that code
//! and tests matching on tokio's panics match on ours; our advice follows it. The tokio
//! texts are the `macro_rules!` below, so that `concat!` can join them at compile time.

// Some APIs (net, time, signal) are not built under loom: their messages go unused there.
#![cfg_attr(loom, allow(dead_code))]

/// tokio's text for an API that needs a runtime, called outside one.
macro_rules! no_reactor {
    () => {
        "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
    };
}

/// tokio's text for a blocking call on a thread that drives asynchronous tasks.
macro_rules! cannot_block {
    () => {
        "Cannot block the current thread from within a runtime. This happens because a \
         function attempted to block the current thread while the thread is being used to \
         drive asynchronous tasks."
    };
}

/// tokio's text for `block_in_place` where no other worker can take over.
macro_rules! blocking_only_multi_thread {
    () => {
        "can call blocking only when running on the multi-threaded runtime"
    };
}

/// tokio's text for `spawn_local` with neither a `LocalSet` nor a `LocalRuntime` current.
macro_rules! spawn_local_outside {
    () => {
        "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime`"
    };
}

/// tokio's text for a runtime resource used once its runtime shut down.
macro_rules! shutting_down {
    () => {
        "A Tokio 1.x context was found, but it is being shutdown."
    };
}

/// tokio's text for an API that needs a runtime's driver (time, I/O, signal, process),
/// called outside a runtime: the sites that add the API's name after it start with it.
pub(crate) const NO_REACTOR: &str = no_reactor!();

// ---- the runtime context ----

/// A `Handle::block_on` on a current-thread runtime that was dropped meanwhile.
pub(crate) const BLOCK_ON_AFTER_SHUTDOWN: &str =
    "the runtime shut down while `block_on` was running: a `Handle::block_on` \
     future cannot complete once its current-thread runtime is dropped";

/// `task::block_in_place` on a current-thread runtime.
pub(crate) const BLOCK_IN_PLACE_ON_CURRENT_THREAD: &str = concat!(
    blocking_only_multi_thread!(),
    ": `block_in_place` called on a current-thread runtime: there is no other worker \
     to run this thread's tasks while it blocks. Use `runtime::task::spawn_blocking` \
     instead, or a multi-thread runtime (`Builder::new_multi_thread`, \
     `#[runtime::main(flavor = \"multi_thread\")]`)"
);

/// `task::block_in_place` from a `LocalSet`'s task.
pub(crate) const BLOCK_IN_PLACE_IN_LOCAL_SET: &str = concat!(
    blocking_only_multi_thread!(),
    ": `block_in_place` called inside a `LocalSet`: its other tasks can only run on this \
     thread, which would block. Use `runtime::task::spawn_blocking` instead"
);

/// `runtime::spawn` outside a runtime.
pub(crate) const SPAWN_OUTSIDE_RUNTIME: &str = concat!(
    no_reactor!(),
    ": `runtime::spawn` called outside of a runtime: spawn from inside a task or \
     `Runtime::block_on`, or use `Runtime::spawn` / `Handle::spawn`"
);

/// `task::spawn_blocking` outside a runtime.
pub(crate) const SPAWN_BLOCKING_OUTSIDE_RUNTIME: &str = concat!(
    no_reactor!(),
    ": `runtime::task::spawn_blocking` called outside of a runtime: call it from inside \
     a task or `Runtime::block_on`, or use `Runtime::spawn_blocking` / `Handle::spawn_blocking`"
);

/// `Handle::current` outside a runtime.
pub(crate) const HANDLE_CURRENT_OUTSIDE_RUNTIME: &str = concat!(
    no_reactor!(),
    ": `Handle::current()` called outside of a runtime: call it from a task or from \
     inside `Runtime::block_on`, or keep a handle from `Runtime::handle()`"
);

/// `task::id` outside a task.
pub(crate) const TASK_ID_OUTSIDE_TASK: &str =
    "Can't get a task id when not inside a task: `runtime::task::id()` called outside of \
     a task; call it from a spawned task, or use `runtime::task::try_id()`";

/// Follows the name of an API that needs the current runtime's driver (`net`, `signal`,
/// `time`), called with none current; [`NO_REACTOR`] comes before the name.
pub(crate) const OUTSIDE_RUNTIME_SUFFIX: &str =
    "must be called from the context of a runtime: inside a task or \
     `Runtime::block_on`, or after `Runtime::enter()`";

/// `EnterGuard`s dropped in another order than they were created.
pub(crate) const ENTER_GUARDS_OUT_OF_ORDER: &str =
    "`EnterGuard` values dropped out of order. Guards returned by \
     `tokio::runtime::Handle::enter()` must be dropped in the reverse order as they were \
     acquired. (Here: `Handle::enter()` and `Runtime::enter()`; drop the last one entered \
     first.)";

// ---- blocking inside a runtime ----

/// `block_on` on a thread already inside a runtime.
pub(crate) const BLOCK_ON_INSIDE_RUNTIME: &str =
    "Cannot start a runtime from within a runtime. This happens because a function (like \
     `block_on`) attempted to block the current thread while the thread is being used to \
     drive asynchronous tasks. If you are in an async function, use `.await` on the future \
     instead of blocking on it. Blocking code runs with `runtime::task::spawn_blocking`";

/// A runtime dropped on a thread driving asynchronous tasks.
pub(crate) const DROP_RUNTIME_IN_ASYNC_CONTEXT: &str =
    "Cannot drop a runtime in a context where blocking is not allowed. This happens when \
     a runtime is dropped from within an asynchronous context. This thread is driving \
     asynchronous tasks (it is inside a task or `block_on`), and waiting here for the \
     runtime's threads could deadlock. The runtime was \
     shut down in the background instead; to do that without this panic, call \
     `Runtime::shutdown_background()`, or drop the runtime outside asynchronous \
     context (a plain thread, or `spawn_blocking`)";

/// `sync::Mutex::blocking_lock` inside a runtime.
pub(crate) const MUTEX_BLOCKING_LOCK: &str = concat!(
    cannot_block!(),
    " Mutex::blocking_lock called inside a runtime; use `.lock().await` instead"
);

/// `sync::Mutex::blocking_lock_owned` inside a runtime.
pub(crate) const MUTEX_BLOCKING_LOCK_OWNED: &str = concat!(
    cannot_block!(),
    " Mutex::blocking_lock_owned called inside a runtime; use `.lock_owned().await` instead"
);

/// `sync::Semaphore::blocking_acquire*` inside a runtime.
pub(crate) const SEMAPHORE_BLOCKING_ACQUIRE: &str = concat!(
    cannot_block!(),
    " Semaphore::blocking_acquire (or _many, _owned, _many_owned) called inside a runtime; \
     use `.acquire().await` (or `acquire_many`, `acquire_owned`, `acquire_many_owned`) instead"
);

/// `sync::RwLock::blocking_read` inside a runtime.
pub(crate) const RWLOCK_BLOCKING_READ: &str = concat!(
    cannot_block!(),
    " RwLock::blocking_read called inside a runtime; use `.read().await` instead"
);

/// `sync::RwLock::blocking_write` inside a runtime.
pub(crate) const RWLOCK_BLOCKING_WRITE: &str = concat!(
    cannot_block!(),
    " RwLock::blocking_write called inside a runtime; use `.write().await` instead"
);

/// `mpsc::Sender::blocking_send` inside a runtime.
pub(crate) const MPSC_BLOCKING_SEND: &str = concat!(
    cannot_block!(),
    " Sender::blocking_send called inside a runtime; `.await` `Sender::send` instead"
);

/// `mpsc::Receiver::blocking_recv` inside a runtime.
pub(crate) const MPSC_BLOCKING_RECV: &str = concat!(
    cannot_block!(),
    " Receiver::blocking_recv called inside a runtime; `.await` `Receiver::recv` instead"
);

/// `mpsc::Receiver::blocking_recv_many` inside a runtime.
pub(crate) const MPSC_BLOCKING_RECV_MANY: &str = concat!(
    cannot_block!(),
    " Receiver::blocking_recv_many called inside a runtime; `.await` \
     `Receiver::recv_many` instead"
);

/// `mpsc::UnboundedReceiver::blocking_recv` inside a runtime.
pub(crate) const UNBOUNDED_BLOCKING_RECV: &str = concat!(
    cannot_block!(),
    " UnboundedReceiver::blocking_recv called inside a runtime; `.await` \
     `UnboundedReceiver::recv` instead"
);

/// `mpsc::UnboundedReceiver::blocking_recv_many` inside a runtime.
pub(crate) const UNBOUNDED_BLOCKING_RECV_MANY: &str = concat!(
    cannot_block!(),
    " UnboundedReceiver::blocking_recv_many called inside a runtime; `.await` \
     `UnboundedReceiver::recv_many` instead"
);

/// `broadcast::Receiver::blocking_recv` inside a runtime.
pub(crate) const BROADCAST_BLOCKING_RECV: &str = concat!(
    cannot_block!(),
    " broadcast::Receiver::blocking_recv called inside a runtime; `.await` \
     `Receiver::recv` instead"
);

/// `oneshot::Receiver::blocking_recv` inside a runtime.
pub(crate) const ONESHOT_BLOCKING_RECV: &str = concat!(
    cannot_block!(),
    " Receiver::blocking_recv called inside a runtime; `.await` the receiver instead"
);

// ---- `!Send` tasks ----

/// `spawn_local` with a `LocalRuntime` entered on a thread other than its own.
pub(crate) const SPAWN_LOCAL_OTHER_THREAD: &str =
    "Local tasks can only be spawned on a LocalRuntime from the thread the runtime was \
     created on: spawn with `Handle::spawn` (a `Send` task) from this thread, or call \
     `spawn_local` on the runtime's own thread";

/// `task::spawn_local` outside a `LocalSet` or `LocalRuntime`.
pub(crate) const SPAWN_LOCAL_OUTSIDE_LOCAL_SET: &str = concat!(
    spawn_local_outside!(),
    ": drive this code with `LocalSet::run_until` / `LocalSet::block_on`, run it on a \
     `LocalRuntime` (`#[runtime::main(flavor = \"local\")]`), or spawn with \
     `LocalSet::spawn_local`"
);

/// `Builder::build_local` on a multi-thread builder.
pub(crate) const BUILD_LOCAL_NOT_CURRENT_THREAD: &str =
    "`build_local` needs a current-thread builder: use \
     `Builder::new_current_thread().build_local(..)`";

// ---- drivers ----

/// I/O on a runtime built without `enable_io`.
pub(crate) const NO_IO_DRIVER: &str =
    "A Tokio 1.x context was found, but IO is disabled. Call `enable_io` on the runtime \
     builder to enable IO. This runtime has no I/O driver: build it with \
     `Builder::enable_io()` or `Builder::enable_all()` (`#[runtime::main]` enables it)";

/// A timer on a runtime built without `enable_time`.
pub(crate) const NO_TIMER_DRIVER: &str =
    "A Tokio 1.x context was found, but timers are disabled. Call `enable_time` on the \
     runtime builder to enable timers. This runtime has no timer driver: build it with \
     `Builder::enable_time()` or `Builder::enable_all()` (`#[runtime::main]` enables it)";

/// A timer polled after its runtime shut down.
pub(crate) const TIMER_AFTER_SHUTDOWN: &str = concat!(
    shutting_down!(),
    " A `runtime::time` timer was polled after its runtime shut down: the timer \
     driver is gone, so the deadline can never be observed"
);

// ---- paused time ----

/// Follows "`time::pause()`" (or `resume`, `advance`) called outside a runtime.
pub(crate) const PAUSE_OUTSIDE_RUNTIME_SUFFIX: &str =
    "must be called from the context of a runtime: time cannot be frozen from outside the \
     Tokio runtime. Call it inside a task or `Runtime::block_on`";

/// Follows "`time::pause()`" (or `resume`, `advance`) called on a multi-thread runtime.
pub(crate) const PAUSE_MULTI_THREAD_SUFFIX: &str =
    "requires the `current_thread` Tokio runtime. This is the default Runtime used by \
     `#[tokio::test]. Use the current-thread runtime (`Builder::new_current_thread()`, \
     `#[runtime::test]`'s default flavor): time cannot be paused on a multi-thread runtime";

/// `Builder::start_paused(true)` on a multi-thread builder.
pub(crate) const START_PAUSED_MULTI_THREAD: &str =
    "`Builder::start_paused(true)` requires the current-thread runtime \
     (`Builder::new_current_thread()`): time cannot be paused with several workers";

/// `Builder::start_paused(true)` without the timer driver.
pub(crate) const START_PAUSED_NO_TIMER: &str =
    "`Builder::start_paused(true)` needs the timer driver: call \
     `Builder::enable_time()` or `Builder::enable_all()`";

// ---- task-locals ----

/// A task-local scope entered while the value is borrowed.
pub(crate) const TASK_LOCAL_BORROWED: &str =
    "cannot enter a task-local scope while the task-local storage is borrowed: \
     finish the enclosing `LocalKey::with` closure first";

/// A task-local scope entered while the thread-locals are destroyed.
pub(crate) const TASK_LOCAL_DESTROYED: &str =
    "cannot enter a task-local scope during or after destruction of the \
     underlying thread-local";

/// `LocalKey::with` outside a scope of the key.
pub(crate) const TASK_LOCAL_NOT_SET: &str =
    "cannot access a task-local storage value without setting it first: run the code \
     inside `LocalKey::scope` / `sync_scope`, or use `try_with`";
