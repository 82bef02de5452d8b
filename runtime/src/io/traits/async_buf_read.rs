//! [`AsyncBufRead`]: a reader with an internal buffer the caller can look into.
//!
//! `poll_fill_buf` returns the buffered bytes (refilling from the source when none are
//! left; an empty slice means end of file) and `consume` marks some of them used, so
//! line and delimiter scanning needs no copy. Pointer types forward; `&[u8]` and
//! `std::io::Cursor` are their own buffers.

use std::io;
use std::ops::DerefMut;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::AsyncRead;

/// Reads bytes through an internal buffer: tokio's `AsyncBufRead`.
///
/// Utility methods (`read_line`, `lines`, ...) are in
/// [`AsyncBufReadExt`](crate::io::AsyncBufReadExt).
pub trait AsyncBufRead: AsyncRead {
    /// Returns the buffered bytes, reading more from the source if the buffer is empty.
    /// An empty slice means end of file. Call [`consume`](AsyncBufRead::consume) with
    /// the number of bytes used.
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>>;

    /// Marks `amt` buffered bytes as used: they are not returned by `poll_fill_buf` again.
    /// `amt` must not exceed the length of the slice last returned by `poll_fill_buf`.
    fn consume(self: Pin<&mut Self>, amt: usize);
}

impl<T: ?Sized + AsyncBufRead + Unpin> AsyncBufRead for Box<T> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Pin::new(&mut **self.get_mut()).poll_fill_buf(cx)
    }

    fn consume(mut self: Pin<&mut Self>, amt: usize) {
        Pin::new(&mut **self).consume(amt)
    }
}

impl<T: ?Sized + AsyncBufRead + Unpin> AsyncBufRead for &mut T {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Pin::new(&mut **self.get_mut()).poll_fill_buf(cx)
    }

    fn consume(mut self: Pin<&mut Self>, amt: usize) {
        Pin::new(&mut **self).consume(amt)
    }
}

impl<P> AsyncBufRead for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncBufRead,
{
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        super::pin_as_deref_mut(self).poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        super::pin_as_deref_mut(self).consume(amt)
    }
}

impl AsyncBufRead for &[u8] {
    fn poll_fill_buf(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Poll::Ready(Ok(*self.get_mut()))
    }

    fn consume(mut self: Pin<&mut Self>, amt: usize) {
        *self = &self[amt..];
    }
}

impl<T: AsRef<[u8]> + Unpin> AsyncBufRead for io::Cursor<T> {
    fn poll_fill_buf(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Poll::Ready(io::BufRead::fill_buf(self.get_mut()))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        io::BufRead::consume(self.get_mut(), amt)
    }
}
