//! Unix domain sockets: [`UnixListener`], [`UnixStream`] and the stream's halves,
//! [`UnixDatagram`], and [`UnixSocket`] to bind before converting to one of those;
//! pipes and FIFOs ([`pipe`]); a peer's credentials (`UCred`).
//!
//! The same shape as TCP (an `IoSource` per socket); addresses are
//! `std::os::unix::net::SocketAddr` (a path, an abstract name, or unnamed).
//!
//! A path given to `bind`, `connect` or `send_to` that starts with a NUL byte
//! (`"\0name"`) names a Linux *abstract* socket, as with tokio: no file is created, the
//! name lives in the network namespace and disappears with the last socket bound to it.

use std::io;
use std::path::Path;

mod datagram;
mod listener;
pub mod pipe;
mod socket;
mod split;
mod stream;
#[cfg(any(target_os = "linux", target_os = "android"))]
mod ucred;

pub use datagram::UnixDatagram;
pub use listener::UnixListener;
pub use socket::UnixSocket;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
pub use std::os::unix::net::SocketAddr;
pub use stream::UnixStream;
#[cfg(any(target_os = "linux", target_os = "android"))]
pub use ucred::UCred;

/// The address of an in-memory Unix socket (`None`: unnamed).
#[cfg(all(feature = "deterministic", not(loom)))]
pub(crate) fn sim_addr(path: Option<std::path::PathBuf>) -> io::Result<SocketAddr> {
    socket_addr(path.as_deref().unwrap_or(Path::new("")))
}

/// The path (or `"\0name"` abstract name) `addr` names, for the in-memory network.
#[cfg(all(feature = "deterministic", not(loom)))]
pub(crate) fn sim_path(addr: &SocketAddr) -> io::Result<std::path::PathBuf> {
    if let Some(p) = addr.as_pathname() {
        return Ok(p.to_path_buf());
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        #[cfg(target_os = "android")]
        use std::os::android::net::SocketAddrExt;
        #[cfg(target_os = "linux")]
        use std::os::linux::net::SocketAddrExt;
        use std::os::unix::ffi::OsStrExt;
        if let Some(name) = addr.as_abstract_name() {
            let mut bytes = vec![0u8];
            bytes.extend_from_slice(name);
            return Ok(std::ffi::OsStr::from_bytes(&bytes).into());
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "an unnamed Unix socket address names no socket",
    ))
}

/// The socket address a `bind`/`connect` path names: a leading NUL byte makes it an
/// abstract name (Linux), anything else a file system path.
pub(crate) fn socket_addr(path: &Path) -> io::Result<SocketAddr> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    match bytes.strip_prefix(b"\0") {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        Some(name) => {
            #[cfg(target_os = "android")]
            use std::os::android::net::SocketAddrExt;
            #[cfg(target_os = "linux")]
            use std::os::linux::net::SocketAddrExt;
            SocketAddr::from_abstract_name(name)
        }
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        Some(_) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "abstract Unix socket names (a leading NUL byte) exist on Linux only",
        )),
        None => SocketAddr::from_pathname(path),
    }
}
