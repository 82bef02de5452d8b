//! `runtime`: a work-stealing async runtime.
//!
//! ```
//! #[runtime::main]
//! async fn main() {
//!     let h = runtime::spawn(async { 40 + 2 });
//!     assert_eq!(h.await.unwrap(), 42);
//! }
//! ```
//!
//! The multi-thread scheduler follows the Tokio scheduler rewrite: per-worker fixed-size
//! SPMC rings with a LIFO slot (`queue`), an intrusive global queue taking the overflow
//! (pushed with one CAS, popped behind a mutex), throttled searching workers (at most half steal at once; a searcher that
//! finds work wakes the next when work is left), single-allocation tasks with a hot header and a cold trailer
//! (`task`), and parked workers that cost nothing until woken. All of it is model-checked
//! under loom through the one sync shim (`shim`).
//!
//! The architecture of the runtime (crates and their dependency rules, the paths of a task,
//! an I/O event, a timer and a message, the scheduler's policies, the invariants and the
//! loom models that check them) is described in `ARCHITECTURE.md` at the repository root.
//!
//! # Porting from tokio
//!
//! Two routes: patch the whole dependency graph's `tokio` with `compat/tokio` (this runtime
//! under tokio's name; no code changes), or rename `tokio::` to `runtime::` in a program
//! whose dependencies use only tokio's I/O traits. By the rename (`#[tokio::main]` becomes
//! `#[runtime::main]`), crates written against tokio's I/O traits keep working on our
//! sockets:
//!
//! ```no_run
//! use runtime::io::{AsyncReadExt, AsyncWriteExt};
//! use runtime::net::TcpListener;
//!
//! #[runtime::main]
//! async fn main() -> std::io::Result<()> {
//!     let listener = TcpListener::bind("127.0.0.1:8080").await?;
//!     loop {
//!         let (mut socket, _) = listener.accept().await?;
//!         runtime::spawn(async move {
//!             let mut buf = [0; 1024];
//!             while let Ok(n @ 1..) = socket.read(&mut buf).await {
//!                 if socket.write_all(&buf[..n]).await.is_err() {
//!                     break;
//!                 }
//!             }
//!         });
//!     }
//! }
//! ```
//!
//! **Compatible** (same names, signatures and documented behaviour):
//! - `#[main]`/`#[test]` with `flavor` (`"multi_thread"`, `"current_thread"`, `"local"`),
//!   `worker_threads`, `start_paused`, `crate = ".."`, `name = ".."`; `#[main]` on a
//!   function other than `main` may take parameters and be generic;
//! - `spawn`, `task::{spawn_blocking, yield_now, JoinHandle, AbortHandle, JoinError, Id,
//!   id, try_id, JoinSet, consume_budget, unconstrained}`, `task::coop::{consume_budget,
//!   has_budget_remaining, poll_proceed, RestoreOnPending, cooperative, Coop,
//!   unconstrained}`, `task_local!` (`LocalKey::{get, try_get, with, try_with, scope,
//!   sync_scope}`; `JoinHandle` is not `#[must_use]`, as tokio's); `task::block_in_place`
//!   on the multi-thread flavor (it panics on current-thread, as tokio's); `Runtime`,
//!   `Handle`, `LocalRuntime`, `JoinHandle`, `AbortHandle`, `Notify` and the `mpsc` handles
//!   are `UnwindSafe + RefUnwindSafe`, as tokio's;
//! - `!Send` tasks: `task::{spawn_local, LocalSet}` (`run_until`, `block_on`, awaiting the
//!   set, `id`), `LocalRuntime` (`Builder::build_local(LocalOptions::default())`),
//!   `JoinSet::spawn_local{,_on}`;
//! - `Builder` (with `on_thread_{start,stop,park,unpark}`, `name`, `rng_seed`,
//!   `max_io_events_per_tick`; `Handle::try_current`'s `TryCurrentError::{
//!   is_missing_context, is_thread_local_destroyed}`, `runtime::is_rt_shutdown_err`; the default
//!   worker count honours `TOKIO_WORKER_THREADS`), `Runtime`, `Handle` (`id`, `name`,
//!   `metrics`), `RuntimeMetrics`' methods (`num_workers()`, `num_alive_tasks()`,
//!   `global_queue_depth()`, `worker_*_count(i)`, `worker_total_busy_duration(i)`; a live
//!   view, as tokio's), each at the crate root and at tokio's path
//!   (`runtime::runtime::{Builder, Runtime, Handle, ..}`);
//! - `select!` (refutable patterns, `if` preconditions, `else`, `biased;`), `join!`,
//!   `try_join!`, `pin!`;
//! - `sync`: `Mutex`, `RwLock` (of unsized values too: `Arc<Mutex<dyn Trait>>`), their
//!   owned and mapped guards (`map` to unsized parts, `downgrade_map`, `into_mapped`,
//!   `Display`), `Semaphore` (with `blocking_acquire*`), `Notify` and
//!   `sync::futures::{Notified, OwnedNotified}`, `Barrier`, `OnceCell`, `SetOnce`,
//!   `oneshot`, `mpsc`, `watch`, `broadcast`;
//! - `net`: `TcpListener`, `TcpStream` and its halves, `TcpSocket`, `UdpSocket`,
//!   `UnixListener`, `UnixStream` and its halves, `UnixDatagram`, Linux abstract Unix
//!   names (`"\0name"`) (std-style `shutdown(how)` is `shutdown_std`, so that
//!   `stream.shutdown().await` is tokio's `AsyncWriteExt::shutdown`); `ready(Interest)`
//!   reporting read-closed, write-closed, error and priority (urgent TCP data), and
//!   `Interest::ERROR`/`PRIORITY` alone; `try_io`/`async_io`; `BufMut` reads
//!   (`try_read_buf`, `recv_buf`, `recv_buf_from`, `try_recv_buf(_from)`); `lookup_host`;
//!   `peer_cred`/`unix::UCred`; `unix::pipe` (`pipe`, `Sender`, `Receiver`,
//!   `OpenOptions`); `set_zero_linger`, `quickack`, `tos_v4`, `tclass_v6`, `bind_device`;
//! - `process`: `Command` (every builder method, `uid`/`gid`/`arg0`/`pre_exec`/
//!   `process_group`, `kill_on_drop`, `spawn`/`status`/`output`), `Child` (`wait`,
//!   `try_wait`, `kill`, `start_kill`, `wait_with_output`, `id`) and its piped
//!   `ChildStdin`/`ChildStdout`/`ChildStderr`; exits through a pidfd on the I/O driver
//!   (`SIGCHLD` where `pidfd_open` is missing), and a child whose `Child` is dropped is
//!   reaped when it exits (no zombies);
//! - `io::unix::AsyncFd` with its guards, `TryIoError`, `register`/`new` and their
//!   `_with_interest`/`try_` forms (`AsyncFdRegisterError`), for any descriptor epoll
//!   watches (pipes, eventfd, pty, inotify, tun, serial);
//! - [`io`]: tokio's traits (`AsyncRead`, `AsyncWrite`, `AsyncBufRead`, `AsyncSeek`,
//!   `ReadBuf`), its `Ext` traits and buffers, `split`, `copy*`, `duplex`, `simplex`,
//!   `empty`/`sink`/`repeat`, `stdin`/`stdout`/`stderr`, `Interest`/`Ready`; every I/O
//!   type implements tokio's traits directly, so `tokio-util` (codecs, `io` helpers),
//!   `tokio-rustls`, hyper-util's `TokioIo` and other crates generic over those traits
//!   work unchanged;
//! - `fs` (each call on the blocking pool, as tokio's; `File` speaks both trait
//!   families), `signal::ctrl_c` and `signal::unix::{signal, SignalKind, Signal}`;
//! - `time`: `sleep`, `sleep_until`, `timeout`, `timeout_at`, `interval`, `interval_at`,
//!   `Interval`, `MissedTickBehavior`, `time::error::{Elapsed, Error}`, and paused time
//!   (`pause`, `resume`, `advance`, `Builder::start_paused`; current-thread runtimes only,
//!   as in tokio's tests).
//!
//! **Beyond tokio:** deterministic runs (`runtime::sim`, feature `deterministic`): the
//! multi-thread runtime as a pure function of a seed, with virtual time, seeded
//! exploration of interleavings, `#[test(deterministic, seeds = N)]` and a two-process
//! determinism checker.
//!
//! **Not compatible, or missing:**
//! - by the rename alone, crates that call tokio's own runtime (`tokio::spawn`, tokio's
//!   timer or tokio's `net` types inside a crate: axum, reqwest, tonic, sqlx, hyper-util's
//!   `TokioExecutor`/`TokioTimer`, tokio-stream's `TcpListenerStream`, `tokio_util::time`).
//!   For those, patch the graph instead: `[patch.crates-io] tokio = { path =
//!   "<checkout>/compat/tokio" }` builds every such crate on this runtime (README,
//!   "Porting a tokio program"); with the rename, `hyper_compat::{HyperExecutor,
//!   HyperTimer}` (feature `hyper`) serve hyper directly;
//! - `io::unix::AsyncFd::new`/`with_interest`/`try_new`/`try_with_interest` are not
//!   deprecated here (tokio 1.54 deprecates them for `register`, whose caller promises
//!   the descriptor stays open); `AsyncFd<T>` implements `AsFd` only where `T` does (it
//!   never turns the cached descriptor number into a `BorrowedFd`);
//! - `process`: the stable API only (no `spawn_with`, which is `tokio_unstable`);
//!   orphans dropped after their runtime shut down are reaped at the next spawn or
//!   collected exit in the process, not by a signal handler;
//! - every I/O type *also* implements futures-io directly: a module that imports both
//!   families' extension traits (`futures::prelude::*` next to `runtime::io::AsyncReadExt`)
//!   must name the trait at ambiguous calls (see [`io`]).

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

