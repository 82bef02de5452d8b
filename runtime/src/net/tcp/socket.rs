//! `TcpSocket`: a TCP socket not yet connected or listening, to set options (address
//! reuse, buffer sizes, `TCP_NODELAY`, linger, a local address to bind) first.
//!
//! It is a plain non-blocking, close-on-exec `socket2::Socket`; nothing is registered with
//! the I/O driver until [`TcpSocket::connect`] or [`TcpSocket::listen`] consumes it and
//! hands the descriptor to a [`TcpStream`] or [`TcpListener`] (so creating and configuring
//! one needs no runtime). `connect` starts a non-blocking `connect(2)` (`EINPROGRESS` is
//! the normal answer) and then waits for it exactly as `TcpStream::connect` does.

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::time::Duration;

use socket2::{Domain, Protocol, Socket, Type};

use super::{TcpListener, TcpStream};

/// A TCP socket to configure before it becomes a [`TcpStream`] or a [`TcpListener`].
///
/// ```
/// use runtime::net::TcpSocket;
/// # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
/// let server = TcpSocket::new_v4()?;
/// server.set_reuseaddr(true)?;
/// server.bind("127.0.0.1:0".parse().unwrap())?;
/// let listener = server.listen(128)?;
///
/// let client = TcpSocket::new_v4()?;
/// client.set_nodelay(true)?;
/// let stream = client.connect(listener.local_addr()?).await?;
/// assert!(stream.nodelay()?);
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub struct TcpSocket {
    inner: sim_or!(Socket, crate::sim::net::tcp::Socket),
}

impl TcpSocket {
    /// A new IPv4 TCP socket.
    pub fn new_v4() -> io::Result<TcpSocket> {
        TcpSocket::new(Domain::IPV4)
    }

    /// A new IPv6 TCP socket.
    pub fn new_v6() -> io::Result<TcpSocket> {
        TcpSocket::new(Domain::IPV6)
    }

    fn new(domain: Domain) -> io::Result<TcpSocket> {
        sim_current!(|sim| Ok(TcpSocket {
            inner: crate::sim::net::Io::Sim(crate::sim::net::tcp::Socket::new(
                sim,
                domain == Domain::IPV6
            )),
        }));
        // socket2 sets close-on-exec on creation.
        let socket = Socket::new(domain, Type::STREAM, Some(Protocol::TCP))?;
        socket.set_nonblocking(true)?;
        Ok(TcpSocket {
            inner: real_io!(socket),
        })
    }

    /// Sets `SO_KEEPALIVE`.
    pub fn set_keepalive(&self, keepalive: bool) -> io::Result<()> {
        on_sim!(self.inner, |s| {
            s.opts().keepalive = keepalive;
            Ok(())
        });
        self.inner.set_keepalive(keepalive)
    }

    /// Whether `SO_KEEPALIVE` is set.
    pub fn keepalive(&self) -> io::Result<bool> {
        on_sim!(self.inner, |s| Ok(s.opts().keepalive));
        self.inner.keepalive()
    }

    /// Sets `SO_REUSEADDR` (bind a listener to a port still in `TIME_WAIT`).
    pub fn set_reuseaddr(&self, reuseaddr: bool) -> io::Result<()> {
        on_sim!(self.inner, |s| {
            s.opts().reuseaddr = reuseaddr;
            Ok(())
        });
        self.inner.set_reuse_address(reuseaddr)
    }

    /// Whether `SO_REUSEADDR` is set.
    pub fn reuseaddr(&self) -> io::Result<bool> {
        on_sim!(self.inner, |s| Ok(s.opts().reuseaddr));
        self.inner.reuse_address()
    }

    /// Sets `SO_REUSEPORT` (several sockets bound to one port, the kernel spreading
    /// connections among the listeners).
    pub fn set_reuseport(&self, reuseport: bool) -> io::Result<()> {
        on_sim!(self.inner, |s| {
            s.opts().reuseport = reuseport;
            Ok(())
        });
        self.inner.set_reuse_port(reuseport)
    }

    /// Whether `SO_REUSEPORT` is set.
    pub fn reuseport(&self) -> io::Result<bool> {
        on_sim!(self.inner, |s| Ok(s.opts().reuseport));
        self.inner.reuse_port()
    }

