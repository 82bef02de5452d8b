//! [`BufWriter`]: an [`AsyncWrite`] with a buffer in front, turning many small writes into
//! few large ones.
//!
//! The buffer is a `Vec<u8>` of fixed capacity; `written` counts how much of it a flush
//! in progress has written, so a `Pending` flush resumes where it stopped. A write that
//! does not fit first flushes the buffer; a write at least as large as the capacity then
//! goes straight to the inner writer. Vectored writes are buffered as a whole when the
//! inner writer writes vectored, and slice by slice (as many as fit) otherwise. Flush and
//! shutdown write the buffer out first. Seeking flushes first. `inner` is structurally
//! pinned; the other fields are not. Reads pass through to the inner value.

use std::fmt;
use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::DEFAULT_BUF_SIZE;
use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

/// Adds buffering to a writer: tokio's `BufWriter`. Flush it (or shut it down) before
/// dropping it, or buffered bytes are lost.
///
/// ```
/// use runtime::io::{AsyncWriteExt, BufWriter};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut w = BufWriter::new(Vec::new());
/// w.write_all(b"held").await?;
/// assert_eq!(w.buffer(), b"held");
/// assert!(w.get_ref().is_empty());
/// w.flush().await?;
/// assert_eq!(w.get_ref(), b"held");
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub struct BufWriter<W> {
    pub(super) inner: W,
    pub(super) buf: Vec<u8>,
    pub(super) written: usize,
    pub(super) seek_state: SeekState,
}

/// Where a [`BufWriter`]'s seek stands between `start_seek` and `poll_complete`.
#[derive(Debug, Clone, Copy)]
pub(super) enum SeekState {
    /// No seek in progress.
    Init,
    /// `start_seek` was called with this position; the buffer must be flushed first.
    Start(SeekFrom),
    /// The inner seek is submitted; waiting for it.
    Pending,
}

/// The fields of a pinned [`BufWriter`]: `inner` pinned, the rest plain.
struct Projection<'a, W> {
    inner: Pin<&'a mut W>,
    buf: &'a mut Vec<u8>,
    written: &'a mut usize,
    seek_state: &'a mut SeekState,
}

impl<W> BufWriter<W> {
    fn project(self: Pin<&mut Self>) -> Projection<'_, W> {
        // SAFETY: `inner` is structurally pinned: only ever handed out pinned from a
        // pinned `self`, never moved out of a pinned `self`, and `BufWriter` has no `Drop`
        // impl; it is `Unpin` only when `W` is (auto trait). The other fields are not
        // pinned.
        let me = unsafe { self.get_unchecked_mut() };
        Projection {
            // SAFETY: see above.
            inner: unsafe { Pin::new_unchecked(&mut me.inner) },
            buf: &mut me.buf,
            written: &mut me.written,
            seek_state: &mut me.seek_state,
        }
    }
}

impl<W: AsyncWrite> BufWriter<W> {
    /// A `BufWriter` with the default buffer size (8 KiB).
    pub fn new(inner: W) -> Self {
        Self::with_capacity(DEFAULT_BUF_SIZE, inner)
    }

    /// A `BufWriter` with a buffer of `cap` bytes.
    pub fn with_capacity(cap: usize, inner: W) -> Self {
        BufWriter {
            inner,
            buf: Vec::with_capacity(cap),
            written: 0,
            seek_state: SeekState::Init,
        }
    }

    /// Writes the buffer out to the inner writer (without flushing that one). A write of
    /// 0 bytes is a `WriteZero` error ("failed to write the buffered data"); on an error,
    /// what was written is dropped from the buffer and the rest kept.
    fn flush_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut me = self.project();
        let mut ret = Ok(());
        while *me.written < me.buf.len() {
            match ready!(me.inner.as_mut().poll_write(cx, &me.buf[*me.written..])) {
                Ok(0) => {
                    ret = Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "failed to write the buffered data",
                    ));
                    break;
                }
                Ok(n) => *me.written += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    ret = Err(e);
                    break;
                }
            }
        }
        if *me.written > 0 {
            me.buf.drain(..*me.written);
        }
        *me.written = 0;
        Poll::Ready(ret)
    }

    /// The inner writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The inner writer, mutably. Writing to it directly puts bytes ahead of the buffered
    /// ones.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// The inner writer, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut W> {
        self.project().inner
    }

    /// The inner writer; the buffered bytes are lost.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// The buffered, unwritten bytes.
    pub fn buffer(&self) -> &[u8] {
        &self.buf
    }
}

