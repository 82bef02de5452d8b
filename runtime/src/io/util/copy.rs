//! [`copy`]: everything from a reader into a writer, through a buffer of our own
//! ([`CopyBuffer`], shared with `copy_bidirectional`).
//!
//! The buffer holds the bytes read but not yet written at `pos..cap`. Each round tops the
//! buffer up with a read while it has room and the reader is not done, then writes out
//! what it holds; a write that is `Pending` tries one more read to top the buffer up for
//! a larger write later. A ready read that adds nothing is end of file; after it, once
//! everything is written, the writer is flushed and the copy ends with the byte count.
//! A reader that is `Pending` with nothing left to write flushes the writer first if it
//! wrote since the last flush, so a writer that buffers cannot hold up a reader waiting
//! for its output. A write of 0 bytes is a `WriteZero` error ("write zero byte into
//! writer"); `Interrupted` errors are retried.
//!
//! Each poll asks our cooperative budget for one unit first and keeps it only when the
//! poll made progress, so a copy between two values that are always ready yields once
//! the task's budget is spent.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::DEFAULT_BUF_SIZE;
use crate::io::{AsyncRead, AsyncWrite, ReadBuf};
use crate::task::coop;

/// The state of one direction of a copy.
#[derive(Debug)]
pub(super) struct CopyBuffer {
    read_done: bool,
    need_flush: bool,
    pos: usize,
    cap: usize,
    amt: u64,
    buf: Box<[u8]>,
}

impl CopyBuffer {
    pub(super) fn new(size: usize) -> CopyBuffer {
        CopyBuffer {
            read_done: false,
            need_flush: false,
            pos: 0,
            cap: 0,
            amt: 0,
            buf: vec![0; size].into_boxed_slice(),
        }
    }

    /// One read into the free tail of the buffer; marks end of file.
    fn poll_fill_buf<R: AsyncRead + ?Sized>(
        &mut self,
        cx: &mut Context<'_>,
        mut reader: Pin<&mut R>,
    ) -> Poll<io::Result<()>> {
        let mut rb = ReadBuf::new(&mut self.buf);
        rb.set_filled(self.cap);
        let res = loop {
            match reader.as_mut().poll_read(cx, &mut rb) {
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                res => break res,
            }
        };
        if let Poll::Ready(Ok(())) = res {
            let filled = rb.filled().len();
            self.read_done = filled == self.cap;
            self.cap = filled;
        }
        res
    }

    /// One write of the buffered bytes; while the writer is `Pending`, tops the buffer up.
    fn poll_write_buf<R, W>(
        &mut self,
        cx: &mut Context<'_>,
        mut reader: Pin<&mut R>,
        mut writer: Pin<&mut W>,
    ) -> Poll<io::Result<usize>>
    where
        R: AsyncRead + ?Sized,
        W: AsyncWrite + ?Sized,
    {
        loop {
            match writer
                .as_mut()
                .poll_write(cx, &self.buf[self.pos..self.cap])
            {
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Poll::Pending => {
                    if !self.read_done && self.cap < self.buf.len() {
                        ready!(self.poll_fill_buf(cx, reader.as_mut()))?;
                    }
                    return Poll::Pending;
                }
                res => return res,
            }
        }
    }

    /// Copies until the reader's end of file and a final flush; resolves to the bytes
    /// copied.
    pub(super) fn poll_copy<R, W>(
        &mut self,
        cx: &mut Context<'_>,
        mut reader: Pin<&mut R>,
        mut writer: Pin<&mut W>,
    ) -> Poll<io::Result<u64>>
    where
        R: AsyncRead + ?Sized,
        W: AsyncWrite + ?Sized,
    {
        let budget = ready!(coop::poll_proceed(cx));
        loop {
            if self.cap < self.buf.len() && !self.read_done {
                match self.poll_fill_buf(cx, reader.as_mut()) {
                    Poll::Ready(Ok(())) => budget.made_progress(),
                    Poll::Ready(Err(e)) => {
                        budget.made_progress();
                        return Poll::Ready(Err(e));
                    }
                    Poll::Pending => {
                        // With bytes in hand, write them; otherwise wait for the reader,
                        // after flushing what was written so far.
                        if self.pos == self.cap {
                            if self.need_flush {
                                ready!(writer.as_mut().poll_flush(cx))?;
                                budget.made_progress();
                                self.need_flush = false;
                            }
                            return Poll::Pending;
                        }
                    }
                }
            }

            while self.pos < self.cap {
                let n = ready!(self.poll_write_buf(cx, reader.as_mut(), writer.as_mut()))?;
                budget.made_progress();
                if n == 0 {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "write zero byte into writer",
                    )));
                }
                self.pos += n;
                self.amt += n as u64;
                self.need_flush = true;
            }
            debug_assert!(
                self.pos <= self.cap,
                "writer returned length larger than input slice"
            );
            self.pos = 0;
            self.cap = 0;

            if self.read_done {
                ready!(writer.as_mut().poll_flush(cx))?;
                budget.made_progress();
                return Poll::Ready(Ok(self.amt));
            }
        }
    }
}

/// The future of [`copy`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
struct Copy<'a, R: ?Sized, W: ?Sized> {
    reader: &'a mut R,
    writer: &'a mut W,
    buf: CopyBuffer,
}

impl<R, W> Future for Copy<'_, R, W>
where
    R: AsyncRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    type Output = io::Result<u64>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let me = self.get_mut();
        me.buf
            .poll_copy(cx, Pin::new(&mut *me.reader), Pin::new(&mut *me.writer))
    }
}

/// Copies everything from `reader` into `writer`, then flushes `writer`; resolves to the
/// number of bytes copied. Like tokio's `copy`, through an 8 KiB buffer; it does not shut
/// `writer` down.
///
/// ```
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut out = Vec::new();
/// let n = runtime::io::copy(&mut &b"bytes"[..], &mut out).await?;
/// assert_eq!((n, &out[..]), (5, &b"bytes"[..]));
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub async fn copy<'a, R, W>(reader: &'a mut R, writer: &'a mut W) -> io::Result<u64>
where
    R: AsyncRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    Copy {
        reader,
        writer,
        buf: CopyBuffer::new(DEFAULT_BUF_SIZE),
    }
    .await
}
