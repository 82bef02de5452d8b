//! A line client: lines typed on stdin go to a TCP server, what it sends back goes to
//! stdout; EOF on stdin shuts down the write direction, and the program ends when the
//! server closes.
//!
//! Ported from tokio by renaming `tokio::` to `runtime::`; nothing else changed.

use runtime::io::{self, AsyncBufReadExt, AsyncWriteExt, BufReader};
use runtime::net::TcpStream;

use std::env;
use std::error::Error;

#[runtime::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let addr = env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".to_string());

    let stream = TcpStream::connect(&addr).await?;
    let (mut reader, mut writer) = stream.into_split();

    let sender = runtime::spawn(async move {
        let mut lines = BufReader::new(io::stdin()).lines();
        while let Some(line) = lines.next_line().await? {
            writer.write_all(line.as_bytes()).await?;
            writer.write_all(b"\n").await?;
        }
        writer.shutdown().await?;
        Ok::<_, io::Error>(())
    });

    let mut stdout = io::stdout();
    io::copy(&mut reader, &mut stdout).await?;
    stdout.flush().await?;

    sender.await??;
    Ok(())
}
