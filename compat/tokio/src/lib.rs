//! `tokio`: the `runtime` work-stealing runtime under tokio's name and paths.
//!
//! A program moves to `runtime` with its whole dependency graph (axum, reqwest, tonic,
//! sqlx, tower, hyper-util, tokio-util, tokio-stream, tokio-tungstenite, ...) by patching
//! `tokio` in its `Cargo.toml`:
//!
//! ```toml
//! [patch.crates-io]
//! tokio = { path = "<checkout>/compat/tokio" }
//! ```
//!
//! Every crate that depends on `tokio` then compiles against this crate, and the process
//! holds one scheduler, one I/O driver and one timer: `runtime`'s. No part of tokio's own
//! runtime is built.
//!
//! # What it is
//!
//! Re-exports, nothing else: each tokio module path names the module of `runtime` with the
//! same items (`tokio::net::TcpStream` is `runtime::net::TcpStream`, `tokio::runtime::Builder`
//! is `runtime::runtime::Builder`, ...), `tokio::spawn`, the macros (`select!`, `join!`,
//! `try_join!`, `pin!`, `task_local!`) and the attributes `#[tokio::main]` and
//! `#[tokio::test]`, whose expansion names `::tokio` (so a crate that depends only on
//! `tokio` can use them). Every tokio feature name is accepted and none changes anything.
//!
//! The I/O traits (`tokio::io::{AsyncRead, AsyncWrite, AsyncBufRead, AsyncSeek, ReadBuf}`)
//! and io-util are `runtime`'s own (built without its `tokio-traits` feature): one trait
//! family for the whole graph, with tokio's signatures, implemented by every I/O type.
//!
//! # What it does not provide, and why
//!
//! - `tokio_unstable` items (task dumps as tokio's `Handle::dump`, tokio's unstable
//!   metrics, `LocalSet` hooks, io-uring): tokio offers them only under
//!   `--cfg tokio_unstable`; `runtime` has its own dump (`runtime::dump`).
//! - tokio's private modules: a crate that reaches into them does not build.
//! - Windows-only items (`tokio::net::windows`, `tokio::signal::windows`): this runtime
//!   runs on Unix.
//! - A crate of the graph that depends on `runtime` *with* its default features turns
//!   `tokio-traits` back on, and cargo then reports a cycle (`runtime` -> `tokio` ->
//!   `runtime`): under the patch, depend on `runtime` with `default-features = false`, or
//!   only on `tokio`.

pub use rt::{fs, io, net, process, runtime, signal, sync, task, time};

pub use rt::spawn;
pub use rt::{join, pin, select, task_local, try_join};

/// Marks `async fn main` to run on a runtime built for it: `runtime`'s `#[main]`, whose
/// expansion names `::tokio`. Arguments as tokio's (`flavor`, `worker_threads`,
/// `start_paused`, `crate`, `unhandled_panic`, ...).
pub use rt::__tokio_main as main;

/// Marks an `async fn` test to run on a runtime built for it: `runtime`'s `#[test]`, whose
/// expansion names `::tokio`.
pub use rt::__tokio_test as test;

// `tokio::macros::support`, which tokio's own tests name (`poll_fn`).
#[doc(hidden)]
pub use rt::macros;

// What the expansion of `#[tokio::main]` / `#[tokio::test]` names under `::tokio`.
#[doc(hidden)]
pub use rt::{__FailOnStall, Builder, LocalOptions, UnhandledPanic};
#[doc(hidden)]
pub use rt::{__deterministic_feature, __deterministic_test};

/// Not tokio's: the runtime's deterministic mode (feature `deterministic`), for
/// `#[tokio::test(flavor = "multi_thread", deterministic, seeds = N)]` and
/// `runtime::Builder::deterministic`.
#[cfg(feature = "deterministic")]
pub use rt::sim;
