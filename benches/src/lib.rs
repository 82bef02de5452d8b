//! The benchmark instruments: the scheduler workloads (spawns, yields, ping-pong, chained
//! spawns), written once, run on every runtime through the small traits defined here.
//!
//! - [`Bench`] is a runtime under test, built once per criterion group: it spawns from
//!   outside (`spawn_remote`), runs a future on the bench thread (`block_on`), and hands
//!   out a [`Spawner`] that tasks running on it use to spawn and to yield.
//! - [`Signal`] is how the last task tells the bench thread it is done: a std
//!   `sync_channel` on the multi-thread flavors (as tokio's own benches do: `block_on`
//!   blocks in `recv`), or an async counter on the single-threaded ones (`floor`, every
//!   `current_thread` flavor), where blocking the only thread would deadlock.
//! - [`Oneshot`] is the one-shot channel `ping_pong` uses (futures' or a runtime's own).
//!
//! The crate is laid out as:
//!
//! - this file: the traits ([`Bench`], [`Spawner`], [`RemoteSpawner`], [`Signal`],
//!   [`Notify`], [`Oneshot`]),
//!   their two signals ([`BlockingSignal`], [`AsyncSignal`]), [`Flavor`], [`workers`] and
//!   [`stall`];
//! - [`adapters`]: one file per runtime under test, each implementing [`Bench`] and
//!   [`Spawner`]: [`adapters::ours`] (this workspace's `runtime`), [`adapters::tokio_rt`],
//!   [`adapters::smol`] (async-executor's `Executor` and `StaticExecutor` on N plain
//!   threads) and [`adapters::floor`] (a single-threaded executor with no synchronization
//!   beyond what `Waker` demands);
//! - [`workloads`]: one file per workload family: [`workloads::scheduler`] (tokio's
//!   scheduler workloads), [`workloads::chan`], [`workloads::sync_locks`] with
//!   [`workloads::notify_floor`] (the least a notify-all primitive can do, the floor of
//!   `notify_waiters`), [`workloads::join_set`] and [`workloads::io_echo`] (the I/O-traits
//!   pair: tokio's traits vs futures-io on one socket type, `io_traits.rs`);
//! - [`harness`]: the criterion glue and the metrics print.
//!
//! The bench targets are in `benches/benches/`, the instruction-count binaries in
//! `src/bin/`, and the shell drivers (A/B comparisons, HTTP, scaling, idle syscalls) in
//! `benches/scripts/`.

#![deny(unsafe_op_in_unsafe_fn)]

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::task::AtomicWaker;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

pub mod adapters;
pub mod harness;
pub mod metrics;
pub mod workloads;

/// Worker threads of the multi-thread flavors: `BENCH_WORKERS`, 4 when unset.
///
/// # Panics
/// When `BENCH_WORKERS` is set to something other than a positive integer.
pub fn workers() -> usize {
    match std::env::var("BENCH_WORKERS") {
        Ok(s) => match s.trim().parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => panic!("BENCH_WORKERS must be a positive integer, got {s:?}"),
        },
        Err(_) => 4,
    }
}

/// Which scheduler flavor an adapter builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// N worker threads; the bench thread only blocks on futures.
    MultiThread(usize),
    /// Everything runs on the bench thread, inside `block_on`.
    CurrentThread,
}

impl Flavor {
    /// Worker threads this flavor runs tasks on.
    pub fn workers(self) -> usize {
        match self {
            Flavor::MultiThread(n) => n,
            Flavor::CurrentThread => 1,
        }
    }
}

/// What a task running on a runtime uses to spawn and yield. Cheap to clone (a
/// zero-sized type or a `&'static`), so capturing it in every task costs nothing.
pub trait Spawner: Clone + Send + Sync + 'static {
    /// The join handle, resolving to the task's output (join errors unwrap: a benchmark
    /// task that panics is a bug to surface, not a value).
    type Join<T: Send + 'static>: Future<Output = T>;

    /// Spawns a task and keeps its handle.
    fn spawn<F>(&self, future: F) -> Self::Join<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static;

    /// Spawns a task whose handle is not wanted.
    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        drop(self.spawn(future));
    }

    /// This runtime's own `yield_now`.
    fn yield_now(&self) -> impl Future<Output = ()> + Send + 'static;
}

/// Spawns from any plain thread outside the runtime (a runtime handle's `spawn`, or a
/// `&'static` executor), for the workloads that spawn from many threads at once.
pub trait RemoteSpawner: Clone + Send + 'static {
    /// Spawns a task whose handle is not wanted.
    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static;
}

/// A runtime under test, as the bench thread sees it.
pub trait Bench {
    /// What its tasks spawn with.
    type Spawner: Spawner;

    /// What plain threads spawn with.
    type Remote: RemoteSpawner;

    /// A spawner for plain threads (see [`RemoteSpawner`]).
    fn remote(&self) -> Self::Remote;

    /// The spawner for tasks running on this runtime (and for futures in `block_on`).
    fn spawner(&self) -> Self::Spawner;

    /// Spawns from the bench thread, outside the runtime.
    fn spawn_remote<F>(&self, future: F) -> <Self::Spawner as Spawner>::Join<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static;

    /// Spawns from the bench thread, dropping the handle.
    fn spawn_remote_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        drop(self.spawn_remote(future));
    }

    /// Runs `future` to completion on the bench thread.
    fn block_on<F: Future>(&self, future: F) -> F::Output;

    /// The flavor it was built as (sizes the busy workloads; `floor` is `CurrentThread`).
    fn flavor(&self) -> Flavor;

    /// Called once after the group's function ran `iterations` times (warm-up included);
    /// our adapter prints its metrics there when `RUNTIME_BENCH_METRICS=1`.
    fn report(&self, _group: &str, _iterations: u64) {}
}

