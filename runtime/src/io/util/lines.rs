//! [`Lines`]: the lines of an [`AsyncBufRead`], one `String` at a time.
//!
//! Each line is scanned up to `\n` with the shared delimiter scan into the adapter's own
//! buffer, which keeps a partial line across `Pending` polls; the `\n` (and a `\r`
//! before it) is removed. End of file with nothing buffered ends the lines (`None`); a
//! last line without `\n` is returned as it is. Invalid UTF-8 is an `InvalidData` error
//! (the line's bytes are dropped). `reader` is structurally pinned.

use std::io;
use std::mem;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::read_until::poll_read_until;
use crate::io::AsyncBufRead;

/// The lines of a buffered reader: tokio's `Lines`, from
/// [`AsyncBufReadExt::lines`](crate::io::AsyncBufReadExt::lines).
#[derive(Debug)]
#[must_use = "streams do nothing unless polled"]
pub struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
}

pub(super) fn lines<R: AsyncBufRead>(reader: R) -> Lines<R> {
    Lines {
        reader,
        buf: Vec::new(),
    }
}

impl<R> Lines<R> {
    fn project(self: Pin<&mut Self>) -> (Pin<&mut R>, &mut Vec<u8>) {
        // SAFETY: `reader` is structurally pinned: only ever handed out pinned from a
        // pinned `self`, never moved out of a pinned `self`, and `Lines` has no `Drop`
        // impl; it is `Unpin` only when `R` is (auto trait). `buf` is not pinned.
        let me = unsafe { self.get_unchecked_mut() };
        // SAFETY: see above.
        (unsafe { Pin::new_unchecked(&mut me.reader) }, &mut me.buf)
    }
}

impl<R: AsyncBufRead + Unpin> Lines<R> {
    /// The next line, without its line ending; `None` at end of file. Cancel safe: a
    /// partly read line stays buffered for the next call.
    pub async fn next_line(&mut self) -> io::Result<Option<String>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next_line(cx)).await
    }

    /// The reader, mutably.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// The reader.
    pub fn get_ref(&mut self) -> &R {
        &self.reader
    }

    /// The reader; a partly read line is lost.
    pub fn into_inner(self) -> R {
        self.reader
    }
}

impl<R: AsyncBufRead> Lines<R> {
    /// Polls for the next line, without its line ending; `Ready(Ok(None))` at end of
    /// file.
    pub fn poll_next_line(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<String>>> {
        let (reader, buf) = self.project();
        let mut read = 0;
        let n = ready!(poll_read_until(reader, cx, b'\n', buf, &mut read))?;
        if n == 0 && buf.is_empty() {
            return Poll::Ready(Ok(None));
        }
        let mut line = mem::take(buf);
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        Poll::Ready(
            String::from_utf8(line)
                .map(Some)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
        )
    }
}
