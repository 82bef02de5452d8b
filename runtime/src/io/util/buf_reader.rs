//! [`BufReader`]: an [`AsyncRead`] with a fixed-size buffer in front, making it an
//! [`AsyncBufRead`] and turning many small reads into few large ones.
//!
//! The buffer is a boxed slice with the unread bytes at `pos..cap`. A read is served from
//! the buffer; when the buffer is empty it is refilled with one read of the inner reader,
//! except that a read at least as large as the buffer, with nothing buffered, goes
//! straight to the inner reader. Seeking discards the buffer: a `SeekFrom::Current`
//! offset is corrected by the unread bytes first (with an overflowing correction done as
//! two seeks). `inner` is structurally pinned; the other fields are not. Writes pass
//! through to the inner value.

use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::{fmt, mem};

use super::DEFAULT_BUF_SIZE;
use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

/// Adds buffering to a reader: tokio's `BufReader`.
///
/// ```
/// use runtime::io::{AsyncBufReadExt, BufReader};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut r = BufReader::with_capacity(4, &b"hello world"[..]);
/// assert_eq!(r.fill_buf().await?, b"hell");
/// r.consume(2);
/// assert_eq!(r.buffer(), b"ll");
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub struct BufReader<R> {
    pub(super) inner: R,
    pub(super) buf: Box<[u8]>,
    pub(super) pos: usize,
    pub(super) cap: usize,
    pub(super) seek_state: SeekState,
}

/// Where a [`BufReader`]'s seek stands between `start_seek` and `poll_complete`.
#[derive(Debug, Clone, Copy)]
pub(super) enum SeekState {
    /// No seek in progress.
    Init,
    /// `start_seek` was called with this position; nothing submitted yet.
    Start(SeekFrom),
    /// The correction by the unread bytes is in progress; then seek by this offset.
    PendingOverflowed(i64),
    /// The inner seek is submitted; waiting for it.
    Pending,
}

/// The fields of a pinned [`BufReader`]: `inner` pinned, the rest plain.
struct Projection<'a, R> {
    inner: Pin<&'a mut R>,
    buf: &'a mut [u8],
    pos: &'a mut usize,
    cap: &'a mut usize,
    seek_state: &'a mut SeekState,
}

impl<R> BufReader<R> {
    fn project(self: Pin<&mut Self>) -> Projection<'_, R> {
        // SAFETY: `inner` is structurally pinned: it is only ever handed out pinned from a
        // pinned `self`, never moved out of a pinned `self`, and `BufReader` has no `Drop`
        // impl; it is `Unpin` only when `R` is (auto trait). The other fields are not
        // pinned.
        let me = unsafe { self.get_unchecked_mut() };
        Projection {
            // SAFETY: see above.
            inner: unsafe { Pin::new_unchecked(&mut me.inner) },
            buf: &mut me.buf,
            pos: &mut me.pos,
            cap: &mut me.cap,
            seek_state: &mut me.seek_state,
        }
    }
}

impl<R: AsyncRead> BufReader<R> {
    /// A `BufReader` with the default buffer size (8 KiB).
    pub fn new(inner: R) -> Self {
        Self::with_capacity(DEFAULT_BUF_SIZE, inner)
    }

    /// A `BufReader` with a buffer of `capacity` bytes.
    ///
    /// # Panics
    ///
    /// If `capacity` is 0 ("capacity must be greater than zero").
    #[track_caller]
    pub fn with_capacity(capacity: usize, inner: R) -> Self {
        assert!(
            capacity > 0,
            "capacity must be greater than zero: give `BufReader::with_capacity` at least 1"
        );
        BufReader {
            inner,
            buf: vec![0; capacity].into_boxed_slice(),
            pos: 0,
            cap: 0,
            seek_state: SeekState::Init,
        }
    }

    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The inner reader, mutably. Reading from it directly skips the buffered bytes.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The inner reader, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().inner
    }

    /// The inner reader; the buffered bytes are lost.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// The buffered, unread bytes.
    pub fn buffer(&self) -> &[u8] {
        &self.buf[self.pos..self.cap]
    }

    fn discard_buffer(self: Pin<&mut Self>) {
        let me = self.project();
        *me.pos = 0;
        *me.cap = 0;
    }
}

