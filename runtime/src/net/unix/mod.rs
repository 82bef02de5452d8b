//! Unix domain stream sockets: [`UnixListener`], [`UnixStream`] and the stream's halves.
//!
//! The same shape as TCP (an `IoSource` per socket); addresses are
//! `std::os::unix::net::SocketAddr` (a path, or unnamed).

mod listener;
mod split;
mod stream;

pub use listener::UnixListener;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
pub use std::os::unix::net::SocketAddr;
pub use stream::UnixStream;
