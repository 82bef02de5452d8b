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

use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::panic::Location;
use std::sync::Arc;
use std::task::{ready, Context, Poll, Waker};
use std::time::{Duration, Instant};

use super::addr::{self, Proto};
use super::{blocked, Net, State, Waiters};
use crate::io::{Interest, Ready};
use crate::sim::Sim;

/// The most bytes in flight plus unread towards one side of a connection.
pub(crate) const WINDOW: usize = 64 * 1024;

/// tokio's (and `TcpListener::bind`'s) listen backlog.
pub(crate) const BACKLOG: usize = 1024;

/// The TCP part of the network.
#[derive(Default)]
pub(crate) struct Tcp {
    listeners: BTreeMap<u64, ListenerState>,
    conns: BTreeMap<u64, Conn>,
    next_id: u64,
}

impl Tcp {
    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

struct ListenerState {
    addr: SocketAddr,
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
    addr: [SocketAddr; 2],
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

/// Binds a listener at `addr` (`TcpListener::bind`).
pub(crate) fn bind(sim: &Arc<Sim>, addr: SocketAddr, at: &Location<'_>) -> io::Result<Listener> {
    addr::check_local(addr, "TcpListener::bind", at);
    let bound = Net::with(sim, |st, _| st.ports.bind(Proto::Tcp, addr))?;
    Ok(listen(sim, bound, BACKLOG))
}

/// A listener on the already bound `addr` (`TcpSocket::listen`).
pub(crate) fn listen(sim: &Arc<Sim>, addr: SocketAddr, backlog: usize) -> Listener {
    let id = Net::with(sim, |st, _| {
        let id = st.tcp.id();
        st.tcp.listeners.insert(
            id,
            ListenerState {
                addr,
                backlog: backlog.max(1),
                queue: VecDeque::new(),
                acceptors: Waiters::default(),
            },
        );
        id
    });
    Listener {
        sim: sim.clone(),
        id,
        addr,
    }
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
            .filter(|(_, l)| addr::matches(l.addr, dest))
            .min_by_key(|(_, l)| l.addr.ip().is_unspecified())
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
        let id = st.tcp.id();
        let side = |open| Side {
            open,
            ttl: 64,
            ..Side::default()
        };
        let mut client = side(true);
        client.nodelay = settings.nodelay;
        client.linger = settings.linger;
        st.tcp.conns.insert(
            id,
            Conn {
                phase: Phase::Connecting { listener },
                connect: Waiters::default(),
                addr: [addr::source(bind, dest), dest],
                side: [client, side(false)],
                client_bind: Some(bind),
            },
        );
        send(st, id, 1, Delivery::Syn { conn: id });
        Ok(id)
    })?;
    Ok(Stream {
        sim: sim.clone(),
        conn,
        side: 0,
    })
}

/// The in-memory side of a `TcpListener`.
pub(crate) struct Listener {
    sim: Arc<Sim>,
    id: u64,
    addr: SocketAddr,
}

impl Listener {
    pub(crate) fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Takes the next connection whose SYN arrived (`cx`: wait for one).
    pub(crate) fn poll_accept(
        &self,
        cx: Option<&mut Context<'_>>,
    ) -> Poll<io::Result<(Stream, SocketAddr)>> {
        let got = Net::with(&self.sim, |st, _| {
            let Some(l) = st.tcp.listeners.get_mut(&self.id) else {
                return Poll::Ready(Err(io::ErrorKind::NotConnected.into()));
            };
            match l.queue.pop_front() {
                Some(conn) => {
                    let peer = st.tcp.conns.get(&conn).map(|c| c.addr[0]);
                    Poll::Ready(Ok((conn, peer)))
                }
                None => blocked(cx, &mut l.acceptors),
            }
        });
        let (conn, peer) = ready!(got)?;
        let stream = Stream {
            sim: self.sim.clone(),
            conn,
            side: 1,
        };
        let peer = peer.expect("a queued connection is live");
        Poll::Ready(Ok((stream, peer)))
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let (id, addr) = (self.id, self.addr);
        Net::with(&self.sim, |st, _| {
            st.ports.release(Proto::Tcp, addr);
            let Some(l) = st.tcp.listeners.remove(&id) else {
                return;
            };
            // Connections never accepted are reset, as a closed listener's are.
            for conn in l.queue {
                close(st, conn, 1, true);
            }
        });
    }
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
    s.readers.clear();
    s.writers.clear();
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
        st.tcp.conns.remove(&conn);
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

/// The in-memory side of a `TcpStream`: one side of a connection.
pub(crate) struct Stream {
    sim: Arc<Sim>,
    conn: u64,
    side: usize,
}

impl Stream {
    fn with<R>(&self, f: impl FnOnce(&mut State, &mut Conn, &mut Vec<Waker>) -> R) -> R {
        Net::with(&self.sim, |st, wake| {
            // `send` needs the state whole: take the connection out for `f`.
            let mut c = st
                .tcp
                .conns
                .remove(&self.conn)
                .expect("an open side keeps its connection");
            let r = f(st, &mut c, wake);
            st.tcp.conns.insert(self.conn, c);
            r
        })
    }

