//! hyper 1.x on tokio, the classic setup (the benchmark's reference):
//! `cargo run --release --example hyper_tokio -- [PORT] [--timer]` (default port 3000).
//!
//! tokio's multi-thread runtime (worker threads: one per core, or `TOKIO_WORKER_THREADS`),
//! `hyper_util::rt::TokioIo` around each accepted stream, hyper's `http1` hello world on its
//! own task. `--timer` gives hyper `TokioTimer`, mirroring `hyper_server --timer`.

use std::convert::Infallible;
use std::io;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};

async fn hello(_req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(
        b"Hello, World!",
    ))))
}

fn main() -> io::Result<()> {
    // `#[tokio::main]`'s runtime; built with `--cfg tokio_unstable` (the bench scripts'
    // tuned-tokio build), tokio as production users run it: the alternative timer and the
    // eager driver hand-off.
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    #[cfg(tokio_unstable)]
    builder.enable_alt_timer().enable_eager_driver_handoff();
    builder.enable_all().build()?.block_on(serve())
}

async fn serve() -> io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let with_timer = args.iter().any(|a| a == "--timer");
    let port: u16 = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map_or(3000, |p| p.parse().expect("PORT must be a number"));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("hyper_tokio listening on http://{}", listener.local_addr()?);
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                eprintln!("hyper_tokio: accept failed: {e}; retrying");
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let mut builder = http1::Builder::new();
            if with_timer {
                builder.timer(TokioTimer::new());
            }
            if let Err(e) = builder
                .serve_connection(TokioIo::new(stream), service_fn(hello))
                .await
            {
                if !e.is_incomplete_message() {
                    eprintln!("hyper_tokio: connection error: {e}");
                }
            }
        });
    }
}
