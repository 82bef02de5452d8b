//! In-memory UDP: the datagram sockets of a deterministic runtime.
//!
//! A socket is a bound address, an optional connected peer and a receive queue of
//! (source, datagram) bounded by `RECV_QUEUE` bytes. `send_to` never waits: the
//! datagram is queued as a delivery (seeded delay) and, when due, is appended to the
//! queue of the socket bound at its destination then (an exact address before the
//! unspecified one); it is dropped when there is none, when that socket is connected
//! to another peer, or when its queue is full, as a kernel drops it. Receives take the
//! oldest datagram (a peek leaves it queued), truncating it to the buffer.

use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::panic::Location;
use std::sync::Arc;
use std::task::{ready, Context, Poll, Waker};

use super::addr::{self, Proto};
use super::{blocked, Net, State, Waiters};
use crate::io::{Interest, Ready};
use crate::sim::Sim;

/// The most bytes of datagrams one socket holds unread.
pub(crate) const RECV_QUEUE: usize = 256 * 1024;

/// The largest datagram (IPv4's UDP payload limit).
pub(crate) const MAX_DATAGRAM: usize = 65_507;

/// The UDP part of the network.
#[derive(Default)]
pub(crate) struct Udp {
    sockets: BTreeMap<u64, SocketState>,
    next_id: u64,
}

struct SocketState {
    addr: SocketAddr,
    peer: Option<SocketAddr>,
    queue: VecDeque<(SocketAddr, Vec<u8>)>,
    queued: usize,
    readers: Waiters,
    broadcast: bool,
    ttl: u32,
}

/// A datagram in flight.
pub(crate) struct Delivery {
    from: SocketAddr,
    to: SocketAddr,
    bytes: Vec<u8>,
}

/// Applies one delivery (`Net::deliver_due`).
pub(crate) fn deliver(st: &mut State, d: Delivery, wake: &mut Vec<Waker>) {
    let target = st
        .udp
        .sockets
        .values_mut()
        .filter(|s| addr::matches(s.addr, d.to))
        .min_by_key(|s| s.addr.ip().is_unspecified());
    let Some(s) = target else {
        return;
    };
    if s.peer.is_some_and(|p| p != d.from) || s.queued + d.bytes.len() > RECV_QUEUE {
        return;
    }
    s.queued += d.bytes.len();
    s.queue.push_back((d.from, d.bytes));
    s.readers.take(wake);
}

/// Binds a socket at `addr` (`UdpSocket::bind`).
pub(crate) fn bind(sim: &Arc<Sim>, addr: SocketAddr, at: &Location<'_>) -> io::Result<Socket> {
    addr::check_local(addr, "UdpSocket::bind", at);
    let id = Net::with(sim, |st, _| {
        let bound = st.ports.bind(Proto::Udp, addr)?;
        st.udp.next_id += 1;
        let id = st.udp.next_id;
        st.udp.sockets.insert(
            id,
            SocketState {
                addr: bound,
                peer: None,
                queue: VecDeque::new(),
                queued: 0,
                readers: Waiters::default(),
                broadcast: false,
                ttl: 64,
            },
        );
        Ok::<_, io::Error>(id)
    })?;
    Ok(Socket {
        sim: sim.clone(),
        id,
    })
}

/// The in-memory side of a `UdpSocket`.
pub(crate) struct Socket {
    sim: Arc<Sim>,
    id: u64,
}

impl Socket {
    fn with<R>(&self, f: impl FnOnce(&mut State, &mut Vec<Waker>) -> R) -> R {
        Net::with(&self.sim, f)
    }

    fn state<R>(&self, f: impl FnOnce(&mut SocketState) -> R) -> R {
        self.with(|st, _| f(st.udp.sockets.get_mut(&self.id).expect("a live socket")))
    }

    pub(crate) fn local_addr(&self) -> SocketAddr {
        self.state(|s| s.addr)
    }