    /// Completes the connect: `Ok` once the SYN reached a listener.
    pub(crate) fn poll_connected(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.with(|_, c, _| match c.phase {
            Phase::Established => Poll::Ready(Ok(())),
            Phase::Refused => Poll::Ready(Err(refused())),
            Phase::Connecting { .. } => {
                if c.side[0].reset {
                    return Poll::Ready(Err(refused()));
                }
                c.connect.register(cx);
                Poll::Pending
            }
        })
    }

    pub(crate) fn local_addr(&self) -> SocketAddr {
        self.with(|_, c, _| c.addr[self.side])
    }

    pub(crate) fn peer_addr(&self) -> SocketAddr {
        self.with(|_, c, _| c.addr[1 - self.side])
    }

    /// Reads (or peeks) what was delivered into `sink`, which takes what it can of each
    /// slice it is given and says how much; `cap` is the room the sink has. `cx`: wait
    /// for data (spending coop budget); none: `WouldBlock`.
    pub(crate) fn read(
        &self,
        mut cx: Option<&mut Context<'_>>,
        peek: bool,
        cap: usize,
        sink: &mut dyn FnMut(&[u8]) -> usize,
    ) -> Poll<io::Result<usize>> {
        if let Some(cx) = cx.as_deref_mut() {
            ready!(crate::coop::poll_proceed(cx));
        }
        if cap == 0 {
            return Poll::Ready(Ok(0));
        }
        let i = self.side;
        self.with(|_, c, wake| {
            let (mine, theirs) = pair(&mut c.side, i);
            if mine.rd_shut {
                return Poll::Ready(Ok(0));
            }
            if !mine.rx.is_empty() {
                let (a, b) = mine.rx.as_slices();
                let mut n = sink(a);
                if n == a.len() {
                    n += sink(b);
                }
                if !peek {
                    mine.rx.drain(..n);
                    theirs.writers.take(wake);
                }
                return Poll::Ready(Ok(n));
            }
            if mine.err {
                mine.err = false;
                return Poll::Ready(Err(io::ErrorKind::ConnectionReset.into()));
            }
            if mine.fin || mine.reset {
                return Poll::Ready(Ok(0));
            }
            blocked(cx, &mut mine.readers)
        })
    }

    /// Writes what fits of `bufs` into the peer's window (`cx` as for `read`).
    pub(crate) fn write(
        &self,
        mut cx: Option<&mut Context<'_>>,
        bufs: &[&[u8]],
    ) -> Poll<io::Result<usize>> {
        if let Some(cx) = cx.as_deref_mut() {
            ready!(crate::coop::poll_proceed(cx));
        }
        let i = self.side;
        let total: usize = bufs.iter().map(|b| b.len()).sum();
        let conn = self.conn;
        let sent = self.with(|st, c, _| {
            let (mine, theirs) = pair(&mut c.side, i);
            if mine.err {
                mine.err = false;
                return Poll::Ready(Err(io::ErrorKind::ConnectionReset.into()));
            }
            if mine.reset || mine.wr_shut {
                return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
            }
            if total == 0 {
                return Poll::Ready(Ok(None));
            }
            let room = WINDOW.saturating_sub(theirs.rx.len() + theirs.in_flight);
            if room == 0 {
                return blocked(cx, &mut mine.writers);
            }
            let n = total.min(room);
            let mut bytes = Vec::with_capacity(n);
            for b in bufs {
                let k = b.len().min(n - bytes.len());
                bytes.extend_from_slice(&b[..k]);
            }
            theirs.in_flight += n;
            let d = Delivery::Data {
                conn,
                to: 1 - i,
                bytes,
            };
            let due = st.q.schedule(theirs.last_due, super::Delivery::Tcp(d));
            theirs.last_due = Some(due);
            Poll::Ready(Ok(Some(n)))
        });
        Poll::Ready(ready!(sent).map(|n| n.unwrap_or(0)))
    }

