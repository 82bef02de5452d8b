//! An in-memory, bidirectional byte stream for tests: two `DuplexStream`s joined by two
//! bounded pipes, implementing `futures::io::{AsyncRead, AsyncWrite}`.
//!
//! Each pipe is a `VecDeque` behind a mutex with one waker per side: a read on an empty pipe
//! parks the reader's waker, a write into a full pipe parks the writer's, and each side wakes
//! the other when it makes progress. Closing (or dropping) a side ends the pipe it writes to
//! (the peer reads EOF) and makes the peer's writes fail with `BrokenPipe`. Each pipe counts
//! the writes that put bytes into it, so a test can check how many writes a server made.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use futures::io::{AsyncRead, AsyncWrite};

/// One end of an in-memory connection made by [`duplex`].
#[derive(Debug)]
pub struct DuplexStream {
    /// The pipe this end reads from (the peer writes into it).
    rx: Arc<Mutex<Pipe>>,
    /// The pipe this end writes into.
    tx: Arc<Mutex<Pipe>>,
}

#[derive(Debug)]
struct Pipe {
    buf: VecDeque<u8>,
    cap: usize,
    /// The writing end closed or dropped: after the buffered bytes, EOF.
    write_closed: bool,
    /// The reading end dropped: writes fail.
    read_closed: bool,
    reader: Option<Waker>,
    writer: Option<Waker>,
    /// Writes that put at least one byte in.
    writes: usize,
}

/// Two connected ends; each direction buffers at most `capacity` bytes.
///
/// # Panics
/// When `capacity` is 0.
pub fn duplex(capacity: usize) -> (DuplexStream, DuplexStream) {
    assert!(capacity > 0, "duplex capacity must be at least 1");
    let a_to_b = Arc::new(Mutex::new(Pipe::new(capacity)));
    let b_to_a = Arc::new(Mutex::new(Pipe::new(capacity)));
    (
        DuplexStream {
            rx: b_to_a.clone(),
            tx: a_to_b.clone(),
        },
        DuplexStream {
            rx: a_to_b,
            tx: b_to_a,
        },
    )
}

/// Locks one direction's pipe. Poisoning is ignored: no update of a `Pipe` calls code
/// that can panic halfway, so a pipe whose holder panicked is still consistent.
fn lock(pipe: &Mutex<Pipe>) -> MutexGuard<'_, Pipe> {
    pipe.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Pipe {
    fn new(cap: usize) -> Pipe {
        Pipe {
            buf: VecDeque::with_capacity(cap.min(64 * 1024)),
            cap,
            write_closed: false,
            read_closed: false,
            reader: None,
            writer: None,
            writes: 0,
        }
    }
}

impl DuplexStream {
    /// How many writes the peer made that put bytes into this end's incoming pipe.
    pub fn peer_writes(&self) -> usize {
        lock(&self.rx).writes
    }
}

impl AsyncRead for DuplexStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let mut pipe = lock(&self.rx);
        if pipe.buf.is_empty() {
            if pipe.write_closed || buf.is_empty() {
                return Poll::Ready(Ok(0));
            }
            pipe.reader = Some(cx.waker().clone());
            return Poll::Pending;
        }
        let n = buf.len().min(pipe.buf.len());
        for (dst, src) in buf.iter_mut().zip(pipe.buf.drain(..n)) {
            *dst = src;
        }
        let writer = pipe.writer.take();
        drop(pipe);
        if let Some(w) = writer {
            w.wake();
        }
        Poll::Ready(Ok(n))
    }
}

impl AsyncWrite for DuplexStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let mut pipe = lock(&self.tx);
        if pipe.read_closed || pipe.write_closed {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        if buf.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let room = pipe.cap - pipe.buf.len();
        if room == 0 {
            pipe.writer = Some(cx.waker().clone());
            return Poll::Pending;
        }
        let n = room.min(buf.len());
        pipe.buf.extend(&buf[..n]);
        pipe.writes += 1;
        let reader = pipe.reader.take();
        drop(pipe);
        if let Some(w) = reader {
            w.wake();
        }
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut pipe = lock(&self.tx);
        pipe.write_closed = true;
        let reader = pipe.reader.take();
        drop(pipe);
        if let Some(w) = reader {
            w.wake();
        }
        Poll::Ready(Ok(()))
    }
}

impl Drop for DuplexStream {
    fn drop(&mut self) {
        let reader = {
            let mut pipe = lock(&self.tx);
            pipe.write_closed = true;
            pipe.reader.take()
        };
        let writer = {
            let mut pipe = lock(&self.rx);
            pipe.read_closed = true;
            pipe.writer.take()
        };
        // Wake outside the locks: a waker may run the peer's task right here.
        reader.into_iter().chain(writer).for_each(Waker::wake);
    }
}
