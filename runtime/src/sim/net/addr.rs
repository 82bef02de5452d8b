//! The in-memory network's addresses: which loopback addresses are bound, ephemeral
//! ports, and the loopback-only rule.
//!
//! TCP and UDP have separate port spaces. Two bindings of one protocol conflict when
//! they have the same port and family and the same address, or either is the
//! unspecified address (`0.0.0.0`, `::`), which stands for every loopback address of
//! its family. Port 0 takes the first free port from a counter over 49152..=65535 that
//! moves on after each grant, so the ports a run gets depend only on its bind order.
//! An address that is neither loopback nor unspecified is a program error in the mode
//! (it would reach the real network): a panic that names the caller.

use std::collections::BTreeMap;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::panic::Location;

/// The port spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Proto {
    Tcp,
    Udp,
}

const EPHEMERAL_FIRST: u16 = 49152;
const EPHEMERAL_LAST: u16 = 65535;

/// The bound addresses.
pub(crate) struct Ports {
    /// By (protocol, port): the addresses bound there.
    taken: BTreeMap<(Proto, u16), Vec<IpAddr>>,
    /// The next ephemeral port to try.
    next: u16,
}

impl Default for Ports {
    fn default() -> Ports {
        Ports {
            taken: BTreeMap::new(),
            next: EPHEMERAL_FIRST,
        }
    }
}

fn conflicts(a: IpAddr, b: IpAddr) -> bool {
    a.is_ipv4() == b.is_ipv4() && (a == b || a.is_unspecified() || b.is_unspecified())
}

impl Ports {
    fn free(&self, proto: Proto, ip: IpAddr, port: u16) -> bool {
        self.taken
            .get(&(proto, port))
            .is_none_or(|ips| !ips.iter().any(|&o| conflicts(o, ip)))
    }

    /// Binds `addr` (port 0: an ephemeral port) and returns the bound address.
    pub(crate) fn bind(&mut self, proto: Proto, addr: SocketAddr) -> io::Result<SocketAddr> {
        let ip = addr.ip();
        let port = if addr.port() == 0 {
            let span = u32::from(EPHEMERAL_LAST - EPHEMERAL_FIRST) + 1;
            let mut found = None;
            for _ in 0..span {
                let p = self.next;
                self.next = if p == EPHEMERAL_LAST {
                    EPHEMERAL_FIRST
                } else {
                    p + 1
                };
                if self.free(proto, ip, p) {
                    found = Some(p);
                    break;
                }
            }
            found.ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::AddrNotAvailable,
                    "no ephemeral port is free in the in-memory network",
                )
            })?
        } else {
            if !self.free(proto, ip, addr.port()) {
                return Err(io::Error::new(
                    io::ErrorKind::AddrInUse,
                    format!("Address already in use: {addr} is bound in the in-memory network"),
                ));
            }
            addr.port()
        };
        self.taken.entry((proto, port)).or_default().push(ip);
        Ok(SocketAddr::new(ip, port))
    }

    /// Releases a binding made by `bind`.
    pub(crate) fn release(&mut self, proto: Proto, addr: SocketAddr) {
        let key = (proto, addr.port());
        if let Some(ips) = self.taken.get_mut(&key) {
            if let Some(i) = ips.iter().position(|&o| o == addr.ip()) {
                ips.swap_remove(i);
            }
            if ips.is_empty() {
                self.taken.remove(&key);
            }
        }
    }
}

/// Checks that `addr` is a loopback or unspecified address, else panics naming `what`
/// and its caller `at`.
pub(crate) fn check_local(addr: SocketAddr, what: &str, at: &Location<'_>) {
    let ip = addr.ip();
    if !(ip.is_loopback() || ip.is_unspecified()) {
        panic!(
            "{what}({addr}) at {at}: a deterministic runtime's network is in memory and has \
             only loopback addresses; use 127.0.0.1 or ::1 (or 0.0.0.0 / :: for every \
             loopback address of the family), or run this code on a runtime built without \
             `Builder::deterministic` to reach the real network"
        );
    }
}

/// Where a packet for `addr` goes: the unspecified address means this host's loopback.
pub(crate) fn destination(addr: SocketAddr) -> SocketAddr {
    if addr.ip().is_unspecified() {
        let ip = if addr.is_ipv4() {
            IpAddr::V4(Ipv4Addr::LOCALHOST)
        } else {
            IpAddr::V6(Ipv6Addr::LOCALHOST)
        };
        SocketAddr::new(ip, addr.port())
    } else {
        addr
    }
}

/// The address a socket bound to `local` sends from when talking to `dest`.
pub(crate) fn source(local: SocketAddr, dest: SocketAddr) -> SocketAddr {
    if local.ip().is_unspecified() {
        SocketAddr::new(dest.ip(), local.port())
    } else {
        local
    }
}

/// Whether a socket bound to `bound` receives what is sent to `dest` (a loopback
/// address).
pub(crate) fn matches(bound: SocketAddr, dest: SocketAddr) -> bool {
    bound.port() == dest.port()
        && (bound.ip() == dest.ip()
            || (bound.ip().is_unspecified() && bound.is_ipv4() == dest.is_ipv4()))
}

/// Host names in the mode: `localhost` is 127.0.0.1; nothing else resolves.
pub(crate) fn resolve(host: &str) -> io::Result<Vec<SocketAddr>> {
    let (name, port) = host.rsplit_once(':').ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "invalid socket address: no port",
        )
    })?;
    let port: u16 = port
        .parse()
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "invalid port value"))?;
    if name.eq_ignore_ascii_case("localhost") {
        return Ok(vec![SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)]);
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        format!(
            "failed to lookup address information: `{name}` is not a name of a deterministic \
             runtime's in-memory network, which resolves only `localhost` and literal \
             loopback addresses"
        ),
    ))
}
