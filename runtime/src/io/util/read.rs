//! The futures of the single-buffer reads: [`Read`] (one `poll_read` into a `&mut [u8]`),
//! [`ReadBuf`] (one `poll_read` into a `BufMut`'s spare room) and [`ReadExact`]
//! (`poll_read` until the buffer is full).
//!
//! `Read` and `ReadBuf` complete on the first ready poll, so they lose nothing when
//! dropped. `ReadExact` keeps its progress in a `crate::io::ReadBuf` over the caller's
//! slice; a ready read that adds nothing to a non-full buffer is end of file, an
//! `UnexpectedEof` error ("early eof"). `Interrupted` errors are retried.

use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use bytes::BufMut;

use crate::io::AsyncRead;

/// The future of [`read`](crate::io::AsyncReadExt::read).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Read<'a, R: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut [u8],
    _pin: PhantomPinned,
}

pub(super) fn read<'a, R>(reader: &'a mut R, buf: &'a mut [u8]) -> Read<'a, R>
where
    R: AsyncRead + Unpin + ?Sized,
{
    Read {
        reader,
        buf,
        _pin: PhantomPinned,
    }
}

impl<R: AsyncRead + Unpin + ?Sized> Future for Read<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is structurally pinned (the marker only makes the future
        // `!Unpin`), and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        let mut buf = crate::io::ReadBuf::new(me.buf);
        ready!(Pin::new(&mut *me.reader).poll_read(cx, &mut buf))?;
        Poll::Ready(Ok(buf.filled().len()))
    }
}

/// The future of [`read_buf`](crate::io::AsyncReadExt::read_buf).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadBuf<'a, R: ?Sized, B: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut B,
    _pin: PhantomPinned,
}

pub(super) fn read_buf<'a, R, B>(reader: &'a mut R, buf: &'a mut B) -> ReadBuf<'a, R, B>
where
    R: AsyncRead + Unpin + ?Sized,
    B: BufMut + ?Sized,
{
    ReadBuf {
        reader,
        buf,
        _pin: PhantomPinned,
    }
}

impl<R, B> Future for ReadBuf<'_, R, B>
where
    R: AsyncRead + Unpin + ?Sized,
    B: BufMut + ?Sized,
{
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        if !me.buf.has_remaining_mut() {
            return Poll::Ready(Ok(0));
        }
        let n = {
            let chunk = me.buf.chunk_mut();
            let (ptr, len) = (chunk.as_mut_ptr(), chunk.len());
            // SAFETY: `chunk` is `len` writable bytes at `ptr`, borrowed for this block;
            // the `ReadBuf` over them never writes an uninitialized byte.
            let dst = unsafe { std::slice::from_raw_parts_mut(ptr.cast(), len) };
            let mut rb = crate::io::ReadBuf::uninit(dst);
            ready!(Pin::new(&mut *me.reader).poll_read(cx, &mut rb))?;
            assert_eq!(
                rb.filled().as_ptr(),
                ptr.cast_const(),
                "the reader swapped the `ReadBuf`'s storage: a `poll_read` must fill the \
                 buffer it is given"
            );
            rb.filled().len()
        };
        // SAFETY: the reader filled (so initialized) the first `n` bytes of the chunk.
        unsafe { me.buf.advance_mut(n) };
        Poll::Ready(Ok(n))
    }
}

/// The future of [`read_exact`](crate::io::AsyncReadExt::read_exact).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadExact<'a, R: ?Sized> {
    reader: &'a mut R,
    buf: crate::io::ReadBuf<'a>,
    _pin: PhantomPinned,
}

pub(super) fn read_exact<'a, R>(reader: &'a mut R, buf: &'a mut [u8]) -> ReadExact<'a, R>
where
    R: AsyncRead + Unpin + ?Sized,
{
    ReadExact {
        reader,
        buf: crate::io::ReadBuf::new(buf),
        _pin: PhantomPinned,
    }
}

/// The error of a source that ends before the buffer is full (tokio's text).
fn early_eof() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "early eof")
}

impl<R: AsyncRead + Unpin + ?Sized> Future for ReadExact<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        while me.buf.remaining() > 0 {
            let before = me.buf.remaining();
            match ready!(Pin::new(&mut *me.reader).poll_read(cx, &mut me.buf)) {
                Ok(()) if me.buf.remaining() == before => return Poll::Ready(Err(early_eof())),
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        Poll::Ready(Ok(me.buf.capacity()))
    }
}
