//! [`duplex`]: an in-memory, bidirectional, bounded byte pipe.
//!
//! Two `DuplexStream`s share two one-way `Pipe`s, each behind its own mutex: what one end
//! writes into its `write` pipe the other reads from the same pipe (its `read`). A pipe
//! holds at most `max` bytes; a writer finding it full stores its waker and returns
//! `Pending`, a reader finding it empty does the same, and each side wakes the other after
//! it moves bytes. Wakers are taken out under the lock and woken after it is released.
//!
//! Closing: `shutdown` (or dropping an end) marks its write pipe closed, so the other end
//! reads what is left and then EOF; dropping an end also marks its read pipe's reader gone,
//! so the other end's writes fail with `BrokenPipe`. Every read and write spends one unit
//! of the task's coop budget first (a pipe that is always ready must still yield), which
//! is why this is ours and not tokio's re-export (tokio's spends tokio's budget, inert on
//! this runtime). Both trait families are implemented.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll, Waker};

use shim::sync::{Arc, Mutex};
use tokio::io::ReadBuf;

use crate::coop::poll_proceed;

/// One end of an in-memory pipe made by [`duplex`]; see there.
#[derive(Debug)]
pub struct DuplexStream {
    read: Arc<Mutex<Pipe>>,
    write: Arc<Mutex<Pipe>>,
}

#[derive(Debug)]
struct Pipe {
    buf: VecDeque<u8>,
    max: usize,
    /// The writer shut down (or dropped): the reader gets EOF once `buf` is drained.
    write_closed: bool,
    /// The reader dropped: writes fail with `BrokenPipe`.
    read_closed: bool,
    read_waker: Option<Waker>,
    write_waker: Option<Waker>,
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
pub fn duplex(max_buf_size: usize) -> (DuplexStream, DuplexStream) {
    assert!(
        max_buf_size > 0,
        "duplex(0) could never pass a byte: give a buffer size of at least 1"
    );
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

impl Pipe {
    fn new(max: usize) -> Pipe {
        Pipe {
            buf: VecDeque::new(),
            max,
            write_closed: false,
            read_closed: false,
            read_waker: None,
            write_waker: None,
        }
    }
}

/// Stores `cx`'s waker in `slot` (keeping an equivalent one), returning the one it
/// replaced so that the caller drops it after releasing the lock.
fn store(slot: &mut Option<Waker>, cx: &Context<'_>) -> Option<Waker> {
    match slot {
        Some(w) if w.will_wake(cx.waker()) => None,
        _ => slot.replace(cx.waker().clone()),
    }
}

fn wake(w: Option<Waker>) {
    if let Some(w) = w {
        w.wake();
    }
}

impl DuplexStream {
    /// Moves up to `want` buffered bytes out through `out`; `Ok(0)` only at EOF.
    fn poll_read_with(
        &self,
        cx: &mut Context<'_>,
        want: usize,
        out: impl FnOnce(&[u8], &[u8]),
    ) -> Poll<io::Result<usize>> {
        ready!(poll_proceed(cx));
        if want == 0 {
            return Poll::Ready(Ok(0));
        }
        let mut pipe = self.read.lock();
        if pipe.buf.is_empty() {
            if pipe.write_closed {
                return Poll::Ready(Ok(0));
            }
            let old = store(&mut pipe.read_waker, cx);
            drop(pipe);
            drop(old); // never dropped under the lock
            return Poll::Pending;
        }
        let n = want.min(pipe.buf.len());
        let (a, b) = pipe.buf.as_slices();
        let (a, b) = if n <= a.len() {
            (&a[..n], &b[..0])
        } else {
            (a, &b[..n - a.len()])
        };
        out(a, b);
        pipe.buf.drain(..n);
        let writer = pipe.write_waker.take();
        drop(pipe);
        wake(writer);
        Poll::Ready(Ok(n))
    }

    fn poll_write_inner(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        ready!(poll_proceed(cx));
        let mut pipe = self.write.lock();
        if pipe.read_closed || pipe.write_closed {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        if buf.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let room = pipe.max - pipe.buf.len();
        if room == 0 {
            let old = store(&mut pipe.write_waker, cx);
            drop(pipe);
            drop(old); // never dropped under the lock
            return Poll::Pending;
        }
        let n = room.min(buf.len());
        pipe.buf.extend(&buf[..n]);
        let reader = pipe.read_waker.take();
        drop(pipe);
        wake(reader);
        Poll::Ready(Ok(n))
    }

    fn close_write(&self) {
        let mut pipe = self.write.lock();
        pipe.write_closed = true;
        let reader = pipe.read_waker.take();
        drop(pipe);
        wake(reader);
    }
}

impl Drop for DuplexStream {
    fn drop(&mut self) {
        self.close_write();
        let mut pipe = self.read.lock();
        pipe.read_closed = true;
        let writer = pipe.write_waker.take();
        drop(pipe);
        wake(writer);
    }
}

impl tokio::io::AsyncRead for DuplexStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let want = buf.remaining();
        ready!(self.poll_read_with(cx, want, |a, b| {
            buf.put_slice(a);
            buf.put_slice(b);
        }))?;
        Poll::Ready(Ok(()))
    }
}

impl tokio::io::AsyncWrite for DuplexStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_inner(cx, buf)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(poll_proceed(cx));
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(poll_proceed(cx));
        self.close_write();
        Poll::Ready(Ok(()))
    }
}

impl futures::io::AsyncRead for DuplexStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_read_with(cx, buf.len(), |a, b| {
            buf[..a.len()].copy_from_slice(a);
            buf[a.len()..a.len() + b.len()].copy_from_slice(b);
        })
    }
}

impl futures::io::AsyncWrite for DuplexStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_inner(cx, buf)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        tokio::io::AsyncWrite::poll_flush(self, cx)
    }
    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        tokio::io::AsyncWrite::poll_shutdown(self, cx)
    }
}
