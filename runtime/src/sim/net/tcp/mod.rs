//! In-memory TCP: listeners, connections and the handles `runtime::net`'s TCP types hold
//! in a deterministic runtime.
//!
//! A connection has two sides (0: the connecting one, 1: the accepted one). Each side
//! holds what was delivered to it and not yet read (`rx`), the bytes in flight towards
//! it, and its flags. A write from one side is accepted up to the room left in the
//! other side's window (`WINDOW` bytes, delivered and in flight together): a full
//! window makes a write return `WouldBlock`/`Pending` (or a short count), and a read
//! that frees room wakes the writers. Written bytes travel as one `Data` delivery and
//! arrive in write order.
//!
//! `connect` to a bound listener sends a SYN; its arrival puts the accepted side in
//! the listener's queue (at most `backlog` waiting) and completes the connect; no
//! listener (or a full queue when it arrives) is `ConnectionRefused`. `shutdown(Write)`
//! sends a FIN: the peer reads EOF after the data before it. Closing a side sends a
//! FIN, or an RST when it had unread data or zero linger; data arriving at a closed
//! side is answered with an RST. An RST makes the receiver's next read (after what was
//! delivered before it) or write fail with `ConnectionReset`, later reads return EOF
//! and later writes `BrokenPipe`. A connection is forgotten once both sides closed;
//! deliveries for a forgotten connection are dropped.

mod listener;
mod socket;
mod stream;

use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::panic::Location;
use std::path::PathBuf;
use std::sync::Arc;
use std::task::Waker;
use std::time::{Duration, Instant};

use super::addr::{self, Proto};
use super::{Net, State, Waiters};
use crate::io::{Interest, Ready};
use crate::sim::Sim;

pub(crate) use listener::{bind, listen, Listener};
pub(crate) use socket::Socket;
pub(crate) use stream::Stream;

/// The most bytes in flight plus unread towards one side of a connection.
pub(crate) const WINDOW: usize = 64 * 1024;

/// tokio's (and `TcpListener::bind`'s) listen backlog.
pub(crate) const BACKLOG: usize = 1024;

/// The stream part of the network (TCP, and Unix streams, which use the same model).
#[derive(Default)]
pub(crate) struct Tcp {
    listeners: BTreeMap<u64, ListenerState>,
    conns: BTreeMap<u64, Conn>,
    /// Unix listeners by path (unix.rs).
    pub(crate) paths: BTreeMap<PathBuf, u64>,
    next_id: u64,
}

/// A stream socket's address: an IP one, or a Unix path (`None`: unnamed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Addr {
    Ip(SocketAddr),
    Unix(Option<PathBuf>),
}

impl Addr {
    fn as_ip(&self) -> Option<SocketAddr> {
        match self {
            Addr::Ip(a) => Some(*a),
            Addr::Unix(_) => None,
        }
    }

    /// The IP address (of a TCP socket).
    pub(crate) fn ip(&self) -> SocketAddr {
        self.as_ip()
            .expect("a TCP socket of the in-memory network has an IP address")
    }

    /// The path (of a Unix socket; `None`: unnamed).
    pub(crate) fn path(&self) -> Option<PathBuf> {
        match self {
            Addr::Unix(p) => p.clone(),
            Addr::Ip(_) => None,
        }
    }
}