    /// Sets `SO_SNDBUF` (the kernel doubles the value and applies its limits).
    pub fn set_send_buffer_size(&self, size: u32) -> io::Result<()> {
        on_sim!(self.inner, |s| {
            s.opts().send_buffer = size;
            Ok(())
        });
        self.inner.set_send_buffer_size(size as usize)
    }

    /// `SO_SNDBUF` as the kernel reports it.
    pub fn send_buffer_size(&self) -> io::Result<u32> {
        on_sim!(self.inner, |s| Ok(s.opts().send_buffer));
        self.inner.send_buffer_size().map(clamp_u32)
    }

    /// Sets `SO_RCVBUF` (the kernel doubles the value and applies its limits).
    pub fn set_recv_buffer_size(&self, size: u32) -> io::Result<()> {
        on_sim!(self.inner, |s| {
            s.opts().recv_buffer = size;
            Ok(())
        });
        self.inner.set_recv_buffer_size(size as usize)
    }

    /// `SO_RCVBUF` as the kernel reports it.
    pub fn recv_buffer_size(&self) -> io::Result<u32> {
        on_sim!(self.inner, |s| Ok(s.opts().recv_buffer));
        self.inner.recv_buffer_size().map(clamp_u32)
    }

    /// Sets `SO_LINGER` (see [`TcpStream::linger`]).
    pub fn set_linger(&self, dur: Option<Duration>) -> io::Result<()> {
        on_sim!(self.inner, |s| {
            s.opts().settings.linger = dur;
            Ok(())
        });
        self.inner.set_linger(dur)
    }

    /// `SO_LINGER`.
    pub fn linger(&self) -> io::Result<Option<Duration>> {
        on_sim!(self.inner, |s| Ok(s.opts().settings.linger));
        self.inner.linger()
    }

    /// Sets `SO_LINGER` to zero (closing resets the connection; never blocks).
    pub fn set_zero_linger(&self) -> io::Result<()> {
        on_sim!(self.inner, |s| {
            s.opts().settings.linger = Some(Duration::ZERO);
            Ok(())
        });
        self.inner.set_linger(Some(Duration::ZERO))
    }

    /// The IPv4 type-of-service byte (`IP_TOS`).
    pub fn tos_v4(&self) -> io::Result<u32> {
        self.inner.tos_v4()
    }

    /// `IP_TOS` (tokio's older name of [`Self::tos_v4`]).
    pub fn tos(&self) -> io::Result<u32> {
        self.tos_v4()
    }

    /// Sets `IP_TOS`.
    pub fn set_tos_v4(&self, tos: u32) -> io::Result<()> {
        self.inner.set_tos_v4(tos)
    }

    /// Sets `IP_TOS` (tokio's older name of [`Self::set_tos_v4`]).
    pub fn set_tos(&self, tos: u32) -> io::Result<()> {
        self.set_tos_v4(tos)
    }

    /// The IPv6 traffic class (`IPV6_TCLASS`).
    pub fn tclass_v6(&self) -> io::Result<u32> {
        self.inner.tclass_v6()
    }

    /// Sets `IPV6_TCLASS`.
    pub fn set_tclass_v6(&self, tclass: u32) -> io::Result<()> {
        self.inner.set_tclass_v6(tclass)
    }

    /// The interface the socket is bound to (`SO_BINDTODEVICE`), if any.
    #[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
    pub fn device(&self) -> io::Result<Option<Vec<u8>>> {
        self.inner.device()
    }

    /// Binds the socket to an interface (`SO_BINDTODEVICE`; `None` unbinds). Needs
    /// `CAP_NET_RAW` on most kernels.
    #[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
    pub fn bind_device(&self, interface: Option<&[u8]>) -> io::Result<()> {
        self.inner.bind_device(interface)
    }

