//! `Handle`: a cheap, cloneable reference to a runtime, usable from any thread.
//!
//! Inside a runtime (a task, or `block_on`) `Handle::current()` finds it through the
//! thread's context; outside, it panics with what to do instead (`try_current` does not).

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;

use crate::context;
use crate::observe::runtime_metrics::RuntimeMetrics;
use crate::scheduler;
use crate::task::JoinHandle;
use ::task::SpawnMeta;

/// A handle to a runtime.
#[derive(Clone)]
pub struct Handle {
    pub(crate) inner: scheduler::Handle,
}

/// Which scheduler a runtime uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeFlavor {
    /// `Builder::new_current_thread`.
    CurrentThread,
    /// `Builder::new_multi_thread`.
    MultiThread,
}

/// A runtime's id ([`Handle::id`]), unique in the process (tokio's `runtime::Id`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(std::num::NonZeroU64);

impl Id {
    /// The id of an owned task list (a runtime's or a `LocalSet`'s): nonzero, unique in
    /// the process.
    pub(crate) fn from_owned_list(id: u64) -> Id {
        Id(std::num::NonZeroU64::new(id).expect("owned-list ids are nonzero"))
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Returned by [`Handle::try_current`] outside a runtime, or from a thread-local's
/// destructor once the runtime's own thread-local is gone.
#[derive(Debug)]
pub struct TryCurrentError {
    thread_local_destroyed: bool,
}

impl TryCurrentError {
    /// True when no runtime is current on this thread.
    ///
    /// ```
    /// let err = runtime::Handle::try_current().unwrap_err();
    /// assert!(err.is_missing_context());
    /// assert!(!err.is_thread_local_destroyed());
    /// ```
    pub fn is_missing_context(&self) -> bool {
        !self.thread_local_destroyed
    }

    /// True when the thread-local that names the current runtime was already destroyed
    /// (the call came from another thread-local's destructor as the thread exits).
    pub fn is_thread_local_destroyed(&self) -> bool {
        self.thread_local_destroyed
    }
}

impl fmt::Display for TryCurrentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.thread_local_destroyed {
            f.write_str(
                "The Tokio context thread-local variable has been destroyed. The runtime's \
                 thread-local context was already destroyed: this thread is exiting, and no \
                 runtime can be reached from its thread-local destructors",
            )
        } else {
            f.write_str(
                "there is no reactor running, must be called from the context of a Tokio 1.x \
                 runtime: no runtime is running on this thread; call this from a task or from \
                 inside `Runtime::block_on`",
            )
        }
    }
}

/// True when `err` is the error an I/O resource returns because its runtime shut down
/// (tokio's `runtime::is_rt_shutdown_err`): the resource can never become ready again. Also
/// the error of a `stdout`/`stderr` write refused by a shut-down blocking pool, as tokio's.
///
/// ```
/// use runtime::runtime::{is_rt_shutdown_err, Runtime};
///
/// let rt1 = Runtime::new().unwrap();
/// let rt2 = Runtime::new().unwrap();
/// let listener = rt1.block_on(runtime::net::TcpListener::bind("127.0.0.1:0")).unwrap();
/// drop(rt1);
/// let err = rt2.block_on(listener.accept()).unwrap_err();
/// assert!(is_rt_shutdown_err(&err));
/// assert!(!is_rt_shutdown_err(&std::io::Error::other("other")));
/// ```
#[cfg(not(loom))]
pub fn is_rt_shutdown_err(err: &std::io::Error) -> bool {
    io_driver::is_shutdown_error(err)
        || (err.kind() == std::io::ErrorKind::Other
            && err.get_ref().is_some_and(|e| {
                e.source().is_none() && e.to_string() == crate::io::blocking::POOL_SHUT_DOWN
            }))
}

impl std::error::Error for TryCurrentError {}

// tokio's: a panic caught around a runtime or a handle leaves the runtime usable (its
// state is changed under locks and atomics, and a panicking task is caught at its poll).
impl std::panic::UnwindSafe for Handle {}
impl std::panic::RefUnwindSafe for Handle {}
impl std::panic::UnwindSafe for crate::Runtime {}
impl std::panic::RefUnwindSafe for crate::Runtime {}
impl std::panic::UnwindSafe for crate::LocalRuntime {}
impl std::panic::RefUnwindSafe for crate::LocalRuntime {}

