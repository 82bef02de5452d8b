//! The in-memory side of a `TcpSocket`: the options it records and the address it
//! bound, which pass to the stream it connects or the listener it becomes; dropping it
//! unused releases the address.

use std::io;
use std::net::SocketAddr;
use std::panic::Location;
use std::sync::Arc;

use super::super::addr::{self, Proto};
use super::super::Net;
use super::{connect, listen, Addr, Listener, Settings, Stream, WINDOW};
use crate::sim::Sim;

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
        Ok(listen(&self.sim, Addr::Ip(addr), backlog as usize))
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
