//! The floor: the smallest executor that can run the workloads, a per-thread `VecDeque`
//! of reference-counted tasks polled in FIFO order on the thread that calls `block_on`.
//!
//! No locks, no queue atomics, no idle accounting. The only synchronization is what
//! `Waker` forces (it must be `Send + Sync`): each task is one `Arc` allocation whose
//! count wakers share, and the waker handed to a poll is borrowed (no refcount traffic
//! unless the future clones it). A task completing on its first poll costs one allocation,
//! a push, a pop, a poll and one uncontended decrement: the practical limit for a runtime.
//!
//! Invariants: a task's cells (`queued`, `stage`, `join_waker`) are touched only on its
//! home thread (the thread whose queue it was spawned into): `run` is called by that
//! thread's `block_on`, join handles are `!Send`, and a wake checks that it happens at
//! home and panics otherwise (the floor is single-threaded by design). `queued` keeps a
//! task in the queue at most once.

use std::collections::VecDeque;
use std::future::Future;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::pin::{pin, Pin};
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Wake, Waker};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::{Bench, Flavor, RemoteSpawner, Spawner};

/// `std::cell::UnsafeCell` behind closure-scoped access: every raw access below is one
/// `with_mut` call, so the extent of each borrow is visible at its site.
#[repr(transparent)]
struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

impl<T> UnsafeCell<T> {
    const fn new(value: T) -> Self {
        UnsafeCell(std::cell::UnsafeCell::new(value))
    }

    #[inline(always)]
    fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

/// A thread's run queue.
struct RunQueue {
    tasks: UnsafeCell<VecDeque<Arc<dyn Run>>>,
}

std::thread_local! {
    static QUEUE: RunQueue = const {
        RunQueue {
            tasks: UnsafeCell::new(VecDeque::new()),
        }
    };
}

fn push(task: Arc<dyn Run>) {
    QUEUE.with(|q| {
        // SAFETY: the queue is this thread's own and the borrow ends before this closure
        // returns; `push_back` runs no user code, so nothing can re-enter the queue.
        q.tasks.with_mut(|d| unsafe { (*d).push_back(task) })
    })
}

fn pop() -> Option<Arc<dyn Run>> {
    QUEUE.with(|q| {
        // SAFETY: as in `push`: thread-own queue, borrow limited to `pop_front`.
        q.tasks.with_mut(|d| unsafe { (*d).pop_front() })
    })
}

/// Identity of this thread's queue (the home of tasks spawned here).
fn here() -> *const RunQueue {
    QUEUE.with(|q| q as *const RunQueue)
}

/// A queued task, type-erased.
trait Run {
    /// Polls the task once (the queue's reference is consumed).
    fn run(self: Arc<Self>);
}

/// The result side of a task, type-erased for join handles.
trait JoinSlot<T> {
    fn poll_join(&self, cx: &mut Context<'_>) -> Poll<T>;
}

enum Stage<F: Future> {
    Running(F),
    Done(F::Output),
    Taken,
}

struct Task<F: Future> {
    home: *const RunQueue,
    queued: UnsafeCell<bool>,
    stage: UnsafeCell<Stage<F>>,
    join_waker: UnsafeCell<Option<Waker>>,
}

// SAFETY: a task's cells are only accessed on its home thread (see the module invariants:
// `run` and join polls happen there, `schedule` checks `home` before touching anything).
// Other threads may only move the `Arc` around (clone/drop a waker); if they drop the last
// reference they drop the stage and the join waker, which are `Send` (`F: Send`,
// `F::Output: Send`, `Waker: Send`), and being last there is no concurrent access.
unsafe impl<F: Future + Send> Send for Task<F> where F::Output: Send {}
// SAFETY: as for `Send`: shared references never reach the cells off the home thread.
unsafe impl<F: Future + Send> Sync for Task<F> where F::Output: Send {}

impl<F> Task<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    const VTABLE: RawWakerVTable = RawWakerVTable::new(
        Self::clone_raw,
        Self::wake_raw,
        Self::wake_by_ref_raw,
        Self::drop_raw,
    );

