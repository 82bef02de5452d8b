//! `TcpStream`: a connected TCP socket driven by the runtime's I/O driver.
//!
//! `connect` resolves the address (host names on the blocking pool), starts a non-blocking
//! connect per address and waits for writability; the connect succeeded when the socket
//! has no pending error and a peer address (`NotConnected` means "still in progress":
//! clear that readiness and wait again). Reads and writes go through `IoSource`
//! (budgeted, edge-triggered, short transfers clear readiness). The stream implements
//! tokio's `AsyncRead`/`AsyncWrite` and `futures::io::{AsyncRead, AsyncWrite}` (see
//! `runtime::io`); `poll_shutdown`/`poll_close` shut down the write direction so the peer
//! reads EOF while this side can still read.

use std::fmt;
use std::future::poll_fn;
use std::io;
use std::net::{Shutdown, SocketAddr};
use std::task::{Context, Poll};

use io_driver::Direction;
use mio::Interest;

use super::split::{self, OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use crate::io::io_source::IoSource;
use crate::net::addr::{each_addr, ToSocketAddrs};

/// What a stream is registered for: both directions, and (Linux, Android) urgent data
/// (`EPOLLPRI`), which `ready(Interest::PRIORITY)` reports.
#[cfg(any(target_os = "linux", target_os = "android"))]
const STREAM_INTEREST: Interest = Interest::READABLE
    .add(Interest::WRITABLE)
    .add(Interest::PRIORITY);
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const STREAM_INTEREST: Interest = Interest::READABLE.add(Interest::WRITABLE);

/// A TCP connection. See the module docs of [`crate::net`].
pub struct TcpStream {
    io: sim_or!(IoSource<mio::net::TcpStream>, crate::sim::net::tcp::Stream),
}

impl TcpStream {
    /// Opens a connection to `addr`, trying each resolved address in turn.
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`. In a
    /// deterministic runtime, for an address that is not loopback (its network is in
    /// memory).
    #[track_caller]
    pub fn connect<A: ToSocketAddrs>(
        addr: A,
    ) -> impl std::future::Future<Output = io::Result<TcpStream>> {
        let at = std::panic::Location::caller();
        async move {
            sim_current!(|sim| {
                let settings = crate::sim::net::tcp::Settings::default();
                each_addr(&addr, |a| {
                    TcpStream::connect_sim(&sim, a, None, settings, "TcpStream::connect", at)
                })
                .await
            });
            let _ = at;
            each_addr(&addr, Self::connect_addr).await
        }
    }

    /// Connects in a deterministic runtime's in-memory network (`local`: a binding of
    /// a `TcpSocket`).
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) async fn connect_sim(
        sim: &std::sync::Arc<crate::sim::Sim>,
        target: SocketAddr,
        local: Option<SocketAddr>,
        settings: crate::sim::net::tcp::Settings,
        what: &str,
        at: &'static std::panic::Location<'static>,
    ) -> io::Result<TcpStream> {
        let stream = crate::sim::net::tcp::connect(sim, target, local, settings, what, at)?;
        poll_fn(|cx| stream.poll_connected(cx)).await?;
        Ok(TcpStream::from_sim(stream))
    }

    /// `TcpSocket::connect` in a deterministic runtime.
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) async fn connect_socket_sim(
        socket: crate::sim::net::tcp::Socket,
        target: SocketAddr,
        at: &'static std::panic::Location<'static>,
    ) -> io::Result<TcpStream> {
        let stream = socket.connect(target, at)?;
        poll_fn(|cx| stream.poll_connected(cx)).await?;
        Ok(TcpStream::from_sim(stream))
    }

    /// A stream over an in-memory connection.
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) fn from_sim(stream: crate::sim::net::tcp::Stream) -> TcpStream {
        TcpStream {
            io: crate::sim::net::Io::Sim(stream),
        }
    }

    async fn connect_addr(addr: SocketAddr) -> io::Result<TcpStream> {
        TcpStream::connect_mio(mio::net::TcpStream::connect(addr)?).await
    }

    /// Registers a socket whose non-blocking connect is in progress and waits for it.
    pub(crate) async fn connect_mio(mio: mio::net::TcpStream) -> io::Result<TcpStream> {
        let stream = TcpStream::new(mio)?;
        poll_fn(|cx| stream.poll_connected(cx)).await?;
        Ok(stream)
    }

    fn poll_connected(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_io(cx, Direction::Write, |s| {
            if let Some(e) = s.take_error()? {
                return Err(e);
            }
            match s.peer_addr() {
                Ok(_) => Ok(()),
                Err(e) if e.kind() == io::ErrorKind::NotConnected => {
                    Err(io::ErrorKind::WouldBlock.into())
                }
                Err(e) => Err(e),
            }
        })
    }

    #[track_caller]
    pub(crate) fn new(mio: mio::net::TcpStream) -> io::Result<TcpStream> {
        let source = IoSource::new(mio, STREAM_INTEREST)?;
        Ok(TcpStream {
            io: real_io!(source),
        })
    }

    /// A stream returned by `accept`, as tokio's: assumed readable and writable, so its
    /// first read and write try the socket instead of waiting for the driver's first event
    /// (a wrong guess costs one `WouldBlock`).
    pub(crate) fn accepted(
        handle: &shim::sync::Arc<io_driver::Handle>,
        mio: mio::net::TcpStream,
    ) -> io::Result<TcpStream> {
        let source = IoSource::with_handle(handle, mio, STREAM_INTEREST)?;
        source.assume_ready(io_driver::Ready::READABLE | io_driver::Ready::WRITABLE);
        Ok(TcpStream {
            io: real_io!(source),
        })
    }

    /// Wraps a connected std stream (it is switched to non-blocking mode).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn from_std(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        #[cfg(all(feature = "deterministic", not(loom)))]
        crate::sim::net::forbid_real(
            "TcpStream::from_std",
            "Connect with `TcpStream::connect` to a `TcpListener` of the same runtime instead.",
        );
        stream.set_nonblocking(true)?;
        TcpStream::new(mio::net::TcpStream::from_std(stream))
    }

    /// Deregisters the stream and returns it as a std stream (still non-blocking).
    #[cfg(unix)]
    pub fn into_std(self) -> io::Result<std::net::TcpStream> {
        let mio = into_real!(self.io).into_inner()?;
        Ok(std::net::TcpStream::from(std::os::fd::OwnedFd::from(mio)))
    }

    /// The local address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        on_sim!(self.io, |s| Ok(s.local_addr()));
        self.io.get_ref().local_addr()
    }

    /// The remote address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        on_sim!(self.io, |s| Ok(s.peer_addr()));
        self.io.get_ref().peer_addr()
    }

    /// Sets `TCP_NODELAY` (disables Nagle's algorithm when `true`).
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        on_sim!(self.io, |s| {
            s.set_nodelay(nodelay);
            Ok(())
        });
        self.io.get_ref().set_nodelay(nodelay)
    }

    /// Whether `TCP_NODELAY` is set.
    pub fn nodelay(&self) -> io::Result<bool> {
        on_sim!(self.io, |s| Ok(s.nodelay()));
        self.io.get_ref().nodelay()
    }

    /// Sets the IP time-to-live.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        on_sim!(self.io, |s| {
            s.set_ttl(ttl);
            Ok(())
        });
        self.io.get_ref().set_ttl(ttl)
    }

    /// The IP time-to-live.
    pub fn ttl(&self) -> io::Result<u32> {
        on_sim!(self.io, |s| Ok(s.ttl()));
        self.io.get_ref().ttl()
    }

    /// Takes the socket's pending error (`SO_ERROR`), if any.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        on_sim!(self.io, |s| Ok(s.take_error()));
        self.io.get_ref().take_error()
    }

    /// Shuts down the read, write or both directions now (std's `shutdown`).
    /// `Shutdown::Write` makes the peer read EOF once it has read what was sent.
    ///
    /// Named apart from tokio's `AsyncWriteExt::shutdown().await` (which shuts down the
    /// write direction) so that a ported `stream.shutdown().await` resolves to tokio's,
    /// as it does on tokio, whose streams have no inherent `shutdown`.
    ///
    /// The kernel's `NotConnected` (the peer reset the connection) is `Ok(())`, as tokio's.
    pub fn shutdown_std(&self, how: Shutdown) -> io::Result<()> {
        on_sim!(self.io, |s| {
            s.shutdown(how);
            Ok(())
        });
        // As tokio's: a connection the peer reset (or the OS closed) has nothing left to
        // shut down, and which of the two the kernel reports first is a race.
        match self.io.get_ref().shutdown(how) {
            Err(e) if e.kind() == io::ErrorKind::NotConnected => Ok(()),
            res => res,
        }
    }

    /// Borrowed read and write halves, usable from two tasks (or one `join`) at once.
    ///
    /// With `futures::io::AsyncReadExt` in scope, `stream.split()` resolves to that
    /// trait's by-value `split` (a lock-based split) instead: write
    /// `TcpStream::split(&mut stream)` or `(&mut stream).split()` to get these halves.
    pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
        split::split(self)
    }

    /// Owned halves that can move to different tasks; see [`OwnedReadHalf::reunite`].
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        split::split_owned(self)
    }

    /// Reads into `buf`'s unfilled part without consuming the data (tokio's signature:
    /// the bytes peeked are also added to `buf.filled()`).
    pub fn poll_peek(
        &self,
        cx: &mut Context<'_>,
        buf: &mut crate::io::ReadBuf<'_>,
    ) -> Poll<io::Result<usize>> {
        on_sim!(self.io, |s| s.read_into(Some(cx), buf, true));
        let dst = buf.initialize_unfilled();
        let n = std::task::ready!(self.io.poll_io(cx, Direction::Read, |s| s.peek(dst)))?;
        buf.advance(n);
        Poll::Ready(Ok(n))
    }

    /// Reads into `buf` without consuming the data, waiting until some is available.
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        on_sim!(self.io, |s| poll_fn(|cx| s.read_slice(Some(cx), buf, true))
            .await);
        poll_fn(|cx| self.io.poll_io(cx, Direction::Read, |s| s.peek(buf))).await
    }

    /// `SO_LINGER`: how long `close` waits for unsent data to go out (`None`: linger is
    /// off, the default, and close returns at once while the kernel keeps sending).
    ///
    /// ```
    /// # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
    /// # let l = runtime::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let stream = runtime::net::TcpStream::connect(l.local_addr()?).await?;
    /// stream.set_linger(Some(std::time::Duration::from_secs(1)))?;
    /// assert_eq!(stream.linger()?, Some(std::time::Duration::from_secs(1)));
    /// # Ok::<_, std::io::Error>(()) }).unwrap();
    /// ```
    pub fn linger(&self) -> io::Result<Option<std::time::Duration>> {
        on_sim!(self.io, |s| Ok(s.linger()));
        socket2::SockRef::from(self.io.get_ref()).linger()
    }

    /// Sets `SO_LINGER` (see [`Self::linger`]); `Some(Duration::ZERO)` makes `close` reset
    /// the connection instead of a graceful FIN.
    ///
    /// A non-zero duration makes `close(2)` (dropping the stream) *block the calling
    /// thread*, a worker, until the unsent data is acknowledged or the time runs out, even
    /// on a non-blocking socket (Linux): prefer `None` or `Some(Duration::ZERO)`.
    pub fn set_linger(&self, dur: Option<std::time::Duration>) -> io::Result<()> {
        on_sim!(self.io, |s| {
            s.set_linger(dur);
            Ok(())
        });
        socket2::SockRef::from(self.io.get_ref()).set_linger(dur)
    }

    /// Sets `SO_LINGER` to zero: dropping the stream then resets the connection (RST)
    /// instead of a graceful FIN, and never blocks.
    pub fn set_zero_linger(&self) -> io::Result<()> {
        self.set_linger(Some(std::time::Duration::ZERO))
    }

    /// Whether `TCP_QUICKACK` is on (ACKs sent at once rather than delayed).
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "fuchsia"))]
    pub fn quickack(&self) -> io::Result<bool> {
        socket2::SockRef::from(self.io.get_ref()).tcp_quickack()
    }

    /// Sets `TCP_QUICKACK` (the kernel may turn it off again on its own: it is a hint for
    /// the next ACKs, not a mode).
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "fuchsia"))]
    pub fn set_quickack(&self, quickack: bool) -> io::Result<()> {
        socket2::SockRef::from(self.io.get_ref()).set_tcp_quickack(quickack)
    }
}

crate::net::stream_io::stream_io!(TcpStream, s);

impl TryFrom<std::net::TcpStream> for TcpStream {
    type Error = io::Error;

    /// [`TcpStream::from_std`].
    fn try_from(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        TcpStream::from_std(stream)
    }
}

#[cfg(unix)]
impl std::os::fd::AsRawFd for TcpStream {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

#[cfg(unix)]
impl std::os::fd::AsFd for TcpStream {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}

impl fmt::Debug for TcpStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        on_sim!(self.io, |s| s.fmt(f));
        self.io.get_ref().fmt(f)
    }
}

const _: () = {
    const fn assert_send_sync_unpin<T: Send + Sync + Unpin>() {}
    assert_send_sync_unpin::<TcpStream>();
};
