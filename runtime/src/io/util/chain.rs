//! [`Chain`]: two readers read one after the other.
//!
//! Reads go to the first reader until it reports end of file (a ready read that adds
//! nothing to a buffer with room; a read into a full buffer proves nothing), then to the
//! second. Both readers are structurally pinned.

use std::fmt;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::io::{AsyncBufRead, AsyncRead, ReadBuf};

/// Reads one reader to its end, then another: tokio's `Chain`, from
/// [`AsyncReadExt::chain`](crate::io::AsyncReadExt::chain).
#[must_use = "streams do nothing unless polled"]
pub struct Chain<T, U> {
    first: T,
    second: U,
    done_first: bool,
}

pub(super) fn chain<T: AsyncRead, U: AsyncRead>(first: T, second: U) -> Chain<T, U> {
    Chain {
        first,
        second,
        done_first: false,
    }
}

impl<T, U> Chain<T, U> {
    fn project(self: Pin<&mut Self>) -> (Pin<&mut T>, Pin<&mut U>, &mut bool) {
        // SAFETY: `first` and `second` are structurally pinned: only ever handed out
        // pinned from a pinned `self`, never moved out of a pinned `self`, and `Chain` has
        // no `Drop` impl; it is `Unpin` only when both are (auto trait). `done_first` is
        // not pinned.
        let me = unsafe { self.get_unchecked_mut() };
        (
            // SAFETY: see above.
            unsafe { Pin::new_unchecked(&mut me.first) },
            // SAFETY: see above.
            unsafe { Pin::new_unchecked(&mut me.second) },
            &mut me.done_first,
        )
    }
}

impl<T: AsyncRead, U: AsyncRead> Chain<T, U> {
    /// The two readers.
    pub fn get_ref(&self) -> (&T, &U) {
        (&self.first, &self.second)
    }

    /// The two readers, mutably. Reading from them directly may confuse the chain.
    pub fn get_mut(&mut self) -> (&mut T, &mut U) {
        (&mut self.first, &mut self.second)
    }

    /// The two readers, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> (Pin<&mut T>, Pin<&mut U>) {
        let (first, second, _) = self.project();
        (first, second)
    }

    /// The two readers.
    pub fn into_inner(self) -> (T, U) {
        (self.first, self.second)
    }
}

impl<T: fmt::Debug, U: fmt::Debug> fmt::Debug for Chain<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chain")
            .field("t", &self.first)
            .field("u", &self.second)
            .finish()
    }
}

impl<T: AsyncRead, U: AsyncRead> AsyncRead for Chain<T, U> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let (first, second, done_first) = self.project();
        if !*done_first {
            let room = buf.remaining();
            ready!(first.poll_read(cx, buf))?;
            if room == 0 || buf.remaining() != room {
                return Poll::Ready(Ok(()));
            }
            *done_first = true;
        }
        second.poll_read(cx, buf)
    }
}

impl<T: AsyncBufRead, U: AsyncBufRead> AsyncBufRead for Chain<T, U> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let (first, second, done_first) = self.project();
        if !*done_first {
            match ready!(first.poll_fill_buf(cx))? {
                [] => *done_first = true,
                available => return Poll::Ready(Ok(available)),
            }
        }
        second.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let (first, second, done_first) = self.project();
        if *done_first {
            second.consume(amt)
        } else {
            first.consume(amt)
        }
    }
}
