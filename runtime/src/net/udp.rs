//! `UdpSocket`: datagrams over the runtime's I/O driver.
//!
//! Each operation waits for readiness in its direction, runs the datagram syscall and, on
//! `WouldBlock`, clears the readiness it saw and waits again (`IoSource::poll_io`). Sends
//! and receives use different directions of the registration, so one task may receive
//! while another sends on a shared `Arc<UdpSocket>`; several tasks may also wait in the
//! same direction (each is woken by an event and races for the datagram; a loser meets
//! `WouldBlock` and waits again).
//!
//! Peeks (`peek_from`, `peek_sender`) use `MSG_PEEK`: a datagram peeked stays queued, so
//! its readiness is not cleared and the following `recv_from` returns the same datagram.

use std::fmt;
use std::future::poll_fn;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::task::{ready, Context, Poll};

use crate::io::ReadBuf;

use io_driver::Direction;
use mio::Interest;

use crate::io::io_source::IoSource;
use crate::net::addr::{each_addr, no_addresses, resolve, ToSocketAddrs};

/// A UDP socket.
///
/// ```
/// use runtime::net::UdpSocket;
/// # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
/// let a = UdpSocket::bind("127.0.0.1:0").await?;
/// let b = UdpSocket::bind("127.0.0.1:0").await?;
/// a.send_to(b"ping", b.local_addr()?).await?;
/// let mut buf = [0; 16];
/// let (n, from) = b.recv_from(&mut buf).await?;
/// assert_eq!((&buf[..n], from), (&b"ping"[..], a.local_addr()?));
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub struct UdpSocket {
    io: sim_or!(IoSource<mio::net::UdpSocket>, crate::sim::net::udp::Socket),
}

impl UdpSocket {
    /// Binds to `addr` (the first resolved address that binds wins).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`. In a
    /// deterministic runtime, for an address that is not loopback (its network is in
    /// memory).
    #[track_caller]
    pub fn bind<A: ToSocketAddrs>(
        addr: A,
    ) -> impl std::future::Future<Output = io::Result<UdpSocket>> {
        let at = std::panic::Location::caller();
        async move {
            sim_current!(|sim| each_addr(&addr, |a| {
                let s = crate::sim::net::udp::bind(&sim, a, at);
                async move {
                    s.map(|s| UdpSocket {
                        io: crate::sim::net::Io::Sim(s),
                    })
                }
            })
            .await);
            let _ = at;
            each_addr(&addr, |a| async move {
                UdpSocket::new(mio::net::UdpSocket::bind(a)?)
            })
            .await
        }
    }

    #[track_caller]
    fn new(mio: mio::net::UdpSocket) -> io::Result<UdpSocket> {
        let source = IoSource::new(mio, Interest::READABLE | Interest::WRITABLE)?;
        Ok(UdpSocket {
            io: real_io!(source),
        })
    }

