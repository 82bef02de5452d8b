//! The panic messages for misuse: an API called from the wrong place (outside a runtime,
//! inside one, outside a `LocalSet`, ...) or on a runtime built without what it needs.
//!
//! Every such message is written here once, so that the wording stays consistent (what
//! went wrong, then what to do instead) and tests can match on it. A site panics with
//! `panic!("{}", misuse::NAME)` (or a format that adds the API's name in front, for the
//! messages ending in `_SUFFIX`). Argument checks (`capacity > 0`, permit limits) stay
//! next to the argument they check.

// Some APIs (net, time, signal) are not built under loom: their messages go unused there.
#![cfg_attr(loom, allow(dead_code))]

// ---- the runtime context ----

/// A `Handle::block_on` on a current-thread runtime that was dropped meanwhile.
pub(crate) const BLOCK_ON_AFTER_SHUTDOWN: &str =
    "the runtime shut down while `block_on` was running: a `Handle::block_on` \
     future cannot complete once its current-thread runtime is dropped";

/// `task::block_in_place` on a current-thread runtime.
pub(crate) const BLOCK_IN_PLACE_ON_CURRENT_THREAD: &str =
    "`block_in_place` called on a current-thread runtime: there is no other worker \
     to run this thread's tasks while it blocks. Use `runtime::task::spawn_blocking` \
     instead, or a multi-thread runtime (`Builder::new_multi_thread`, \
     `#[runtime::main(flavor = \"multi_thread\")]`)";

/// `task::block_in_place` from a `LocalSet`'s task.
pub(crate) const BLOCK_IN_PLACE_IN_LOCAL_SET: &str =
    "`block_in_place` called inside a `LocalSet`: its other tasks can only run on this \
     thread, which would block. Use `runtime::task::spawn_blocking` instead";

/// `runtime::spawn` outside a runtime.
pub(crate) const SPAWN_OUTSIDE_RUNTIME: &str =
    "`runtime::spawn` called outside of a runtime: spawn from inside a task or \
     `Runtime::block_on`, or use `Runtime::spawn` / `Handle::spawn`";

/// `task::spawn_blocking` outside a runtime.
pub(crate) const SPAWN_BLOCKING_OUTSIDE_RUNTIME: &str =
    "`runtime::task::spawn_blocking` called outside of a runtime: call it from inside \
     a task or `Runtime::block_on`, or use `Runtime::spawn_blocking` / `Handle::spawn_blocking`";

/// `Handle::current` outside a runtime.
pub(crate) const HANDLE_CURRENT_OUTSIDE_RUNTIME: &str =
    "`Handle::current()` called outside of a runtime: call it from a task or from \
     inside `Runtime::block_on`, or keep a handle from `Runtime::handle()`";

/// `task::id` outside a task.
pub(crate) const TASK_ID_OUTSIDE_TASK: &str =
    "`runtime::task::id()` called outside of a task: call it from a spawned task, \
     or use `runtime::task::try_id()`";

/// Follows the name of an API that needs the current runtime's driver (`net`, `signal`,
/// `time`), called with none current.
pub(crate) const OUTSIDE_RUNTIME_SUFFIX: &str =
    "must be called from the context of a runtime: inside a task or \
     `Runtime::block_on`, or after `Runtime::enter()`";

/// `EnterGuard`s dropped in another order than they were created.
pub(crate) const ENTER_GUARDS_OUT_OF_ORDER: &str =
    "`EnterGuard` values dropped out of order: the guards returned by \
     `Handle::enter()` (and `Runtime::enter()`) must be dropped in the reverse \
     order of their creation, the last one entered first";

// ---- blocking inside a runtime ----

/// `block_on` on a thread already inside a runtime.
pub(crate) const BLOCK_ON_INSIDE_RUNTIME: &str =
    "cannot block_on inside a runtime: this would block a thread that is driving \
     asynchronous tasks. `.await` the future instead, or run blocking code with \
     `runtime::task::spawn_blocking`";

/// A runtime dropped on a thread driving asynchronous tasks.
pub(crate) const DROP_RUNTIME_IN_ASYNC_CONTEXT: &str =
    "Cannot drop a runtime in a context where blocking is not allowed: this \
     thread is driving asynchronous tasks (it is inside a task or `block_on`), \
     and waiting here for the runtime's threads could deadlock. The runtime was \
     shut down in the background instead; to do that without this panic, call \
     `Runtime::shutdown_background()`, or drop the runtime outside asynchronous \
     context (a plain thread, or `spawn_blocking`)";

/// `sync::Mutex::blocking_lock` inside a runtime.
pub(crate) const MUTEX_BLOCKING_LOCK: &str =
    "Mutex::blocking_lock called inside a runtime; use `.lock().await` instead";

/// `sync::Mutex::blocking_lock_owned` inside a runtime.
pub(crate) const MUTEX_BLOCKING_LOCK_OWNED: &str =
    "Mutex::blocking_lock_owned called inside a runtime; use `.lock_owned().await` instead";

/// `sync::Semaphore::blocking_acquire*` inside a runtime.
pub(crate) const SEMAPHORE_BLOCKING_ACQUIRE: &str =
    "Semaphore::blocking_acquire (or _many, _owned, _many_owned) called inside a runtime; \
     use `.acquire().await` (or `acquire_many`, `acquire_owned`, `acquire_many_owned`) instead";

