//! Asynchronous tasks: [`spawn`], [`spawn_blocking`], [`yield_now`], [`JoinHandle`], task
//! ids, [`JoinSet`], `!Send` tasks ([`LocalSet`], [`spawn_local`]), task-local storage
//! ([`task_local!`](crate::task_local)) and the cooperative budget ([`coop`]).
//!
//! ```
//! # runtime::Builder::new_multi_thread().build().unwrap().block_on(async {
//! use runtime::task;
//!
//! let sum = runtime::spawn(async { (1..=10).sum::<u32>() });
//! let read = task::spawn_blocking(|| std::fs::metadata(".").is_ok());
//! assert_eq!(sum.await.unwrap(), 55);
//! assert!(read.await.unwrap());
//! # });
//! ```
//!
//! A task is a future the runtime polls until it completes; it is the unit of concurrency,
//! like a thread, but switching between tasks costs no system call. `spawn` finds the
//! current runtime through the thread's context; on a worker of that runtime the new task
//! is run next by that worker (where the data it was handed is still in cache), elsewhere
//! it goes to the runtime's global queue. `yield_now` puts the running task at the back of
//! its worker's queue: every task already runnable there runs before the yielder resumes.
//! Blocking code (file I/O, CPU-heavy work, a synchronous library) belongs in
//! `spawn_blocking`, which runs it on a separate pool of threads so that it does not stall
//! the tasks sharing its worker.
//!
//! # Cancellation
//!
//! [`JoinHandle::abort`] stops a task at its next `.await` (its future is dropped, so
//! its destructors run); awaiting the handle then reports the cancellation:
//!
//! ```
//! use std::time::Duration;
//!
//! let rt = runtime::Builder::new_multi_thread().enable_time().build().unwrap();
//! rt.block_on(async {
//!     let ticker = runtime::spawn(async {
//!         loop {
//!             runtime::time::sleep(Duration::from_millis(1)).await;
//!         }
//!     });
//!     ticker.abort();
//!     let err = ticker.await.unwrap_err();
//!     assert!(err.is_cancelled());
//! });
//! ```

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

mod block_in_place;
mod budget;
mod builder;
mod join_set;
pub(crate) mod local;
#[cfg(not(loom))]
pub(crate) mod local_dump;
mod local_remote;
mod ready_list;
mod task_local;

pub use ::task::{AbortHandle, Id, JoinError, JoinHandle, TaskMeta};

pub use self::block_in_place::block_in_place;
pub use self::budget::{consume_budget, unconstrained, Unconstrained};
pub use self::builder::Builder;
pub use self::join_set::JoinSet;
pub use self::local::{spawn_local, LocalEnterGuard, LocalSet};
// Not API: public only so that the loom suites (loom-tests/, another crate) can drive the
// shipping `LocalSet` remote queue and `JoinSet` ready list directly.
#[doc(hidden)]
pub use self::local_remote::RemoteQueue;
#[doc(hidden)]
pub use self::ready_list::ReadyList;
pub use self::task_local::{AccessError, LocalKey};

/// The cooperative budget (tokio's `task::coop`): the same functions as at this module's
/// root, plus [`has_budget_remaining`](coop::has_budget_remaining), and for futures
/// written outside this crate [`poll_proceed`](coop::poll_proceed) and
/// [`cooperative`](coop::cooperative).
pub mod coop {
    pub use super::budget::{
        consume_budget, cooperative, has_budget_remaining, poll_proceed, unconstrained, Coop,
        RestoreOnPending, Unconstrained,
    };
}

/// Futures returned by this module's functions.
pub mod futures {
    pub use super::task_local::TaskLocalFuture;
}

use crate::context;
use ::task::SpawnMeta;

/// Spawns a task onto the current runtime, returning a [`JoinHandle`] for its output.
///
/// ```
/// use runtime::net::TcpListener;
/// use runtime::io::{AsyncReadExt, AsyncWriteExt};
///
/// #[runtime::main]
/// async fn main() -> std::io::Result<()> {
///     let listener = TcpListener::bind("127.0.0.1:0").await?;
///     let addr = listener.local_addr()?;
///     // One task per connection: the accept loop never waits for a client.
///     let server = runtime::spawn(async move {
///         let (mut socket, _) = listener.accept().await?;
///         let mut buf = [0; 5];
///         socket.read_exact(&mut buf).await?;
///         socket.write_all(&buf).await?;
///         Ok::<_, std::io::Error>(())
///     });
///     let mut client = runtime::net::TcpStream::connect(addr).await?;
///     client.write_all(b"hello").await?;
///     let mut echoed = [0; 5];
///     client.read_exact(&mut echoed).await?;
///     assert_eq!(&echoed, b"hello");
///     server.await.unwrap()?; // `Err` if the task panicked or was aborted
///     Ok(())
/// }
/// ```
///
/// The task starts running without being awaited: the handle is only a way to wait for
/// its output, and dropping it *detaches* the task, which then runs to completion on its
/// own (`JoinHandle` is not `#[must_use]`, as in tokio). To stop a task, call
/// [`JoinHandle::abort`]. The future must be `Send + 'static`: it may move between worker
/// threads at every `.await`, and it may outlive the code that spawned it, so it owns what
/// it uses (`async move`); for `!Send` futures see [`spawn_local`].
///
/// Spawned on a worker of the current runtime, the task is the next one that worker runs
/// (a task that spawns another and then waits for it hands over without a trip through a
/// shared queue); spawned from elsewhere (`block_on`, or a thread that entered the
/// runtime with [`Handle::enter`](crate::Handle::enter)) it goes to the runtime's global
/// queue and an idle worker is woken. An idle worker steals half of a busy one's queue, so
/// a burst of spawns spreads over the workers.
///
/// # Panics
/// Outside a runtime: spawn from inside a task or `Runtime::block_on`, or use
/// `Runtime::spawn` / `Handle::spawn`.
#[track_caller]
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    match try_spawn_with(future, SpawnMeta::at(std::panic::Location::caller())) {
        Some(join) => join,
        None => panic!("{}", crate::misuse::SPAWN_OUTSIDE_RUNTIME),
    }
}