impl Tcp {
    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

struct ListenerState {
    addr: Addr,
    backlog: usize,
    /// Connections whose SYN arrived, not yet accepted.
    queue: VecDeque<u64>,
    acceptors: Waiters,
}

#[derive(PartialEq, Eq)]
enum Phase {
    Connecting { listener: u64 },
    Established,
    Refused,
}

struct Conn {
    phase: Phase,
    connect: Waiters,
    /// Each side's local address.
    addr: [Addr; 2],
    side: [Side; 2],
    /// The connecting side's binding, released when it closes.
    client_bind: Option<SocketAddr>,
}

#[derive(Default)]
struct Side {
    rx: VecDeque<u8>,
    in_flight: usize,
    /// Due instant of the latest delivery towards this side (arrivals stay in order).
    last_due: Option<Instant>,
    /// A FIN arrived: EOF after `rx`.
    fin: bool,
    /// An RST arrived.
    reset: bool,
    /// The reset is not yet reported (a read's or write's `ConnectionReset`).
    err: bool,
    /// This side shut down its reading / writing.
    rd_shut: bool,
    wr_shut: bool,
    /// The handle (or the listener's queue) still holds this side.
    open: bool,
    /// This side answered data after its close with an RST already.
    rst_sent: bool,
    readers: Waiters,
    writers: Waiters,
    nodelay: bool,
    ttl: u32,
    linger: Option<Duration>,
}

/// What travels between the sides of a connection.
pub(crate) enum Delivery {
    Syn {
        conn: u64,
    },
    Data {
        conn: u64,
        to: usize,
        bytes: Vec<u8>,
    },
    Fin {
        conn: u64,
        to: usize,
    },
    Rst {
        conn: u64,
        to: usize,
    },
}

/// Queues `d` towards `to` of `conn`, after the side's previous delivery.
fn send(st: &mut State, conn: u64, to: usize, d: Delivery) {
    let Some(c) = st.tcp.conns.get_mut(&conn) else {
        return;
    };
    let due = st.q.schedule(c.side[to].last_due, super::Delivery::Tcp(d));
    c.side[to].last_due = Some(due);
}

/// Applies one delivery (`Net::deliver_due`).
pub(crate) fn deliver(st: &mut State, d: Delivery, wake: &mut Vec<Waker>) {
    match d {
        Delivery::Syn { conn } => syn(st, conn, wake),
        Delivery::Data { conn, to, bytes } => {
            let Some(c) = st.tcp.conns.get_mut(&conn) else {
                return;
            };
            let from = 1 - to;
            let s = &mut c.side[to];
            s.in_flight -= bytes.len();
            if s.open && !s.reset {
                s.rx.extend(bytes);
                s.readers.take(wake);
                return;
            }
            // Dropped at a closed side: the room is free again, and the sender learns
            // of the close by an RST.
            let answer = !s.open && !s.rst_sent;
            if answer {
                s.rst_sent = true;
            }
            c.side[from].writers.take(wake);
            if answer {
                send(st, conn, from, Delivery::Rst { conn, to: from });
            }
        }
        Delivery::Fin { conn, to } => {
            if let Some(c) = st.tcp.conns.get_mut(&conn) {
                let s = &mut c.side[to];
                s.fin = true;
                s.readers.take(wake);
                s.writers.take(wake);
            }
        }
        Delivery::Rst { conn, to } => {
            if let Some(c) = st.tcp.conns.get_mut(&conn) {
                let s = &mut c.side[to];
                if s.open && !s.reset {
                    s.reset = true;
                    s.err = true;
                }
                s.readers.take(wake);
                s.writers.take(wake);
                c.connect.take(wake);
            }
        }
    }
}

fn syn(st: &mut State, conn: u64, wake: &mut Vec<Waker>) {
    let Some(c) = st.tcp.conns.get_mut(&conn) else {
        return;
    };
    let Phase::Connecting { listener } = c.phase else {
        return;
    };
    if !c.side[0].open {
        c.connect.take(&mut st.stale);
        st.tcp.conns.remove(&conn);
        return;
    }
    c.connect.take(wake);
    match st.tcp.listeners.get_mut(&listener) {
        Some(l) if l.queue.len() < l.backlog => {
            c.phase = Phase::Established;
            c.side[1].open = true;
            l.queue.push_back(conn);
            l.acceptors.take(wake);
        }
        _ => {
            c.phase = Phase::Refused;
            if let Some(b) = c.client_bind.take() {
                st.ports.release(Proto::Tcp, b);
            }
        }
    }
}

fn refused() -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionRefused,
        "Connection refused (no listener at that address of the in-memory network)",
    )
}

/// Settings a `TcpSocket` passes on to its stream.
#[derive(Clone, Copy, Default)]
pub(crate) struct Settings {
    pub(crate) nodelay: bool,
    pub(crate) linger: Option<Duration>,
}