/// Keeps a runtime current on this thread; see [`Handle::enter`].
pub struct EnterGuard<'a> {
    _guard: context::EnterGuard,
    _p: PhantomData<&'a Handle>,
}

impl Handle {
    /// The runtime this thread is running in.
    ///
    /// ```
    /// use runtime::Handle;
    ///
    /// let rt = runtime::Runtime::new().unwrap();
    /// let handle = rt.block_on(async { Handle::current() });
    /// // From a plain thread, the handle spawns onto the runtime it came from.
    /// let joined = std::thread::spawn(move || {
    ///     let task = handle.spawn(async { "spawned from a thread" });
    ///     handle.block_on(task).unwrap()
    /// })
    /// .join()
    /// .unwrap();
    /// assert_eq!(joined, "spawned from a thread");
    /// ```
    ///
    /// Inside a task or `block_on` the thread knows its runtime; this clones that handle
    /// (a reference count, no allocation). Libraries use it to reach the runtime they are
    /// called on without taking a `Handle` argument.
    ///
    /// # Panics
    /// Outside a runtime. Use [`Handle::try_current`], or pass a `Handle` obtained from
    /// `Runtime::handle()` to where it is needed.
    #[track_caller]
    pub fn current() -> Handle {
        match Handle::try_current() {
            Ok(h) => h,
            Err(_) => panic!("{}", crate::misuse::HANDLE_CURRENT_OUTSIDE_RUNTIME),
        }
    }

    /// The runtime this thread is running in, if any.
    pub fn try_current() -> Result<Handle, TryCurrentError> {
        match context::current_handle() {
            Some(inner) => Ok(Handle { inner }),
            None => Err(TryCurrentError {
                // The same thread, just after: the thread-local cannot have changed state.
                thread_local_destroyed: context::with(|cx| cx.is_none()),
            }),
        }
    }