    /// What this side is ready for now.
    fn readiness(c: &Conn, i: usize) -> Ready {
        let mine = &c.side[i];
        let theirs = &c.side[1 - i];
        let mut r = Ready::EMPTY;
        if !mine.rx.is_empty() {
            r |= Ready::READABLE;
        }
        if mine.fin || mine.reset || mine.rd_shut {
            r |= Ready::READ_CLOSED;
        }
        if theirs.rx.len() + theirs.in_flight < WINDOW {
            r |= Ready::WRITABLE;
        }
        if mine.reset {
            r |= Ready::WRITE_CLOSED;
        }
        if mine.err {
            r |= Ready::ERROR;
        }
        r
    }

    /// Waits until the side is ready for any of `interest` (`budget`: spend coop
    /// budget first, as the `poll_*_ready` methods do).
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        interest: Interest,
        budget: bool,
    ) -> Poll<io::Result<Ready>> {
        if budget {
            ready!(crate::coop::poll_proceed(cx));
        }
        let i = self.side;
        self.with(|_, c, _| {
            let r = Self::readiness(c, i) & mask(interest);
            if !r.is_empty() {
                return Poll::Ready(Ok(r));
            }
            if interest.is_readable() || interest.is_error() {
                c.side[i].readers.register(cx);
            }
            if interest.is_writable() || interest.is_error() {
                c.side[i].writers.register(cx);
            }
            Poll::Pending
        })
    }

    /// Registers `cx` to be woken by the next change in `interest`'s directions.
    pub(crate) fn wait_change(&self, cx: &Context<'_>, interest: Interest) {
        let i = self.side;
        self.with(|_, c, _| {
            if interest.is_readable() || interest.is_error() {
                c.side[i].readers.register(cx);
            }
            if interest.is_writable() || interest.is_error() {
                c.side[i].writers.register(cx);
            }
        });
    }

    /// The readiness `interest` covers now, if any (`try_io`).
    pub(crate) fn ready_now(&self, interest: Interest) -> Ready {
        let i = self.side;
        self.with(|_, c, _| Self::readiness(c, i) & mask(interest))
    }

    /// `shutdown(2)`: `Write` sends a FIN after the data written, `Read` makes reads
    /// return EOF.
    pub(crate) fn shutdown(&self, how: std::net::Shutdown) {
        let (i, conn) = (self.side, self.conn);
        self.with(|st, c, wake| {
            let (mine, theirs) = pair(&mut c.side, i);
            if matches!(how, std::net::Shutdown::Read | std::net::Shutdown::Both) {
                mine.rd_shut = true;
                mine.readers.take(wake);
            }
            if matches!(how, std::net::Shutdown::Write | std::net::Shutdown::Both)
                && !mine.wr_shut
                && !mine.reset
            {
                mine.wr_shut = true;
                mine.writers.take(wake);
                let d = Delivery::Fin { conn, to: 1 - i };
                let due = st.q.schedule(theirs.last_due, super::Delivery::Tcp(d));
                theirs.last_due = Some(due);
            }
        });
    }

    /// The pending reset, once (`take_error`).
    pub(crate) fn take_error(&self) -> Option<io::Error> {
        let i = self.side;
        self.with(|_, c, _| {
            let s = &mut c.side[i];
            std::mem::take(&mut s.err).then(|| io::ErrorKind::ConnectionReset.into())
        })
    }

    pub(crate) fn set_nodelay(&self, on: bool) {
        self.with(|_, c, _| c.side[self.side].nodelay = on);
    }

    pub(crate) fn nodelay(&self) -> bool {
        self.with(|_, c, _| c.side[self.side].nodelay)
    }

    pub(crate) fn set_ttl(&self, ttl: u32) {
        self.with(|_, c, _| c.side[self.side].ttl = ttl);
    }

