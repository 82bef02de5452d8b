//! `ToSocketAddrs`: what `bind`, `connect` and `send_to` accept, resolved without blocking
//! a worker.
//!
//! Literal addresses (`SocketAddr`, `(IpAddr, u16)`, `"127.0.0.1:80"`, ...) resolve
//! immediately, with no allocation beyond the result. Anything that needs a DNS lookup
//! (`"localhost:80"`, `("example.com", 443)`) runs std's blocking resolver on the
//! runtime's blocking pool (`spawn_blocking`), so the worker keeps running other tasks.
//! The trait is sealed: its one method is an implementation detail.

use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::pin::Pin;

/// Types that can be turned into one or more socket addresses, like
/// [`std::net::ToSocketAddrs`] but resolving host names off the runtime's workers.
///
/// Implemented for `SocketAddr`, `SocketAddrV4`, `SocketAddrV6`, `(IpAddr, u16)`,
/// `(Ipv4Addr, u16)`, `(Ipv6Addr, u16)`, `(&str, u16)`, `(String, u16)`, `&str`, `String`,
/// `&[SocketAddr]`, and references to any of these.
pub trait ToSocketAddrs: sealed::ToSocketAddrsPriv {}

pub(crate) mod sealed {
    use super::*;

    /// How an address argument resolves.
    pub enum Resolved {
        /// Already known (or known to be invalid).
        Ready(io::Result<Vec<SocketAddr>>),
        /// Needs a lookup: `host:port` to hand to std's resolver.
        Lookup(String),
    }

    pub trait ToSocketAddrsPriv {
        fn to_resolved(&self) -> Resolved;
    }
}

use sealed::{Resolved, ToSocketAddrsPriv};

/// Resolves `addr`, running any DNS lookup on the blocking pool.
pub(crate) async fn resolve<A: ToSocketAddrs + ?Sized>(addr: &A) -> io::Result<Vec<SocketAddr>> {
    match addr.to_resolved() {
        Resolved::Ready(r) => r,
        Resolved::Lookup(host) => {
            // A deterministic runtime's network resolves names itself (no DNS).
            sim_current!(|_sim| crate::sim::net::resolve(&host));
            lookup(host).await
        }
    }
}

fn lookup(
    host: String,
) -> Pin<Box<dyn Future<Output = io::Result<Vec<SocketAddr>>> + Send + Sync>> {
    let join = crate::task::spawn_blocking(move || {
        std::net::ToSocketAddrs::to_socket_addrs(&host).map(|it| it.collect::<Vec<_>>())
    });
    Box::pin(async move {
        match join.await {
            Ok(res) => res,
            Err(e) => Err(io::Error::other(format!("address lookup task failed: {e}"))),
        }
    })
}

/// Runs `f` on each address in turn; the first success wins, else the last error.
pub(crate) async fn each_addr<A, T, F, Fut>(addr: &A, mut f: F) -> io::Result<T>
where
    A: ToSocketAddrs + ?Sized,
    F: FnMut(SocketAddr) -> Fut,
    Fut: Future<Output = io::Result<T>>,
{
    let addrs = resolve(addr).await?;
    let mut last = None;
    for a in addrs {
        match f(a).await {
            Ok(v) => return Ok(v),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(no_addresses))
}

pub(crate) fn no_addresses() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "could not resolve to any address",
    )
}

macro_rules! ready_impl {
    ($($t:ty),*) => {$(
        impl ToSocketAddrs for $t {}
        impl ToSocketAddrsPriv for $t {
            fn to_resolved(&self) -> Resolved {
                Resolved::Ready(Ok(vec![SocketAddr::from(*self)]))
            }
        }
    )*};
}

ready_impl!(
    SocketAddr,
    SocketAddrV4,
    SocketAddrV6,
    (IpAddr, u16),
    (Ipv4Addr, u16),
    (Ipv6Addr, u16)
);

impl ToSocketAddrs for str {}
impl ToSocketAddrsPriv for str {
    fn to_resolved(&self) -> Resolved {
        match self.parse::<SocketAddr>() {
            Ok(a) => Resolved::Ready(Ok(vec![a])),
            Err(_) => Resolved::Lookup(self.to_owned()),
        }
    }
}

impl ToSocketAddrs for String {}
impl ToSocketAddrsPriv for String {
    fn to_resolved(&self) -> Resolved {
        self.as_str().to_resolved()
    }
}

impl ToSocketAddrs for (&str, u16) {}
impl ToSocketAddrsPriv for (&str, u16) {
    fn to_resolved(&self) -> Resolved {
        let (host, port) = *self;
        match host.parse::<IpAddr>() {
            Ok(ip) => Resolved::Ready(Ok(vec![SocketAddr::new(ip, port)])),
            Err(_) => Resolved::Lookup(format!("{host}:{port}")),
        }
    }
}

impl ToSocketAddrs for (String, u16) {}
impl ToSocketAddrsPriv for (String, u16) {
    fn to_resolved(&self) -> Resolved {
        (self.0.as_str(), self.1).to_resolved()
    }
}

impl ToSocketAddrs for [SocketAddr] {}
impl ToSocketAddrsPriv for [SocketAddr] {
    fn to_resolved(&self) -> Resolved {
        Resolved::Ready(Ok(self.to_vec()))
    }
}

impl<T: ToSocketAddrs + ?Sized> ToSocketAddrs for &T {}
impl<T: ToSocketAddrsPriv + ?Sized> ToSocketAddrsPriv for &T {
    fn to_resolved(&self) -> Resolved {
        (**self).to_resolved()
    }
}
