//! Asynchronous I/O with tokio's names: `use tokio::io::X` ports as `use runtime::io::X`.
//!
//! ```
//! use runtime::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
//! use runtime::net::{TcpListener, TcpStream};
//!
//! # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
//! let listener = TcpListener::bind("127.0.0.1:0").await?;
//! let addr = listener.local_addr()?;
//! runtime::spawn(async move {
//!     let (sock, _) = listener.accept().await.unwrap();
//!     let (rd, mut wr) = sock.into_split();
//!     let mut lines = BufReader::new(rd).lines();
//!     while let Some(line) = lines.next_line().await.unwrap() {
//!         wr.write_all(format!("{line}!\n").as_bytes()).await.unwrap();
//!     }
//! });
//! let mut client = TcpStream::connect(addr).await?;
//! client.write_all(b"hello\n").await?;
//! let mut back = [0; 7];
//! client.read_exact(&mut back).await?;
//! assert_eq!(&back, b"hello!\n");
//! # Ok::<_, std::io::Error>(()) }).unwrap();
//! ```
//!
//! # The traits: one family, tokio's, by one of two routes
//!
//! [`AsyncRead`], [`AsyncWrite`], [`AsyncBufRead`], [`AsyncSeek`] and [`ReadBuf`], and the
//! io-util built on them (the `*Ext` traits, the buffered adapters, the combinators, the
//! copies), have tokio's names, signatures and behaviour, by one of two routes chosen
//! by the `tokio-traits` feature:
//!
//! - **With `tokio-traits` (the default)** they *are* tokio's: re-exported from the
//!   `tokio` crate built with only its `io-util` feature (no `rt`, `net` or `time`, so no
//!   tokio runtime exists, is started or is needed). Crates written against tokio's
//!   traits work on our sockets unchanged because the traits are the same ones:
//!   `tokio_util::codec::Framed`, `tokio-rustls`, hyper-util's `TokioIo`,
//!   async-compression's tokio types.
//! - **Without it** this crate owns them (`io/traits/`, `io/util/`), written to tokio
//!   1.x's public API as the specification: the same trait methods and provided methods,
//!   the same impls for `Box`, `&mut`, `Pin`, `&[u8]`, `Vec<u8>` and `std::io::Cursor`,
//!   every extension method, the same adapters with the same accessors, and the same
//!   error kinds and texts (`read_exact`'s "early eof", ...). This is the route of the
//!   `tokio` patch crate (`compat/tokio`): under `[patch.crates-io]` that crate *is*
//!   `tokio` and re-exports these items as `tokio::io`, so a dependency of ours on tokio
//!   would point back at it. Crates written against `tokio::io` then compile against
//!   ours, since there `tokio::io::AsyncRead` is `runtime::io::AsyncRead`.
//!
//! Either way a build has exactly one trait family, which every I/O type of this crate
//! implements directly; nothing is bridged or wrapped. The implementations are ours: a
//! read on a [`TcpStream`](crate::net::TcpStream) spends one unit of the task's
//! cooperative budget, waits on our I/O driver and `read(2)`s straight into the
//! `ReadBuf`'s unfilled part (no zero-filling, no intermediate copy; bytes already
//! initialized stay so).
//!
//! # futures-io too, directly (and the one ambiguity that costs)
//!
//! The same types also implement `futures::io::{AsyncRead, AsyncWrite}` directly, with no
//! adapter, because both are free: one type, two thin trait impls over the same poll
//! functions, and code of the futures/smol world keeps working unmodified. The price:
//! where *both* extension traits are in scope, e.g. `use futures::prelude::*;` (or
//! `futures::AsyncReadExt`) next to `use runtime::io::AsyncReadExt;`, a method that both
//! define (`read`, `write_all`, `flush`, ...) is ambiguous (E0034) and does not compile.
//! A program ported from tokio imports only tokio's (its `futures` imports are usually
//! `StreamExt`/`SinkExt`, which do not clash); a futures program imports only futures'.
//! Where a module has both in scope, name the trait at the call:
//!
//! ```
//! use futures::prelude::*; // brings futures' AsyncReadExt/AsyncWriteExt
//! use runtime::io::AsyncWriteExt;
//! # async fn f(mut s: runtime::net::TcpStream) -> std::io::Result<()> {
//! // `s.write_all(..)` would be E0034 (multiple applicable items) here, so:
//! AsyncWriteExt::write_all(&mut s, b"tokio's write_all").await?;
//! futures::io::AsyncWriteExt::flush(&mut s).await?;
//! # Ok(()) }
//! ```
//!
//! (A wrapper type for futures-io would remove the ambiguity but make every futures user
//! wrap and unwrap streams, and split halves and `into_std` would need wrapper twins.)
//!
//! # What each item is
//!
//! | item | from | trait family |
//! |---|---|---|
//! | `AsyncRead`, `AsyncWrite`, `AsyncBufRead`, `AsyncSeek`, `ReadBuf` | tokio (`tokio-traits`) or ours | tokio |
//! | `AsyncReadExt`, `AsyncWriteExt`, `AsyncBufReadExt`, `AsyncSeekExt` (`read_u32`, `write_all_buf`, `shutdown`, `lines`, ...) | tokio (`tokio-traits`) or ours | tokio |
//! | `BufReader`, `BufWriter`, `BufStream`, `Lines`, `Split`, `Take`, `Chain`, `split` (+ `ReadHalf`, `WriteHalf`), `join` (+ `Join`) | tokio (`tokio-traits`) or ours | tokio |
//! | `copy`, `copy_buf`, `copy_bidirectional`, `copy_bidirectional_with_sizes` | tokio (`tokio-traits`) or ours | tokio |
//! | [`duplex`] / [`DuplexStream`], [`simplex`] / [`SimplexStream`] | ours | both |
//! | [`empty`], [`sink`], [`repeat`] | ours | both |
//! | [`stdin`], [`stdout`], [`stderr`] | ours (blocking pool) | both |
//! | [`Interest`], [`Ready`], [`unix::AsyncFd`] and its guards | ours | — |
//! | `Error`, `ErrorKind`, `Result`, `SeekFrom` | `std::io` | — |
//!
//! The trait family and io-util are runtime-independent: generic code over the traits,
//! with no timer, no I/O driver and no task of its own. What touches the runtime is ours:
//!
//! - **The cooperative budget.** Every I/O object of this crate spends our budget on each
//!   operation, so `copy` from a socket to a socket, `BufReader` over a stream and
//!   `copy_bidirectional` over two streams all yield when the task's budget is spent.
//!   The in-memory objects that are always ready ([`empty`], [`sink`], [`repeat`],
//!   [`duplex`], [`simplex`]) are ours for that reason and spend our budget too
//!   (`copy(&mut repeat(0), &mut sink())` inside a `timeout` gives its worker back).
//!   Without `tokio-traits` the copies themselves (`copy`, `copy_buf`,
//!   `copy_bidirectional`) spend one unit of our budget per poll, as tokio's spend
//!   tokio's, so even a loop of copies between plain in-memory values (`&[u8]` into a
//!   `Vec<u8>`) yields. With `tokio-traits` they are tokio's and spend tokio's budget,
//!   inert without a tokio runtime: such a copy spends none of ours, and being finite
//!   simply finishes.
//! - **Standard streams** run blocking calls on our blocking pool, as tokio's do on its.
//!
//! [`unix::AsyncFd`] drives any other descriptor epoll can watch. Not here: tokio's
//! `io-uring` backed types. Files are [`crate::fs::File`].