mod block_on;
mod blocking;
mod builder;
mod context;
mod coop;
mod driver;
#[cfg(not(loom))]
pub mod fs;
mod handle;
#[cfg(all(feature = "hyper", not(loom)))]
pub mod hyper_compat;
#[cfg(not(loom))]
pub mod io;
mod local_runtime;
// Not API: what `select!`/`join!`/`try_join!` expand to must be reachable from the
// user's crate by path.
#[doc(hidden)]
pub mod macros;
mod misuse;
#[cfg(not(loom))]
pub mod net;
mod observe;
mod park;
#[cfg(all(unix, not(loom)))]
pub mod process;
mod rand;
pub mod runtime;
mod scheduler;
#[cfg(all(unix, not(loom)))]
pub mod signal;
#[cfg(all(feature = "deterministic", not(loom)))]
pub mod sim;

/// Not API: the expansion of `#[runtime::test(deterministic)]` (sim/test.rs).
#[cfg(all(feature = "deterministic", not(loom)))]
#[doc(hidden)]
#[macro_export]
macro_rules! __deterministic_test {
    ($package:expr, $module:expr, $name:expr, $seeds:expr, $build:expr, $body:expr $(,)?) => {
        $crate::sim::test::run(
            $crate::sim::test::TestId {
                package: $package,
                module: $module,
                name: $name,
            },
            $seeds,
            $build,
            $body,
        )
    };
}