/// A one-shot channel implementation, for `ping_pong`: futures' (the same for every
/// runtime, so the channel is not what is measured) or a runtime's own.
pub trait Oneshot: 'static {
    /// The sending half.
    type Tx: Send + 'static;
    /// The receiving half: resolves to whether a value arrived.
    type Rx: Future<Output = bool> + Send + 'static;

    /// A fresh channel.
    fn channel() -> (Self::Tx, Self::Rx);

    /// Sends `()`; false when the receiver is gone.
    fn send(tx: Self::Tx) -> bool;
}

/// A oneshot receiver seen as "did a value arrive?" (every receiver here is `Unpin`).
pub struct Arrived<R>(R);

impl<R, T, E> Future for Arrived<R>
where
    R: Future<Output = Result<T, E>> + Unpin,
{
    type Output = bool;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<bool> {
        Pin::new(&mut self.0).poll(cx).map(|r| r.is_ok())
    }
}

/// Implements [`Oneshot`] as `$name` for a channel module with the usual API
/// (`channel()`, `Sender::send(v) -> Result<(), v>`, `Receiver: Future<Output = Result>`).
macro_rules! oneshot_impl {
    ($(#[$doc:meta])* $name:ident, $($module:ident)::+) => {
        $(#[$doc])*
        pub struct $name;

        impl $crate::Oneshot for $name {
            type Tx = $($module)::+::Sender<()>;
            type Rx = $crate::Arrived<$($module)::+::Receiver<()>>;

            fn channel() -> (Self::Tx, Self::Rx) {
                let (tx, rx) = $($module)::+::channel();
                (tx, $crate::Arrived(rx))
            }

            fn send(tx: Self::Tx) -> bool {
                tx.send(()).is_ok()
            }
        }
    };
}
pub(crate) use oneshot_impl;

oneshot_impl!(
    /// `futures::channel::oneshot`, usable on every runtime.
    FuturesOneshot,
    futures::channel::oneshot
);

/// The sending side of a [`Signal`].
pub trait Notify: Clone + Send + 'static {
    /// Signals once.
    fn notify(&self);
}

/// How the bench thread learns that a workload finished.
pub trait Signal: Sized + 'static {
    /// The sender, cloned into tasks.
    type Tx: Notify;

    /// A fresh channel.
    fn channel() -> (Self::Tx, Self);

    /// Waits for one notification.
    fn recv(&mut self) -> impl Future<Output = ()> + '_;
}

/// A std `sync_channel` whose `recv` blocks the thread (inside `block_on`, as in tokio's
/// benches). Only for runtimes whose tasks run on other threads.
pub struct BlockingSignal(mpsc::Receiver<()>);

impl Notify for mpsc::SyncSender<()> {
    fn notify(&self) {
        self.send(()).expect("the bench thread hung up");
    }
}

impl Signal for BlockingSignal {
    type Tx = mpsc::SyncSender<()>;

    fn channel() -> (Self::Tx, Self) {
        let (tx, rx) = mpsc::sync_channel(1000);
        (tx, BlockingSignal(rx))
    }

    // No await point: the one poll blocks the thread until the message arrives.
    async fn recv(&mut self) {
        self.0
            .recv()
            .expect("every sender dropped without a signal")
    }
}

/// A counter plus one waker: `recv` yields to the executor instead of blocking, so it
/// works where the bench thread is the only thread running tasks.
pub struct AsyncSignal(Arc<AsyncInner>);

/// Shared state of an [`AsyncSignal`]; `AsyncTx` is the sender.
pub struct AsyncInner {
    count: AtomicUsize,
    waker: AtomicWaker,
}

/// The sender of an [`AsyncSignal`].
#[derive(Clone)]
pub struct AsyncTx(Arc<AsyncInner>);

impl Notify for AsyncTx {
    fn notify(&self) {
        // Release pairs with the receiver's Acquire: what the notifier did happens-before
        // the receiver's return (mirrors what a channel send gives).
        self.0.count.fetch_add(1, Ordering::Release);
        self.0.waker.wake();
    }
}

impl Signal for AsyncSignal {
    type Tx = AsyncTx;

    fn channel() -> (Self::Tx, Self) {
        let inner = Arc::new(AsyncInner {
            count: AtomicUsize::new(0),
            waker: AtomicWaker::new(),
        });
        (AsyncTx(inner.clone()), AsyncSignal(inner))
    }

    fn recv(&mut self) -> impl Future<Output = ()> + '_ {
        AsyncRecv(&self.0)
    }
}

struct AsyncRecv<'a>(&'a AsyncInner);

impl AsyncRecv<'_> {
    fn try_take(&self) -> bool {
        // Acquire pairs with `notify`'s Release. Only this receiver decrements, so a
        // non-zero load cannot be raced to zero; the sub itself needs no ordering.
        if self.0.count.load(Ordering::Acquire) > 0 {
            self.0.count.fetch_sub(1, Ordering::Relaxed);
            true
        } else {
            false
        }
    }
}

impl Future for AsyncRecv<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.try_take() {
            return Poll::Ready(());
        }
        self.0.waker.register(cx.waker());
        // Re-check after registering: a notify between the first check and the register
        // would otherwise be lost.
        if self.try_take() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// Spins for `dur`, yielding the OS thread between checks (tokio's benches' `stall`).
pub fn stall(dur: Duration) {
    if dur.is_zero() {
        return;
    }
    let start = Instant::now();
    while start.elapsed() < dur {
        std::thread::yield_now();
    }
}
