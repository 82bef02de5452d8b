//! A small hyper-like HTTP/1.1 server on `runtime`, built on `httparse` and the `http` types.
//!
//! ```no_run
//! use examples::http::{self, service_fn, Body};
//!
//! #[runtime::main]
//! async fn main() -> std::io::Result<()> {
//!     let listener = runtime::net::TcpListener::bind("127.0.0.1:3000").await?;
//!     http::serve(listener, service_fn(|_req| async {
//!         Ok::<_, std::convert::Infallible>(::http::Response::new(Body::from("Hello, World!")))
//!     }))
//!     .await
//! }
//! ```
//!
//! One task per connection ([`server`]) runs the keep-alive loop of [`conn`]: every complete
//! request already in the read buffer is parsed ([`parse`]), its body read (Content-Length
//! or chunked, [`chunked`]), its handler run -- in request order, a panic or an error turning
//! into a 500 for that request only -- and its response encoded ([`encode`]) into one write
//! buffer, which goes out in ONE write when the batch is done (or before the connection would
//! wait: on a read, or on a handler that is not ready at once). Limits: a request head over
//! `max_head_size` (8 KiB) gets 431, a malformed one 400, a transfer coding other than
//! `chunked` 501, all of which close the connection; a body over `max_body_size` gets 413;
//! a client that does not finish its request head within `header_read_timeout` (10 s) is
//! dropped; a body that stops arriving for `body_read_timeout` (30 s) gets 408; a client
//! that reads none of its responses for `write_timeout` (30 s) is dropped. The answer to a
//! byte stream never depends on how it was cut into reads. Buffers are allocated once per
//! connection and reused; per request the server allocates the copy of its head (which
//! backs the URI and header values without further copies), the header map, and a body
//! buffer that grows as the body arrives (an announced length reserves nothing).

mod body;
mod chunked;
mod conn;
mod deadline;
pub mod duplex;
mod encode;
mod length;
mod parse;
mod server;
mod service;

pub use body::Body;
pub use server::{serve, Server};
pub use service::{service_fn, Service, ServiceFn};

/// The error type handlers may return: anything that converts into a boxed error.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