    pub(crate) fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.state(|s| s.peer).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotConnected,
                "Transport endpoint is not connected",
            )
        })
    }

    /// Sets the peer (`connect`); queued datagrams from others are dropped, as the
    /// kernel does.
    pub(crate) fn connect(&self, peer: SocketAddr, at: &Location<'_>) {
        addr::check_local(peer, "UdpSocket::connect", at);
        let peer = addr::destination(peer);
        self.state(|s| {
            s.peer = Some(peer);
            s.queue.retain(|(from, _)| *from == peer);
            s.queued = s.queue.iter().map(|(_, b)| b.len()).sum();
        });
    }

    /// Sends to `target` (`None`: the connected peer). Never waits.
    pub(crate) fn send_to(
        &self,
        buf: &[u8],
        target: Option<SocketAddr>,
        at: &Location<'_>,
    ) -> io::Result<usize> {
        if let Some(t) = target {
            addr::check_local(t, "UdpSocket::send_to", at);
        }
        if buf.len() > MAX_DATAGRAM {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "Message too long: a UDP datagram carries at most 65507 bytes",
            ));
        }
        let id = self.id;
        self.with(|st, _| {
            let s = st.udp.sockets.get(&id).expect("a live socket");
            let to = match target.or(s.peer) {
                Some(t) => addr::destination(t),
                None => {
                    return Err(io::Error::new(
                        io::ErrorKind::NotConnected,
                        "Destination address required: the socket is not connected",
                    ))
                }
            };
            let from = addr::source(s.addr, to);
            let d = Delivery {
                from,
                to,
                bytes: buf.to_vec(),
            };
            st.q.schedule(None, super::Delivery::Udp(d));
            Ok(buf.len())
        })
    }

    /// Receives (or peeks at) the oldest datagram into `sink` (which copies what fits
    /// and says how much). `cx`: wait for one (spending coop budget); none: `WouldBlock`.
    pub(crate) fn recv(
        &self,
        mut cx: Option<&mut Context<'_>>,
        peek: bool,
        sink: &mut dyn FnMut(&[u8]) -> usize,
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        if let Some(cx) = cx.as_deref_mut() {
            ready!(crate::coop::poll_proceed(cx));
        }
        self.state(|s| {
            let Some((from, bytes)) = s.queue.front() else {
                return blocked(cx, &mut s.readers);
            };
            let n = sink(bytes);
            let from = *from;
            if !peek {
                let (_, b) = s.queue.pop_front().expect("looked at above");
                s.queued -= b.len();
            }
            Poll::Ready(Ok((n, from)))
        })
    }

    /// Waits until the socket is ready for any of `interest`: writable always,
    /// readable with a datagram queued.
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        interest: Interest,
        budget: bool,
    ) -> Poll<io::Result<Ready>> {
        if budget {
            ready!(crate::coop::poll_proceed(cx));
        }
        self.state(|s| {
            let r = readiness(s) & super::tcp::mask(interest);
            if !r.is_empty() {
                return Poll::Ready(Ok(r));
            }
            s.readers.register(cx);
            Poll::Pending
        })
    }

    /// Registers `cx` to be woken by the next datagram.
    pub(crate) fn wait_change(&self, cx: &Context<'_>) {
        self.state(|s| s.readers.register(cx));
    }

    /// The readiness `interest` covers now (`try_io`).
    pub(crate) fn ready_now(&self, interest: Interest) -> Ready {
        self.state(|s| readiness(s) & super::tcp::mask(interest))
    }

    pub(crate) fn set_broadcast(&self, on: bool) {
        self.state(|s| s.broadcast = on);
    }

    pub(crate) fn broadcast(&self) -> bool {
        self.state(|s| s.broadcast)
    }

    pub(crate) fn set_ttl(&self, ttl: u32) {
        self.state(|s| s.ttl = ttl);
    }

    pub(crate) fn ttl(&self) -> u32 {
        self.state(|s| s.ttl)
    }
}

fn readiness(s: &SocketState) -> Ready {
    if s.queue.is_empty() {
        Ready::WRITABLE
    } else {
        Ready::WRITABLE | Ready::READABLE
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        let id = self.id;
        self.with(|st, _| {
            if let Some(mut s) = st.udp.sockets.remove(&id) {
                st.ports.release(Proto::Udp, s.addr);
                s.readers.take(&mut st.stale);
            }
        });
    }
}

impl std::fmt::Debug for Socket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UdpSocket")
            .field("addr", &self.local_addr())
            .field("in_memory", &true)
            .finish()
    }
}
