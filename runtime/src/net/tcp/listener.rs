//! `TcpListener`: a listening TCP socket whose `accept` waits on the I/O driver.
//!
//! `accept` waits for read readiness and calls `accept4` (non-blocking, close-on-exec)
//! until it stops saying `WouldBlock`; the accepted socket is registered with the
//! listener's own driver. Every other error, notably EMFILE/ENFILE (out of descriptors) and
//! ECONNABORTED, is returned to the caller as is: the listener neither swallows nor retries
//! it, so a server decides how to back off (readiness stays set, so the next `accept`
//! retries the syscall at once).

use std::fmt;
use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::task::{ready, Context, Poll};

use io_driver::Direction;
use mio::Interest;

use super::TcpStream;
use crate::io::io_source::IoSource;
use crate::net::addr::{each_addr, ToSocketAddrs};

/// A TCP server socket.
///
/// ```
/// # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
/// use runtime::net::TcpListener;
/// let listener = TcpListener::bind("127.0.0.1:0").await?;
/// println!("listening on {}", listener.local_addr()?);
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub struct TcpListener {
    io: sim_or!(
        IoSource<mio::net::TcpListener>,
        crate::sim::net::tcp::Listener
    ),
}

impl TcpListener {
    /// Binds to `addr` (the first resolved address that binds wins), with `SO_REUSEADDR`
    /// and a listen backlog of 1024 (tokio's; std's and mio's 128 overflows under a burst
    /// of connects, and overflowed handshakes can surface as resets).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`. In a
    /// deterministic runtime, for an address that is not loopback (its network is in
    /// memory).
    #[track_caller]
    pub fn bind<A: ToSocketAddrs>(
        addr: A,
    ) -> impl std::future::Future<Output = io::Result<TcpListener>> {
        let at = std::panic::Location::caller();
        async move {
            sim_current!(|sim| each_addr(&addr, |a| {
                let l = crate::sim::net::tcp::bind(&sim, a, at);
                async move { l.map(TcpListener::from_sim) }
            })
            .await);
            let _ = at;
            each_addr(&addr, |a| async move {
                TcpListener::new(mio::net::TcpListener::from_std(listen(a)?))
            })
            .await
        }
    }

    /// A listener of a deterministic runtime's in-memory network.
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) fn from_sim(l: crate::sim::net::tcp::Listener) -> TcpListener {
        TcpListener {
            io: crate::sim::net::Io::Sim(l),
        }
    }

    #[track_caller]
    pub(crate) fn new(mio: mio::net::TcpListener) -> io::Result<TcpListener> {
        let source = IoSource::new(mio, Interest::READABLE)?;
        Ok(TcpListener {
            io: real_io!(source),
        })
    }

    /// Wraps a bound, listening std listener (it is switched to non-blocking mode).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn from_std(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        #[cfg(all(feature = "deterministic", not(loom)))]
        crate::sim::net::forbid_real(
            "TcpListener::from_std",
            "Bind with `TcpListener::bind` (a loopback address) instead.",
        );
        listener.set_nonblocking(true)?;
        TcpListener::new(mio::net::TcpListener::from_std(listener))
    }

    /// Deregisters the listener and returns it as a std listener (still non-blocking).
    #[cfg(unix)]
    pub fn into_std(self) -> io::Result<std::net::TcpListener> {
        let mio = into_real!(self.io).into_inner()?;
        Ok(std::net::TcpListener::from(std::os::fd::OwnedFd::from(mio)))
    }

    /// Waits for and accepts a connection. Errors (EMFILE included) are returned as is.
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        poll_fn(|cx| self.poll_accept(cx)).await
    }

    /// Polls for a connection (several tasks may wait on one listener: each event wakes
    /// them all and they race for the connections).
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(TcpStream, SocketAddr)>> {
        on_sim!(self.io, |s| s
            .poll_accept(Some(cx))
            .map_ok(|(st, a)| (TcpStream::from_sim(st), a.ip())));
        let (mio, addr) = ready!(self.io.poll_io(cx, Direction::Read, |l| l.accept()))?;
        let stream = TcpStream::accepted(self.io.driver(), mio)?;
        Poll::Ready(Ok((stream, addr)))
    }

    /// The bound address (with the port the OS picked for port 0).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        on_sim!(self.io, |s| Ok(s.local_addr()));
        self.io.get_ref().local_addr()
    }

    /// Sets the IP time-to-live of accepted sockets.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        on_sim!(self.io, |s| {
            let _ = (s, ttl);
            Ok(())
        });
        self.io.get_ref().set_ttl(ttl)
    }

    /// The IP time-to-live.
    pub fn ttl(&self) -> io::Result<u32> {
        on_sim!(self.io, |s| {
            let _ = s;
            Ok(64)
        });
        self.io.get_ref().ttl()
    }
}

impl TryFrom<std::net::TcpListener> for TcpListener {
    type Error = io::Error;

    /// [`TcpListener::from_std`].
    fn try_from(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        TcpListener::from_std(listener)
    }
}

#[cfg(unix)]
impl std::os::fd::AsRawFd for TcpListener {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

#[cfg(unix)]
impl std::os::fd::AsFd for TcpListener {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}

impl fmt::Debug for TcpListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        on_sim!(self.io, |s| s.fmt(f));
        self.io.get_ref().fmt(f)
    }
}

/// Backlog of `TcpListener::bind`, as tokio's.
const BACKLOG: i32 = 1024;

/// A non-blocking, close-on-exec listening socket on `addr` with `BACKLOG`.
fn listen(addr: std::net::SocketAddr) -> io::Result<std::net::TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_nonblocking(true)?;
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(BACKLOG)?;
    Ok(socket.into())
}
