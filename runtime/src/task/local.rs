//! `!Send` tasks: `LocalSet`, `spawn_local`.
//!
//! A `LocalSet` is a tiny scheduler that runs on the thread that created it (its *owner*),
//! inside whatever drives it (`run_until`, `block_on`, awaiting the set, or a
//! `LocalRuntime`'s `block_on`). Its tasks are the task crate's ordinary tasks, scheduled
//! by [`LocalHandle`] (an `Arc` of the set's shared half): one allocation each, the same
//! state word, wakers, `JoinHandle` and owned list as a runtime's tasks.
//!
//! - The *local queue* (a `VecDeque` in the `!Send` context, `LocalContext`) holds tasks
//!   spawned or woken on the owner thread while the set is entered (the thread-local
//!   `CURRENT` names the entered set). No synchronization.
//! - The *remote queue* (`RemoteQueue`, local_remote.rs) takes tasks woken anywhere else:
//!   from another thread, or from the owner thread while the set is not entered. A push
//!   wakes the waker of whoever drives the set.
//! - A tick runs at most `MAX_TASKS_PER_TICK` tasks, each under a fresh cooperative budget,
//!   taking the remote queue first every `REMOTE_INTERVAL`th task; when it stops with work
//!   left it wakes its driver and yields, so a set never starves its runtime.
//!
//! Invariants (the SAFETY argument of `OwnedTasks::spawn_local`): the `LocalContext` is
//! `!Send` (an `Rc`), so everything that holds it runs on the owner thread: spawning, every
//! poll (`tick`), closing the owned list at drop, and dropping every unbound `Notified`
//! (unbound tasks are never idle, so no waker ever sends one to the remote queue; they live
//! only in the local queue or in the owner's hands). Other threads only ever hold wakers,
//! `AbortHandle`s, `JoinHandle`s of `Send` outputs, and bound `Notified`s in the remote
//! queue: dropping those touches no future.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use shim::sync::Arc;
use task::{Notified, OwnedTasks, Schedule, SpawnMeta, Task};

use super::local_remote::RemoteQueue;
use super::JoinHandle;
use crate::coop;

/// Tasks one tick runs at most before yielding to the driver (tokio's value).
const MAX_TASKS_PER_TICK: u32 = 61;
/// Every this many tasks, the remote queue is looked at first (fairness).
const REMOTE_INTERVAL: u32 = 31;
/// Remote tasks moved to the local queue at once.
const REMOTE_BATCH: usize = 32;

type LocalTask = Notified<LocalHandle>;

/// The thread-safe half of a set: what its tasks' wakers reach.
pub(crate) struct Shared {
    remote: RemoteQueue<LocalTask>,
    owned: OwnedTasks<LocalHandle>,
    /// The runtime that drove the set last, for task dumps (`local_dump.rs`).
    #[cfg(not(loom))]
    driven_by: super::local_dump::DrivenBy,
}

#[cfg(not(loom))]
impl Shared {
    /// The set's owned list: every task of it that parked at least once.
    pub(crate) fn owned(&self) -> &OwnedTasks<LocalHandle> {
        &self.owned
    }

    /// The set's remote queue (a task dump walks it under its lock).
    pub(crate) fn remote(&self) -> &RemoteQueue<LocalTask> {
        &self.remote
    }

    pub(crate) fn driven_by(&self) -> &super::local_dump::DrivenBy {
        &self.driven_by
    }

    /// The set's id (`LocalSet::id`).
    pub(crate) fn id(&self) -> crate::runtime::Id {
        crate::runtime::Id::from_owned_list(self.owned.id())
    }
}

/// The scheduler of a `LocalSet`'s tasks (the task crate's `Schedule`).
#[derive(Clone)]
pub(crate) struct LocalHandle(Arc<Shared>);

/// The owner-thread half of a set.
pub(crate) struct LocalContext {
    handle: LocalHandle,
    queue: RefCell<VecDeque<LocalTask>>,
    /// True while `tick` runs: a local push needs no wake-up then.
    ticking: Cell<bool>,
    tick: Cell<u32>,
}

// loom's own thread-locals under `--cfg loom` (loom runs every model thread on one OS
// thread, so a std thread-local would be shared by them): `loom_local_set` drives
// `run_until` with wakes from other model threads. loom's macro has no `const` form.
#[cfg(not(loom))]
std::thread_local! {
    /// The set entered on this thread (innermost), if any.
    static CURRENT: RefCell<Option<Rc<LocalContext>>> = const { RefCell::new(None) };
}

#[cfg(loom)]
shim::thread_local! {
    /// The set entered on this thread (innermost), if any.
    static CURRENT: RefCell<Option<Rc<LocalContext>>> = RefCell::new(None);
}