    /// Sets `TCP_NODELAY` (disables Nagle's algorithm when `true`).
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        on_sim!(self.inner, |s| {
            s.opts().settings.nodelay = nodelay;
            Ok(())
        });
        self.inner.set_tcp_nodelay(nodelay)
    }

    /// Whether `TCP_NODELAY` is set.
    pub fn nodelay(&self) -> io::Result<bool> {
        on_sim!(self.inner, |s| Ok(s.opts().settings.nodelay));
        self.inner.tcp_nodelay()
    }

    /// The local address (after `bind`, or the one `connect` picked).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        on_sim!(self.inner, |s| s.local_addr());
        self.inner
            .local_addr()?
            .as_socket()
            .ok_or_else(|| io::Error::other("not an IP socket address"))
    }

    /// Takes the socket's pending error (`SO_ERROR`), if any.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        on_sim!(self.inner, |s| {
            let _ = s;
            Ok(None)
        });
        self.inner.take_error()
    }

    /// Binds to `addr`: before `connect`, to choose the local address or port; before
    /// `listen`, the address to serve on.
    ///
    /// # Panics
    /// In a deterministic runtime, for an address that is not loopback.
    #[track_caller]
    pub fn bind(&self, addr: SocketAddr) -> io::Result<()> {
        on_sim!(self.inner, |s| s.bind(addr, std::panic::Location::caller()));
        self.inner.bind(&addr.into())
    }

    /// Connects to `addr` and returns the stream, consuming the socket.
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`. In a
    /// deterministic runtime, for an address that is not loopback.
    #[track_caller]
    pub fn connect(
        self,
        addr: SocketAddr,
    ) -> impl std::future::Future<Output = io::Result<TcpStream>> {
        let at = std::panic::Location::caller();
        async move {
            let _ = at;
            #[cfg(all(feature = "deterministic", not(loom)))]
            let inner = match self.inner {
                crate::sim::net::Io::Sim(s) => {
                    return TcpStream::connect_socket_sim(s, addr, at).await
                }
                crate::sim::net::Io::Real(inner) => inner,
            };
            #[cfg(not(all(feature = "deterministic", not(loom))))]
            let inner = self.inner;
            match inner.connect(&addr.into()) {
                Ok(()) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => {}
                Err(e) => return Err(e),
            }
            let std = std::net::TcpStream::from(inner);
            TcpStream::connect_mio(mio::net::TcpStream::from_std(std)).await
        }
    }

    /// Listens with a queue of `backlog` pending connections and returns the listener,
    /// consuming the socket (bind it first).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn listen(self, backlog: u32) -> io::Result<TcpListener> {
        #[cfg(all(feature = "deterministic", not(loom)))]
        let inner = match self.inner {
            crate::sim::net::Io::Sim(s) => return s.listen(backlog).map(TcpListener::from_sim),
            crate::sim::net::Io::Real(inner) => inner,
        };
        #[cfg(not(all(feature = "deterministic", not(loom))))]
        let inner = self.inner;
        inner.listen(backlog.min(i32::MAX as u32) as i32)?;
        let std = std::net::TcpListener::from(inner);
        TcpListener::new(mio::net::TcpListener::from_std(std))
    }

    /// Wraps a std stream (connected or not) to set options on it; it is switched to
    /// non-blocking mode.
    pub fn from_std_stream(stream: std::net::TcpStream) -> TcpSocket {
        // Cannot fail for a valid descriptor; an error here would only mean the fd was
        // closed behind our back, and the next operation reports that.
        let _ = stream.set_nonblocking(true);
        TcpSocket {
            inner: real_io!(Socket::from(stream)),
        }
    }
}

fn clamp_u32(n: usize) -> u32 {
    n.min(u32::MAX as usize) as u32
}

impl AsRawFd for TcpSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}

impl AsFd for TcpSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.inner.as_fd()
    }
}

impl IntoRawFd for TcpSocket {
    fn into_raw_fd(self) -> RawFd {
        into_real!(self.inner).into_raw_fd()
    }
}

impl FromRawFd for TcpSocket {
    /// Wraps a TCP socket descriptor (switched to non-blocking mode).
    ///
    /// # Safety
    /// `fd` must be an open TCP socket owned by nobody else.
    unsafe fn from_raw_fd(fd: RawFd) -> TcpSocket {
        // SAFETY: the caller hands us sole ownership of an open socket descriptor.
        let socket = unsafe { Socket::from_raw_fd(fd) };
        let _ = socket.set_nonblocking(true);
        TcpSocket {
            inner: real_io!(socket),
        }
    }
}

impl From<OwnedFd> for TcpSocket {
    fn from(fd: OwnedFd) -> TcpSocket {
        let socket = Socket::from(fd);
        let _ = socket.set_nonblocking(true);
        TcpSocket {
            inner: real_io!(socket),
        }
    }
}

impl fmt::Debug for TcpSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        on_sim!(self.inner, |s| s.fmt(f));
        self.inner.fmt(f)
    }
}
