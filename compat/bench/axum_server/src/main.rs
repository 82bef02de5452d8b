//! An axum server for the runtime comparison (benches/scripts/axum_compare.sh): `GET /json`
//! answers a small JSON object, `POST /echo` answers the request body unchanged, on two
//! worker threads.
//!
//! The same file builds against this runtime (the compat workspace, where `tokio` is the
//! patch crate) and against the registry's tokio (compat/bench/tokio-baseline), so the two
//! binaries differ only in the runtime.
//!
//! Usage: `axum_server [--port P] [--secs N]`. It binds 127.0.0.1:P (P = 0: a port the OS
//! picks), prints `worker thread: NAME` (the name of the thread a spawned task runs on,
//! which tells the runtimes apart: `runtime-worker` against tokio's `tokio-rt-worker`) and
//! then `listening on http://127.0.0.1:PORT`, and serves until SIGTERM, SIGINT or, with
//! `--secs`, N seconds; it then stops accepting, lets open connections finish and exits 0.

use std::process::exit;
use std::time::Duration;

use axum::body::Bytes;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;
use tokio::net::TcpListener;
use tokio::signal::unix::{signal, SignalKind};

/// The body of `GET /json`.
#[derive(Serialize)]
struct Greeting {
    message: &'static str,
    id: u32,
}

async fn json() -> Json<Greeting> {
    Json(Greeting {
        message: "Hello, World!",
        id: 1,
    })
}

async fn echo(body: Bytes) -> impl IntoResponse {
    ([(CONTENT_TYPE, "application/json")], body)
}

/// `--port P` and `--secs N`; exits with a usage line on anything else.
fn parse_args() -> (u16, Option<u64>) {
    let usage = || -> ! {
        eprintln!("usage: axum_server [--port P] [--secs N]");
        exit(2)
    };
    let mut port = 0;
    let mut secs = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_else(|| usage());
        match flag.as_str() {
            "--port" => port = value.parse().unwrap_or_else(|_| usage()),
            "--secs" => secs = Some(value.parse().unwrap_or_else(|_| usage())),
            _ => usage(),
        }
    }
    (port, secs)
}

/// Completes on SIGTERM, SIGINT, or after `secs` seconds when given.
async fn stop_signal(secs: Option<u64>) {
    let mut term = signal(SignalKind::terminate()).expect("installing the SIGTERM handler");
    let mut int = signal(SignalKind::interrupt()).expect("installing the SIGINT handler");
    let limit = async {
        match secs {
            Some(s) => tokio::time::sleep(Duration::from_secs(s)).await,
            None => std::future::pending().await,
        }
    };
    let why = tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
        _ = limit => "time limit",
    };
    eprintln!("axum_server: {why}, shutting down");
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let (port, secs) = parse_args();
    let listener = TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap_or_else(|e| panic!("binding 127.0.0.1:{port}: {e}"));
    let addr = listener.local_addr().expect("the listener's address");
    let worker = tokio::spawn(async {
        std::thread::current()
            .name()
            .unwrap_or("<unnamed>")
            .to_string()
    })
    .await
    .expect("the probe task");
    println!("worker thread: {worker}");
    println!("listening on http://{addr}");

    let app = Router::new()
        .route("/json", get(json))
        .route("/echo", post(echo));
    axum::serve(listener, app)
        .with_graceful_shutdown(stop_signal(secs))
        .await
        .expect("serving");
}
