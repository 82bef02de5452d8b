//! `UnixSocket`: a Unix domain socket not yet listening, connected or used for datagrams,
//! to bind (or set options on through its descriptor) first.
//!
//! It is a plain non-blocking, close-on-exec `socket2::Socket` of type `SOCK_STREAM` or
//! `SOCK_DGRAM`; nothing is registered with the I/O driver until [`UnixSocket::listen`],
//! [`UnixSocket::connect`] or [`UnixSocket::datagram`] consumes it and hands the
//! descriptor to a [`UnixListener`], [`UnixStream`] or [`UnixDatagram`] (so creating and
//! binding one needs no runtime). Each conversion first checks the socket's type and
//! refuses the wrong one with tokio's error text. `connect` starts a non-blocking
//! `connect(2)` (`EINPROGRESS` is the normal answer) and then waits for it exactly as
//! `UnixStream::connect` does.

use std::fmt;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::path::Path;

use socket2::{Domain, SockAddr, Socket, Type};

use super::{UnixDatagram, UnixListener, UnixStream};

/// A Unix socket that has not yet become a [`UnixListener`], a [`UnixStream`] or a
/// [`UnixDatagram`]: create it, bind it to a path (or set options on its descriptor
/// through [`AsRawFd`]/[`AsFd`]), then convert it.
///
/// `UnixListener::bind(path)` is `new_stream()`, `bind(path)`, `listen(1024)`;
/// `UnixStream::connect(path)` is `new_stream()`, `connect(path)`;
/// `UnixDatagram::bind(path)` is `new_datagram()`, `bind(path)`, `datagram()`.
/// The descriptor is closed when the `UnixSocket` is dropped unconverted.
///
/// ```
/// use runtime::net::UnixSocket;
/// # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
/// let name = format!("\0runtime-doc-socket-{}", std::process::id());
/// let server = UnixSocket::new_stream()?;
/// server.bind(&name)?;
/// let listener = server.listen(1024)?;
///
/// let client = UnixSocket::new_stream()?.connect(&name).await?;
/// let (server, _) = listener.accept().await?;
/// # drop((client, server));
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub struct UnixSocket {
    inner: Socket,
}

impl UnixSocket {
    /// A new Unix datagram socket (`socket(2)` with `AF_UNIX` and `SOCK_DGRAM`).
    #[track_caller]
    pub fn new_datagram() -> io::Result<UnixSocket> {
        UnixSocket::new(Type::DGRAM)
    }

    /// A new Unix stream socket (`socket(2)` with `AF_UNIX` and `SOCK_STREAM`).
    #[track_caller]
    pub fn new_stream() -> io::Result<UnixSocket> {
        UnixSocket::new(Type::STREAM)
    }

    #[track_caller]
    fn new(ty: Type) -> io::Result<UnixSocket> {
        #[cfg(all(feature = "deterministic", not(loom)))]
        crate::sim::net::forbid_real(
            "UnixSocket::new",
            "Use `UnixListener::bind` and `UnixStream::connect` (in memory in a deterministic runtime) instead.",
        );
        // socket2 sets close-on-exec on creation.
        let inner = Socket::new(Domain::UNIX, ty, None)?;
        inner.set_nonblocking(true)?;
        Ok(UnixSocket { inner })
    }

    fn is(&self, ty: Type) -> bool {
        // SO_TYPE of a descriptor we own cannot fail; were it to, the conversion goes on
        // and the syscall it makes reports the problem.
        self.inner.r#type().is_ok_and(|t| t == ty)
    }

    /// Binds the socket to `path` (`bind(2)`); a path starting with a NUL byte
    /// (`"\0name"`) binds the Linux abstract name `name`.
    pub fn bind(&self, path: impl AsRef<Path>) -> io::Result<()> {
        self.inner.bind(&sock_addr(path.as_ref())?)
    }

    /// Listens with a queue of `backlog` pending connections (`listen(2)`) and returns
    /// the listener, consuming the socket.
    ///
    /// # Errors
    /// On a socket made by [`UnixSocket::new_datagram`]: "listen cannot be called on a
    /// datagram socket"; otherwise what `listen(2)` says.
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn listen(self, backlog: u32) -> io::Result<UnixListener> {
        if self.is(Type::DGRAM) {
            return Err(io::Error::other(
                "listen cannot be called on a datagram socket",
            ));
        }
        self.inner
            .listen(i32::try_from(backlog).unwrap_or(i32::MAX))?;
        let std = std::os::unix::net::UnixListener::from(OwnedFd::from(self.inner));
        UnixListener::new(mio::net::UnixListener::from_std(std))
    }

    /// Connects to the socket at `path` (`connect(2)`; a leading NUL byte names a Linux
    /// abstract socket) and returns the stream once connected, consuming the socket.
    ///
    /// # Errors
    /// On a socket made by [`UnixSocket::new_datagram`]: "connect cannot be called on a
    /// datagram socket"; otherwise why the connection failed.
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    pub async fn connect(self, path: impl AsRef<Path>) -> io::Result<UnixStream> {
        if self.is(Type::DGRAM) {
            return Err(io::Error::other(
                "connect cannot be called on a datagram socket",
            ));
        }
        match self.inner.connect(&sock_addr(path.as_ref())?) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => {}
            Err(e) => return Err(e),
        }
        let std = std::os::unix::net::UnixStream::from(OwnedFd::from(self.inner));
        UnixStream::connect_mio(mio::net::UnixStream::from_std(std)).await
    }

    /// Returns the socket as a [`UnixDatagram`], consuming it.
    ///
    /// # Errors
    /// On a socket made by [`UnixSocket::new_stream`]: "datagram cannot be called on a
    /// stream socket".
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn datagram(self) -> io::Result<UnixDatagram> {
        if self.is(Type::STREAM) {
            return Err(io::Error::other(
                "datagram cannot be called on a stream socket",
            ));
        }
        let std = std::os::unix::net::UnixDatagram::from(OwnedFd::from(self.inner));
        UnixDatagram::new(mio::net::UnixDatagram::from_std(std))
    }
}

/// `path` as a socket2 address. socket2 reads a leading NUL byte as a Linux abstract
/// name, as `unix::socket_addr` does; that check runs first so that other systems refuse
/// such a path with the same error as `UnixListener::bind`.
fn sock_addr(path: &Path) -> io::Result<SockAddr> {
    super::socket_addr(path)?;
    SockAddr::unix(path)
}

impl AsRawFd for UnixSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}

impl AsFd for UnixSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.inner.as_fd()
    }
}

impl IntoRawFd for UnixSocket {
    fn into_raw_fd(self) -> RawFd {
        self.inner.into_raw_fd()
    }
}

impl FromRawFd for UnixSocket {
    /// Wraps a Unix socket descriptor as is (tokio's does not change its mode either).
    ///
    /// # Safety
    /// `fd` must be an open Unix socket owned by nobody else.
    unsafe fn from_raw_fd(fd: RawFd) -> UnixSocket {
        // SAFETY: the caller hands us sole ownership of an open socket descriptor.
        let inner = unsafe { Socket::from_raw_fd(fd) };
        UnixSocket { inner }
    }
}

impl fmt::Debug for UnixSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
