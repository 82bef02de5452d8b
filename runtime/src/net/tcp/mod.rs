//! TCP: [`TcpListener`], [`TcpStream`] and the stream's read/write halves, and
//! [`TcpSocket`] to set options before connecting or listening.
//!
//! Both socket types are a mio socket registered with the runtime's I/O driver plus their
//! API; readiness is waited on and cleared as the [`net`](crate::net) module describes.

mod listener;
mod socket;
mod split;
mod stream;

pub use listener::TcpListener;
pub use socket::TcpSocket;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
pub use stream::TcpStream;
