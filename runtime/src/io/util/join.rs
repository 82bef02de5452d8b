//! [`join`]: a reader and a writer combined into one value that reads and writes.
//!
//! Reads (and buffered reads) go to the reader, writes to the writer; nothing is shared
//! between them. Both are structurally pinned.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::io::{AsyncBufRead, AsyncRead, AsyncWrite, ReadBuf};

/// Combines a reader and a writer into one value implementing both traits.
///
/// ```
/// use runtime::io::{self, AsyncReadExt, AsyncWriteExt};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut rw = io::join(&b"from the reader"[..], Vec::new());
/// rw.write_all(b"to the writer").await?;
/// let mut s = String::new();
/// rw.read_to_string(&mut s).await?;
/// assert_eq!(s, "from the reader");
/// assert_eq!(rw.writer(), b"to the writer");
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub fn join<R, W>(reader: R, writer: W) -> Join<R, W>
where
    R: AsyncRead,
    W: AsyncWrite,
{
    Join { reader, writer }
}

/// A reader and a writer joined into one value: tokio's `Join`, from [`join`].
#[derive(Debug)]
pub struct Join<R, W> {
    reader: R,
    writer: W,
}

impl<R, W> Join<R, W> {
    fn project(self: Pin<&mut Self>) -> (Pin<&mut R>, Pin<&mut W>) {
        // SAFETY: both fields are structurally pinned: only ever handed out pinned from a
        // pinned `self`, never moved out of a pinned `self`, and `Join` has no `Drop`
        // impl; it is `Unpin` only when both are (auto trait).
        let me = unsafe { self.get_unchecked_mut() };
        // SAFETY: see above.
        unsafe {
            (
                Pin::new_unchecked(&mut me.reader),
                Pin::new_unchecked(&mut me.writer),
            )
        }
    }
}

impl<R: AsyncRead, W: AsyncWrite> Join<R, W> {
    /// The reader and the writer.
    pub fn into_inner(self) -> (R, W) {
        (self.reader, self.writer)
    }

    /// The reader.
    pub fn reader(&self) -> &R {
        &self.reader
    }

    /// The writer.
    pub fn writer(&self) -> &W {
        &self.writer
    }

    /// The reader, mutably.
    pub fn reader_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// The writer, mutably.
    pub fn writer_mut(&mut self) -> &mut W {
        &mut self.writer
    }

    /// The reader, pinned.
    pub fn reader_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().0
    }

    /// The writer, pinned.
    pub fn writer_pin_mut(self: Pin<&mut Self>) -> Pin<&mut W> {
        self.project().1
    }
}

impl<R: AsyncRead, W> AsyncRead for Join<R, W> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.project().0.poll_read(cx, buf)
    }
}

impl<R, W: AsyncWrite> AsyncWrite for Join<R, W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().1.poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().1.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().1.poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().1.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.writer.is_write_vectored()
    }
}

impl<R: AsyncBufRead, W> AsyncBufRead for Join<R, W> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.project().0.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.project().0.consume(amt)
    }
}