    /// Queues the task unless it is already queued.
    fn schedule(self: Arc<Self>) {
        assert!(
            self.home == here(),
            "the floor executor is single-threaded: a task was woken off its thread"
        );
        // SAFETY: on the home thread (checked above), the only thread touching `queued`.
        let already = self
            .queued
            .with_mut(|q| unsafe { std::mem::replace(&mut *q, true) });
        if !already {
            push(self);
        }
    }

    unsafe fn clone_raw(ptr: *const ()) -> RawWaker {
        // SAFETY: `ptr` came from `Arc::<Task<F>>::as_ptr`/`into_raw` and the waker being
        // cloned holds (or borrows) a live reference, so the count is at least 1.
        unsafe { Arc::increment_strong_count(ptr.cast::<Self>()) };
        RawWaker::new(ptr, &Self::VTABLE)
    }

    unsafe fn wake_raw(ptr: *const ()) {
        // SAFETY: an owned waker: it carries one reference, handed to `schedule`.
        let task = unsafe { Arc::from_raw(ptr.cast::<Self>()) };
        task.schedule();
    }

    unsafe fn wake_by_ref_raw(ptr: *const ()) {
        // SAFETY: the waker keeps its reference; ManuallyDrop stops us releasing it, and
        // the clone gives `schedule` a reference of its own.
        let task = ManuallyDrop::new(unsafe { Arc::from_raw(ptr.cast::<Self>()) });
        Arc::clone(&task).schedule();
    }

    unsafe fn drop_raw(ptr: *const ()) {
        // SAFETY: an owned waker releases the one reference it carries.
        unsafe { Arc::decrement_strong_count(ptr.cast::<Self>()) };
    }
}

impl<F> Run for Task<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn run(self: Arc<Self>) {
        // SAFETY: `run` is called by the home thread's `block_on` only.
        self.queued.with_mut(|q| unsafe { *q = false });
        let raw = RawWaker::new(Arc::as_ptr(&self).cast(), &Self::VTABLE);
        // SAFETY: the vtable's functions treat the pointer as an `Arc<Task<F>>`, which it
        // is; ManuallyDrop: this borrowed waker owns no reference (`self` outlives it).
        let waker = ManuallyDrop::new(unsafe { Waker::from_raw(raw) });
        let mut cx = Context::from_waker(&waker);
        let finished = self.stage.with_mut(|s| {
            // SAFETY: home thread only; no other borrow of `stage` is live (join polls
            // happen in other tasks' polls or in `block_on`, never inside this one).
            let stage = unsafe { &mut *s };
            let Stage::Running(fut) = stage else {
                return false;
            };
            // SAFETY: the future lives inside the `Arc` allocation and is never moved
            // until it is dropped in place below.
            let fut = unsafe { Pin::new_unchecked(fut) };
            match fut.poll(&mut cx) {
                Poll::Ready(v) => {
                    *stage = Stage::Done(v);
                    true
                }
                Poll::Pending => false,
            }
        });
        if finished {
            // SAFETY: home thread only; the borrow ends before the waker runs.
            if let Some(w) = self.join_waker.with_mut(|j| unsafe { (*j).take() }) {
                w.wake();
            }
        }
    }
}

impl<F> JoinSlot<F::Output> for Task<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn poll_join(&self, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: join handles are `!Send`, created and polled on the home thread; the
        // task's own poll is not running (a task does not await its own handle).
        let out = self.stage.with_mut(|s| unsafe {
            match std::mem::replace(&mut *s, Stage::Taken) {
                Stage::Done(v) => Some(v),
                Stage::Taken => panic!("floor JoinHandle polled after completion"),
                running => {
                    *s = running;
                    None
                }
            }
        });
        match out {
            Some(v) => Poll::Ready(v),
            None => {
                // SAFETY: home thread, as above; the old waker drops after the borrow.
                let old = self
                    .join_waker
                    .with_mut(|j| unsafe { (*j).replace(cx.waker().clone()) });
                drop(old);
                Poll::Pending
            }
        }
    }
}