/// `sync::RwLock::blocking_read` inside a runtime.
pub(crate) const RWLOCK_BLOCKING_READ: &str =
    "RwLock::blocking_read called inside a runtime; use `.read().await` instead";

/// `sync::RwLock::blocking_write` inside a runtime.
pub(crate) const RWLOCK_BLOCKING_WRITE: &str =
    "RwLock::blocking_write called inside a runtime; use `.write().await` instead";

/// `mpsc::Sender::blocking_send` inside a runtime.
pub(crate) const MPSC_BLOCKING_SEND: &str =
    "Sender::blocking_send called inside a runtime; `.await` `Sender::send` instead";

/// `mpsc::Receiver::blocking_recv` inside a runtime.
pub(crate) const MPSC_BLOCKING_RECV: &str =
    "Receiver::blocking_recv called inside a runtime; `.await` `Receiver::recv` instead";

/// `mpsc::Receiver::blocking_recv_many` inside a runtime.
pub(crate) const MPSC_BLOCKING_RECV_MANY: &str =
    "Receiver::blocking_recv_many called inside a runtime; `.await` \
     `Receiver::recv_many` instead";

/// `mpsc::UnboundedReceiver::blocking_recv` inside a runtime.
pub(crate) const UNBOUNDED_BLOCKING_RECV: &str =
    "UnboundedReceiver::blocking_recv called inside a runtime; `.await` \
     `UnboundedReceiver::recv` instead";

/// `mpsc::UnboundedReceiver::blocking_recv_many` inside a runtime.
pub(crate) const UNBOUNDED_BLOCKING_RECV_MANY: &str =
    "UnboundedReceiver::blocking_recv_many called inside a runtime; `.await` \
     `UnboundedReceiver::recv_many` instead";

/// `broadcast::Receiver::blocking_recv` inside a runtime.
pub(crate) const BROADCAST_BLOCKING_RECV: &str =
    "broadcast::Receiver::blocking_recv called inside a runtime; `.await` \
     `Receiver::recv` instead";

/// `oneshot::Receiver::blocking_recv` inside a runtime.
pub(crate) const ONESHOT_BLOCKING_RECV: &str =
    "Receiver::blocking_recv called inside a runtime; `.await` the receiver instead";

// ---- `!Send` tasks ----

/// `task::spawn_local` outside a `LocalSet` or `LocalRuntime`.
pub(crate) const SPAWN_LOCAL_OUTSIDE_LOCAL_SET: &str =
    "`spawn_local` called from outside of a `task::LocalSet` or LocalRuntime: drive \
     this code with `LocalSet::run_until` / `LocalSet::block_on`, run it on a \
     `LocalRuntime` (`#[runtime::main(flavor = \"local\")]`), or spawn with \
     `LocalSet::spawn_local`";

/// `Builder::build_local` on a multi-thread builder.
pub(crate) const BUILD_LOCAL_NOT_CURRENT_THREAD: &str =
    "`build_local` needs a current-thread builder: use \
     `Builder::new_current_thread().build_local(..)`";

// ---- drivers ----

/// I/O on a runtime built without `enable_io`.
pub(crate) const NO_IO_DRIVER: &str =
    "this runtime has no I/O driver: build it with `Builder::enable_io()` or \
     `Builder::enable_all()` (`#[runtime::main]` enables it)";

/// A timer on a runtime built without `enable_time`.
pub(crate) const NO_TIMER_DRIVER: &str =
    "this runtime has no timer driver: build it with `Builder::enable_time()` or \
     `Builder::enable_all()` (`#[runtime::main]` enables it)";

/// A timer polled after its runtime shut down.
pub(crate) const TIMER_AFTER_SHUTDOWN: &str =
    "a `runtime::time` timer was polled after its runtime shut down: the timer \
     driver is gone, so the deadline can never be observed";

// ---- paused time ----

/// Follows "`time::pause()`" (or `resume`, `advance`) called outside a runtime.
pub(crate) const PAUSE_OUTSIDE_RUNTIME_SUFFIX: &str =
    "must be called from the context of a runtime: inside a task or \
     `Runtime::block_on` (time cannot be frozen from outside a runtime)";

/// Follows "`time::pause()`" (or `resume`, `advance`) called on a multi-thread runtime.
pub(crate) const PAUSE_MULTI_THREAD_SUFFIX: &str = "requires the current-thread runtime \
     (`Builder::new_current_thread()`, `#[runtime::test]`'s default flavor): time \
     cannot be paused on a multi-thread runtime";

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
    "cannot enter a task-local scope while the task-local value is borrowed: \
     finish the enclosing `LocalKey::with` closure first";

/// A task-local scope entered while the thread-locals are destroyed.
pub(crate) const TASK_LOCAL_DESTROYED: &str =
    "cannot enter a task-local scope during or after destruction of the \
     underlying thread-local";

/// `LocalKey::with` outside a scope of the key.
pub(crate) const TASK_LOCAL_NOT_SET: &str =
    "cannot access a task-local value without setting it first: run the code \
     inside `LocalKey::scope` / `sync_scope`, or use `try_with`";