    pub(crate) fn ttl(&self) -> u32 {
        self.with(|_, c, _| c.side[self.side].ttl)
    }

    pub(crate) fn set_linger(&self, linger: Option<Duration>) {
        self.with(|_, c, _| c.side[self.side].linger = linger);
    }

    pub(crate) fn linger(&self) -> Option<Duration> {
        self.with(|_, c, _| c.side[self.side].linger)
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        let (conn, side) = (self.conn, self.side);
        Net::with(&self.sim, |st, _| close(st, conn, side, false));
    }
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TcpStream")
            .field("addr", &self.local_addr())
            .field("peer", &self.peer_addr())
            .field("in_memory", &true)
            .finish()
    }
}

impl std::fmt::Debug for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TcpListener")
            .field("addr", &self.addr)
            .field("in_memory", &true)
            .finish()
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

/// The in-memory side of a `TcpSocket` (not yet connected or listening).
pub(crate) struct Socket {
    sim: Arc<Sim>,
    v6: bool,
    opts: parking_lot::Mutex<SocketOpts>,
}

/// What a `TcpSocket` records before it connects or listens.
#[derive(Default, Clone, Copy)]
pub(crate) struct SocketOpts {
    pub(crate) bound: Option<SocketAddr>,
    pub(crate) keepalive: bool,
    pub(crate) reuseaddr: bool,
    pub(crate) reuseport: bool,
    pub(crate) send_buffer: u32,
    pub(crate) recv_buffer: u32,
    pub(crate) settings: Settings,
}

impl Socket {
    pub(crate) fn new(sim: Arc<Sim>, v6: bool) -> Socket {
        Socket {
            sim,
            v6,
            opts: parking_lot::Mutex::new(SocketOpts {
                send_buffer: WINDOW as u32,
                recv_buffer: WINDOW as u32,
                ..SocketOpts::default()
            }),
        }
    }

    /// The recorded options, to read or change.
    pub(crate) fn opts(&self) -> parking_lot::MutexGuard<'_, SocketOpts> {
        self.opts.lock()
    }

    pub(crate) fn bind(&self, addr: SocketAddr, at: &Location<'_>) -> io::Result<()> {
        addr::check_local(addr, "TcpSocket::bind", at);
        if addr.is_ipv6() != self.v6 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "Invalid argument: the address's family is not the socket's",
            ));
        }
        let mut opts = self.opts.lock();
        if opts.bound.is_some() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "Invalid argument: the socket is bound already",
            ));
        }
        let bound = Net::with(&self.sim, |st, _| st.ports.bind(Proto::Tcp, addr))?;
        opts.bound = Some(bound);
        Ok(())
    }

    pub(crate) fn local_addr(&self) -> io::Result<SocketAddr> {
        let unbound = if self.v6 {
            "[::]:0".parse().expect("an address")
        } else {
            "0.0.0.0:0".parse().expect("an address")
        };
        Ok(self.opts.lock().bound.unwrap_or(unbound))
    }

    /// Starts a connection (the binding passes to the stream).
    pub(crate) fn connect(self, target: SocketAddr, at: &Location<'_>) -> io::Result<Stream> {
        let (bound, settings) = {
            let mut o = self.opts.lock();
            (o.bound.take(), o.settings)
        };
        connect(&self.sim, target, bound, settings, "TcpSocket::connect", at)
    }

    /// Listens at the bound address (an unbound socket binds the unspecified address
    /// and an ephemeral port first, as `listen(2)` does).
    pub(crate) fn listen(self, backlog: u32) -> io::Result<Listener> {
        let bound = self.opts.lock().bound.take();
        let addr = match bound {
            Some(a) => a,
            None => {
                let any = if self.v6 { "[::]:0" } else { "0.0.0.0:0" };
                let any = any.parse().expect("an address");
                Net::with(&self.sim, |st, _| st.ports.bind(Proto::Tcp, any))?
            }
        };
        Ok(listen(&self.sim, addr, backlog as usize))
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        if let Some(b) = self.opts.get_mut().bound.take() {
            Net::with(&self.sim, |st, _| st.ports.release(Proto::Tcp, b));
        }
    }
}

impl std::fmt::Debug for Socket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TcpSocket")
            .field("bound", &self.opts.lock().bound)
            .field("in_memory", &true)
            .finish()
    }
}
