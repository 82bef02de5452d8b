//! The in-memory side of a `TcpStream`: one side of a connection (see the parent
//! module for the model). Every operation takes the network's lock once; a read
//! that frees window room wakes the peer's writers, and dropping the handle closes
//! the side (a FIN, or an RST when data was left unread).

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::task::{ready, Context, Poll, Waker};
use std::time::Duration;

use super::super::{blocked, Net, Queue, State};
use super::{close, mask, pair, refused, Conn, Delivery, Phase, WINDOW};
use crate::io::{Interest, Ready};
use crate::sim::Sim;

/// The in-memory side of a `TcpStream`: one side of a connection.
pub(crate) struct Stream {
    pub(in crate::sim::net) sim: Arc<Sim>,
    pub(in crate::sim::net) conn: u64,
    pub(in crate::sim::net) side: usize,
}

impl Stream {
    /// Runs `f` on the delivery queue and this side's connection.
    fn with<R>(&self, f: impl FnOnce(&mut Queue, &mut Conn, &mut Vec<Waker>) -> R) -> R {
        Net::with(&self.sim, |st, wake| {
            let State { q, tcp, .. } = st;
            let c = tcp
                .conns
                .get_mut(&self.conn)
                .expect("an open side keeps its connection");
            f(q, c, wake)
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
        self.with(|_, c, _| c.addr[self.side].ip())
    }

    pub(crate) fn peer_addr(&self) -> SocketAddr {
        self.with(|_, c, _| c.addr[1 - self.side].ip())
    }

    /// A Unix stream's path (`None`: unnamed).
    pub(crate) fn local_path(&self) -> Option<std::path::PathBuf> {
        self.with(|_, c, _| c.addr[self.side].path())
    }

    /// A Unix stream's peer's path (`None`: unnamed).
    pub(crate) fn peer_path(&self) -> Option<std::path::PathBuf> {
        self.with(|_, c, _| c.addr[1 - self.side].path())
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
        let sent = self.with(|q, c, _| {
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
            let due = q.schedule(theirs.last_due, super::super::Delivery::Tcp(d));
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
        self.with(|q, c, wake| {
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
                let due = q.schedule(theirs.last_due, super::super::Delivery::Tcp(d));
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
        let (addr, peer) =
            self.with(|_, c, _| (c.addr[self.side].clone(), c.addr[1 - self.side].clone()));
        f.debug_struct("Stream")
            .field("addr", &addr)
            .field("peer", &peer)
            .field("in_memory", &true)
            .finish()
    }
}
