//! `UnixStream`: a connected Unix domain stream socket driven by the runtime's I/O driver.
//!
//! `connect` starts a non-blocking connect to the path and waits for writability; it
//! succeeded when the socket has no pending error (`SO_ERROR`). Reads and writes go
//! through `IoSource` exactly as for `TcpStream` (budgeted, edge-triggered, short
//! transfers clear readiness), and so do tokio's `AsyncRead`/`AsyncWrite` and
//! `futures::io::{AsyncRead, AsyncWrite}`: `poll_shutdown`/`poll_close` shut down the
//! write direction so the peer reads EOF.

use std::fmt;
use std::future::poll_fn;
use std::io;
use std::net::Shutdown;
use std::os::unix::net::SocketAddr;
use std::path::Path;
use std::task::{Context, Poll};

use io_driver::Direction;
use mio::Interest;

use super::split::{self, OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use crate::io::io_source::IoSource;

/// A Unix domain stream connection. See the module docs of [`crate::net`].
pub struct UnixStream {
    io: sim_or!(IoSource<mio::net::UnixStream>, crate::sim::net::tcp::Stream),
}

impl UnixStream {
    /// Connects to the socket at `path` (a leading NUL byte, `"\0name"`, names a Linux
    /// abstract socket).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    pub async fn connect(path: impl AsRef<Path>) -> io::Result<UnixStream> {
        sim_current!(|sim| UnixStream::connect_sim(&sim, path.as_ref()).await);
        let addr = super::socket_addr(path.as_ref())?;
        UnixStream::connect_mio(mio::net::UnixStream::connect_addr(&addr)?).await
    }

    /// Connects to the socket address `socket_addr` (a path, or on Linux an abstract name
    /// made with `SocketAddrExt::from_abstract_name`).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    pub async fn connect_addr(socket_addr: &SocketAddr) -> io::Result<UnixStream> {
        sim_current!(|sim| {
            let path = super::sim_path(socket_addr)?;
            UnixStream::connect_sim(&sim, &path).await
        });
        UnixStream::connect_mio(mio::net::UnixStream::connect_addr(socket_addr)?).await
    }

    /// Connects in a deterministic runtime's in-memory network.
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) async fn connect_sim(
        sim: &std::sync::Arc<crate::sim::Sim>,
        path: &Path,
    ) -> io::Result<UnixStream> {
        let stream = crate::sim::net::unix::connect(sim, path)?;
        poll_fn(|cx| stream.poll_connected(cx)).await?;
        Ok(UnixStream::from_sim(stream))
    }

    /// A stream over an in-memory connection.
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) fn from_sim(stream: crate::sim::net::tcp::Stream) -> UnixStream {
        UnixStream {
            io: crate::sim::net::Io::Sim(stream),
        }
    }

    /// Registers a socket whose non-blocking connect has started and waits for the
    /// connection to complete.
    pub(crate) async fn connect_mio(mio: mio::net::UnixStream) -> io::Result<UnixStream> {
        let stream = UnixStream::new(mio)?;
        poll_fn(|cx| stream.poll_connected(cx)).await?;
        Ok(stream)
    }

    fn poll_connected(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io
            .poll_io(cx, Direction::Write, |s| match s.take_error()? {
                Some(e) => Err(e),
                None => Ok(()),
            })
    }

    /// A pair of connected, unnamed sockets.
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn pair() -> io::Result<(UnixStream, UnixStream)> {
        sim_current!(|sim| {
            let (a, b) = crate::sim::net::unix::pair(&sim);
            Ok((UnixStream::from_sim(a), UnixStream::from_sim(b)))
        });
        let (a, b) = mio::net::UnixStream::pair()?;
        let (a, b) = (UnixStream::new(a)?, UnixStream::new(b)?);
        // As tokio's: a fresh pair's buffers are empty, so both ends are writable now and
        // readable only once the peer writes.
        a.io.assume_ready(io_driver::Ready::WRITABLE);
        b.io.assume_ready(io_driver::Ready::WRITABLE);
        Ok((a, b))
    }

    #[track_caller]
    pub(crate) fn new(mio: mio::net::UnixStream) -> io::Result<UnixStream> {
        let source = IoSource::new(mio, Interest::READABLE | Interest::WRITABLE)?;
        Ok(UnixStream {
            io: real_io!(source),
        })
    }

    /// A stream returned by `accept`, as tokio's: assumed readable and writable (see
    /// `TcpStream::accepted`).
    pub(crate) fn accepted(
        handle: &shim::sync::Arc<io_driver::Handle>,
        mio: mio::net::UnixStream,
    ) -> io::Result<UnixStream> {
        let source = IoSource::with_handle(handle, mio, Interest::READABLE | Interest::WRITABLE)?;
        source.assume_ready(io_driver::Ready::READABLE | io_driver::Ready::WRITABLE);
        Ok(UnixStream {
            io: real_io!(source),
        })
    }

    /// Wraps a connected std stream (it is switched to non-blocking mode).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn from_std(stream: std::os::unix::net::UnixStream) -> io::Result<UnixStream> {
        #[cfg(all(feature = "deterministic", not(loom)))]
        crate::sim::net::forbid_real(
            "UnixStream::from_std",
            "Connect with `UnixStream::connect` to a `UnixListener` of the same runtime, or use `UnixStream::pair`, instead.",
        );
        stream.set_nonblocking(true)?;
        UnixStream::new(mio::net::UnixStream::from_std(stream))
    }

    /// Deregisters the stream and returns it as a std stream (still non-blocking).
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixStream> {
        Ok(into_real!(self.io).into_inner()?.into())
    }

    /// The local address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        on_sim!(self.io, |s| super::sim_addr(s.local_path()));
        self.io.get_ref().local_addr()
    }

    /// The remote address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        on_sim!(self.io, |s| super::sim_addr(s.peer_path()));
        self.io.get_ref().peer_addr()
    }

    /// The credentials of the peer process, as of the connection (`SO_PEERCRED`).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn peer_cred(&self) -> io::Result<super::UCred> {
        super::ucred::peer_cred(self.io.get_ref())
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
    /// `UnixStream::split(&mut stream)` or `(&mut stream).split()` to get these halves.
    pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
        split::split(self)
    }

    /// Owned halves that can move to different tasks; see [`OwnedReadHalf::reunite`].
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        split::split_owned(self)
    }
}

crate::net::stream_io::stream_io!(UnixStream, s);

impl TryFrom<std::os::unix::net::UnixStream> for UnixStream {
    type Error = io::Error;

    /// [`UnixStream::from_std`].
    fn try_from(stream: std::os::unix::net::UnixStream) -> io::Result<UnixStream> {
        UnixStream::from_std(stream)
    }
}

impl std::os::fd::AsRawFd for UnixStream {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

impl std::os::fd::AsFd for UnixStream {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}

impl fmt::Debug for UnixStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        on_sim!(self.io, |s| s.fmt(f));
        self.io.get_ref().fmt(f)
    }
}

const _: () = {
    const fn assert_send_sync_unpin<T: Send + Sync + Unpin>() {}
    assert_send_sync_unpin::<UnixStream>();
};