    /// Wraps a bound std socket (it is switched to non-blocking mode).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn from_std(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        #[cfg(all(feature = "deterministic", not(loom)))]
        crate::sim::net::forbid_real(
            "UdpSocket::from_std",
            "Bind with `UdpSocket::bind` (a loopback address) instead.",
        );
        socket.set_nonblocking(true)?;
        UdpSocket::new(mio::net::UdpSocket::from_std(socket))
    }

    /// Deregisters the socket and returns it as a std socket (still non-blocking).
    #[cfg(unix)]
    pub fn into_std(self) -> io::Result<std::net::UdpSocket> {
        let mio = into_real!(self.io).into_inner()?;
        Ok(std::net::UdpSocket::from(std::os::fd::OwnedFd::from(mio)))
    }

    /// Sets the default destination for `send` and the only source `recv` accepts (the
    /// first resolved address that connects wins).
    ///
    /// # Panics
    /// In a deterministic runtime, for an address that is not loopback.
    #[track_caller]
    pub fn connect<'a, A: ToSocketAddrs + 'a>(
        &'a self,
        addr: A,
    ) -> impl std::future::Future<Output = io::Result<()>> + 'a {
        let at = std::panic::Location::caller();
        async move {
            let _ = at;
            on_sim!(self.io, |s| each_addr(&addr, |a| {
                s.connect(a, at);
                async { Ok(()) }
            })
            .await);
            let io = self.io.get_ref();
            each_addr(&addr, |a| async move { io.connect(a) }).await
        }
    }

    /// The local address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        on_sim!(self.io, |s| Ok(s.local_addr()));
        self.io.get_ref().local_addr()
    }

    /// The address given to `connect`.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        on_sim!(self.io, |s| s.peer_addr());
        self.io.get_ref().peer_addr()
    }

    /// Sends `buf` to the connected peer; returns the bytes sent.
    pub async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        on_sim!(self.io, |s| s.send_to(
            buf,
            None,
            std::panic::Location::caller()
        ));
        poll_fn(|cx| self.poll_send(cx, buf)).await
    }

    /// Polls sending `buf` to the connected peer.
    pub fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        on_sim!(self.io, |s| Poll::Ready(s.send_to(
            buf,
            None,
            std::panic::Location::caller()
        )));
        self.io.poll_io(cx, Direction::Write, |s| s.send(buf))
    }

    /// Receives one datagram from the connected peer into `buf` (the excess of a longer
    /// datagram is discarded); returns its length.
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

    /// Polls receiving one datagram from the connected peer into `buf`'s unfilled part
    /// (tokio's signature: the datagram is added to `buf.filled()`).
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        on_sim!(self.io, |s| s.recv_into(Some(cx), buf, false).map_ok(drop));
        let dst = buf.initialize_unfilled();
        let n = ready!(self.io.poll_io(cx, Direction::Read, |s| s.recv(dst)))?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }

    /// Sends `buf` to `target` (its first resolved address).
    ///
    /// # Panics
    /// In a deterministic runtime, for an address that is not loopback.
    #[track_caller]
    pub fn send_to<'a, A: ToSocketAddrs + 'a>(
        &'a self,
        buf: &'a [u8],
        target: A,
    ) -> impl std::future::Future<Output = io::Result<usize>> + 'a {
        let at = std::panic::Location::caller();
        async move {
            let target = resolve(&target)
                .await?
                .into_iter()
                .next()
                .ok_or_else(no_addresses)?;
            let _ = at;
            on_sim!(self.io, |s| s.send_to(buf, Some(target), at));
            poll_fn(|cx| self.poll_send_to(cx, buf, target)).await
        }
    }

    /// Polls sending `buf` to `target`.
    pub fn poll_send_to(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        target: SocketAddr,
    ) -> Poll<io::Result<usize>> {
        on_sim!(self.io, |s| Poll::Ready(s.send_to(
            buf,
            Some(target),
            std::panic::Location::caller()
        )));
        self.io
            .poll_io(cx, Direction::Write, |s| s.send_to(buf, target))
    }

    /// Receives one datagram into `buf`; returns its length and its source.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        on_sim!(self.io, |s| poll_fn(|cx| s.recv_slice(
            Some(cx),
            buf,
            false
        ))
        .await);
        poll_fn(|cx| self.io.poll_io(cx, Direction::Read, |s| s.recv_from(buf))).await
    }

    /// Polls receiving one datagram into `buf`'s unfilled part; returns its source
    /// (tokio's signature: the datagram is added to `buf.filled()`).
    pub fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        on_sim!(self.io, |s| s
            .recv_into(Some(cx), buf, false)
            .map_ok(|r| r.1));
        let dst = buf.initialize_unfilled();
        let (n, from) = ready!(self.io.poll_io(cx, Direction::Read, |s| s.recv_from(dst)))?;
        buf.advance(n);
        Poll::Ready(Ok(from))
    }

    /// Like `recv_from`, but leaves the datagram queued: the next `recv_from` (or peek)
    /// returns it again.
    ///
    /// ```
    /// # use runtime::net::UdpSocket;
    /// # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
    /// let a = UdpSocket::bind("127.0.0.1:0").await?;
    /// let b = UdpSocket::bind("127.0.0.1:0").await?;
    /// a.send_to(b"hi", b.local_addr()?).await?;
    /// let mut buf = [0; 8];
    /// assert_eq!(b.peek_from(&mut buf).await?, (2, a.local_addr()?));
    /// assert_eq!(b.recv_from(&mut buf).await?, (2, a.local_addr()?));
    /// # Ok::<_, std::io::Error>(()) }).unwrap();
    /// ```
    pub async fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        on_sim!(self.io, |s| poll_fn(|cx| s.recv_slice(Some(cx), buf, true))
            .await);
        poll_fn(|cx| self.io.poll_io(cx, Direction::Read, |s| s.peek_from(buf))).await
    }

    /// Polls peeking at the next datagram (see [`Self::peek_from`]); tokio's signature.
    pub fn poll_peek_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        on_sim!(self.io, |s| s
            .recv_into(Some(cx), buf, true)
            .map_ok(|r| r.1));
        let dst = buf.initialize_unfilled();
        let (n, from) = ready!(self.io.poll_io(cx, Direction::Read, |s| s.peek_from(dst)))?;
        buf.advance(n);
        Poll::Ready(Ok(from))
    }

    /// Peeks at the next datagram without waiting (`WouldBlock` when none is queued).
    pub fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        on_sim!(self.io, |s| crate::sim::net::done(
            s.recv_slice(None, buf, true)
        ));
        self.io.try_io(Direction::Read, |s| s.peek_from(buf))
    }

    /// Like `recv`, but leaves the datagram queued.
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        on_sim!(self.io, |s| poll_fn(|cx| s.recv_slice(Some(cx), buf, true))
            .await
            .map(|r| r.0));
        poll_fn(|cx| self.io.poll_io(cx, Direction::Read, |s| s.peek(buf))).await
    }

    /// The source of the next datagram, without reading (or dequeuing) it.
    pub async fn peek_sender(&self) -> io::Result<SocketAddr> {
        poll_fn(|cx| self.poll_peek_sender(cx)).await
    }

    /// Polls [`Self::peek_sender`].
    pub fn poll_peek_sender(&self, cx: &mut Context<'_>) -> Poll<io::Result<SocketAddr>> {
        on_sim!(self.io, |s| s
            .recv_slice(Some(cx), &mut [], true)
            .map_ok(|r| r.1));
        self.io.poll_io(cx, Direction::Read, peek_sender)
    }

    /// [`Self::peek_sender`] without waiting (`WouldBlock` when no datagram is queued).
    pub fn try_peek_sender(&self) -> io::Result<SocketAddr> {
        on_sim!(self.io, |s| crate::sim::net::done(s.recv_slice(
            None,
            &mut [],
            true
        ))
        .map(|r| r.1));
        self.io.try_io(Direction::Read, peek_sender)
    }

    /// Waits until the socket is ready for any of `interest` and says which, as tokio's
    /// (a pending error shows as `is_error()`, a shutdown as closed); readiness can be
    /// spurious: follow with `try_recv*`/`try_send*` and loop on `WouldBlock`.
    pub async fn ready(&self, interest: crate::io::Interest) -> io::Result<crate::io::Ready> {
        on_sim!(self.io, |s| poll_fn(|cx| s.poll_ready(cx, interest, false))
            .await);
        poll_fn(|cx| self.io.poll_ready_interest(cx, interest)).await
    }

    /// Polls for read readiness (see [`Self::readable`]).
    pub fn poll_recv_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        on_sim!(self.io, |s| s
            .poll_ready(cx, crate::io::Interest::READABLE, true)
            .map_ok(drop));
        self.io.poll_ready_recorded(cx, Direction::Read)
    }

    /// Polls for write readiness (see [`Self::writable`]).
    pub fn poll_send_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        on_sim!(self.io, |s| s
            .poll_ready(cx, crate::io::Interest::WRITABLE, true)
            .map_ok(drop));
        self.io.poll_ready_recorded(cx, Direction::Write)
    }

    /// Waits until the socket may be readable (follow with a `try_recv*`, looping on
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

    /// Waits until the socket may be writable (follow with a `try_send*`).
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

    /// Sends to the connected peer without waiting.
    pub fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        on_sim!(self.io, |s| s.send_to(
            buf,
            None,
            std::panic::Location::caller()
        ));
        self.io.try_io(Direction::Write, |s| s.send(buf))
    }

    /// Sends to `target` without waiting.
    pub fn try_send_to(&self, buf: &[u8], target: SocketAddr) -> io::Result<usize> {
        on_sim!(self.io, |s| s.send_to(
            buf,
            Some(target),
            std::panic::Location::caller()
        ));
        self.io.try_io(Direction::Write, |s| s.send_to(buf, target))
    }

    /// Receives from the connected peer without waiting.
    pub fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        on_sim!(self.io, |s| crate::sim::net::done(
            s.recv_slice(None, buf, false)
        )
        .map(|r| r.0));
        self.io.try_io(Direction::Read, |s| s.recv(buf))
    }

    /// Receives a datagram and its source without waiting.
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        on_sim!(self.io, |s| crate::sim::net::done(
            s.recv_slice(None, buf, false)
        ));
        self.io.try_io(Direction::Read, |s| s.recv_from(buf))
    }

    /// Receives one datagram from the connected peer into `buf`'s spare capacity (a
    /// `bytes::BufMut`), advancing it by the datagram's length (truncated to the room
    /// there is).
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

    /// Receives one datagram into `buf`'s spare capacity, with its source.
    pub async fn recv_buf_from<B: bytes::BufMut>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        on_sim!(self.io, |s| poll_fn(|cx| s.recv_buf_mut(Some(cx), buf))
            .await);
        poll_fn(|cx| {
            self.io.poll_io(cx, Direction::Read, |s| {
                crate::net::buf_io::recv_buf_from_ip(s, buf)
            })
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
        ));
        self.io.try_io(Direction::Read, |s| {
            crate::net::buf_io::recv_buf_from_ip(s, buf)
        })
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

    /// The IPv4 type-of-service byte (`IP_TOS`).
    pub fn tos_v4(&self) -> io::Result<u32> {
        socket2::SockRef::from(self.io.get_ref()).tos_v4()
    }

    /// The IPv4 type-of-service byte (tokio's older name of [`Self::tos_v4`]).
    pub fn tos(&self) -> io::Result<u32> {
        self.tos_v4()
    }

    /// Sets `IP_TOS`.
    pub fn set_tos_v4(&self, tos: u32) -> io::Result<()> {
        socket2::SockRef::from(self.io.get_ref()).set_tos_v4(tos)
    }

    /// Sets `IP_TOS` (tokio's older name of [`Self::set_tos_v4`]).
    pub fn set_tos(&self, tos: u32) -> io::Result<()> {
        self.set_tos_v4(tos)
    }

    /// The IPv6 traffic class (`IPV6_TCLASS`).
    pub fn tclass_v6(&self) -> io::Result<u32> {
        socket2::SockRef::from(self.io.get_ref()).tclass_v6()
    }

    /// Sets `IPV6_TCLASS`.
    pub fn set_tclass_v6(&self, tclass: u32) -> io::Result<()> {
        socket2::SockRef::from(self.io.get_ref()).set_tclass_v6(tclass)
    }

    /// The interface this socket is bound to (`SO_BINDTODEVICE`), if any.
    #[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
    pub fn device(&self) -> io::Result<Option<Vec<u8>>> {
        socket2::SockRef::from(self.io.get_ref()).device()
    }

    /// Binds the socket to an interface (`SO_BINDTODEVICE`; `None` unbinds). Needs
    /// `CAP_NET_RAW` on most kernels.
    #[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
    pub fn bind_device(&self, interface: Option<&[u8]>) -> io::Result<()> {
        socket2::SockRef::from(self.io.get_ref()).bind_device(interface)
    }

    /// Sets `SO_BROADCAST`.
    pub fn set_broadcast(&self, on: bool) -> io::Result<()> {
        on_sim!(self.io, |s| {
            s.set_broadcast(on);
            Ok(())
        });
        self.io.get_ref().set_broadcast(on)
    }

    /// Whether `SO_BROADCAST` is set.
    pub fn broadcast(&self) -> io::Result<bool> {
        on_sim!(self.io, |s| Ok(s.broadcast()));
        self.io.get_ref().broadcast()
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
        on_sim!(self.io, |s| {
            let _ = s;
            Ok(None)
        });
        self.io.get_ref().take_error()
    }

    /// Joins the IPv4 multicast group `multiaddr` on the interface with address
    /// `interface` (`Ipv4Addr::UNSPECIFIED`: the system picks one).
    pub fn join_multicast_v4(&self, multiaddr: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        self.io.get_ref().join_multicast_v4(&multiaddr, &interface)
    }

    /// Joins the IPv6 multicast group `multiaddr` on interface index `interface` (0: any).
    pub fn join_multicast_v6(&self, multiaddr: &Ipv6Addr, interface: u32) -> io::Result<()> {
        self.io.get_ref().join_multicast_v6(multiaddr, interface)
    }

    /// Leaves an IPv4 multicast group (see [`Self::join_multicast_v4`]).
    pub fn leave_multicast_v4(&self, multiaddr: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        self.io.get_ref().leave_multicast_v4(&multiaddr, &interface)
    }

    /// Leaves an IPv6 multicast group (see [`Self::join_multicast_v6`]).
    pub fn leave_multicast_v6(&self, multiaddr: &Ipv6Addr, interface: u32) -> io::Result<()> {
        self.io.get_ref().leave_multicast_v6(multiaddr, interface)
    }

    /// Whether multicast datagrams sent by this socket loop back to local receivers (IPv4).
    pub fn multicast_loop_v4(&self) -> io::Result<bool> {
        self.io.get_ref().multicast_loop_v4()
    }

    /// Sets `IP_MULTICAST_LOOP`.
    pub fn set_multicast_loop_v4(&self, on: bool) -> io::Result<()> {
        self.io.get_ref().set_multicast_loop_v4(on)
    }

    /// The time-to-live of outgoing IPv4 multicast datagrams.
    pub fn multicast_ttl_v4(&self) -> io::Result<u32> {
        self.io.get_ref().multicast_ttl_v4()
    }

    /// Sets `IP_MULTICAST_TTL`.
    pub fn set_multicast_ttl_v4(&self, ttl: u32) -> io::Result<()> {
        self.io.get_ref().set_multicast_ttl_v4(ttl)
    }

    /// Whether multicast datagrams sent by this socket loop back to local receivers (IPv6).
    pub fn multicast_loop_v6(&self) -> io::Result<bool> {
        self.io.get_ref().multicast_loop_v6()
    }

    /// Sets `IPV6_MULTICAST_LOOP`.
    pub fn set_multicast_loop_v6(&self, on: bool) -> io::Result<()> {
        self.io.get_ref().set_multicast_loop_v6(on)
    }
}

/// The source of the next queued datagram (`MSG_PEEK`, nothing dequeued).
fn peek_sender(s: &mio::net::UdpSocket) -> io::Result<SocketAddr> {
    socket2::SockRef::from(s)
        .peek_sender()?
        .as_socket()
        .ok_or_else(|| io::Error::other("the datagram's source is not an IP address"))
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
        on_sim!(self.io, |s| s.fmt(f));
        self.io.get_ref().fmt(f)
    }
}
