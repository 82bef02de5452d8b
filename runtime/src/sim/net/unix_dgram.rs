//! In-memory Unix datagram sockets (`UnixDatagram` in a deterministic runtime).
//!
//! A socket has an optional path (bound, in the network's path namespace, which it
//! shares with the Unix stream listeners: a bound path is `AddrInUse`), an optional
//! peer (a socket id: `connect` resolves the path once, as the kernel binds to the
//! socket and not to the name; `pair` makes two sockets each other's peer) and a
//! receive queue. Unlike UDP, Unix datagrams are never dropped: a send waits
//! (`Pending`/`WouldBlock`) while the receiver's queue and the datagrams in flight to
//! it would pass `QUEUE` bytes, and a receive that frees room wakes the senders. A
//! send to a path nobody bound is `NotFound`, to a closed peer `ConnectionRefused`,
//! to a socket connected to another `PermissionDenied`, as the kernel answers.

use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::task::{ready, Context, Poll, Waker};

use super::{blocked, Net, State, Waiters};
use crate::io::{Interest, Ready};
use crate::sim::Sim;

/// The most bytes queued and in flight towards one socket.
pub(crate) const QUEUE: usize = 256 * 1024;

/// The Unix datagram sockets of the network.
#[derive(Default)]
pub(crate) struct UnixDgrams {
    sockets: BTreeMap<u64, DgramState>,
    /// Bound paths.
    pub(crate) paths: BTreeMap<PathBuf, u64>,
    next_id: u64,
}

#[derive(Default)]
struct DgramState {
    path: Option<PathBuf>,
    peer: Option<u64>,
    queue: VecDeque<(Option<PathBuf>, Vec<u8>)>,
    queued: usize,
    in_flight: usize,
    rd_shut: bool,
    wr_shut: bool,
    readers: Waiters,
    /// Senders waiting for room in this socket's queue.
    writers: Waiters,
}

/// A datagram in flight.
pub(crate) struct Delivery {
    from: Option<PathBuf>,
    from_id: u64,
    to: u64,
    bytes: Vec<u8>,
}

/// Applies one delivery (`Net::deliver_due`).
pub(crate) fn deliver(st: &mut State, d: Delivery, wake: &mut Vec<Waker>) {
    let Some(s) = st.unix_dgram.sockets.get_mut(&d.to) else {
        return;
    };
    s.in_flight -= d.bytes.len();
    if s.peer.is_some_and(|p| p != d.from_id) {
        s.writers.take(wake);
        return;
    }
    s.queued += d.bytes.len();
    s.queue.push_back((d.from, d.bytes));
    s.readers.take(wake);
}

fn new_socket(st: &mut State, path: Option<PathBuf>) -> u64 {
    let u = &mut st.unix_dgram;
    u.next_id += 1;
    let id = u.next_id;
    if let Some(p) = &path {
        u.paths.insert(p.clone(), id);
    }
    u.sockets.insert(
        id,
        DgramState {
            path,
            ..DgramState::default()
        },
    );
    id
}

/// Whether `path` is bound by a Unix socket of the network (stream or datagram).
pub(crate) fn path_taken(st: &State, path: &Path) -> bool {
    st.unix_dgram.paths.contains_key(path) || st.tcp.paths.contains_key(path)
}

fn in_use(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::AddrInUse,
        format!(
            "Address already in use: {} is bound in the in-memory network",
            path.display()
        ),
    )
}

fn not_found(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!(
            "No such file or directory: no socket is bound at {} in the in-memory network",
            path.display()
        ),
    )
}

/// A socket bound at `path` (`UnixDatagram::bind`).
pub(crate) fn bind(sim: &Arc<Sim>, path: &Path) -> io::Result<Dgram> {
    let id = Net::with(sim, |st, _| {
        if path_taken(st, path) {
            return Err(in_use(path));
        }
        Ok(new_socket(st, Some(path.to_path_buf())))
    })?;
    Ok(Dgram {
        sim: sim.clone(),
        id,
    })
}

/// An unbound socket (`UnixDatagram::unbound`).
pub(crate) fn unbound(sim: &Arc<Sim>) -> Dgram {
    let id = Net::with(sim, |st, _| new_socket(st, None));
    Dgram {
        sim: sim.clone(),
        id,
    }
}