/// Not API: the check of `#[runtime::test(deterministic)]` that the feature is on.
#[cfg(all(feature = "deterministic", not(loom)))]
#[doc(hidden)]
#[macro_export]
macro_rules! __deterministic_feature {
    () => {
        ()
    };
}

/// Not API: `#[runtime::test(deterministic)]` without the feature.
#[cfg(not(all(feature = "deterministic", not(loom))))]
#[doc(hidden)]
#[macro_export]
macro_rules! __deterministic_test {
    ($($t:tt)*) => {
        ::core::unreachable!()
    };
}

/// Not API: `#[runtime::test(deterministic)]` without the feature: the error that says
/// how to turn it on.
#[cfg(not(all(feature = "deterministic", not(loom))))]
#[doc(hidden)]
#[macro_export]
macro_rules! __deterministic_feature {
    () => {
        ::core::compile_error!(
            "`#[runtime::test(deterministic)]` needs the `deterministic` feature of `runtime`: \
             add `features = [\"deterministic\"]` to `runtime` in [dev-dependencies] (or run \
             `cargo test --features runtime/deterministic`)"
        )
    };
}
pub mod sync;
pub mod task;
mod threads;
#[cfg(not(loom))]
pub mod time;
mod unhandled;
mod util;

/// Not API: scheduler parts the loom suites drive directly (loom builds only).
#[cfg(loom)]
#[doc(hidden)]
pub mod loom_internals {
    pub use crate::scheduler::multi_thread::idle::Idle;
    pub use crate::scheduler::multi_thread::monitor::SleepHandshake;
    pub use crate::scheduler::multi_thread::worker_shared::WorkerShared;
}

pub use crate::builder::Builder;
pub use crate::handle::{EnterGuard, Handle, Id, RuntimeFlavor, TryCurrentError};
pub use crate::local_runtime::{LocalOptions, LocalRuntime};
#[cfg(not(loom))]
pub use crate::observe::dump;
#[doc(hidden)]
pub use crate::observe::hooks::FailOnStall as __FailOnStall;
pub use crate::observe::hooks::{NativeBacktrace, Stall};
pub use crate::observe::metrics::{
    HistogramConfiguration, InvalidHistogramConfiguration, LogHistogram, LogHistogramBuilder,
    WorkerMetrics,
};
pub use crate::observe::runtime_metrics::RuntimeMetrics;
pub use crate::rand::RngSeed;
pub use crate::runtime::{InBlockInPlace, RunningClosure, Runtime, ShutdownReport, StuckPoll};
pub use crate::task::spawn;
pub use crate::unhandled::UnhandledPanic;
pub use runtime_macros::{main, test};
/// `#[tokio::main]` / `#[tokio::test]` of the `tokio` patch crate (`compat/tokio`): the same
/// attributes, expanding to `::tokio` paths. Not for direct use.
#[doc(hidden)]
pub use runtime_macros::{tokio_main as __tokio_main, tokio_test as __tokio_test};
