//! A TCP echo server: `cargo run --example echo -- [PORT]` (default 0: the OS picks one).
//!
//! Listens on 127.0.0.1, prints the bound address, and echoes every connection back to
//! itself on its own task until the client closes its write side, then closes ours. An
//! accept error (say EMFILE, out of file descriptors) is reported and retried after a
//! short pause instead of spinning.
//!
//! Try it with `nc 127.0.0.1 PORT`.

use std::time::Duration;

use futures::io::AsyncWriteExt;
use runtime::net::{TcpListener, TcpStream};

#[runtime::main]
async fn main() -> std::io::Result<()> {
    let port: u16 = match std::env::args().nth(1) {
        Some(arg) => arg.parse().map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("bad port {arg:?}: {e}"),
            )
        })?,
        None => 0,
    };
    let listener = TcpListener::bind(("127.0.0.1", port)).await?;
    println!("echo server listening on {}", listener.local_addr()?);
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                let _detached = runtime::spawn(async move {
                    if let Err(e) = echo(stream).await {
                        eprintln!("{peer}: {e}");
                    }
                });
            }
            Err(e) => {
                eprintln!("accept failed: {e}; retrying shortly");
                runtime::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

async fn echo(mut stream: TcpStream) -> std::io::Result<u64> {
    // `TcpStream::split`, not `stream.split()`: the latter is `AsyncReadExt::split`.
    let (mut reader, mut writer) = TcpStream::split(&mut stream);
    let n = futures::io::copy(&mut reader, &mut writer).await?;
    writer.close().await?;
    Ok(n)
}