/// Restores the previously entered set when dropped.
pub(crate) struct Entered {
    /// `None` when nothing was entered (the thread-local is being destroyed).
    prev: Option<Option<Rc<LocalContext>>>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        if let Some(prev) = self.prev.take() {
            let _ = CURRENT.try_with(|c| *c.borrow_mut() = prev);
        }
    }
}

/// True while a `LocalSet` is entered on this thread (running its tasks, or `enter`ed).
pub(crate) fn is_entered() -> bool {
    CURRENT
        .try_with(|c| c.try_borrow().map_or(true, |c| c.is_some()))
        .unwrap_or(false)
}

/// The entered set, cloned (none while the thread-local is being destroyed).
fn current() -> Option<Rc<LocalContext>> {
    CURRENT
        .try_with(|c| c.try_borrow().ok().and_then(|c| c.clone()))
        .ok()
        .flatten()
}

impl LocalContext {
    /// Makes this set the one `spawn_local` and local wakes use on this thread.
    /// While the thread-local is being destroyed (a set kept in another thread-local,
    /// dropped at thread exit) nothing is entered: its tasks still drop, and a
    /// `spawn_local` from their destructors panics as outside any set.
    pub(crate) fn enter(self: &Rc<Self>) -> Entered {
        let prev = CURRENT
            .try_with(|c| c.borrow_mut().replace(self.clone()))
            .ok();
        Entered { prev }
    }

    fn spawn<F>(&self, future: F, meta: SpawnMeta) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        // Under `UnhandledPanic::ShutdownRuntime` of the runtime driving this thread, a
        // local task's panic ends that runtime too, as a spawned task's does.
        let policy = crate::context::with_handle(|h| h.and_then(|h| h.unhandled_panic().clone()));
        match policy {
            Some(state) => {
                self.spawn_inner(crate::unhandled::ShutdownOnPanic::new(future, state), meta)
            }
            None => self.spawn_inner(future, meta),
        }
    }

    fn spawn_inner<F>(&self, future: F, meta: SpawnMeta) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        // SAFETY: `self` is reached only through the `!Send` `Rc`/`LocalSet`, so this is
        // the owner thread; the set polls (`tick`), closes (`LocalSet::drop`) and drops
        // unbound `Notified`s only there too (module doc), which is the contract.
        let (join, notified) = unsafe { self.handle.0.owned.spawn_local(future, meta) };
        if let Some(task) = notified {
            self.push_local(task);
        }
        join
    }

    /// Queues a task on the owner thread; wakes the driver unless a tick runs now.
    fn push_local(&self, task: LocalTask) {
        match self.queue.try_borrow_mut() {
            Ok(mut queue) => {
                queue.push_back(task);
                drop(queue);
                if !self.ticking.get() {
                    self.handle.0.remote.wake();
                }
            }
            // Never held across a call out; just in case, the remote queue also works.
            Err(_) => self.handle.push_remote(task),
        }
    }

    fn pop_local(&self) -> Option<LocalTask> {
        self.queue.borrow_mut().pop_front()
    }

    /// A batch off the remote queue: the first to run, the rest behind the local ones.
    fn pop_remote(&self) -> Option<LocalTask> {
        let mut batch = self.handle.0.remote.pop_n(REMOTE_BATCH);
        let first = batch.next()?;
        self.queue.borrow_mut().extend(batch);
        Some(first)
    }

    /// Runs up to `MAX_TASKS_PER_TICK` tasks. True when it stopped with work left.
    fn tick(&self) -> bool {
        struct Ticking<'a>(&'a Cell<bool>);
        impl Drop for Ticking<'_> {
            fn drop(&mut self) {
                self.0.set(false);
            }
        }
        self.ticking.set(true);
        let _ticking = Ticking(&self.ticking);
        for _ in 0..MAX_TASKS_PER_TICK {
            let n = self.tick.get().wrapping_add(1);
            self.tick.set(n);
            let task = if n.is_multiple_of(REMOTE_INTERVAL) {
                self.pop_remote().or_else(|| self.pop_local())
            } else {
                self.pop_local().or_else(|| self.pop_remote())
            };
            let Some(task) = task else {
                return false;
            };
            // On the owner thread (we hold the `!Send` context): the contract of
            // `spawn_local`. A panic in the task is caught by the task harness.
            coop::budget(|| task.run(&self.handle));
        }
        true
    }

    /// Closes the set and drops every task, on the owner thread, with the set entered.
    fn shutdown(self: &Rc<Self>) {
        let _enter = self.enter();
        let shared = &self.handle.0;
        shared.remote.close();
        shared.owned.close_and_shutdown_all(0);
        // Unbound tasks are cancelled by dropping their `Notified`; a destructor may wake
        // or spawn more (refused now), so drain until both queues stay empty.
        loop {
            let task = self.pop_local().or_else(|| shared.remote.pop());
            match task {
                Some(task) => drop(task),
                None => break,
            }
        }
    }
}

