//! `UdpSocket`: datagrams over the runtime's I/O driver.
//!
//! Each operation waits for readiness in its direction, runs the datagram syscall and, on
//! `WouldBlock`, clears the readiness it saw and waits again (`IoSource::poll_io`). Sends
//! and receives use different directions of the registration, so one task may receive
//! while another sends on a shared `Arc<UdpSocket>`; two tasks waiting in the same
//! direction at once are not supported (one waker per direction).

use std::fmt;
use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll};

use io_driver::Direction;
use mio::Interest;

use crate::net::addr::{each_addr, no_addresses, resolve, ToSocketAddrs};
use crate::net::io_source::IoSource;

/// A UDP socket.
pub struct UdpSocket {
    io: IoSource<mio::net::UdpSocket>,
}

impl UdpSocket {
    /// Binds to `addr` (the first resolved address that binds wins).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<UdpSocket> {
        each_addr(&addr, |a| async move {
            UdpSocket::new(mio::net::UdpSocket::bind(a)?)
        })
        .await
    }

    #[track_caller]
    fn new(mio: mio::net::UdpSocket) -> io::Result<UdpSocket> {
        let io = IoSource::new(mio, Interest::READABLE | Interest::WRITABLE)?;
        Ok(UdpSocket { io })
    }

    /// Wraps a bound std socket (it is switched to non-blocking mode).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn from_std(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        socket.set_nonblocking(true)?;
        UdpSocket::new(mio::net::UdpSocket::from_std(socket))
    }

    /// Deregisters the socket and returns it as a std socket (still non-blocking).
    #[cfg(unix)]
    pub fn into_std(self) -> io::Result<std::net::UdpSocket> {
        let mio = self.io.into_inner()?;
        Ok(std::net::UdpSocket::from(std::os::fd::OwnedFd::from(mio)))
    }

    /// Sets the default destination for `send` and the only source `recv` accepts (the
    /// first resolved address that connects wins).
    pub async fn connect<A: ToSocketAddrs>(&self, addr: A) -> io::Result<()> {
        let io = self.io.get_ref();
        each_addr(&addr, |a| async move { io.connect(a) }).await
    }

    /// The local address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }

    /// The address given to `connect`.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().peer_addr()
    }

    /// Sends `buf` to the connected peer; returns the bytes sent.
    pub async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        poll_fn(|cx| self.poll_send(cx, buf)).await
    }

    /// Polls sending `buf` to the connected peer.
    pub fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.io.poll_io(cx, Direction::Write, |s| s.send(buf))
    }

    /// Receives one datagram from the connected peer into `buf` (the excess of a longer
    /// datagram is discarded); returns its length.
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        poll_fn(|cx| self.poll_recv(cx, buf)).await
    }

    /// Polls receiving one datagram from the connected peer.
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.io.poll_io(cx, Direction::Read, |s| s.recv(buf))
    }

    /// Sends `buf` to `target` (its first resolved address).
    pub async fn send_to<A: ToSocketAddrs>(&self, buf: &[u8], target: A) -> io::Result<usize> {
        let target = resolve(&target)
            .await?
            .into_iter()
            .next()
            .ok_or_else(no_addresses)?;
        poll_fn(|cx| self.poll_send_to(cx, buf, target)).await
    }

    /// Polls sending `buf` to `target`.
    pub fn poll_send_to(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        target: SocketAddr,
    ) -> Poll<io::Result<usize>> {
        self.io
            .poll_io(cx, Direction::Write, |s| s.send_to(buf, target))
    }

    /// Receives one datagram into `buf`; returns its length and its source.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        poll_fn(|cx| self.poll_recv_from(cx, buf)).await
    }

    /// Polls receiving one datagram and its source.
    pub fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.io.poll_io(cx, Direction::Read, |s| s.recv_from(buf))
    }

    /// Like `recv_from`, but leaves the datagram queued.
    pub async fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        poll_fn(|cx| self.io.poll_io(cx, Direction::Read, |s| s.peek_from(buf))).await
    }

    /// Waits until the socket may be readable (follow with a `try_recv*`, looping on
    /// `WouldBlock`).
    pub async fn readable(&self) -> io::Result<()> {
        poll_fn(|cx| self.io.poll_ready_recorded(cx, Direction::Read)).await
    }

    /// Waits until the socket may be writable (follow with a `try_send*`).
    pub async fn writable(&self) -> io::Result<()> {
        poll_fn(|cx| self.io.poll_ready_recorded(cx, Direction::Write)).await
    }

    /// Sends to the connected peer without waiting.
    pub fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        self.io.try_io(Direction::Write, |s| s.send(buf))
    }

    /// Sends to `target` without waiting.
    pub fn try_send_to(&self, buf: &[u8], target: SocketAddr) -> io::Result<usize> {
        self.io.try_io(Direction::Write, |s| s.send_to(buf, target))
    }

    /// Receives from the connected peer without waiting.
    pub fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.try_io(Direction::Read, |s| s.recv(buf))
    }

    /// Receives a datagram and its source without waiting.
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io.try_io(Direction::Read, |s| s.recv_from(buf))
    }

    /// Sets `SO_BROADCAST`.
    pub fn set_broadcast(&self, on: bool) -> io::Result<()> {
        self.io.get_ref().set_broadcast(on)
    }

    /// Whether `SO_BROADCAST` is set.
    pub fn broadcast(&self) -> io::Result<bool> {
        self.io.get_ref().broadcast()
    }

    /// Sets the IP time-to-live.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.get_ref().set_ttl(ttl)
    }

    /// The IP time-to-live.
    pub fn ttl(&self) -> io::Result<u32> {
        self.io.get_ref().ttl()
    }

    /// Takes the socket's pending error (`SO_ERROR`), if any.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.get_ref().take_error()
    }
}

impl TryFrom<std::net::UdpSocket> for UdpSocket {
    type Error = io::Error;

    /// [`UdpSocket::from_std`].
    fn try_from(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        UdpSocket::from_std(socket)
    }
}

#[cfg(unix)]
impl std::os::fd::AsRawFd for UdpSocket {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

#[cfg(unix)]
impl std::os::fd::AsFd for UdpSocket {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}

impl fmt::Debug for UdpSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.get_ref().fmt(f)
    }
}