/// `spawn` with the task's identity given; `None` outside a runtime.
pub(crate) fn try_spawn_with<F>(future: F, meta: SpawnMeta) -> Option<JoinHandle<F::Output>>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    // The future stays in this frame until the scheduler takes it (moved into the closure
    // it would be copied once more, which a large future pays for on every spawn).
    let mut future = Some(future);
    context::with_spawn_site(|site| {
        site.map(|(h, on)| h.spawn_from(future.take().expect("once"), meta, on))
    })
}

/// Runs a blocking closure on the current runtime's blocking pool, returning a
/// [`JoinHandle`] for its result.
///
/// ```
/// # runtime::Builder::new_multi_thread().build().unwrap().block_on(async {
/// use runtime::task;
///
/// // Hashing a large buffer would hold a worker thread for as long as it takes.
/// let data = vec![7u8; 1 << 20];
/// let checksum = task::spawn_blocking(move || data.iter().map(|&b| u64::from(b)).sum::<u64>())
///     .await
///     .unwrap();
/// assert_eq!(checksum, 7 << 20);
/// # });
/// ```
///
/// Asynchronous tasks share a few worker threads, so code that blocks (a synchronous
/// file or database call, a long computation) stalls every task waiting behind it. The
/// closure runs instead on a thread of the runtime's blocking pool: a pool thread that is
/// idle takes it, otherwise a new one is started, up to
/// [`Builder::max_blocking_threads`](crate::Builder::max_blocking_threads) (beyond that the
/// closure waits in a queue); a thread idle for
/// [`Builder::thread_keep_alive`](crate::Builder::thread_keep_alive) exits. A running
/// closure cannot be aborted (nothing interrupts a thread); shutting the runtime down lets
/// every closure spawned before it run to completion, and waits for them (at most the time
/// given to [`Runtime::shutdown_timeout`](crate::Runtime::shutdown_timeout)).
///
/// # Panics
/// Outside a runtime, as [`spawn`]: use
/// [`Handle::spawn_blocking`](crate::Handle::spawn_blocking) there.
#[track_caller]
pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    match try_spawn_blocking_with(f, SpawnMeta::at(std::panic::Location::caller())) {
        Some(join) => join,
        None => panic!("{}", crate::misuse::SPAWN_BLOCKING_OUTSIDE_RUNTIME),
    }
}

/// `spawn_blocking` with the task's identity given; `None` outside a runtime.
pub(crate) fn try_spawn_blocking_with<F, R>(f: F, meta: SpawnMeta) -> Option<JoinHandle<R>>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    context::with_handle(move |h| h.map(move |h| h.blocking().spawn_blocking(f, meta)))
}

/// Yields execution back to the runtime, once.
///
/// The task is deferred: it resumes after the tasks that were runnable when it yielded
/// have had their turn, and after the I/O and timer driver was polled, so a task that
/// yields while it waits for a socket or a timer finds the event dispatched when it
/// resumes. However busy the worker is, a yielded task resumes at the next driver turn:
/// at once when the worker runs out of other tasks, and at the latest every
/// [`Builder::event_interval`](crate::Builder::event_interval) tasks. As in tokio, the
/// order of the runnable tasks is otherwise not guaranteed: a yield is a scheduling hint,
/// not a sleep. A task woken by someone else while it runs is not deferred: it goes to
/// the back of the run queue. A `block_on` future that yields gets the same driver turn
/// before it is polled again.
///
/// ```
/// # let rt = runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let other = runtime::spawn(async { "other ran" });
/// runtime::task::yield_now().await;
/// // The task that was runnable when we yielded had its turn.
/// assert!(other.is_finished());
/// # });
/// ```
pub async fn yield_now() {
    YieldNow { yielded: false }.await
}

struct YieldNow {
    yielded: bool,
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        crate::coop::note_yield();
        ::task::wake_self_by_ref(cx.waker());
        Poll::Pending
    }
}

/// The id of the task being polled.
///
/// ```
/// # let rt = runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let handle = runtime::spawn(async { runtime::task::id() });
/// let id = handle.id();
/// assert_eq!(handle.await.unwrap(), id);
/// # });
/// ```
///
/// # Panics
/// Outside a task (e.g. directly in `block_on`, which is no task); use [`try_id`] there.
#[track_caller]
pub fn id() -> Id {
    match ::task::current_id() {
        Some(id) => id,
        None => panic!("{}", crate::misuse::TASK_ID_OUTSIDE_TASK),
    }
}

/// The id of the task being polled, or `None` outside a task.
///
/// ```
/// assert!(runtime::task::try_id().is_none());
/// ```
pub fn try_id() -> Option<Id> {
    ::task::current_id()
}
