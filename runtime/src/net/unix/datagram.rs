//! `UnixDatagram`: Unix domain datagram sockets over the runtime's I/O driver.
//!
//! The same machinery as `UdpSocket`: each operation waits for readiness in its direction
//! (`IoSource::poll_io`), runs the syscall and, on `WouldBlock`, clears the readiness it
//! saw and waits again; `readable()`/`writable()` followed by a `try_*` call use the
//! recorded readiness. Sends and receives are different directions, so one task may
//! receive while another sends on a shared `Arc<UnixDatagram>`.
//!
//! Addresses given as paths go through `unix::socket_addr`, so `"\0name"` is a Linux
//! abstract name; where mio only takes file system paths (`connect`, `send_to`) the call
//! is made on a std view of the same descriptor (`with_std`), never closing it.

use std::fmt;
use std::future::poll_fn;
use std::io;
use std::mem::ManuallyDrop;
use std::net::Shutdown;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, RawFd};
use std::os::unix::net::SocketAddr;
use std::path::Path;
use std::task::{ready, Context, Poll};

use crate::io::ReadBuf;
use io_driver::Direction;
use mio::Interest;

use crate::io::io_source::IoSource;

type StdDatagram = std::os::unix::net::UnixDatagram;

/// A Unix domain datagram socket.
///
/// ```
/// use runtime::net::UnixDatagram;
/// # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
/// let (a, b) = UnixDatagram::pair()?;
/// a.send(b"ping").await?;
/// let mut buf = [0; 16];
/// let n = b.recv(&mut buf).await?;
/// assert_eq!(&buf[..n], b"ping");
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub struct UnixDatagram {
    io: sim_or!(
        IoSource<mio::net::UnixDatagram>,
        crate::sim::net::unix_dgram::Dgram
    ),
}

/// Runs `f` on a std view of `s`'s descriptor (for calls mio has no address form of).
fn with_std<R>(s: &mio::net::UnixDatagram, f: impl FnOnce(&StdDatagram) -> R) -> R {
    // SAFETY: the descriptor is open and owned by `s`, which outlives this call; the view
    // is wrapped in `ManuallyDrop`, so it never closes the descriptor it does not own.
    let view = ManuallyDrop::new(unsafe { StdDatagram::from_raw_fd(s.as_raw_fd()) });
    f(&view)
}

