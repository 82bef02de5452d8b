//! Asynchronous networking: TCP, UDP and (on unix) Unix domain stream and datagram sockets.
//!
//! Every socket owns a non-blocking mio socket registered with the runtime's I/O driver:
//! an operation spends one unit of the task's cooperative budget, waits
//! for the driver to report readiness in its direction, tries the syscall and, on
//! `WouldBlock`, clears the readiness it saw and waits again. Dropping a socket removes it
//! from epoll, closes it and frees its driver slot; a task waiting on a socket whose
//! runtime shuts down is woken with an error. Sockets must be created inside a runtime
//! built with `Builder::enable_io()` (`#[runtime::main]` enables it); elsewhere they panic
//! with a message saying so.
//!
//! In a deterministic runtime (`Builder::deterministic`, feature `deterministic`) the same
//! types live in the runtime's in-memory network instead: TCP, UDP and Unix sockets on
//! loopback addresses (and a path namespace of the network's own) with the
//! kernel's semantics (ephemeral ports, `AddrInUse`, `ConnectionRefused`, bounded
//! windows, half-close, resets), every write arriving after a seeded delay of virtual
//! time, so a run with its network replays from the seed. A non-loopback address and a
//! real resource (`from_std`, a raw descriptor, a `UnixSocket`, a pipe) panic
//! there, naming the call site; `localhost` is the only host name.
//!
//! Streams (and their halves) implement both I/O trait families, tokio's and futures-io
//! (see [`crate::io`] for the choice): this example uses futures-io's extension traits,
//! the one in [`crate::io`] tokio's.
//!
//! ```
//! use futures::io::{AsyncReadExt, AsyncWriteExt};
//! use runtime::net::{TcpListener, TcpStream};
//!
//! # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
//! let listener = TcpListener::bind("127.0.0.1:0").await?;
//! let addr = listener.local_addr()?;
//! runtime::spawn(async move {
//!     let (mut sock, _) = listener.accept().await.unwrap();
//!     let mut buf = [0; 5];
//!     sock.read_exact(&mut buf).await.unwrap();
//!     sock.write_all(&buf).await.unwrap();
//! });
//! let mut client = TcpStream::connect(addr).await?;
//! client.write_all(b"hello").await?;
//! let mut back = [0; 5];
//! client.read_exact(&mut back).await?;
//! assert_eq!(&back, b"hello");
//! # Ok::<_, std::io::Error>(()) }).unwrap();
//! ```

#[macro_use]
mod sim_hooks;
mod addr;
mod buf_io;
mod split;
pub(crate) mod stream_io;
pub mod tcp;
#[cfg(all(test, unix))]
mod tests;
mod udp;
#[cfg(unix)]
pub mod unix;

pub use addr::ToSocketAddrs;

/// Resolves `host` (`"name:port"`, an address, a `(host, port)` pair) to its addresses,
/// as tokio's: a name is looked up with `getaddrinfo` on the blocking pool, so the
/// worker keeps running other tasks meanwhile.
///
/// ```
/// # runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let addrs: Vec<_> = runtime::net::lookup_host("127.0.0.1:80").await?.collect();
/// assert_eq!(addrs, ["127.0.0.1:80".parse().unwrap()]);
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
///
/// # Errors
/// What the resolver says (an unknown name, no port, ...).
pub async fn lookup_host<T: ToSocketAddrs>(
    host: T,
) -> std::io::Result<impl Iterator<Item = std::net::SocketAddr>> {
    addr::resolve(&host).await.map(Vec::into_iter)
}
pub use tcp::{TcpListener, TcpSocket, TcpStream};
pub use udp::UdpSocket;
#[cfg(unix)]
pub use unix::{UnixDatagram, UnixListener, UnixSocket, UnixStream};
