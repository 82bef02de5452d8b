//! [`Take`]: a reader limited to a number of bytes, after which it reports end of file.
//!
//! A read hands the inner reader a `ReadBuf` cut down to the limit (`ReadBuf::take`, over
//! the caller's own storage), then carries what was filled over to the caller's buffer
//! and lowers the limit. At limit 0 the inner reader is not polled at all. `inner` is
//! structurally pinned.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::io::{AsyncBufRead, AsyncRead, ReadBuf};

/// Reads at most a limit of bytes from a reader: tokio's `Take`, from
/// [`AsyncReadExt::take`](crate::io::AsyncReadExt::take).
#[derive(Debug)]
#[must_use = "streams do nothing unless you `.await` or poll them"]
pub struct Take<R> {
    inner: R,
    limit_: u64,
}

pub(super) fn take<R: AsyncRead>(inner: R, limit: u64) -> Take<R> {
    Take {
        inner,
        limit_: limit,
    }
}

impl<R> Take<R> {
    fn project(self: Pin<&mut Self>) -> (Pin<&mut R>, &mut u64) {
        // SAFETY: `inner` is structurally pinned: only ever handed out pinned from a
        // pinned `self`, never moved out of a pinned `self`, and `Take` has no `Drop`
        // impl; it is `Unpin` only when `R` is (auto trait). `limit_` is not pinned.
        let me = unsafe { self.get_unchecked_mut() };
        // SAFETY: see above.
        (unsafe { Pin::new_unchecked(&mut me.inner) }, &mut me.limit_)
    }
}

impl<R: AsyncRead> Take<R> {
    /// How many bytes may still be read before end of file.
    pub fn limit(&self) -> u64 {
        self.limit_
    }

    /// Sets how many bytes may still be read.
    pub fn set_limit(&mut self, limit: u64) {
        self.limit_ = limit
    }

    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The inner reader, mutably. Reading from it directly does not count to the limit.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The inner reader, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().0
    }

    /// The inner reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: AsyncRead> AsyncRead for Take<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.limit_ == 0 {
            return Poll::Ready(Ok(()));
        }
        let (inner, limit) = self.project();
        let mut part = buf.take(usize::try_from(*limit).unwrap_or(usize::MAX));
        let start = part.filled().as_ptr();
        ready!(inner.poll_read(cx, &mut part))?;
        assert_eq!(
            part.filled().as_ptr(),
            start,
            "the reader swapped the `ReadBuf`'s storage: a `poll_read` must fill the buffer \
             it is given"
        );
        let n = part.filled().len();
        // SAFETY: the inner reader filled (so initialized) `n` bytes of `part`, which are
        // the first `n` unfilled bytes of `buf`'s storage.
        unsafe { buf.assume_init(n) };
        buf.advance(n);
        *limit -= n as u64;
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncBufRead> AsyncBufRead for Take<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let (inner, limit) = self.project();
        // At the limit the inner reader is not polled: it might still wait.
        if *limit == 0 {
            return Poll::Ready(Ok(&[]));
        }
        let available = ready!(inner.poll_fill_buf(cx))?;
        let n = (available.len() as u64).min(*limit) as usize;
        Poll::Ready(Ok(&available[..n]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let (inner, limit) = self.project();
        // An oversized `amt` cannot raise the limit.
        let amt = (amt as u64).min(*limit) as usize;
        *limit -= amt as u64;
        inner.consume(amt)
    }
}
