//! Our hyper-like server (`examples::http`) saying "Hello, World!":
//! `cargo run --release --example http_server -- [PORT]` (default 3000; 0 lets the OS pick).
//!
//! Listens on 127.0.0.1 and prints the bound address. Worker threads: one per core, or
//! `RUNTIME_WORKER_THREADS`.

use std::convert::Infallible;

use examples::http::{self, service_fn, Body};

#[runtime::main]
async fn main() -> std::io::Result<()> {
    let port = std::env::args()
        .skip(1)
        .find(|a| a != "--port")
        .map_or(3000, |p| p.parse().expect("PORT must be a number"));
    let listener = runtime::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("http_server listening on http://{}", listener.local_addr()?);
    http::serve(
        listener,
        service_fn(|_req| async {
            Ok::<_, Infallible>(::http::Response::new(Body::from("Hello, World!")))
        }),
    )
    .await
}
