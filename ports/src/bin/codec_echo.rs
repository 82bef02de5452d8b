//! A line-based echo server over `tokio_util::codec::Framed` and `LinesCodec`.
//!
//! Ported from tokio by renaming `tokio::` to `runtime::`; nothing else changed.

use futures::SinkExt;
use futures::StreamExt;
use runtime::net::TcpListener;
use tokio_util::codec::{Framed, LinesCodec};

use std::env;
use std::error::Error;

#[runtime::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let addr = env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".to_string());

    let listener = TcpListener::bind(&addr).await?;
    println!("Listening on: {}", listener.local_addr()?);

    loop {
        let (socket, _) = listener.accept().await?;

        runtime::spawn(async move {
            let mut lines = Framed::new(socket, LinesCodec::new());

            while let Some(result) = lines.next().await {
                match result {
                    Ok(line) => {
                        if let Err(e) = lines.send(line).await {
                            eprintln!("error sending; error = {e:?}");
                            break;
                        }
                    }
                    Err(e) => {
                        eprintln!("error on socket; error = {e:?}");
                        break;
                    }
                }
            }
        });
    }
}
