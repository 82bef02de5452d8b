//! hyper 1.x through hyper-util: `TokioIo` over our `TcpStream` and
//! `server::conn::auto::Builder` (HTTP/1.1 and HTTP/2 on one port).
//!
//! Ported from tokio by renaming `tokio::` to `runtime::`. One more edit: hyper-util's
//! `TokioExecutor`/`TokioTimer` need a tokio runtime (they call `tokio::spawn` and tokio's
//! timer), so hyper gets this runtime's executor and timer from `runtime::hyper_compat`.

use std::convert::Infallible;
use std::env;
use std::error::Error;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use hyper_util::server::conn::auto::Builder;
use runtime::hyper_compat::{HyperExecutor, HyperTimer};
use runtime::net::TcpListener;

async fn hello(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = format!("Hello, World! ({:?} {})\n", req.version(), req.uri().path());
    Ok(Response::new(Full::new(Bytes::from(body))))
}

#[runtime::main]
async fn main() -> Result<(), Box<dyn Error + Send + Sync>> {
    let addr = env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3000".to_string());

    let listener = TcpListener::bind(&addr).await?;
    println!("Listening on: {}", listener.local_addr()?);

    loop {
        let (stream, _) = listener.accept().await?;
        let io = TokioIo::new(stream);

        runtime::spawn(async move {
            let mut builder = Builder::new(HyperExecutor);
            builder.http1().timer(HyperTimer);
            builder.http2().timer(HyperTimer);
            if let Err(err) = builder.serve_connection(io, service_fn(hello)).await {
                eprintln!("Error serving connection: {err:?}");
            }
        });
    }
}
