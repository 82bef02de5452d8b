//! TCP: [`TcpListener`], [`TcpStream`] and the stream's read/write halves, and
//! [`TcpSocket`] to set options before connecting or listening.
//!
//! Both socket types are an `IoSource` (a mio socket registered with the runtime's I/O
//! driver) plus their API; see `io_source.rs` for how readiness is waited on and cleared.

mod listener;
mod socket;
mod split;
mod stream;

pub use listener::TcpListener;
pub use socket::TcpSocket;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
pub use stream::TcpStream;
