//! TCP: [`TcpListener`], [`TcpStream`] and the stream's read/write halves.
//!
//! Both socket types are an `IoSource` (a mio socket registered with the runtime's I/O
//! driver) plus their API; see `io_source.rs` for how readiness is waited on and cleared.

mod listener;
mod split;
mod stream;

pub use listener::TcpListener;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
pub use stream::TcpStream;
