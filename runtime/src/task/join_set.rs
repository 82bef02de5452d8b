//! `JoinSet`: a collection of spawned tasks, joined in the order they complete.
//!
//! The set is a slab of `JoinHandle`s (vacant slots chained into a free list) plus two
//! lists of slot indices that may be ready to join:
//!
//! - `fresh`: entries not polled yet. Their handle has no waker, so they cannot announce
//!   completion; the set polls each once (a task already finished is read at once, with
//!   no waker at all), which installs the entry's own waker otherwise.
//! - the `ReadyList` (ready_list.rs), shared with the entries' wakers: a task's completion
//!   wakes its entry's waker, which pushes the index and wakes the set.
//!
//! So a join costs O(1) per completion, never a scan. `ready` holds the indices taken from
//! the shared list and not examined yet. An index in any list may be stale (its entry was
//! removed, or the slot reused): the slab decides, and polling a handle that is not
//! finished is harmless. Dropping the set aborts every task in it. Each join through
//! `poll_join_next*` spends one unit of the cooperative budget (coop.rs).

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::task::{Context, Poll, Waker};

use shim::sync::Arc;

use super::ready_list::ReadyList;
use super::{AbortHandle, Id, JoinError, JoinHandle};
use crate::Handle;

/// A collection of tasks spawned on a runtime, awaited in completion order.
///
/// ```
/// use runtime::task::JoinSet;
///
/// # let rt = runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
/// # rt.block_on(async {
/// let mut set = JoinSet::new();
/// for i in 0..10 {
///     set.spawn(async move { i });
/// }
/// let mut seen = [false; 10];
/// while let Some(res) = set.join_next().await {
///     seen[res.unwrap()] = true;
/// }
/// assert!(seen.iter().all(|s| *s));
/// # });
/// ```
///
/// Dropping a `JoinSet` aborts every task still in it ([`detach_all`](JoinSet::detach_all)
/// first to let them run on).
pub struct JoinSet<T> {
    slots: Vec<Slot<T>>,
    /// Head of the vacant-slot chain (`usize::MAX`: none).
    free: usize,
    len: usize,
    fresh: VecDeque<usize>,
    ready: Vec<usize>,
    list: Arc<ReadyList>,
    /// Our wait record in the registry, for task dumps (ready_list.rs).
    rec: task::waits::WaitSlot,
}

enum Slot<T> {
    Occupied(JoinHandle<T>),
    Vacant(usize),
}

const NONE: usize = usize::MAX;

impl<T> JoinSet<T> {
    /// An empty set.
    ///
    /// ```
    /// let set = runtime::task::JoinSet::<u8>::new();
    /// assert!(set.is_empty());
    /// ```
    pub fn new() -> Self {
        JoinSet {
            slots: Vec::new(),
            free: NONE,
            len: 0,
            fresh: VecDeque::new(),
            ready: Vec::new(),
            list: ReadyList::new(),
            rec: task::waits::WaitSlot::new(),
        }
    }

