//! tokio programs ported to `runtime` by renaming the crate.
//!
//! Each program in `src/bin/` is written the way a tokio user writes it and differs from
//! its tokio original only in `tokio::` → `runtime::` (and `#[tokio::main]` →
//! `#[runtime::main]`). The ecosystem crates stay as they are: `tokio-util`'s codecs,
//! `tokio-rustls`, hyper-util's `TokioIo` and its `auto` server builder all run on
//! `runtime`'s sockets through tokio's `AsyncRead`/`AsyncWrite`, which `runtime`
//! implements directly.
//!
//! The one edit that is not the rename is in `hyper_auto`: hyper-util's `TokioExecutor`
//! and `TokioTimer` call `tokio::spawn` and tokio's timer, which need a tokio runtime, so
//! the program hands hyper `runtime::hyper_compat::{HyperExecutor, HyperTimer}` instead.
//!
//! | program | what it ports | driven by |
//! |---|---|---|
//! | `codec_echo` | a line echo over `tokio_util::codec::Framed` + `LinesCodec` | `tests/codec_echo.rs` |
//! | `tls_echo` | a TLS echo server with `tokio-rustls` (rustls on `ring`) | `tests/tls_echo.rs` |
//! | `hyper_auto` | hyper 1.x via hyper-util's `TokioIo` and `server::conn::auto::Builder` | `tests/hyper_auto.rs` |
//! | `proxy` | tokio's proxy example, `io::copy_bidirectional` | `tests/proxy.rs` |
//! | `line_client` | a stdin → TCP → stdout line client (`io::stdin`, `io::stdout`) | `tests/line_client.rs` |
//! | `job_runner` | a child's stdout streamed line by line (`process::Command`, `FramedRead` + `LinesCodec`) | `tests/job_runner.rs` |
//! | `inotify_watch` | a directory watcher on an inotify descriptor (`io::unix::AsyncFd`) | `tests/inotify_watch.rs` |
//!
//! Each server prints `Listening on: ADDR` as its first line (bind to port 0 and read it).