impl LocalHandle {
    fn push_remote(&self, task: LocalTask) {
        if let Err(task) = self.0.remote.push(task) {
            // Closed: the set is being dropped. Only a bound task can be woken remotely
            // (module doc), and its future is cancelled by the owner through the owned
            // list: this only drops the queue's reference.
            drop(task);
        }
    }
}

impl Schedule for LocalHandle {
    fn schedule(&self, task: LocalTask) {
        let mut task = Some(task);
        if let Some(cx) = current() {
            if Arc::ptr_eq(&cx.handle.0, &self.0) {
                cx.push_local(task.take().expect("once"));
            }
        }
        if let Some(task) = task {
            self.push_remote(task);
        }
    }

    fn release(&self, task: &Task<Self>) -> Option<Task<Self>> {
        self.0.owned.remove(task)
    }

    fn bind(&self, task: Task<Self>) -> Result<(), Task<Self>> {
        self.0.owned.bind(task, 0)
    }
}

/// A set of `!Send` tasks that run on the thread that created it.
///
/// Tasks are spawned with [`spawn_local`] (inside the set) or
/// [`LocalSet::spawn_local`], and run while the set is driven: by
/// [`run_until`](LocalSet::run_until), [`block_on`](LocalSet::block_on), or by awaiting the
/// set itself, which completes once every task in it is done. A local task never moves to
/// another thread; it may still be woken from any thread.
///
/// ```
/// use std::rc::Rc;
/// use runtime::task::{self, LocalSet};
///
/// let rt = runtime::Builder::new_current_thread().build().unwrap();
/// let local = LocalSet::new();
/// let shared = Rc::new(41); // not Send
/// let out = local.block_on(&rt, async move {
///     let shared2 = shared.clone();
///     task::spawn_local(async move { *shared2 + 1 }).await.unwrap()
/// });
/// assert_eq!(out, 42);
/// ```
///
/// Dropping the set drops every task still in it, on its thread, with the set entered
/// (a destructor may call `spawn_local`; the new task is dropped at once).
pub struct LocalSet {
    cx: Rc<LocalContext>,
}

impl LocalSet {
    /// An empty set, owned by the calling thread.
    pub fn new() -> LocalSet {
        let shared = Arc::new(Shared {
            remote: RemoteQueue::new(),
            owned: OwnedTasks::new(1),
            #[cfg(not(loom))]
            driven_by: Default::default(),
        });
        #[cfg(not(loom))]
        super::local_dump::register(&shared);
        LocalSet {
            cx: Rc::new(LocalContext {
                handle: LocalHandle(shared),
                queue: RefCell::new(VecDeque::new()),
                ticking: Cell::new(false),
                tick: Cell::new(0),
            }),
        }
    }

    pub(crate) fn context(&self) -> &Rc<LocalContext> {
        &self.cx
    }

    /// The set's id: unique in the process among runtimes and sets (tokio's
    /// `LocalSet::id`, a [`runtime::Id`](crate::runtime::Id)).
    ///
    /// ```
    /// let a = runtime::task::LocalSet::new();
    /// let b = runtime::task::LocalSet::new();
    /// assert_ne!(a.id(), b.id());
    /// ```
    pub fn id(&self) -> crate::runtime::Id {
        crate::runtime::Id::from_owned_list(self.cx.handle.0.owned.id())
    }

    /// Enters the set's context until the guard drops: `spawn_local` then spawns here
    /// (the tasks run when the set is driven).
    ///
    /// ```
    /// let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// let local = runtime::task::LocalSet::new();
    /// let handle = {
    ///     let _guard = local.enter();
    ///     runtime::task::spawn_local(async { 5 })
    /// };
    /// assert_eq!(local.block_on(&rt, handle).unwrap(), 5);
    /// ```
    pub fn enter(&self) -> LocalEnterGuard {
        LocalEnterGuard {
            _entered: self.cx.enter(),
        }
    }

