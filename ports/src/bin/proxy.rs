//! A TCP proxy: every accepted connection is joined to a new connection to the server
//! with `io::copy_bidirectional` (tokio's `proxy` example).
//!
//! Ported from tokio by renaming `tokio::` to `runtime::`; nothing else changed.

use runtime::io::copy_bidirectional;
use runtime::net::{TcpListener, TcpStream};

use futures::FutureExt;
use std::env;
use std::error::Error;

#[runtime::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let listen_addr = env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8081".to_string());
    let server_addr = env::args()
        .nth(2)
        .unwrap_or_else(|| "127.0.0.1:8080".to_string());

    let listener = TcpListener::bind(listen_addr).await?;
    println!("Listening on: {}", listener.local_addr()?);
    println!("Proxying to: {server_addr}");

    while let Ok((mut inbound, _)) = listener.accept().await {
        let mut outbound = TcpStream::connect(server_addr.clone()).await?;

        runtime::spawn(async move {
            copy_bidirectional(&mut inbound, &mut outbound)
                .map(|r| {
                    if let Err(e) = r {
                        eprintln!("Failed to transfer; error={e}");
                    }
                })
                .await
        });
    }

    Ok(())
}
