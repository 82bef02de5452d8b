//! hyper 1.x serving its `http1` hello world on our runtime:
//! `cargo run --release --example hyper_server -- [PORT] [--timer]` (default port 3000; 0
//! lets the OS pick).
//!
//! The same server as `hyper_tokio.rs`, renamed: each accepted `runtime::net::TcpStream` is
//! wrapped in hyper-util's `TokioIo` (our sockets implement tokio's I/O traits, and `TokioIo`
//! reads into hyper's uninitialized buffer; `runtime::hyper_compat::HyperIo`, the adapter for
//! futures-io-only streams, would zero-fill it on every read) and served on its own task.
//! `--timer` gives hyper our `HyperTimer` (enabling its header-read timeout); without it hyper
//! runs timer-less, as in hyper's own examples. Accept errors are reported and retried after
//! a short sleep rather than in a spin. `tests/hyper_client.rs` includes this file to test
//! `serve` against hyper's client.

use std::convert::Infallible;
use std::io;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use runtime::hyper_compat::HyperTimer;
use runtime::net::TcpListener;

/// The hello-world handler.
pub async fn hello(_req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(
        b"Hello, World!",
    ))))
}

/// Accepts forever, serving hyper's http1 on each connection.
pub async fn serve(listener: TcpListener, with_timer: bool) -> io::Result<()> {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                eprintln!("hyper_server: accept failed: {e}; retrying");
                runtime::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        drop(runtime::spawn(async move {
            let mut builder = http1::Builder::new();
            if with_timer {
                builder.timer(HyperTimer);
            }
            if let Err(e) = builder
                .serve_connection(TokioIo::new(stream), service_fn(hello))
                .await
            {
                if !e.is_incomplete_message() {
                    eprintln!("hyper_server: connection error: {e}");
                }
            }
        }));
    }
}

#[allow(dead_code)] // the test that includes this file does not call `main`
#[runtime::main]
async fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let with_timer = args.iter().any(|a| a == "--timer");
    let port = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map_or(3000, |p| p.parse().expect("PORT must be a number"));
    let listener = TcpListener::bind(("127.0.0.1", port)).await?;
    println!(
        "hyper_server listening on http://{}",
        listener.local_addr()?
    );
    serve(listener, with_timer).await
}