    /// Spawns a `!Send` task on this set. It runs when the set is driven next.
    ///
    /// ```
    /// let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// let local = runtime::task::LocalSet::new();
    /// let handle = local.spawn_local(async { std::rc::Rc::new(7) });
    /// let out = local.block_on(&rt, handle).unwrap();
    /// assert_eq!(*out, 7);
    /// ```
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.cx
            .spawn(future, SpawnMeta::at(std::panic::Location::caller()))
    }

    /// `spawn_local` with the task's identity given (`task::Builder`).
    pub(crate) fn spawn_local_with<F>(&self, future: F, meta: SpawnMeta) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.cx.spawn(future, meta)
    }

    /// Runs `future` on `rt`'s `block_on`, driving this set's tasks meanwhile.
    ///
    /// ```
    /// let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// let local = runtime::task::LocalSet::new();
    /// assert_eq!(local.block_on(&rt, async { 1 + 1 }), 2);
    /// ```
    ///
    /// # Panics
    /// Inside a runtime (as `Runtime::block_on`): `.await` [`run_until`](Self::run_until).
    #[track_caller]
    pub fn block_on<F: Future>(&self, rt: &crate::Runtime, future: F) -> F::Output {
        rt.block_on(self.run_until(future))
    }

    /// Runs `future` to completion, driving this set's tasks while it waits. Tasks left
    /// when it completes stay in the set (drive it again, or drop it).
    ///
    /// ```
    /// # let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let local = runtime::task::LocalSet::new();
    /// let out = local
    ///     .run_until(async { runtime::task::spawn_local(async { "hi" }).await.unwrap() })
    ///     .await;
    /// assert_eq!(out, "hi");
    /// # });
    /// ```
    pub async fn run_until<F: Future>(&self, future: F) -> F::Output {
        let mut future = std::pin::pin!(future);
        std::future::poll_fn(|cx| self.poll_run_until(future.as_mut(), cx)).await
    }

    fn poll_run_until<F: Future>(
        &self,
        future: Pin<&mut F>,
        cx: &mut Context<'_>,
    ) -> Poll<F::Output> {
        let _enter = self.cx.enter();
        #[cfg(not(loom))]
        self.cx.handle.0.driven_by.note();
        // Before any drain (local_remote.rs): a remote wake after it finds this waker.
        self.cx.handle.0.remote.register(cx.waker());
        if let Poll::Ready(out) = coop::budget(|| future.poll(cx)) {
            return Poll::Ready(out);
        }
        if self.cx.tick() {
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    }

    /// True when no task is queued or alive in the set.
    fn is_idle(&self) -> bool {
        self.cx.queue.borrow().is_empty()
            && self.cx.handle.0.remote.is_empty()
            && self.cx.handle.0.owned.is_empty()
    }
}

/// Returned by [`LocalSet::enter`]: the set stays entered until it drops. Guards must be
/// dropped in the reverse order of their creation.
pub struct LocalEnterGuard {
    _entered: Entered,
}

impl fmt::Debug for LocalEnterGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalEnterGuard").finish_non_exhaustive()
    }
}

/// Awaiting the set drives its tasks until every one of them is done.
///
/// ```
/// # let rt = runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let local = runtime::task::LocalSet::new();
/// let seen = std::rc::Rc::new(std::cell::Cell::new(0));
/// for _ in 0..3 {
///     let seen = seen.clone();
///     local.spawn_local(async move { seen.set(seen.get() + 1) });
/// }
/// local.await;
/// assert_eq!(seen.get(), 3);
/// # });
/// ```
impl Future for LocalSet {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let _enter = self.cx.enter();
        #[cfg(not(loom))]
        self.cx.handle.0.driven_by.note();
        self.cx.handle.0.remote.register(cx.waker());
        if self.cx.tick() {
            cx.waker().wake_by_ref();
            Poll::Pending
        } else if self.is_idle() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Default for LocalSet {
    fn default() -> Self {
        LocalSet::new()
    }
}

impl fmt::Debug for LocalSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalSet").finish_non_exhaustive()
    }
}

impl Drop for LocalSet {
    fn drop(&mut self) {
        self.cx.shutdown();
    }
}

/// Spawns a `!Send` future on the `LocalSet` (or `LocalRuntime`) driving this thread.
///
/// ```
/// use std::rc::Rc;
///
/// let rt = runtime::Builder::new_current_thread().build().unwrap();
/// runtime::task::LocalSet::new().block_on(&rt, async {
///     let rc = Rc::new("local");
///     let rc2 = rc.clone();
///     let out = runtime::task::spawn_local(async move { *rc2 }).await.unwrap();
///     assert_eq!(out, *rc);
/// });
/// ```
///
/// # Panics
/// Outside a `LocalSet` or `LocalRuntime`: drive the code with `LocalSet::run_until` /
/// `LocalSet::block_on`, build a `LocalRuntime`
/// (`Builder::new_current_thread().build_local(..)`, `#[runtime::main(flavor = "local")]`),
/// or use `LocalSet::spawn_local`.
#[track_caller]
pub fn spawn_local<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    match try_spawn_local_with(future, SpawnMeta::at(std::panic::Location::caller())) {
        Some(join) => join,
        None => panic!("{}", crate::misuse::SPAWN_LOCAL_OUTSIDE_LOCAL_SET),
    }
}

/// `spawn_local` with the task's identity given; `None` outside a `LocalSet`.
pub(crate) fn try_spawn_local_with<F>(future: F, meta: SpawnMeta) -> Option<JoinHandle<F::Output>>
where
    F: Future + 'static,
    F::Output: 'static,
{
    current()
        .or_else(crate::local_runtime::entered_set)
        .map(|cx| cx.spawn(future, meta))
}
