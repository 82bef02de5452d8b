//! The futures of the writes: [`Write`] and [`WriteVectored`] (one `poll_write` /
//! `poll_write_vectored`), [`WriteBuf`] (one write from a `bytes::Buf`, advancing it),
//! [`WriteAll`] and [`WriteAllBuf`] (write until nothing is left).
//!
//! The `Buf` ones write vectored (up to 64 chunks) when the writer says it writes
//! vectored, and the buffer's first chunk otherwise. The "all" ones keep their progress
//! in the remaining slice (or the advanced `Buf`), so a `Pending` poll loses nothing; a
//! write of 0 bytes while some remain is a `WriteZero` error, and `Interrupted` errors
//! are retried.

use std::future::Future;
use std::io::{self, IoSlice};
use std::marker::PhantomPinned;
use std::mem;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use bytes::Buf;

use crate::io::AsyncWrite;

/// The most chunks of a `Buf` written in one vectored write.
const MAX_VECTOR_ELEMENTS: usize = 64;

/// The future of [`write`](crate::io::AsyncWriteExt::write).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Write<'a, W: ?Sized> {
    writer: &'a mut W,
    buf: &'a [u8],
    _pin: PhantomPinned,
}

pub(super) fn write<'a, W>(writer: &'a mut W, buf: &'a [u8]) -> Write<'a, W>
where
    W: AsyncWrite + Unpin + ?Sized,
{
    Write {
        writer,
        buf,
        _pin: PhantomPinned,
    }
}

impl<W: AsyncWrite + Unpin + ?Sized> Future for Write<'_, W> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        Pin::new(&mut *me.writer).poll_write(cx, me.buf)
    }
}

/// The future of [`write_vectored`](crate::io::AsyncWriteExt::write_vectored).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteVectored<'a, 'b, W: ?Sized> {
    writer: &'a mut W,
    bufs: &'a [IoSlice<'b>],
    _pin: PhantomPinned,
}

pub(super) fn write_vectored<'a, 'b, W>(
    writer: &'a mut W,
    bufs: &'a [IoSlice<'b>],
) -> WriteVectored<'a, 'b, W>
where
    W: AsyncWrite + Unpin + ?Sized,
{
    WriteVectored {
        writer,
        bufs,
        _pin: PhantomPinned,
    }
}

impl<W: AsyncWrite + Unpin + ?Sized> Future for WriteVectored<'_, '_, W> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        Pin::new(&mut *me.writer).poll_write_vectored(cx, me.bufs)
    }
}

/// One write of `buf`'s bytes (vectored when `writer` is), without advancing `buf`.
fn poll_write_some<W, B>(writer: &mut W, buf: &B, cx: &mut Context<'_>) -> Poll<io::Result<usize>>
where
    W: AsyncWrite + Unpin + ?Sized,
    B: Buf + ?Sized,
{
    if writer.is_write_vectored() {
        let mut slices = [IoSlice::new(&[]); MAX_VECTOR_ELEMENTS];
        let n = buf.chunks_vectored(&mut slices);
        Pin::new(writer).poll_write_vectored(cx, &slices[..n])
    } else {
        Pin::new(writer).poll_write(cx, buf.chunk())
    }
}

/// The future of [`write_buf`](crate::io::AsyncWriteExt::write_buf).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteBuf<'a, W, B> {
    writer: &'a mut W,
    buf: &'a mut B,
    _pin: PhantomPinned,
}

pub(super) fn write_buf<'a, W, B>(writer: &'a mut W, buf: &'a mut B) -> WriteBuf<'a, W, B>
where
    W: AsyncWrite + Unpin,
    B: Buf,
{
    WriteBuf {
        writer,
        buf,
        _pin: PhantomPinned,
    }
}

impl<W: AsyncWrite + Unpin, B: Buf> Future for WriteBuf<'_, W, B> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        if !me.buf.has_remaining() {
            return Poll::Ready(Ok(0));
        }
        let n = ready!(poll_write_some(me.writer, &*me.buf, cx))?;
        me.buf.advance(n);
        Poll::Ready(Ok(n))
    }
}

/// The future of [`write_all`](crate::io::AsyncWriteExt::write_all).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteAll<'a, W: ?Sized> {
    writer: &'a mut W,
    buf: &'a [u8],
    _pin: PhantomPinned,
}

pub(super) fn write_all<'a, W>(writer: &'a mut W, buf: &'a [u8]) -> WriteAll<'a, W>
where
    W: AsyncWrite + Unpin + ?Sized,
{
    WriteAll {
        writer,
        buf,
        _pin: PhantomPinned,
    }
}

impl<W: AsyncWrite + Unpin + ?Sized> Future for WriteAll<'_, W> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        while !me.buf.is_empty() {
            match ready!(Pin::new(&mut *me.writer).poll_write(cx, me.buf)) {
                Ok(0) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Ok(n) => me.buf = &mem::take(&mut me.buf)[n..],
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        Poll::Ready(Ok(()))
    }
}

/// The future of [`write_all_buf`](crate::io::AsyncWriteExt::write_all_buf).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteAllBuf<'a, W, B> {
    writer: &'a mut W,
    buf: &'a mut B,
    _pin: PhantomPinned,
}

pub(super) fn write_all_buf<'a, W, B>(writer: &'a mut W, buf: &'a mut B) -> WriteAllBuf<'a, W, B>
where
    W: AsyncWrite + Unpin,
    B: Buf,
{
    WriteAllBuf {
        writer,
        buf,
        _pin: PhantomPinned,
    }
}

impl<W: AsyncWrite + Unpin, B: Buf> Future for WriteAllBuf<'_, W, B> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        while me.buf.has_remaining() {
            match ready!(poll_write_some(me.writer, &*me.buf, cx)) {
                Ok(0) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Ok(n) => me.buf.advance(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        Poll::Ready(Ok(()))
    }
}
