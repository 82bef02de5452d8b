//! `LocalRuntime`: a current-thread runtime whose `block_on` also drives a `LocalSet`, so
//! `spawn_local` works anywhere on it (tokio's `LocalRuntime`).
//!
//! It is a `Runtime` (current-thread flavor) plus one `LocalSet`. `block_on` enters the set
//! for its whole duration (not only while the set's own future is polled), so the
//! runtime's `Send` tasks, which run on the same thread, can call `spawn_local` too; their
//! local spawns and wakes land in the set's local queue and wake `block_on`. Being
//! `!Send`, the runtime stays on the thread that built it, which is the set's owner thread.
//! Dropping it drops the set's tasks first (with the runtime entered), then the runtime.
//!
//! Outside `block_on`, with only the runtime entered (`LocalRuntime::enter`, or
//! `Handle::enter` of its handle), `spawn_local` reaches the set too, as tokio's: the
//! runtime's scheduler handle records its owner thread (`local_owner`), and the owner
//! thread keeps a list of its local runtimes' sets (`SETS`, by scheduler-handle address,
//! each a `Weak` removed when the runtime drops). On the owner thread `spawn_local` takes
//! the set from that list; on another thread it panics with tokio's message.

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::rc::{Rc, Weak};

use crate::handle::{EnterGuard, Handle};
use crate::observe::runtime_metrics::RuntimeMetrics;
use crate::runtime::Runtime;
use crate::scheduler;
use crate::task::local::LocalContext;
use crate::task::{JoinHandle, LocalSet};

std::thread_local! {
    /// The sets of the `LocalRuntime`s built on this thread and not dropped yet, by the
    /// address of their scheduler handle (module docs).
    static SETS: RefCell<Vec<(usize, Weak<LocalContext>)>> = const { RefCell::new(Vec::new()) };
}

/// The address that keys a current-thread scheduler handle in `SETS`.
fn key(h: &scheduler::current_thread::Handle) -> usize {
    h as *const _ as usize
}

/// The set of the `LocalRuntime` entered on this thread (its handle current), if any: what
/// `spawn_local` uses outside any entered `LocalSet`.
///
/// # Panics
/// When the current runtime is a `LocalRuntime` built on another thread (tokio's message).
pub(crate) fn entered_set() -> Option<Rc<LocalContext>> {
    crate::context::with_handle(|h| {
        let Some(scheduler::Handle::CurrentThread(h)) = h else {
            return None;
        };
        let owner = *h.local_owner.get()?;
        if owner != std::thread::current().id() {
            panic!("{}", crate::misuse::SPAWN_LOCAL_OTHER_THREAD);
        }
        let key = key(h);
        SETS.try_with(|sets| {
            let sets = sets.borrow();
            let (_, set) = sets.iter().find(|(k, _)| *k == key)?;
            set.upgrade()
        })
        .ok()
        .flatten()
    })
}

/// Options of [`Builder::build_local`](crate::Builder::build_local); none yet (tokio's
/// `LocalOptions`). Use `LocalOptions::default()`.
#[derive(Default, Debug)]
#[non_exhaustive]
pub struct LocalOptions {
    _not_send: PhantomData<*mut u8>,
}

/// A current-thread runtime that runs `!Send` tasks as well; it cannot leave its thread.
///
/// ```
/// use std::rc::Rc;
///
/// let rt = runtime::Builder::new_current_thread()
///     .enable_all()
///     .build_local(runtime::LocalOptions::default())
///     .unwrap();
/// let rc = Rc::new(5);
/// let out = rt.block_on(async move {
///     let rc2 = rc.clone();
///     runtime::task::spawn_local(async move { *rc2 * 2 }).await.unwrap()
/// });
/// assert_eq!(out, 10);
/// ```
pub struct LocalRuntime {
    /// Both `Some` until the runtime is dropped or shut down.
    local: Option<LocalSet>,
    rt: Option<Runtime>,
}

