//! [`duplex`]: an in-memory, bidirectional, bounded byte pipe.
//!
//! Two `DuplexStream`s share two one-way `Pipe`s (`pipe.rs`), each behind its own mutex:
//! what one end writes into its `write` pipe the other reads from the same pipe (its
//! `read`). A pipe holds at most `max` bytes; a writer finding it full, or a reader finding
//! it empty, waits for the other side to move bytes.
//!
//! Closing: `shutdown` (or dropping an end) marks its write pipe closed, so the other end
//! reads what is left and then EOF; dropping an end also marks its read pipe's reader gone,
//! so the other end's writes fail with `BrokenPipe`. Every read and write spends one unit
//! of the task's coop budget first (a pipe that is always ready must still yield), which
//! is why this is ours and not tokio's re-export (tokio's spends tokio's budget, inert on
//! this runtime). Both trait families are implemented.

use shim::sync::{Arc, Mutex};

use super::pipe::{self, Pipe};

/// One end of an in-memory pipe made by [`duplex`]; see there.
#[derive(Debug)]
pub struct DuplexStream {
    read: Arc<Mutex<Pipe>>,
    write: Arc<Mutex<Pipe>>,
}

/// A connected pair of in-memory streams, each buffering at most `max_buf_size` bytes in
/// each direction.
///
/// ```
/// use runtime::io::{duplex, AsyncReadExt, AsyncWriteExt};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let (mut client, mut server) = duplex(64);
/// client.write_all(b"ping").await?;
/// let mut buf = [0; 4];
/// server.read_exact(&mut buf).await?;
/// assert_eq!(&buf, b"ping");
/// drop(client);
/// assert_eq!(server.read(&mut buf).await?, 0); // EOF
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
///
/// # Panics
/// If `max_buf_size` is 0 (no byte could ever pass).
#[track_caller]
pub fn duplex(max_buf_size: usize) -> (DuplexStream, DuplexStream) {
    let one = Arc::new(Mutex::new(Pipe::new(max_buf_size)));
    let two = Arc::new(Mutex::new(Pipe::new(max_buf_size)));

    (
        DuplexStream {
            read: one.clone(),
            write: two.clone(),
        },
        DuplexStream {
            read: two,
            write: one,
        },
    )
}

impl Drop for DuplexStream {
    fn drop(&mut self) {
        pipe::close_write(&self.write);
        pipe::close_read(&self.read);
    }
}

pipe::pipe_io_impls!(DuplexStream, read: read, write: write);