pub(crate) mod blocking;
mod duplex;
mod interest;
pub(crate) mod io_source;
mod pipe;
mod simplex;
mod stdio;
#[cfg(test)]
mod tests;
#[cfg(not(feature = "tokio-traits"))]
mod traits;
mod trivial;
#[cfg(unix)]
pub mod unix;
#[cfg(not(feature = "tokio-traits"))]
mod util;

pub use std::io::{Error, ErrorKind, Result, SeekFrom};

#[cfg(feature = "tokio-traits")]
pub use tokio::io::{copy, copy_bidirectional, copy_bidirectional_with_sizes, copy_buf};
#[cfg(feature = "tokio-traits")]
pub use tokio::io::{join, split, Join, ReadHalf, WriteHalf};
#[cfg(feature = "tokio-traits")]
pub use tokio::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};
#[cfg(feature = "tokio-traits")]
pub use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
#[cfg(feature = "tokio-traits")]
pub use tokio::io::{BufReader, BufStream, BufWriter, Chain, Lines, Split, Take};

#[cfg(not(feature = "tokio-traits"))]
pub use traits::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};
#[cfg(not(feature = "tokio-traits"))]
pub use util::{copy, copy_bidirectional, copy_bidirectional_with_sizes, copy_buf};
#[cfg(not(feature = "tokio-traits"))]
pub use util::{join, split, Join, ReadHalf, WriteHalf};
#[cfg(not(feature = "tokio-traits"))]
pub use util::{AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
#[cfg(not(feature = "tokio-traits"))]
pub use util::{BufReader, BufStream, BufWriter, Chain, Lines, Split, Take};

pub use duplex::{duplex, DuplexStream};
pub use interest::{Interest, Ready};
pub use simplex::{simplex, SimplexStream};
pub use stdio::{stderr, stdin, stdout, Stderr, Stdin, Stdout};
pub use trivial::{empty, repeat, sink, Empty, Repeat, Sink};