/// Two unnamed sockets, each the other's peer (`UnixDatagram::pair`).
pub(crate) fn pair(sim: &Arc<Sim>) -> (Dgram, Dgram) {
    let (a, b) = Net::with(sim, |st, _| {
        let a = new_socket(st, None);
        let b = new_socket(st, None);
        st.unix_dgram.sockets.get_mut(&a).expect("just made").peer = Some(b);
        st.unix_dgram.sockets.get_mut(&b).expect("just made").peer = Some(a);
        (a, b)
    });
    let handle = |id| Dgram {
        sim: sim.clone(),
        id,
    };
    (handle(a), handle(b))
}

/// The in-memory side of a `UnixDatagram`.
pub(crate) struct Dgram {
    sim: Arc<Sim>,
    id: u64,
}

impl Dgram {
    fn with<R>(&self, f: impl FnOnce(&mut State, &mut Vec<Waker>) -> R) -> R {
        Net::with(&self.sim, f)
    }

    fn state<R>(&self, f: impl FnOnce(&mut DgramState) -> R) -> R {
        self.with(|st, _| {
            f(st.unix_dgram
                .sockets
                .get_mut(&self.id)
                .expect("a live socket"))
        })
    }

    /// The bound path (`None`: unnamed).
    pub(crate) fn local_path(&self) -> Option<PathBuf> {
        self.state(|s| s.path.clone())
    }

    /// The peer's path (`Ok(None)`: an unnamed peer).
    pub(crate) fn peer_path(&self) -> io::Result<Option<PathBuf>> {
        let id = self.id;
        self.with(|st, _| {
            let u = &st.unix_dgram;
            let peer = u.sockets.get(&id).and_then(|s| s.peer);
            match peer.map(|p| u.sockets.get(&p)) {
                Some(Some(p)) => Ok(p.path.clone()),
                Some(None) => Ok(None),
                None => Err(io::Error::new(
                    io::ErrorKind::NotConnected,
                    "Transport endpoint is not connected",
                )),
            }
        })
    }

    /// Makes the socket bound at `path` the peer.
    pub(crate) fn connect(&self, path: &Path) -> io::Result<()> {
        let id = self.id;
        self.with(|st, _| {
            let to = *st
                .unix_dgram
                .paths
                .get(path)
                .ok_or_else(|| not_found(path))?;
            let s = st.unix_dgram.sockets.get_mut(&id).expect("a live socket");
            s.peer = Some(to);
            Ok(())
        })
    }

    pub(crate) fn shutdown(&self, how: std::net::Shutdown) {
        use std::net::Shutdown;
        self.with(|st, wake| {
            let s = st
                .unix_dgram
                .sockets
                .get_mut(&self.id)
                .expect("a live socket");
            if matches!(how, Shutdown::Read | Shutdown::Both) {
                s.rd_shut = true;
                s.readers.take(wake);
            }
            if matches!(how, Shutdown::Write | Shutdown::Both) {
                s.wr_shut = true;
            }
        });
    }