    /// Spawns a task onto this runtime, from any thread.
    ///
    /// ```
    /// let rt = runtime::Runtime::new().unwrap();
    /// let handle = rt.handle().clone();
    /// let task = std::thread::spawn(move || handle.spawn(async { 6 * 7 }))
    ///     .join()
    ///     .unwrap();
    /// assert_eq!(rt.block_on(task).unwrap(), 42);
    /// ```
    ///
    /// [`runtime::spawn`](crate::spawn) with an explicit runtime: it works where no
    /// runtime is current (a plain thread, a callback from a C library), and picks the
    /// runtime when a program has several. Called on one of this runtime's workers the task
    /// goes to that worker's queue; from anywhere else to the global queue, and an idle
    /// worker is woken to run it. The task runs whether or not the handle is awaited.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.inner
            .spawn(future, SpawnMeta::at(std::panic::Location::caller()))
    }

    /// Runs `f` on this runtime's blocking pool.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.inner
            .blocking()
            .spawn_blocking(f, SpawnMeta::at(std::panic::Location::caller()))
    }

    /// `spawn` with the task's identity given (`task::Builder`).
    pub(crate) fn spawn_with<F>(&self, future: F, meta: SpawnMeta) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.inner.spawn(future, meta)
    }

    /// `spawn_blocking` with the task's identity given (`task::Builder`).
    pub(crate) fn spawn_blocking_with<F, R>(&self, f: F, meta: SpawnMeta) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.inner.blocking().spawn_blocking(f, meta)
    }

    /// Runs `future` to completion on this thread, inside this runtime's context. On a
    /// current-thread runtime this does not drive the scheduler: spawned tasks run only
    /// while some thread is in `Runtime::block_on`.
    ///
    /// # Panics
    /// When called from inside a runtime: `.await` the future instead.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        // A deterministic runtime's tasks run only while its stepper does (inside
        // `Runtime::block_on`): from anywhere but its blocking participant (whose watchdog
        // reports a wait on a task) this call could only wait forever.
        #[cfg(all(feature = "deterministic", not(loom)))]
        if self.inner.sim().is_some() && !context::is_blocking_pool(self.inner.blocking().pool_id())
        {
            panic!(
                "`Handle::block_on` on a deterministic runtime: its tasks run only inside \
                 `Runtime::block_on`, so this call would wait forever; call \
                 `Runtime::block_on`, or `.await` the future inside it"
            );
        }
        // Drives no scheduler (only polls `future`): `block_in_place` may block here, as
        // in tokio, whatever the flavor.
        let _rt = context::enter_runtime(true);
        let _enter = context::enter(self.inner.clone());
        crate::block_on::block_on(future, self.inner.block_on_yield_every(), &self.inner)
    }

    /// Makes this runtime current on this thread (for `spawn`, sockets, timers) until the
    /// guard drops; the runtime current before is current again after.
    ///
    /// ```
    /// let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// let guard = rt.handle().enter();
    /// let task = runtime::spawn(async { 1 }); // onto `rt`
    /// drop(guard);
    /// assert_eq!(rt.block_on(task).unwrap(), 1);
    /// ```
    ///
    /// Entering does not run anything: it only sets the thread's current runtime, so that
    /// code which finds its runtime implicitly ([`runtime::spawn`](crate::spawn),
    /// [`Handle::current`], creating a socket or a timer) works on a thread that is not
    /// inside `block_on`, typically while setting up state before the first `block_on`, or
    /// in a synchronous callback. Tasks spawned this way run on the runtime's workers (on
    /// a current-thread runtime, at the next `block_on`).
    ///
    /// # Panics
    /// Guards must be dropped in the reverse order of their creation: dropping one while a
    /// guard entered after it is still alive panics (it would leave the wrong runtime
    /// current).
    pub fn enter(&self) -> EnterGuard<'_> {
        EnterGuard {
            _guard: context::enter(self.inner.clone()),
            _p: PhantomData,
        }
    }

    /// A live view of the runtime's counters (each method reads them at the call).
    pub fn metrics(&self) -> RuntimeMetrics {
        RuntimeMetrics::new(self.inner.clone())
    }

    /// The runtime's id: unique among the runtimes of this process, the same for every
    /// handle of one runtime.
    ///
    /// ```
    /// let a = runtime::Builder::new_current_thread().build().unwrap();
    /// let b = runtime::Builder::new_current_thread().build().unwrap();
    /// assert_eq!(a.handle().id(), a.handle().clone().id());
    /// assert_ne!(a.handle().id(), b.handle().id());
    /// ```
    pub fn id(&self) -> Id {
        Id::from_owned_list(self.inner.id())
    }

    /// The name given by [`Builder::name`](crate::Builder::name), if any.
    ///
    /// ```
    /// let rt = runtime::Builder::new_multi_thread().name("api").build().unwrap();
    /// assert_eq!(rt.handle().name(), Some("api"));
    /// let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// assert_eq!(rt.handle().name(), None);
    /// ```
    pub fn name(&self) -> Option<&str> {
        self.inner.name()
    }

    /// A dump of the runtime's tasks: each listed task's id and state (its own, and the
    /// `spawn_local` tasks of the `LocalSet`s it drives), what each idle one waits on (a
    /// timer, a descriptor's readiness, a lock and its holder, a channel, another task, a
    /// `JoinSet`, a signal), the tasks queued and not yet polled, deadlock cycles, tasks no
    /// waker can reach, and the blocking pool's closures (running for how long, or
    /// queued). Needs nothing from the workers (a worker stuck in a poll delays nothing)
    /// and polls nothing; it moves the never-polled tasks of the workers' own queues to the
    /// global queue, where each still runs once; see [`crate::observe::dump`].
    ///
    /// ```
    /// let rt = runtime::Runtime::new().unwrap();
    /// rt.spawn(async { runtime::time::sleep(std::time::Duration::from_secs(60)).await });
    /// let dump = rt.handle().dump();
    /// println!("{dump}");
    /// assert!(dump.unwakeable().next().is_none());
    /// ```
    #[cfg(not(loom))]
    pub fn dump(&self) -> crate::observe::dump::Dump {
        crate::observe::dump::collect(&self.inner)
    }

    /// The scheduler flavor.
    pub fn runtime_flavor(&self) -> RuntimeFlavor {
        #[cfg(all(feature = "deterministic", not(loom)))]
        if self.inner.sim().is_some_and(|s| s.current_thread) {
            return RuntimeFlavor::CurrentThread;
        }
        match self.inner {
            scheduler::Handle::MultiThread(_) => RuntimeFlavor::MultiThread,
            scheduler::Handle::CurrentThread(_) => RuntimeFlavor::CurrentThread,
        }
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("flavor", &self.runtime_flavor())
            .finish()
    }
}
