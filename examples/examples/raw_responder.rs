//! The smallest keep-alive HTTP responder, the SAME code on our runtime and on tokio:
//! `cargo run --release --example raw_responder -- [PORT] [--runtime ours|tokio]`
//! (default port 3000, runtime `ours`).
//!
//! Per connection (`respond`, generic over any `futures::io` stream): read; every request
//! head complete in the buffer (ended by `\r\n\r\n`; bodies are not supported) gets one
//! fixed 200 response; all responses of one read go out in one write. On tokio the stream is
//! wrapped in `examples::tokio_stream::TokioStream`, a pass-through adapter to the
//! `futures::io` traits. Worker threads: `RUNTIME_WORKER_THREADS` / `TOKIO_WORKER_THREADS`,
//! or one per core.

use std::io;
use std::time::Duration;

use examples::tokio_stream::TokioStream;
use futures::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

const RESPONSE: &[u8] =
    b"HTTP/1.1 200 OK\r\ncontent-length: 13\r\ncontent-type: text/plain\r\n\r\nHello, World!";

/// Serves one connection until EOF.
async fn respond<S: AsyncRead + AsyncWrite + Unpin>(mut stream: S) -> io::Result<()> {
    let mut buf = vec![0u8; 8192];
    let mut out = Vec::new();
    let mut filled = 0;
    loop {
        let n = stream.read(&mut buf[filled..]).await?;
        if n == 0 {
            return Ok(());
        }
        filled += n;
        let mut start = 0;
        let mut count = 0;
        while let Some(end) = head_end(&buf[start..filled]) {
            start += end;
            count += 1;
        }
        buf.copy_within(start..filled, 0);
        filled -= start;
        if filled == buf.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "request head too large",
            ));
        }
        match count {
            0 => {}
            1 => stream.write_all(RESPONSE).await?,
            _ => {
                out.clear();
                for _ in 0..count {
                    out.extend_from_slice(RESPONSE);
                }
                stream.write_all(&out).await?;
            }
        }
    }
}

/// Length of the first request head in `buf` (through its `\r\n\r\n`), if complete.
fn head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut which = "ours".to_string();
    let mut port = 3000u16;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runtime" => which = it.next().expect("--runtime ours|tokio").clone(),
            p => port = p.parse().expect("PORT must be a number"),
        }
    }
    match which.as_str() {
        "ours" => on_ours(port),
        "tokio" => on_tokio(port),
        other => panic!("--runtime must be `ours` or `tokio`, not {other:?}"),
    }
}

fn on_ours(port: u16) -> io::Result<()> {
    let rt = runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async {
        let listener = runtime::net::TcpListener::bind(("127.0.0.1", port)).await?;
        println!(
            "raw_responder (ours) listening on http://{}",
            listener.local_addr()?
        );
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    drop(runtime::spawn(respond(stream)));
                }
                Err(e) => {
                    eprintln!("raw_responder: accept failed: {e}; retrying");
                    runtime::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    })
}

fn on_tokio(port: u16) -> io::Result<()> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    // Built with `--cfg tokio_unstable` (the bench scripts' tuned-tokio build): tokio as
    // production users run it, with the alternative timer and the eager driver hand-off.
    #[cfg(tokio_unstable)]
    builder.enable_alt_timer().enable_eager_driver_handoff();
    let rt = builder.enable_all().build()?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        println!(
            "raw_responder (tokio) listening on http://{}",
            listener.local_addr()?
        );
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(respond(TokioStream(stream)));
                }
                Err(e) => {
                    eprintln!("raw_responder: accept failed: {e}; retrying");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    })
}