    /// Sends `buf` as one datagram to `target` (`None`: the peer). `cx`: wait for room
    /// (spending coop budget); none: `WouldBlock`.
    pub(crate) fn send(
        &self,
        mut cx: Option<&mut Context<'_>>,
        buf: &[u8],
        target: Option<&Path>,
    ) -> Poll<io::Result<usize>> {
        if let Some(cx) = cx.as_deref_mut() {
            ready!(crate::coop::poll_proceed(cx));
        }
        let id = self.id;
        self.with(|st, _| {
            let me = st.unix_dgram.sockets.get(&id).expect("a live socket");
            if me.wr_shut {
                return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
            }
            let from = me.path.clone();
            let to = match target {
                Some(p) => match st.unix_dgram.paths.get(p) {
                    Some(&to) => to,
                    None => return Poll::Ready(Err(not_found(p))),
                },
                None => match me.peer {
                    Some(to) => to,
                    None => {
                        return Poll::Ready(Err(io::Error::new(
                            io::ErrorKind::NotConnected,
                            "Transport endpoint is not connected",
                        )))
                    }
                },
            };
            let Some(r) = st.unix_dgram.sockets.get_mut(&to) else {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::ConnectionRefused,
                    "Connection refused: the peer socket is closed",
                )));
            };
            if r.peer.is_some_and(|p| p != id) {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    "Operation not permitted: the socket is connected to another",
                )));
            }
            if buf.len() > QUEUE {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "Message too long for the in-memory network's socket queue",
                )));
            }
            if r.queued + r.in_flight + buf.len() > QUEUE {
                return blocked(cx, &mut r.writers);
            }
            r.in_flight += buf.len();
            let d = Delivery {
                from,
                from_id: id,
                to,
                bytes: buf.to_vec(),
            };
            st.q.schedule(None, super::Delivery::UnixDgram(d));
            Poll::Ready(Ok(buf.len()))
        })
    }

    /// Receives (or peeks at) the oldest datagram into `sink`; returns its length and
    /// its sender's path. `cx` as for `send`.
    pub(crate) fn recv(
        &self,
        mut cx: Option<&mut Context<'_>>,
        peek: bool,
        sink: &mut dyn FnMut(&[u8]) -> usize,
    ) -> Poll<io::Result<(usize, Option<PathBuf>)>> {
        if let Some(cx) = cx.as_deref_mut() {
            ready!(crate::coop::poll_proceed(cx));
        }
        self.with(|st, wake| {
            let s = st
                .unix_dgram
                .sockets
                .get_mut(&self.id)
                .expect("a live socket");
            let Some((from, bytes)) = s.queue.front() else {
                if s.rd_shut {
                    return Poll::Ready(Ok((0, None)));
                }
                return blocked(cx, &mut s.readers);
            };
            let n = sink(bytes);
            let from = from.clone();
            if !peek {
                let (_, b) = s.queue.pop_front().expect("looked at above");
                s.queued -= b.len();
                s.writers.take(wake);
            }
            Poll::Ready(Ok((n, from)))
        })
    }

    /// What the socket is ready for now: readable with a datagram queued (or reads
    /// shut), writable unless its peer's queue is full.
    fn readiness(st: &State, id: u64) -> Ready {
        let u = &st.unix_dgram;
        let s = u.sockets.get(&id).expect("a live socket");
        let mut r = Ready::EMPTY;
        if !s.queue.is_empty() {
            r |= Ready::READABLE;
        }
        if s.rd_shut {
            r |= Ready::READ_CLOSED;
        }
        if s.wr_shut {
            r |= Ready::WRITE_CLOSED;
        }
        let room = match s.peer.map(|p| u.sockets.get(&p)) {
            Some(Some(p)) => p.queued + p.in_flight < QUEUE,
            _ => true,
        };
        if room {
            r |= Ready::WRITABLE;
        }
        r
    }

    /// Waits until the socket is ready for any of `interest` (`budget`: spend coop
    /// budget first).
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        interest: Interest,
        budget: bool,
    ) -> Poll<io::Result<Ready>> {
        if budget {
            ready!(crate::coop::poll_proceed(cx));
        }
        let id = self.id;
        self.with(|st, _| {
            let r = Self::readiness(st, id) & super::tcp::mask(interest);
            if !r.is_empty() {
                return Poll::Ready(Ok(r));
            }
            Self::register(st, id, cx, interest);
            Poll::Pending
        })
    }

    fn register(st: &mut State, id: u64, cx: &Context<'_>, interest: Interest) {
        let u = &mut st.unix_dgram;
        let peer = u.sockets.get(&id).and_then(|s| s.peer);
        if interest.is_readable() || interest.is_error() {
            if let Some(s) = u.sockets.get_mut(&id) {
                s.readers.register(cx);
            }
        }
        if interest.is_writable() {
            if let Some(p) = peer.and_then(|p| u.sockets.get_mut(&p)) {
                p.writers.register(cx);
            }
        }
    }

    /// Registers `cx` for the next change in `interest`'s directions.
    pub(crate) fn wait_change(&self, cx: &Context<'_>, interest: Interest) {
        let id = self.id;
        self.with(|st, _| Self::register(st, id, cx, interest));
    }

    /// The readiness `interest` covers now (`try_io`).
    pub(crate) fn ready_now(&self, interest: Interest) -> Ready {
        let id = self.id;
        self.with(|st, _| Self::readiness(st, id) & super::tcp::mask(interest))
    }
}

impl Drop for Dgram {
    fn drop(&mut self) {
        let id = self.id;
        self.with(|st, wake| {
            let u = &mut st.unix_dgram;
            let Some(mut s) = u.sockets.remove(&id) else {
                return;
            };
            s.readers.take(&mut st.stale);
            if let Some(p) = s.path {
                if u.paths.get(&p) == Some(&id) {
                    u.paths.remove(&p);
                }
            }
            // Senders waiting for this socket's room learn it is gone.
            let mut writers = s.writers;
            writers.take(wake);
        });
    }
}

impl std::fmt::Debug for Dgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnixDatagram")
            .field("path", &self.local_path())
            .field("in_memory", &true)
            .finish()
    }
}
