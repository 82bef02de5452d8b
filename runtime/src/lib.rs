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
//! A tokio program ports by renaming `tokio::` to `runtime::` (and `#[tokio::main]` to
//! `#[runtime::main]`); crates written against tokio's I/O traits keep working on our
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
//!   `worker_threads`, `start_paused`, `crate = ".."`;
//! - `spawn`, `task::{spawn_blocking, yield_now, JoinHandle, AbortHandle, JoinError, Id,
//!   id, try_id, JoinSet, consume_budget, unconstrained, coop}`, `task_local!` (`JoinHandle`
//!   is not `#[must_use]`, as tokio's); `task::block_in_place` on the multi-thread flavor
//!   (it panics on current-thread, as tokio's);
//! - `!Send` tasks: `task::{spawn_local, LocalSet}` (`run_until`, `block_on`, awaiting the
//!   set), `LocalRuntime` (`Builder::build_local(LocalOptions::default())`),
//!   `JoinSet::spawn_local{,_on}`;
//! - `Builder` (with `on_thread_{start,stop,park,unpark}`, `name`, `rng_seed`; the default
//!   worker count honours `TOKIO_WORKER_THREADS`), `Runtime`, `Handle` (`id`, `name`,
//!   `metrics`), `RuntimeMetrics`' methods (`num_workers()`, `num_alive_tasks()`,
//!   `global_queue_depth()`, `worker_*_count(i)`, `worker_total_busy_duration(i)`; a live
//!   view, as tokio's), each at the crate root and at tokio's path
//!   (`runtime::runtime::{Builder, Runtime, Handle, ..}`);
//! - `select!` (refutable patterns, `if` preconditions, `else`, `biased;`), `join!`,
//!   `try_join!`, `pin!`;
//! - `sync`: `Mutex`, `RwLock`, `Semaphore` (and their owned/mapped guards), `Notify`,
//!   `Barrier`, `OnceCell`, `oneshot`, `mpsc`, `watch`, `broadcast`;
//! - `net`: `TcpListener`, `TcpStream` and its halves, `TcpSocket`, `UdpSocket`,
//!   `UnixListener`, `UnixStream` and its halves, `UnixDatagram`, Linux abstract Unix
//!   names (`"\0name"`) (std-style `shutdown(how)` is `shutdown_std`, so that
//!   `stream.shutdown().await` is tokio's `AsyncWriteExt::shutdown`);
//! - [`io`]: tokio's traits (`AsyncRead`, `AsyncWrite`, `AsyncBufRead`, `AsyncSeek`,
//!   `ReadBuf`), its `Ext` traits and buffers, `split`, `copy*`, `duplex`, `simplex`,
//!   `empty`/`sink`/`repeat`, `stdin`/`stdout`/`stderr`, `Interest`/`Ready`; every I/O
//!   type implements tokio's traits directly, so `tokio-util` (codecs, `io` helpers),
//!   `tokio-rustls`, hyper-util's `TokioIo` and other crates generic over those traits
//!   work unchanged;
//! - `fs` (each call on the blocking pool, as tokio's; `File` speaks both trait
//!   families), `signal::ctrl_c` and `signal::unix::{signal, SignalKind, Signal}`;
//! - `time`: `sleep`, `sleep_until`, `timeout`, `timeout_at`, `interval`, `interval_at`,
//!   `Interval`, `MissedTickBehavior`, and paused time (`pause`, `resume`, `advance`,
//!   `Builder::start_paused`; current-thread runtimes only, as in tokio's tests).
//!
//! **Not compatible, or missing:**
//! - anything that calls tokio's own runtime: `tokio::spawn`, tokio's timer or tokio's
//!   `net` types inside a crate. Notably hyper-util's `TokioExecutor`/`TokioTimer` (use
//!   `hyper_compat::{HyperExecutor, HyperTimer}`, feature `hyper`), `tokio-stream`'s
//!   wrappers of tokio's `net` types (`TcpListenerStream`), `tokio_util::time`;
//! - not implemented yet: `process`, `io::unix::AsyncFd`;
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
mod hooks;
#[cfg(all(feature = "hyper", not(loom)))]
pub mod hyper_compat;
#[cfg(not(loom))]
pub mod io;
mod local_runtime;
// Not API: what `select!`/`join!`/`try_join!` expand to must be reachable from the
// user's crate by path.
#[doc(hidden)]
pub mod macros;
mod metrics;
mod misuse;
#[cfg(not(loom))]
pub mod net;
mod park;
mod rand;
pub mod runtime;
mod scheduler;
#[cfg(all(unix, not(loom)))]
pub mod signal;
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
    pub use crate::scheduler::multi_thread::stall::WorkerShared;
}

pub use crate::builder::Builder;
pub use crate::handle::{EnterGuard, Handle, Id, RuntimeFlavor, TryCurrentError};
pub use crate::local_runtime::{LocalOptions, LocalRuntime};
pub use crate::metrics::{RuntimeMetrics, Stall, WorkerMetrics};
pub use crate::rand::RngSeed;
pub use crate::runtime::Runtime;
pub use crate::task::spawn;
pub use crate::unhandled::UnhandledPanic;
pub use runtime_macros::{main, test};
