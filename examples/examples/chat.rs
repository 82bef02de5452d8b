//! A chat server: `cargo run --example chat -- [PORT]` (default 0: the OS picks one).
//!
//! Every client's first line is its name; each later line goes to every other client as
//! `NAME: LINE`. One task per client, a room task, `broadcast` + `mpsc` + `select!`
//! (see `examples::chat`). Try it with two or more `nc 127.0.0.1 PORT`.

use runtime::net::TcpListener;

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
    println!("chat server listening on {}", listener.local_addr()?);
    examples::chat::serve(listener).await
}