impl UnixDatagram {
    /// Binds a socket to `path` (a leading NUL byte, `"\0name"`, binds a Linux abstract
    /// name).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn bind(path: impl AsRef<Path>) -> io::Result<UnixDatagram> {
        sim_current!(|sim| crate::sim::net::unix_dgram::bind(&sim, path.as_ref())
            .map(UnixDatagram::from_sim));
        let addr = super::socket_addr(path.as_ref())?;
        UnixDatagram::new(mio::net::UnixDatagram::bind_addr(&addr)?)
    }

    /// A socket bound to no address (it can send, and receive once connected or from
    /// peers that learn its autobound address).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn unbound() -> io::Result<UnixDatagram> {
        sim_current!(|sim| Ok(UnixDatagram::from_sim(
            crate::sim::net::unix_dgram::unbound(&sim)
        )));
        UnixDatagram::new(mio::net::UnixDatagram::unbound()?)
    }

    /// A pair of connected, unnamed sockets.
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn pair() -> io::Result<(UnixDatagram, UnixDatagram)> {
        sim_current!(|sim| {
            let (a, b) = crate::sim::net::unix_dgram::pair(&sim);
            Ok((UnixDatagram::from_sim(a), UnixDatagram::from_sim(b)))
        });
        let (a, b) = mio::net::UnixDatagram::pair()?;
        let (a, b) = (UnixDatagram::new(a)?, UnixDatagram::new(b)?);
        // As tokio's: both ends of a fresh pair are writable now (readable once the peer
        // sends).
        a.io.assume_ready(io_driver::Ready::WRITABLE);
        b.io.assume_ready(io_driver::Ready::WRITABLE);
        Ok((a, b))
    }

    #[track_caller]
    pub(crate) fn new(mio: mio::net::UnixDatagram) -> io::Result<UnixDatagram> {
        let source = IoSource::new(mio, Interest::READABLE | Interest::WRITABLE)?;
        Ok(UnixDatagram {
            io: real_io!(source),
        })
    }

    /// A socket of a deterministic runtime's in-memory network.
    #[cfg(all(feature = "deterministic", not(loom)))]
    fn from_sim(d: crate::sim::net::unix_dgram::Dgram) -> UnixDatagram {
        UnixDatagram {
            io: crate::sim::net::Io::Sim(d),
        }
    }

    /// Wraps a std socket (it is switched to non-blocking mode).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn from_std(socket: StdDatagram) -> io::Result<UnixDatagram> {
        #[cfg(all(feature = "deterministic", not(loom)))]
        crate::sim::net::forbid_real(
            "UnixDatagram::from_std",
            "Bind with `UnixDatagram::bind`, `unbound` or `pair` (in memory) instead.",
        );
        socket.set_nonblocking(true)?;
        UnixDatagram::new(mio::net::UnixDatagram::from_std(socket))
    }

    /// Deregisters the socket and returns it as a std socket (still non-blocking).
    pub fn into_std(self) -> io::Result<StdDatagram> {
        Ok(into_real!(self.io).into_inner()?.into())
    }

    /// Sets the default destination of `send` and the only source `recv` accepts.
    pub fn connect(&self, path: impl AsRef<Path>) -> io::Result<()> {
        on_sim!(self.io, |s| s.connect(path.as_ref()));
        let addr = super::socket_addr(path.as_ref())?;
        with_std(self.io.get_ref(), |s| s.connect_addr(&addr))
    }

    /// The local address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        on_sim!(self.io, |s| super::sim_addr(s.local_path()));
        self.io.get_ref().local_addr()
    }

    /// The address given to `connect` (or the peer of a `pair`).
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        on_sim!(self.io, |s| super::sim_addr(s.peer_path()?));
        self.io.get_ref().peer_addr()
    }

    /// Takes the socket's pending error (`SO_ERROR`), if any.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        on_sim!(self.io, |s| {
            let _ = s;
            Ok(None)
        });
        self.io.get_ref().take_error()
    }

    /// Shuts down the read, write or both directions (std's `shutdown`).
    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        on_sim!(self.io, |s| {
            s.shutdown(how);
            Ok(())
        });
        self.io.get_ref().shutdown(how)
    }

    /// Sends `buf` as one datagram to the connected peer.
    pub async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        on_sim!(self.io, |s| poll_fn(|cx| s.send(Some(cx), buf, None)).await);
        poll_fn(|cx| self.poll_send(cx, buf)).await
    }

    /// Polls [`Self::send`].
    pub fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        on_sim!(self.io, |s| s.send(Some(cx), buf, None));
        self.io.poll_io(cx, Direction::Write, |s| s.send(buf))
    }

    /// Sends without waiting (`WouldBlock` when the socket's buffer is full).
    pub fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        on_sim!(self.io, |s| crate::sim::net::done(s.send(None, buf, None)));
        self.io.try_io(Direction::Write, |s| s.send(buf))
    }

    /// Sends `buf` as one datagram to the socket at `target`.
    pub async fn send_to(&self, buf: &[u8], target: impl AsRef<Path>) -> io::Result<usize> {
        on_sim!(self.io, |s| poll_fn(|cx| s.send(
            Some(cx),
            buf,
            Some(target.as_ref())
        ))
        .await);
        let addr = super::socket_addr(target.as_ref())?;
        poll_fn(|cx| self.poll_send_to_addr(cx, buf, &addr)).await
    }

    /// Polls [`Self::send_to`].
    pub fn poll_send_to(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        target: impl AsRef<Path>,
    ) -> Poll<io::Result<usize>> {
        on_sim!(self.io, |s| s.send(Some(cx), buf, Some(target.as_ref())));
        let addr = super::socket_addr(target.as_ref())?;
        self.poll_send_to_addr(cx, buf, &addr)
    }

    fn poll_send_to_addr(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        addr: &SocketAddr,
    ) -> Poll<io::Result<usize>> {
        self.io.poll_io(cx, Direction::Write, |s| {
            with_std(s, |s| s.send_to_addr(buf, addr))
        })
    }

    /// [`Self::send_to`] without waiting.
    pub fn try_send_to(&self, buf: &[u8], target: impl AsRef<Path>) -> io::Result<usize> {
        on_sim!(self.io, |s| crate::sim::net::done(s.send(
            None,
            buf,
            Some(target.as_ref())
        )));
        let addr = super::socket_addr(target.as_ref())?;
        self.io.try_io(Direction::Write, |s| {
            with_std(s, |s| s.send_to_addr(buf, &addr))
        })
    }

    /// Receives one datagram from the connected peer (the excess of a datagram longer than
    /// `buf` is discarded); returns its length.
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        on_sim!(self.io, |s| poll_fn(|cx| s.recv_slice(
            Some(cx),
            buf,
            false
        ))
        .await
        .map(|r| r.0));
        poll_fn(|cx| self.io.poll_io(cx, Direction::Read, |s| s.recv(buf))).await
    }

    /// Polls receiving one datagram into `buf`'s unfilled part (tokio's signature).
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        on_sim!(self.io, |s| s.recv_into(Some(cx), buf).map_ok(drop));
        let dst = buf.initialize_unfilled();
        let n = ready!(self.io.poll_io(cx, Direction::Read, |s| s.recv(dst)))?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }

    /// Receives without waiting (`WouldBlock` when no datagram is queued).
    pub fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        on_sim!(self.io, |s| crate::sim::net::done(
            s.recv_slice(None, buf, false)
        )
        .map(|r| r.0));
        self.io.try_io(Direction::Read, |s| s.recv(buf))
    }

    /// Receives one datagram; returns its length and its source.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        on_sim!(self.io, |s| poll_fn(|cx| s.recv_slice(
            Some(cx),
            buf,
            false
        ))
        .await
        .and_then(|(n, p)| Ok((n, super::sim_addr(p)?))));
        poll_fn(|cx| self.io.poll_io(cx, Direction::Read, |s| s.recv_from(buf))).await
    }

    /// Polls receiving one datagram into `buf`'s unfilled part; returns its source.
    pub fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        on_sim!(self.io, |s| s
            .recv_into(Some(cx), buf)
            .map(|r| r.and_then(|(_, p)| super::sim_addr(p))));
        let dst = buf.initialize_unfilled();
        let (n, from) = ready!(self.io.poll_io(cx, Direction::Read, |s| s.recv_from(dst)))?;
        buf.advance(n);
        Poll::Ready(Ok(from))
    }

    /// [`Self::recv_from`] without waiting.
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        on_sim!(self.io, |s| crate::sim::net::done(
            s.recv_slice(None, buf, false)
        )
        .and_then(|(n, p)| Ok((n, super::sim_addr(p)?))));
        self.io.try_io(Direction::Read, |s| s.recv_from(buf))
    }

    /// Receives one datagram from the connected peer into `buf`'s spare capacity (a
    /// `bytes::BufMut`), advancing it by the datagram's length (truncated to the room).
    pub async fn recv_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        on_sim!(self.io, |s| poll_fn(|cx| s.recv_buf_mut(Some(cx), buf))
            .await
            .map(|r| r.0));
        poll_fn(|cx| {
            self.io.poll_io(cx, Direction::Read, |s| {
                crate::net::buf_io::recv_buf(s, buf)
            })
        })
        .await
    }

    /// [`Self::recv_buf`] without waiting.
    pub fn try_recv_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        on_sim!(self.io, |s| crate::sim::net::done(
            s.recv_buf_mut(None, buf)
        )
        .map(|r| r.0));
        self.io
            .try_io(Direction::Read, |s| crate::net::buf_io::recv_buf(s, buf))
    }

    /// Receives one datagram into `buf`'s spare capacity, with its source. (The spare
    /// chunk is zeroed first: the source comes back as std's address type, which only
    /// std's `recv_from` produces.)
    pub async fn recv_buf_from<B: bytes::BufMut>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        on_sim!(self.io, |s| poll_fn(|cx| s.recv_buf_mut(Some(cx), buf))
            .await
            .and_then(|(n, p)| Ok((n, super::sim_addr(p)?))));
        poll_fn(|cx| {
            self.io
                .poll_io(cx, Direction::Read, |s| recv_from_zeroed(s, buf))
        })
        .await
    }

    /// [`Self::recv_buf_from`] without waiting.
    pub fn try_recv_buf_from<B: bytes::BufMut>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        on_sim!(self.io, |s| crate::sim::net::done(
            s.recv_buf_mut(None, buf)
        )
        .and_then(|(n, p)| Ok((n, super::sim_addr(p)?))));
        self.io
            .try_io(Direction::Read, |s| recv_from_zeroed(s, buf))
    }

    /// Runs a user-provided I/O operation (on the raw descriptor) without waiting, as
    /// tokio's: `WouldBlock` at once, without calling `f`, when the driver holds no
    /// readiness `interest` covers; a `WouldBlock` from `f` clears that readiness.
    pub fn try_io<R>(
        &self,
        interest: crate::io::Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        on_sim!(self.io, |s| s.try_io(interest, f));
        self.io.try_io_interest(interest, f)
    }

    /// Waits for readiness `interest` covers and runs `f`, again after each `WouldBlock`.
    pub async fn async_io<R>(
        &self,
        interest: crate::io::Interest,
        mut f: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        on_sim!(self.io, |s| poll_fn(|cx| s.poll_io(cx, interest, &mut f))
            .await);
        poll_fn(|cx| self.io.poll_io_interest(cx, interest, &mut f)).await
    }

    /// Waits until the socket may be readable (follow with `try_recv*`, looping on
    /// `WouldBlock`).
    pub async fn readable(&self) -> io::Result<()> {
        on_sim!(self.io, |s| poll_fn(|cx| s.poll_ready(
            cx,
            crate::io::Interest::READABLE,
            false
        ))
        .await
        .map(drop));
        poll_fn(|cx| self.io.poll_ready_unbudgeted(cx, Direction::Read)).await
    }

    /// Waits until the socket may be writable (follow with `try_send*`).
    pub async fn writable(&self) -> io::Result<()> {
        on_sim!(self.io, |s| poll_fn(|cx| s.poll_ready(
            cx,
            crate::io::Interest::WRITABLE,
            false
        ))
        .await
        .map(drop));
        poll_fn(|cx| self.io.poll_ready_unbudgeted(cx, Direction::Write)).await
    }

    /// Polls for read readiness.
    pub fn poll_recv_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        on_sim!(self.io, |s| s
            .poll_ready(cx, crate::io::Interest::READABLE, true)
            .map_ok(drop));
        self.io.poll_ready_recorded(cx, Direction::Read)
    }

    /// Polls for write readiness.
    pub fn poll_send_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        on_sim!(self.io, |s| s
            .poll_ready(cx, crate::io::Interest::WRITABLE, true)
            .map_ok(drop));
        self.io.poll_ready_recorded(cx, Direction::Write)
    }

    /// Waits until the socket is ready for any of `interest` and says which, as tokio's
    /// (a pending error shows as `is_error()`, a shutdown as closed); readiness can be
    /// spurious: follow with `try_recv*`/`try_send*` and loop on `WouldBlock`.
    pub async fn ready(&self, interest: crate::io::Interest) -> io::Result<crate::io::Ready> {
        on_sim!(self.io, |s| poll_fn(|cx| s.poll_ready(cx, interest, false))
            .await);
        poll_fn(|cx| self.io.poll_ready_interest(cx, interest)).await
    }
}

