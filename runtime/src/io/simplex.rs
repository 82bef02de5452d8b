//! [`simplex`]: an in-memory, one-way, bounded byte pipe.
//!
//! A `SimplexStream` is one `Pipe` (`pipe.rs`): what is written into it is read back out
//! of it, in order, with at most `max_buf_size` bytes buffered; `shutdown` makes the reader
//! see EOF once the buffer is drained (and later writes fail with `BrokenPipe`). `simplex`
//! splits one with `io::split`, so the read half and the write half can live in different
//! tasks. Like [`duplex`](super::duplex) it is ours so that every read and write spends
//! our coop budget. Both trait families are implemented.

use crate::io::{ReadHalf, WriteHalf};
use shim::sync::Mutex;

use super::pipe::{self, Pipe};

/// A one-way in-memory pipe: bytes written into it are read back out of it.
///
/// ```
/// use runtime::io::{AsyncReadExt, AsyncWriteExt, SimplexStream};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut pipe = SimplexStream::new_unsplit(16);
/// pipe.write_all(b"loop").await?;
/// pipe.shutdown().await?;
/// let mut back = String::new();
/// pipe.read_to_string(&mut back).await?;
/// assert_eq!(back, "loop");
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
#[derive(Debug)]
pub struct SimplexStream {
    pipe: Mutex<Pipe>,
}

impl SimplexStream {
    /// A pipe buffering at most `max_buf_size` bytes, not split.
    ///
    /// # Panics
    /// If `max_buf_size` is 0.
    pub fn new_unsplit(max_buf_size: usize) -> SimplexStream {
        SimplexStream {
            pipe: Mutex::new(Pipe::new(max_buf_size)),
        }
    }
}

/// A one-way pipe as a read half and a write half, buffering at most `max_buf_size` bytes.
///
/// ```
/// use runtime::io::{simplex, AsyncReadExt, AsyncWriteExt};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let (mut rx, mut tx) = simplex(4);
/// let writer = runtime::spawn(async move {
///     tx.write_all(b"more than four bytes").await.unwrap();
///     tx.shutdown().await.unwrap();
/// });
/// let mut got = String::new();
/// rx.read_to_string(&mut got).await?;
/// assert_eq!(got, "more than four bytes");
/// writer.await.unwrap();
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
///
/// # Panics
/// If `max_buf_size` is 0.
pub fn simplex(max_buf_size: usize) -> (ReadHalf<SimplexStream>, WriteHalf<SimplexStream>) {
    crate::io::split(SimplexStream::new_unsplit(max_buf_size))
}

pipe::pipe_io_impls!(SimplexStream, read: pipe, write: pipe);
