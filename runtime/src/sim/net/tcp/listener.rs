//! The in-memory side of a `TcpListener`: a bound address and the queue of connections
//! whose SYN arrived, at most `backlog` of them; dropping it releases the address and
//! resets the connections never accepted.

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::panic::Location;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use super::super::addr::{self, Proto};
use super::super::{blocked, Net, Waiters};
use super::{close, Addr, ListenerState, Stream, BACKLOG};
use crate::sim::Sim;

/// Binds a listener at `addr` (`TcpListener::bind`).
pub(crate) fn bind(sim: &Arc<Sim>, addr: SocketAddr, at: &Location<'_>) -> io::Result<Listener> {
    addr::check_local(addr, "TcpListener::bind", at);
    let bound = Net::with(sim, |st, _| st.ports.bind(Proto::Tcp, addr))?;
    Ok(listen(sim, Addr::Ip(bound), BACKLOG))
}

/// A listener on the already bound `addr` (`TcpSocket::listen`).
pub(crate) fn listen(sim: &Arc<Sim>, addr: Addr, backlog: usize) -> Listener {
    let id = Net::with(sim, |st, _| {
        let id = st.tcp.id();
        st.tcp.listeners.insert(
            id,
            ListenerState {
                addr: addr.clone(),
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

/// The in-memory side of a `TcpListener`.
pub(crate) struct Listener {
    sim: Arc<Sim>,
    pub(in crate::sim::net) id: u64,
    addr: Addr,
}

impl Listener {
    pub(crate) fn local_addr(&self) -> SocketAddr {
        self.addr.ip()
    }

    /// A Unix listener's path.
    pub(crate) fn local_path(&self) -> Option<std::path::PathBuf> {
        self.addr.path()
    }

    /// Takes the next connection whose SYN arrived (`cx`: wait for one).
    pub(crate) fn poll_accept(
        &self,
        cx: Option<&mut Context<'_>>,
    ) -> Poll<io::Result<(Stream, Addr)>> {
        let got = Net::with(&self.sim, |st, _| {
            let Some(l) = st.tcp.listeners.get_mut(&self.id) else {
                return Poll::Ready(Err(io::ErrorKind::NotConnected.into()));
            };
            match l.queue.pop_front() {
                Some(conn) => {
                    let peer = st.tcp.conns.get(&conn).map(|c| c.addr[0].clone());
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
        let (id, addr) = (self.id, &self.addr);
        Net::with(&self.sim, |st, _| {
            match addr {
                Addr::Ip(a) => st.ports.release(Proto::Tcp, *a),
                Addr::Unix(Some(p)) => {
                    if st.tcp.paths.get(p) == Some(&id) {
                        st.tcp.paths.remove(p);
                    }
                }
                Addr::Unix(None) => {}
            }
            let Some(mut l) = st.tcp.listeners.remove(&id) else {
                return;
            };
            l.acceptors.take(&mut st.stale);
            // Connections never accepted are reset, as a closed listener's are.
            for conn in l.queue {
                close(st, conn, 1, true);
            }
        });
    }
}

impl std::fmt::Debug for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listener")
            .field("addr", &self.addr)
            .field("in_memory", &true)
            .finish()
    }
}
