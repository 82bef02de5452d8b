//! [`AsyncRead`]: a source of bytes that may not be ready yet.
//!
//! `poll_read` either fills some of the caller's [`ReadBuf`] and returns `Ready(Ok(()))`
//! (nothing filled while the buffer had room means end of file), returns an error, or
//! returns `Pending` after arranging for the task to be woken when it can make progress.
//! Implementations for pointers (`Box`, `&mut`, `Pin`) forward to the pointee; `&[u8]` and
//! `std::io::Cursor` read from memory and are always ready.

use std::io;
use std::ops::DerefMut;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::ReadBuf;

/// Reads bytes from a source asynchronously: tokio's `AsyncRead`.
///
/// Utility methods (`read`, `read_exact`, `read_to_end`, ...) are in
/// [`AsyncReadExt`](crate::io::AsyncReadExt).
pub trait AsyncRead {
    /// Attempts to read from the source into `buf`.
    ///
    /// On `Poll::Ready(Ok(()))` the bytes read were appended to `buf`'s filled part; if
    /// none were while `buf` had room, the source is at end of file. On `Poll::Pending`
    /// nothing was read and the current task is woken once the source may be readable.
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>>;
}

impl<T: ?Sized + AsyncRead + Unpin> AsyncRead for Box<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut **self).poll_read(cx, buf)
    }
}

impl<T: ?Sized + AsyncRead + Unpin> AsyncRead for &mut T {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut **self).poll_read(cx, buf)
    }
}

impl<P> AsyncRead for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncRead,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        super::pin_as_deref_mut(self).poll_read(cx, buf)
    }
}

impl AsyncRead for &[u8] {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = self.len().min(buf.remaining());
        let (head, tail) = self.split_at(n);
        buf.put_slice(head);
        *self = tail;
        Poll::Ready(Ok(()))
    }
}

impl<T: AsRef<[u8]> + Unpin> AsyncRead for io::Cursor<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let pos = self.position();
        let data = self.get_ref().as_ref();
        // A position past the end reads nothing (end of file), as std's cursor does.
        let Some(rest) = usize::try_from(pos).ok().and_then(|p| data.get(p..)) else {
            return Poll::Ready(Ok(()));
        };
        let n = rest.len().min(buf.remaining());
        buf.put_slice(&rest[..n]);
        self.set_position(pos + n as u64);
        Poll::Ready(Ok(()))
    }
}