impl LocalRuntime {
    pub(crate) fn from_runtime(rt: Runtime) -> LocalRuntime {
        let local = LocalSet::new();
        if let scheduler::Handle::CurrentThread(h) = &rt.handle().inner {
            let _ = h.local_owner.set(std::thread::current().id());
            let entry = (key(h), Rc::downgrade(local.context()));
            let _ = SETS.try_with(|sets| sets.borrow_mut().push(entry));
        }
        LocalRuntime {
            local: Some(local),
            rt: Some(rt),
        }
    }

    fn local(&self) -> &LocalSet {
        self.local
            .as_ref()
            .expect("the local set lives as long as the runtime")
    }

    fn rt(&self) -> &Runtime {
        self.rt.as_ref().expect("the runtime lives until dropped")
    }

    /// Drops the local tasks (with the runtime entered, on this thread), then hands back
    /// the runtime to shut down.
    fn take_runtime(&mut self) -> Option<Runtime> {
        let rt = self.rt.take()?;
        if let scheduler::Handle::CurrentThread(h) = &rt.handle().inner {
            let key = key(h);
            let _ = SETS.try_with(|sets| sets.borrow_mut().retain(|(k, _)| *k != key));
        }
        let guard = rt.enter();
        drop(self.local.take());
        drop(guard);
        Some(rt)
    }

    /// Shuts down, waiting at most `timeout` for the blocking pool's threads (the local
    /// tasks and the runtime's tasks are dropped on this thread first).
    ///
    /// ```
    /// let rt = runtime::LocalRuntime::new().unwrap();
    /// rt.spawn_local(async { std::future::pending::<()>().await });
    /// rt.shutdown_timeout(std::time::Duration::from_secs(1));
    /// ```
    pub fn shutdown_timeout(mut self, timeout: std::time::Duration) {
        if let Some(rt) = self.take_runtime() {
            rt.shutdown_timeout(timeout);
        }
    }

    /// Shuts down without waiting for the blocking pool's threads.
    pub fn shutdown_background(self) {
        self.shutdown_timeout(std::time::Duration::ZERO);
    }

    /// A current-thread local runtime with every driver enabled.
    pub fn new() -> std::io::Result<LocalRuntime> {
        crate::Builder::new_current_thread()
            .enable_all()
            .build_local(LocalOptions::default())
    }

    /// Runs `future` to completion on this thread, running the runtime's tasks, `Send` and
    /// local, meanwhile.
    ///
    /// # Panics
    /// Inside a runtime (a task, or another `block_on`): `.await` the future instead.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        let local = self.local();
        let _entered = local.context().enter();
        self.rt().block_on(local.run_until(future))
    }

    /// Spawns a `!Send` task; it runs while `block_on` runs.
    ///
    /// ```
    /// let rt = runtime::LocalRuntime::new().unwrap();
    /// let h = rt.spawn_local(async { std::rc::Rc::new(1) });
    /// assert_eq!(*rt.block_on(h).unwrap(), 1);
    /// ```
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.local().spawn_local(future)
    }

    /// Spawns a `Send` task on the runtime.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.rt().spawn(future)
    }

    /// Runs `f` on the blocking pool.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.rt().spawn_blocking(f)
    }

    /// A handle to the runtime (it spawns `Send` tasks, from any thread).
    pub fn handle(&self) -> &Handle {
        self.rt().handle()
    }

    /// Makes this runtime the current one on this thread until the guard drops.
    pub fn enter(&self) -> EnterGuard<'_> {
        self.rt().enter()
    }

    /// The runtime's counters (its `Send` tasks).
    pub fn metrics(&self) -> RuntimeMetrics {
        self.rt().metrics()
    }
}

impl Drop for LocalRuntime {
    fn drop(&mut self) {
        drop(self.take_runtime());
    }
}

impl fmt::Debug for LocalRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalRuntime").finish_non_exhaustive()
    }
}