impl<W: AsyncWrite> AsyncWrite for BufWriter<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.buf.len() + buf.len() > self.buf.capacity() {
            ready!(self.as_mut().flush_buf(cx))?;
        }
        let me = self.project();
        if buf.len() >= me.buf.capacity() {
            me.inner.poll_write(cx, buf)
        } else {
            me.buf.extend_from_slice(buf);
            Poll::Ready(Ok(buf.len()))
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.inner.is_write_vectored() {
            let total = bufs.iter().fold(0usize, |n, b| n.saturating_add(b.len()));
            if total > self.buf.capacity() - self.buf.len() {
                ready!(self.as_mut().flush_buf(cx))?;
            }
            let me = self.project();
            if total >= me.buf.capacity() {
                // Too large to buffer (or its size saturated): write it directly.
                return me.inner.poll_write_vectored(cx, bufs);
            }
            bufs.iter().for_each(|b| me.buf.extend_from_slice(b));
            return Poll::Ready(Ok(total));
        }
        while bufs.first().is_some_and(|b| b.is_empty()) {
            bufs = &bufs[1..];
        }
        let Some(first) = bufs.first() else {
            return Poll::Ready(Ok(0));
        };
        let first_len = first.len();
        if first_len > self.buf.capacity() - self.buf.len() {
            ready!(self.as_mut().flush_buf(cx))?;
        }
        let me = self.project();
        if first_len >= me.buf.capacity() {
            return me.inner.poll_write(cx, &bufs[0]);
        }
        let mut total = 0;
        for b in bufs {
            if b.len() > me.buf.capacity() - me.buf.len() {
                break;
            }
            me.buf.extend_from_slice(b);
            total += b.len();
        }
        Poll::Ready(Ok(total))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().flush_buf(cx))?;
        self.get_pin_mut().poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().flush_buf(cx))?;
        self.get_pin_mut().poll_shutdown(cx)
    }
}

impl<W: AsyncWrite + AsyncSeek> AsyncSeek for BufWriter<W> {
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        // Flushing needs a `Context`, so the inner seek starts in `poll_complete`.
        *self.project().seek_state = SeekState::Start(pos);
        Ok(())
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let pos = match self.seek_state {
            SeekState::Init => return self.get_pin_mut().poll_complete(cx),
            SeekState::Start(pos) => Some(pos),
            SeekState::Pending => None,
        };
        ready!(self.as_mut().flush_buf(cx))?;
        let mut me = self.project();
        if let Some(pos) = pos {
            ready!(me.inner.as_mut().poll_complete(cx))?;
            if let Err(e) = me.inner.as_mut().start_seek(pos) {
                *me.seek_state = SeekState::Init;
                return Poll::Ready(Err(e));
            }
        }
        match me.inner.poll_complete(cx) {
            Poll::Ready(res) => {
                *me.seek_state = SeekState::Init;
                Poll::Ready(res)
            }
            Poll::Pending => {
                *me.seek_state = SeekState::Pending;
                Poll::Pending
            }
        }
    }
}

impl<W: AsyncWrite + AsyncRead> AsyncRead for BufWriter<W> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_read(cx, buf)
    }
}

impl<W: AsyncWrite + AsyncBufRead> AsyncBufRead for BufWriter<W> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.get_pin_mut().poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.get_pin_mut().consume(amt)
    }
}

impl<W: fmt::Debug> fmt::Debug for BufWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BufWriter")
            .field("writer", &self.inner)
            .field(
                "buffer",
                &format_args!("{}/{}", self.buf.len(), self.buf.capacity()),
            )
            .field("written", &self.written)
            .finish()
    }
}