impl TryFrom<StdDatagram> for UnixDatagram {
    type Error = io::Error;

    /// [`UnixDatagram::from_std`].
    fn try_from(socket: StdDatagram) -> io::Result<UnixDatagram> {
        UnixDatagram::from_std(socket)
    }
}

impl AsRawFd for UnixDatagram {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

impl AsFd for UnixDatagram {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}

impl fmt::Debug for UnixDatagram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        on_sim!(self.io, |s| s.fmt(f));
        self.io.get_ref().fmt(f)
    }
}

const _: () = {
    const fn assert_send_sync_unpin<T: Send + Sync + Unpin>() {}
    assert_send_sync_unpin::<UnixDatagram>();
};

/// `recv_from` into `buf`'s next spare chunk, zeroed first (std's `recv_from` takes an
/// initialized slice), advancing `buf` by the datagram's length.
fn recv_from_zeroed<B: bytes::BufMut + ?Sized>(
    s: &mio::net::UnixDatagram,
    buf: &mut B,
) -> io::Result<(usize, SocketAddr)> {
    if !buf.has_remaining_mut() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "recv_buf_from needs a buffer with spare capacity",
        ));
    }
    crate::net::buf_io::fill(buf, |dst| {
        dst.fill(std::mem::MaybeUninit::new(0));
        // SAFETY: every byte of `dst` was just initialized (to zero), so it may be viewed
        // as `[u8]` of the same length.
        let dst: &mut [u8] =
            unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast(), dst.len()) };
        s.recv_from(dst)
    })
}