/// Spawns onto this thread's floor queue.
fn spawn<F>(future: F) -> FloorJoin<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let task = Arc::new(Task {
        home: here(),
        queued: UnsafeCell::new(true),
        stage: UnsafeCell::new(Stage::Running(future)),
        join_waker: UnsafeCell::new(None),
    });
    push(task.clone());
    FloorJoin {
        slot: task,
        _home_only: PhantomData,
    }
}

/// A floor task's result. `!Send`: it is polled on the task's home thread.
pub struct FloorJoin<T> {
    slot: Arc<dyn JoinSlot<T>>,
    _home_only: PhantomData<*const ()>,
}

impl<T> Future for FloorJoin<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        self.slot.poll_join(cx)
    }
}

/// Wakes the root future of `block_on`.
struct RootWaker(AtomicBool);

impl Wake for RootWaker {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        // Release pairs with `block_on`'s Acquire swap (the floor is single-threaded, so
        // this only matters for a foreign wake, which then ends in the deadlock panic).
        self.0.store(true, Ordering::Release);
    }
}

/// The floor executor of the current thread. `!Send`: it is the thread's own queue.
pub struct Floor {
    _this_thread: PhantomData<*const ()>,
}

impl Floor {
    /// The floor of the calling thread.
    pub fn new() -> Floor {
        Floor {
            _this_thread: PhantomData,
        }
    }

    /// Runs `future` and every queued task until `future` completes.
    ///
    /// # Panics
    /// When nothing is runnable and `future` is still pending (it waits on something only
    /// another thread could wake; the floor cannot park).
    pub fn run<F: Future>(&self, future: F) -> F::Output {
        let root = std::sync::Arc::new(RootWaker(AtomicBool::new(true)));
        let waker = Waker::from(root.clone());
        let mut cx = Context::from_waker(&waker);
        let mut future = pin!(future);
        loop {
            // Acquire pairs with `RootWaker`'s Release.
            if root.0.swap(false, Ordering::Acquire) {
                if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
                    return v;
                }
            }
            match pop() {
                Some(task) => task.run(),
                // Relaxed: single-threaded, the flag was set (or not) by this thread.
                None if !root.0.load(Ordering::Relaxed) => {
                    panic!("floor executor deadlocked: nothing runnable, root still pending")
                }
                None => {}
            }
        }
    }
}

impl Default for Floor {
    fn default() -> Floor {
        Floor::new()
    }
}

impl Drop for Floor {
    fn drop(&mut self) {
        // Tasks left behind (background chains): drop them one at a time, so a future
        // whose drop wakes another task finds the queue free to push to.
        while let Some(task) = pop() {
            drop(task);
        }
    }
}

/// Spawns onto the current thread's floor; yields by re-queueing at the back.
#[derive(Clone, Copy, Debug, Default)]
pub struct FloorSpawner;

impl Spawner for FloorSpawner {
    type Join<T: Send + 'static> = FloorJoin<T>;

    fn spawn<F>(&self, future: F) -> FloorJoin<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        spawn(future)
    }

    fn yield_now(&self) -> impl Future<Output = ()> + Send + 'static {
        YieldNow(false)
    }
}

/// Pending once, after waking itself: the task goes to the back of the queue.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// The floor runs every task on the bench thread: no other thread may spawn onto it, so
/// the many-thread workloads leave it out.
#[derive(Clone, Copy, Debug)]
pub struct FloorNoRemote;

impl RemoteSpawner for FloorNoRemote {
    fn spawn_detached<F>(&self, _future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        panic!("the floor executor is single-threaded: spawning onto it from another thread is not supported (leave it out of the remote-thread workloads)");
    }
}

impl Bench for Floor {
    type Spawner = FloorSpawner;
    type Remote = FloorNoRemote;

    fn remote(&self) -> FloorNoRemote {
        FloorNoRemote
    }

    fn spawner(&self) -> FloorSpawner {
        FloorSpawner
    }

    fn spawn_remote<F>(&self, future: F) -> FloorJoin<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        spawn(future)
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.run(future)
    }

    fn flavor(&self) -> Flavor {
        Flavor::CurrentThread
    }
}