/// Starts a connection to `target` from `local` (already bound) or an ephemeral port;
/// the stream's `poll_connected` completes it.
pub(crate) fn connect(
    sim: &Arc<Sim>,
    target: SocketAddr,
    local: Option<SocketAddr>,
    settings: Settings,
    what: &str,
    at: &Location<'_>,
) -> io::Result<Stream> {
    addr::check_local(target, what, at);
    let dest = addr::destination(target);
    let conn = Net::with(sim, |st, _| {
        let found = st
            .tcp
            .listeners
            .iter()
            .filter(|(_, l)| l.addr.as_ip().is_some_and(|a| addr::matches(a, dest)))
            .min_by_key(|(_, l)| l.addr.as_ip().is_some_and(|a| a.ip().is_unspecified()))
            .map(|(&id, _)| id);
        let Some(listener) = found else {
            if let Some(b) = local {
                st.ports.release(Proto::Tcp, b);
            }
            return Err(refused());
        };
        let bind = match local {
            Some(b) => b,
            None => st.ports.bind(Proto::Tcp, SocketAddr::new(dest.ip(), 0))?,
        };
        let addrs = [Addr::Ip(addr::source(bind, dest)), Addr::Ip(dest)];
        Ok(new_conn(st, Some(listener), addrs, Some(bind), settings))
    })?;
    Ok(Stream {
        sim: sim.clone(),
        conn,
        side: 0,
    })
}

/// A new connection: towards `listener` (a SYN is sent), or with none, established
/// at once with both sides open (a socket pair).
pub(crate) fn new_conn(
    st: &mut State,
    listener: Option<u64>,
    addr: [Addr; 2],
    client_bind: Option<SocketAddr>,
    settings: Settings,
) -> u64 {
    let id = st.tcp.id();
    let side = |open| Side {
        open,
        ttl: 64,
        ..Side::default()
    };
    let mut client = side(true);
    client.nodelay = settings.nodelay;
    client.linger = settings.linger;
    let phase = match listener {
        Some(listener) => Phase::Connecting { listener },
        None => Phase::Established,
    };
    st.tcp.conns.insert(
        id,
        Conn {
            phase,
            connect: Waiters::default(),
            addr,
            side: [client, side(listener.is_none())],
            client_bind,
        },
    );
    if listener.is_some() {
        send(st, id, 1, Delivery::Syn { conn: id });
    }
    id
}

/// Closes side `i` of `conn`: an RST (`reset`) or a FIN to the peer, unless it has
/// one already; the connection is forgotten when both sides are closed.
fn close(st: &mut State, conn: u64, i: usize, reset: bool) {
    let Some(c) = st.tcp.conns.get_mut(&conn) else {
        return;
    };
    let established = c.phase == Phase::Established;
    let s = &mut c.side[i];
    if !s.open {
        return;
    }
    s.open = false;
    s.readers.take(&mut st.stale);
    s.writers.take(&mut st.stale);
    let reset = reset || !s.rx.is_empty() || s.linger == Some(Duration::ZERO);
    let tell = established && !s.reset && (reset || !s.wr_shut);
    if reset {
        s.rst_sent = true;
    }
    let bind = if i == 0 { c.client_bind.take() } else { None };
    let gone = !c.side[0].open && !c.side[1].open && !matches!(c.phase, Phase::Connecting { .. });
    if let Some(b) = bind {
        st.ports.release(Proto::Tcp, b);
    }
    if gone {
        if let Some(mut c) = st.tcp.conns.remove(&conn) {
            c.connect.take(&mut st.stale);
        }
    } else if tell {
        let j = 1 - i;
        let d = if reset {
            Delivery::Rst { conn, to: j }
        } else {
            Delivery::Fin { conn, to: j }
        };
        send(st, conn, j, d);
    }
}

/// Side `i` and the other, mutably.
fn pair(sides: &mut [Side; 2], i: usize) -> (&mut Side, &mut Side) {
    let [a, b] = sides;
    if i == 0 {
        (a, b)
    } else {
        (b, a)
    }
}

/// The readiness bits `interest` covers (a direction's closed state with it).
pub(crate) fn mask(interest: Interest) -> Ready {
    let mut m = Ready::EMPTY;
    if interest.is_readable() {
        m |= Ready::READABLE | Ready::READ_CLOSED;
    }
    if interest.is_writable() {
        m |= Ready::WRITABLE | Ready::WRITE_CLOSED;
    }
    if interest.is_error() {
        m |= Ready::ERROR;
    }
    m
}