impl<R: AsyncRead> AsyncRead for BufReader<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.pos == self.cap && buf.remaining() >= self.buf.len() {
            let res = ready!(self.as_mut().get_pin_mut().poll_read(cx, buf));
            self.discard_buffer();
            return Poll::Ready(res);
        }
        let available = ready!(self.as_mut().poll_fill_buf(cx))?;
        let n = available.len().min(buf.remaining());
        buf.put_slice(&available[..n]);
        self.consume(n);
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncRead> AsyncBufRead for BufReader<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();
        if *me.pos >= *me.cap {
            let mut rb = ReadBuf::new(me.buf);
            ready!(me.inner.poll_read(cx, &mut rb))?;
            *me.cap = rb.filled().len();
            *me.pos = 0;
        }
        Poll::Ready(Ok(&me.buf[*me.pos..*me.cap]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        *me.pos = (*me.pos + amt).min(*me.cap);
    }
}

impl<R: AsyncRead + AsyncSeek> AsyncSeek for BufReader<R> {
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        // The inner seek needs a `Context` (after any seek in progress), so it starts in
        // `poll_complete`.
        *self.project().seek_state = SeekState::Start(pos);
        Ok(())
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let state = mem::replace(self.as_mut().project().seek_state, SeekState::Init);
        let res = match state {
            SeekState::Init => return self.get_pin_mut().poll_complete(cx),
            SeekState::Start(SeekFrom::Current(n)) => {
                // The inner reader is ahead of our position by the unread bytes.
                let unread = (self.cap - self.pos) as i64;
                match n.checked_sub(unread) {
                    Some(offset) => {
                        self.as_mut()
                            .get_pin_mut()
                            .start_seek(SeekFrom::Current(offset))?;
                    }
                    None => {
                        self.as_mut()
                            .get_pin_mut()
                            .start_seek(SeekFrom::Current(-unread))?;
                        return self.poll_overflowed(cx, n);
                    }
                }
                self.as_mut().get_pin_mut().poll_complete(cx)?
            }
            SeekState::PendingOverflowed(n) => return self.poll_overflowed(cx, n),
            SeekState::Start(pos) => {
                self.as_mut().get_pin_mut().start_seek(pos)?;
                self.as_mut().get_pin_mut().poll_complete(cx)?
            }
            SeekState::Pending => self.as_mut().get_pin_mut().poll_complete(cx)?,
        };
        self.finish_seek(res)
    }
}

impl<R: AsyncRead + AsyncSeek> BufReader<R> {
    /// Waits for the correction seek by the unread bytes, then seeks by `n`.
    fn poll_overflowed(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        n: i64,
    ) -> Poll<io::Result<u64>> {
        if self.as_mut().get_pin_mut().poll_complete(cx)?.is_pending() {
            *self.as_mut().project().seek_state = SeekState::PendingOverflowed(n);
            return Poll::Pending;
        }
        self.as_mut().discard_buffer();
        self.as_mut()
            .get_pin_mut()
            .start_seek(SeekFrom::Current(n))?;
        let res = self.as_mut().get_pin_mut().poll_complete(cx)?;
        self.finish_seek(res)
    }

    /// A finished seek discards the buffer; a pending one is remembered.
    fn finish_seek(mut self: Pin<&mut Self>, res: Poll<u64>) -> Poll<io::Result<u64>> {
        match res {
            Poll::Ready(pos) => {
                self.discard_buffer();
                Poll::Ready(Ok(pos))
            }
            Poll::Pending => {
                *self.as_mut().project().seek_state = SeekState::Pending;
                Poll::Pending
            }
        }
    }
}

impl<R: AsyncRead + AsyncWrite> AsyncWrite for BufReader<R> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_pin_mut().poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_pin_mut().poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.get_ref().is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_shutdown(cx)
    }
}

impl<R: fmt::Debug> fmt::Debug for BufReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BufReader")
            .field("reader", &self.inner)
            .field(
                "buffer",
                &format_args!("{}/{}", self.cap - self.pos, self.buf.len()),
            )
            .finish()
    }
}
