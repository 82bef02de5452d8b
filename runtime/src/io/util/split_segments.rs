//! [`Split`]: the segments of an [`AsyncBufRead`] between occurrences of a delimiter byte.
//!
//! Each segment is scanned with the shared delimiter scan into the adapter's own buffer,
//! which keeps a partial segment across `Pending` polls; the delimiter is removed. End of
//! file with nothing buffered ends the segments (`None`); a last segment without the
//! delimiter is returned as it is. `reader` is structurally pinned.

use std::io;
use std::mem;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::read_until::poll_read_until;
use crate::io::AsyncBufRead;

/// The segments of a buffered reader split at a byte: tokio's `Split`, from
/// [`AsyncBufReadExt::split`](crate::io::AsyncBufReadExt::split).
#[derive(Debug)]
#[must_use = "streams do nothing unless polled"]
pub struct Split<R> {
    reader: R,
    buf: Vec<u8>,
    delim: u8,
    read: usize,
}

pub(super) fn split<R: AsyncBufRead>(reader: R, delim: u8) -> Split<R> {
    Split {
        reader,
        buf: Vec::new(),
        delim,
        read: 0,
    }
}

impl<R: AsyncBufRead + Unpin> Split<R> {
    /// The next segment, without the delimiter; `None` at end of file. Cancel safe: a
    /// partly read segment stays buffered for the next call.
    pub async fn next_segment(&mut self) -> io::Result<Option<Vec<u8>>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next_segment(cx)).await
    }
}

impl<R: AsyncBufRead> Split<R> {
    /// Polls for the next segment, without the delimiter; `Ready(Ok(None))` at end of
    /// file.
    pub fn poll_next_segment(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<Vec<u8>>>> {
        // SAFETY: `reader` is structurally pinned: only ever handed out pinned from a
        // pinned `self`, never moved out of a pinned `self`, and `Split` has no `Drop`
        // impl; it is `Unpin` only when `R` is (auto trait). The other fields are not.
        let me = unsafe { self.get_unchecked_mut() };
        // SAFETY: see above.
        let reader = unsafe { Pin::new_unchecked(&mut me.reader) };
        let n = ready!(poll_read_until(
            reader,
            cx,
            me.delim,
            &mut me.buf,
            &mut me.read
        ))?;
        if n == 0 && me.buf.is_empty() {
            return Poll::Ready(Ok(None));
        }
        if me.buf.last() == Some(&me.delim) {
            me.buf.pop();
        }
        Poll::Ready(Ok(Some(mem::take(&mut me.buf))))
    }
}