    /// The number of tasks in the set (finished but not yet joined ones included).
    ///
    /// ```
    /// # let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut set = runtime::task::JoinSet::new();
    /// set.spawn(async {});
    /// assert_eq!(set.len(), 1);
    /// # });
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the set holds no task.
    ///
    /// ```
    /// assert!(runtime::task::JoinSet::<()>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn insert(&mut self, handle: JoinHandle<T>) -> AbortHandle {
        let abort = handle.abort_handle();
        let index = if self.free != NONE {
            let index = self.free;
            let Slot::Vacant(next) = self.slots[index] else {
                unreachable!("free list points at an occupied slot")
            };
            self.free = next;
            self.slots[index] = Slot::Occupied(handle);
            index
        } else {
            self.slots.push(Slot::Occupied(handle));
            self.slots.len() - 1
        };
        self.len += 1;
        self.list.set_tasks(self.len);
        self.fresh.push_back(index);
        abort
    }

    fn remove(&mut self, index: usize) -> JoinHandle<T> {
        let slot = std::mem::replace(&mut self.slots[index], Slot::Vacant(self.free));
        let Slot::Occupied(handle) = slot else {
            unreachable!("removed a vacant slot")
        };
        self.free = index;
        self.len -= 1;
        self.list.set_tasks(self.len);
        handle
    }

    /// Spawns `task` on the current runtime and adds it to the set; returns a handle
    /// that can abort it.
    ///
    /// ```
    /// # let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut set = runtime::task::JoinSet::new();
    /// set.spawn(async { 1 });
    /// assert_eq!(set.join_next().await.unwrap().unwrap(), 1);
    /// # });
    /// ```
    ///
    /// # Panics
    /// Outside a runtime, as [`spawn`](crate::spawn).
    #[track_caller]
    pub fn spawn<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        self.insert(super::spawn(task))
    }

    /// Spawns `task` on the runtime of `handle` and adds it to the set.
    ///
    /// ```
    /// let rt = runtime::Builder::new_multi_thread().worker_threads(1).build().unwrap();
    /// let mut set = runtime::task::JoinSet::new();
    /// set.spawn_on(async { 2 }, rt.handle());
    /// assert_eq!(rt.block_on(set.join_next()).unwrap().unwrap(), 2);
    /// ```
    #[track_caller]
    pub fn spawn_on<F>(&mut self, task: F, handle: &Handle) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        self.insert(handle.spawn(task))
    }

    /// Spawns the `!Send` future `task` on the current `LocalSet` (or `LocalRuntime`) and
    /// adds it to the set.
    ///
    /// ```
    /// let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// runtime::task::LocalSet::new().block_on(&rt, async {
    ///     let mut set = runtime::task::JoinSet::new();
    ///     set.spawn_local(async { std::rc::Rc::new(2) });
    ///     assert_eq!(*set.join_next().await.unwrap().unwrap(), 2);
    /// });
    /// ```
    ///
    /// # Panics
    /// Outside a `LocalSet` or `LocalRuntime`, as [`spawn_local`](super::spawn_local).
    #[track_caller]
    pub fn spawn_local<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T> + 'static,
        T: 'static,
    {
        self.insert(super::spawn_local(task))
    }

    /// Spawns the `!Send` future `task` on `local_set` and adds it to the set.
    ///
    /// ```
    /// let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// let local = runtime::task::LocalSet::new();
    /// let mut set = runtime::task::JoinSet::new();
    /// set.spawn_local_on(async { 3 }, &local);
    /// let out = local.block_on(&rt, set.join_next());
    /// assert_eq!(out.unwrap().unwrap(), 3);
    /// ```
    #[track_caller]
    pub fn spawn_local_on<F>(&mut self, task: F, local_set: &super::LocalSet) -> AbortHandle
    where
        F: Future<Output = T> + 'static,
        T: 'static,
    {
        self.insert(local_set.spawn_local(task))
    }

    /// Runs the blocking closure `f` on the current runtime's blocking pool and adds it to
    /// the set. (Aborting it only helps before it started, as for `spawn_blocking`.)
    ///
    /// ```
    /// # let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut set = runtime::task::JoinSet::new();
    /// set.spawn_blocking(|| 3);
    /// assert_eq!(set.join_next().await.unwrap().unwrap(), 3);
    /// # });
    /// ```
    ///
    /// # Panics
    /// Outside a runtime, as [`spawn_blocking`](super::spawn_blocking).
    #[track_caller]
    pub fn spawn_blocking<F>(&mut self, f: F) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.insert(super::spawn_blocking(f))
    }

    /// Runs the blocking closure `f` on the blocking pool of `handle`'s runtime and adds
    /// it to the set.
    ///
    /// ```
    /// let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// let mut set = runtime::task::JoinSet::new();
    /// set.spawn_blocking_on(|| 4, rt.handle());
    /// assert_eq!(rt.block_on(set.join_next()).unwrap().unwrap(), 4);
    /// ```
    #[track_caller]
    pub fn spawn_blocking_on<F>(&mut self, f: F, handle: &Handle) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.insert(handle.spawn_blocking(f))
    }

    /// Waits for one of the tasks to complete and returns its output; `None` when the set
    /// is empty. Cancel safe: dropping the future loses no output.
    ///
    /// ```
    /// # let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut set = runtime::task::JoinSet::new();
    /// set.spawn(async { "done" });
    /// assert_eq!(set.join_next().await.unwrap().unwrap(), "done");
    /// assert!(set.join_next().await.is_none());
    /// # });
    /// ```
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        std::future::poll_fn(|cx| self.poll_join_next(cx)).await
    }

    /// As [`join_next`](JoinSet::join_next), with the id of the task that completed (in
    /// the error too, for a task that failed).
    ///
    /// ```
    /// # let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut set = runtime::task::JoinSet::new();
    /// let id = set.spawn(async { 5 }).id();
    /// assert_eq!(set.join_next_with_id().await.unwrap().unwrap(), (id, 5));
    /// # });
    /// ```
    pub async fn join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        std::future::poll_fn(|cx| self.poll_join_next_with_id(cx)).await
    }

    /// The output of a task that has completed, if any, without waiting; `None` when no
    /// task has completed (or the set is empty).
    ///
    /// ```
    /// # let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut set = runtime::task::JoinSet::<()>::new();
    /// assert!(set.try_join_next().is_none());
    /// set.spawn(std::future::pending());
    /// assert!(set.try_join_next().is_none());
    /// # });
    /// ```
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        self.try_join_next_with_id()
            .map(|res| res.map(|(_, output)| output))
    }

    /// As [`try_join_next`](JoinSet::try_join_next), with the task's id.
    ///
    /// ```
    /// # let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut set = runtime::task::JoinSet::new();
    /// let id = set.spawn(async { 1 }).id();
    /// runtime::task::yield_now().await; // it runs
    /// assert_eq!(set.try_join_next_with_id().unwrap().unwrap(), (id, 1));
    /// # });
    /// ```
    pub fn try_join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        match self.poll_inner(None) {
            Poll::Ready(res) => res,
            Poll::Pending => None,
        }
    }

    /// Polls for one completed task: `Ready(Some(_))` with its output, `Ready(None)` when
    /// the set is empty, `Pending` (with `cx`'s waker registered) otherwise.
    ///
    /// ```
    /// use std::future::poll_fn;
    /// # let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut set = runtime::task::JoinSet::new();
    /// set.spawn(async { 9 });
    /// let out = poll_fn(|cx| set.poll_join_next(cx)).await;
    /// assert_eq!(out.unwrap().unwrap(), 9);
    /// # });
    /// ```
    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        self.poll_join_next_with_id(cx)
            .map(|res| res.map(|res| res.map(|(_, output)| output)))
    }

    /// As [`poll_join_next`](JoinSet::poll_join_next), with the task's id.
    ///
    /// ```
    /// use std::future::poll_fn;
    /// # let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut set = runtime::task::JoinSet::new();
    /// let id = set.spawn(async { 9 }).id();
    /// let out = poll_fn(|cx| set.poll_join_next_with_id(cx)).await;
    /// assert_eq!(out.unwrap().unwrap(), (id, 9));
    /// # });
    /// ```
    pub fn poll_join_next_with_id(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<(Id, T), JoinError>>> {
        // Each join spends one unit of the task's cooperative budget (as awaiting a
        // `JoinHandle` does in tokio): a loop over a set of finished tasks yields now and then.
        if self.len != 0 && !crate::coop::has_budget_remaining() {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let res = self.poll_inner(Some(cx.waker()));
        if let Poll::Ready(Some(_)) = res {
            let _ = crate::coop::poll_proceed(cx);
        }
        res
    }

    /// The join: fresh entries first, then the indices announced ready. With `waker`
    /// `None` (`try_join_next`) the set's registered waker is left alone.
    fn poll_inner(&mut self, waker: Option<&Waker>) -> Poll<Option<Result<(Id, T), JoinError>>> {
        if self.len == 0 {
            return Poll::Ready(None);
        }
        // Oldest first: the likeliest to have finished, and a finished task needs no waker.
        while let Some(index) = self.fresh.pop_front() {
            if let Some(res) = self.poll_entry(index, true) {
                return Poll::Ready(Some(res));
            }
        }
        loop {
            while let Some(index) = self.ready.pop() {
                if let Some(res) = self.poll_entry(index, false) {
                    return Poll::Ready(Some(res));
                }
            }
            self.list.take(&mut self.ready, waker);
            if self.ready.is_empty() {
                if let Some(w) = waker {
                    self.record_wait(w);
                }
                return Poll::Pending;
            }
        }
    }

    /// The wait's record for task dumps (ready_list.rs), when the waker changed since the
    /// last one.
    fn record_wait(&mut self, waker: &Waker) {
        // SAFETY: our drop forgets `rec` before `list` goes.
        unsafe { ReadyList::record_wait(&self.list, &mut self.rec, waker) };
    }

    /// Polls the handle in slot `index`, if any; removes it and returns its result when
    /// the task is done. A fresh entry that is not done gets its waker installed.
    fn poll_entry(&mut self, index: usize, fresh: bool) -> Option<Result<(Id, T), JoinError>> {
        let Some(Slot::Occupied(handle)) = self.slots.get_mut(index) else {
            return None; // stale
        };
        let res = if handle.is_finished() {
            // Complete: the read needs no waker.
            poll_handle(handle, Waker::noop())
        } else if fresh {
            let waker = ReadyList::entry_waker(&self.list, index);
            poll_handle(handle, &waker)
        } else {
            // Stale or repeated index of an entry still running: its waker is installed.
            return None;
        };
        let Poll::Ready(res) = res else {
            return None;
        };
        let id = handle.id();
        drop(self.remove(index));
        Some(res.map(|output| (id, output)))
    }

    /// Awaits every task and returns their outputs, in completion order.
    ///
    /// ```
    /// # let rt = runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
    /// # rt.block_on(async {
    /// let set: runtime::task::JoinSet<u32> = (0..4).map(|i| async move { i * i }).collect();
    /// let mut out = set.join_all().await;
    /// out.sort();
    /// assert_eq!(out, [0, 1, 4, 9]);
    /// # });
    /// ```
    ///
    /// # Panics
    /// When a task panicked (the panic is resumed here) or was cancelled; the remaining
    /// tasks are aborted as the set drops.
    pub async fn join_all(mut self) -> Vec<T> {
        let mut out = Vec::with_capacity(self.len);
        while let Some(res) = self.join_next().await {
            match res {
                Ok(v) => out.push(v),
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(e) => panic!("`JoinSet::join_all`: {e}"),
            }
        }
        out
    }

    /// Aborts every task in the set; they stay in it until joined (with a cancelled
    /// `JoinError`, unless they completed first).
    ///
    /// ```
    /// # let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut set = runtime::task::JoinSet::<()>::new();
    /// set.spawn(std::future::pending());
    /// set.abort_all();
    /// assert!(set.join_next().await.unwrap().unwrap_err().is_cancelled());
    /// # });
    /// ```
    pub fn abort_all(&mut self) {
        for slot in &self.slots {
            if let Slot::Occupied(handle) = slot {
                handle.abort();
            }
        }
    }

    /// Removes every task from the set without aborting it: they run on, detached.
    ///
    /// ```
    /// # let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut set = runtime::task::JoinSet::new();
    /// set.spawn(async {});
    /// set.detach_all();
    /// assert!(set.is_empty());
    /// # });
    /// ```
    pub fn detach_all(&mut self) {
        self.slots.clear();
        self.free = NONE;
        self.len = 0;
        self.fresh.clear();
        self.ready.clear();
        self.list.clear();
        self.list.set_tasks(0);
    }

    /// Aborts every task and waits until all of them have stopped; the set is then empty.
    ///
    /// ```
    /// # let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut set = runtime::task::JoinSet::<()>::new();
    /// set.spawn(std::future::pending());
    /// set.shutdown().await;
    /// assert!(set.is_empty());
    /// # });
    /// ```
    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }
}

fn poll_handle<T>(handle: &mut JoinHandle<T>, waker: &Waker) -> Poll<Result<T, JoinError>> {
    std::pin::Pin::new(handle).poll(&mut Context::from_waker(waker))
}

impl<T> Drop for JoinSet<T> {
    fn drop(&mut self) {
        self.rec.forget();
        self.abort_all();
    }
}

impl<T> Default for JoinSet<T> {
    fn default() -> Self {
        JoinSet::new()
    }
}

impl<T> fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinSet").field("len", &self.len).finish()
    }
}

/// Spawns every future on the current runtime (panics outside one).
impl<T, F> FromIterator<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    fn from_iter<I: IntoIterator<Item = F>>(iter: I) -> Self {
        let mut set = JoinSet::new();
        set.extend(iter);
        set
    }
}

/// Spawns every future on the current runtime (panics outside one).
impl<T, F> Extend<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    fn extend<I: IntoIterator<Item = F>>(&mut self, iter: I) {
        for fut in iter {
            self.spawn(fut);
        }
    }
}
