//! In-memory Unix stream sockets: `UnixListener`, `UnixStream` (connect and `pair`) in
//! a deterministic runtime, on the TCP model of tcp/ (windows, FIN, RST, delays).
//!
//! A listener binds a path (an abstract name, with its leading NUL byte, is a path
//! here too) in the network's own namespace: no file is created, a bound path is
//! `AddrInUse`, and the path is free again when the listener drops. A connect to a path
//! with no listener is `NotFound` (no socket file), as on a real file system. A
//! connecting stream is unnamed; `pair` makes two unnamed sides, connected at once.

use std::io;
use std::path::Path;
use std::sync::Arc;

use super::tcp::{self, Addr, Listener, Settings, Stream};
use super::Net;
use crate::sim::Sim;

/// Binds a listener at `path` (`UnixListener::bind`).
pub(crate) fn bind(sim: &Arc<Sim>, path: &Path, backlog: usize) -> io::Result<Listener> {
    let taken = Net::with(sim, |st, _| super::unix_dgram::path_taken(st, path));
    if taken {
        return Err(io::Error::new(
            io::ErrorKind::AddrInUse,
            format!(
                "Address already in use: {} is bound in the in-memory network",
                path.display()
            ),
        ));
    }
    let l = tcp::listen(sim, Addr::Unix(Some(path.to_path_buf())), backlog);
    Net::with(sim, |st, _| st.tcp.paths.insert(path.to_path_buf(), l.id));
    Ok(l)
}

/// Starts a connection to the listener at `path`; the stream's `poll_connected`
/// completes it.
pub(crate) fn connect(sim: &Arc<Sim>, path: &Path) -> io::Result<Stream> {
    let conn = Net::with(sim, |st, _| {
        let Some(&listener) = st.tcp.paths.get(path) else {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "No such file or directory: no listener is bound at {} in the \
                     in-memory network",
                    path.display()
                ),
            ));
        };
        let addrs = [Addr::Unix(None), Addr::Unix(Some(path.to_path_buf()))];
        Ok(tcp::new_conn(
            st,
            Some(listener),
            addrs,
            None,
            Settings::default(),
        ))
    })?;
    Ok(Stream {
        sim: sim.clone(),
        conn,
        side: 0,
    })
}

/// Two connected, unnamed sides (`UnixStream::pair`).
pub(crate) fn pair(sim: &Arc<Sim>) -> (Stream, Stream) {
    let conn = Net::with(sim, |st, _| {
        let addrs = [Addr::Unix(None), Addr::Unix(None)];
        tcp::new_conn(st, None, addrs, None, Settings::default())
    });
    let side = |side| Stream {
        sim: sim.clone(),
        conn,
        side,
    };
    (side(0), side(1))
}
