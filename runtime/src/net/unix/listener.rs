//! `UnixListener`: a listening Unix stream socket whose `accept` waits on the I/O driver.
//!
//! As `TcpListener`: wait for read readiness, `accept` until it stops saying `WouldBlock`,
//! register the new socket with the listener's driver; other errors (EMFILE included) go
//! to the caller unchanged.

use std::fmt;
use std::future::poll_fn;
use std::io;
use std::os::unix::net::SocketAddr;
use std::path::Path;
use std::task::{ready, Context, Poll};

use io_driver::Direction;
use mio::Interest;

use super::UnixStream;
use crate::io::io_source::IoSource;

/// A Unix domain stream server socket.
pub struct UnixListener {
    io: sim_or!(
        IoSource<mio::net::UnixListener>,
        crate::sim::net::tcp::Listener
    ),
}

impl UnixListener {
    /// Binds to the socket file `path` (which must not exist yet) and listens; a path
    /// starting with a NUL byte (`"\0name"`) binds the Linux abstract name `name`.
    ///
    /// ```
    /// use runtime::net::{UnixListener, UnixStream};
    /// # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
    /// let name = format!("\0runtime-doc-{}", std::process::id());
    /// let listener = UnixListener::bind(&name)?; // no file is created
    /// let client = UnixStream::connect(&name).await?;
    /// let (server, _) = listener.accept().await?;
    /// # drop((client, server));
    /// # Ok::<_, std::io::Error>(()) }).unwrap();
    /// ```
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn bind(path: impl AsRef<Path>) -> io::Result<UnixListener> {
        sim_current!(|sim| UnixListener::bind_sim(&sim, path.as_ref()));
        let addr = super::socket_addr(path.as_ref())?;
        UnixListener::new(mio::net::UnixListener::bind_addr(&addr)?)
    }

    /// Binds to the socket address `socket_addr` (a path, or on Linux an abstract name made
    /// with `SocketAddrExt::from_abstract_name`) and listens.
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn bind_addr(socket_addr: &SocketAddr) -> io::Result<UnixListener> {
        sim_current!(|sim| UnixListener::bind_sim(&sim, &super::sim_path(socket_addr)?));
        UnixListener::new(mio::net::UnixListener::bind_addr(socket_addr)?)
    }

    #[track_caller]
    pub(crate) fn new(mio: mio::net::UnixListener) -> io::Result<UnixListener> {
        let source = IoSource::new(mio, Interest::READABLE)?;
        Ok(UnixListener {
            io: real_io!(source),
        })
    }

    /// A listener of a deterministic runtime's in-memory network.
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) fn bind_sim(
        sim: &std::sync::Arc<crate::sim::Sim>,
        path: &Path,
    ) -> io::Result<UnixListener> {
        let l = crate::sim::net::unix::bind(sim, path, crate::sim::net::tcp::BACKLOG)?;
        Ok(UnixListener {
            io: crate::sim::net::Io::Sim(l),
        })
    }

    /// Wraps a listening std socket (it is switched to non-blocking mode).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn from_std(listener: std::os::unix::net::UnixListener) -> io::Result<UnixListener> {
        #[cfg(all(feature = "deterministic", not(loom)))]
        crate::sim::net::forbid_real(
            "UnixListener::from_std",
            "Bind with `UnixListener::bind` instead (its path lives in the in-memory network).",
        );
        listener.set_nonblocking(true)?;
        UnixListener::new(mio::net::UnixListener::from_std(listener))
    }

    /// Deregisters the listener and returns it as a std listener (still non-blocking).
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixListener> {
        Ok(into_real!(self.io).into_inner()?.into())
    }

    /// Waits for and accepts a connection. Errors (EMFILE included) are returned as is.
    pub async fn accept(&self) -> io::Result<(UnixStream, SocketAddr)> {
        poll_fn(|cx| self.poll_accept(cx)).await
    }

    /// Polls for a connection (several tasks may wait on one listener: each event wakes
    /// them all and they race for the connections).
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(UnixStream, SocketAddr)>> {
        on_sim!(self.io, |s| match s.poll_accept(Some(cx)) {
            Poll::Ready(Ok((st, a))) =>
                Poll::Ready(super::sim_addr(a.path()).map(|a| (UnixStream::from_sim(st), a))),
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        });
        let (mio, addr) = ready!(self.io.poll_io(cx, Direction::Read, |l| l.accept()))?;
        let stream = UnixStream::accepted(self.io.driver(), mio)?;
        Poll::Ready(Ok((stream, addr)))
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        on_sim!(self.io, |s| super::sim_addr(s.local_path()));
        self.io.get_ref().local_addr()
    }

    /// Takes the socket's pending error (`SO_ERROR`), if any.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        on_sim!(self.io, |s| {
            let _ = s;
            Ok(None)
        });
        self.io.get_ref().take_error()
    }
}

impl TryFrom<std::os::unix::net::UnixListener> for UnixListener {
    type Error = io::Error;

    /// [`UnixListener::from_std`].
    fn try_from(listener: std::os::unix::net::UnixListener) -> io::Result<UnixListener> {
        UnixListener::from_std(listener)
    }
}

impl std::os::fd::AsRawFd for UnixListener {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

impl std::os::fd::AsFd for UnixListener {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}

impl fmt::Debug for UnixListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        on_sim!(self.io, |s| s.fmt(f));
        self.io.get_ref().fmt(f)
    }
}
