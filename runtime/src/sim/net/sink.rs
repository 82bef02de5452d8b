//! Copying between the network's queues and the callers' buffers, and the buffer-typed
//! forms of the in-memory stream's and datagram sockets' operations.
//!
//! A read hands the queued bytes to a sink: a closure that copies what fits of each
//! slice it is given into the caller's buffer (a slice, vectored slices, a `ReadBuf`'s
//! unfilled part, a `BufMut`'s spare capacity) and returns how much it took; the
//! operation consumes exactly that. Nothing is copied twice and no uninitialized
//! memory is touched (`ReadBuf::put_slice`, `BufMut::put_slice`).
//! The `try_*` forms pass no `Context`, so they never return `Pending` (`done`).

use std::io::{self, IoSlice, IoSliceMut};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::task::{ready, Context, Poll};

use super::tcp::Stream;
use super::udp::Socket;
use super::unix_dgram::Dgram;
use crate::io::{Interest, ReadBuf};

/// The result of an operation polled without a `Context` (it cannot be `Pending`).
pub(crate) fn done<T>(p: Poll<io::Result<T>>) -> io::Result<T> {
    match p {
        Poll::Ready(r) => r,
        Poll::Pending => Err(io::ErrorKind::WouldBlock.into()),
    }
}

/// A boxed sink (for buffers whose own lifetime a returned closure cannot name).
type Sink<'a> = Box<dyn FnMut(&[u8]) -> usize + 'a>;

/// A sink into `dst`.
fn slice(dst: &mut [u8]) -> impl FnMut(&[u8]) -> usize + '_ {
    let mut off = 0;
    move |s: &[u8]| {
        let k = s.len().min(dst.len() - off);
        dst[off..off + k].copy_from_slice(&s[..k]);
        off += k;
        k
    }
}

/// A sink into `bufs`, in order.
fn vectored<'a, 'b: 'a>(bufs: &'a mut [IoSliceMut<'b>]) -> Sink<'a> {
    let (mut i, mut off) = (0, 0);
    Box::new(move |mut s: &[u8]| {
        let mut took = 0;
        while !s.is_empty() && i < bufs.len() {
            let dst = &mut bufs[i][off..];
            let k = s.len().min(dst.len());
            dst[..k].copy_from_slice(&s[..k]);
            took += k;
            s = &s[k..];
            off += k;
            if off == bufs[i].len() {
                i += 1;
                off = 0;
            }
        }
        took
    })
}

/// A sink into `buf`'s unfilled part.
fn read_buf<'a, 'b: 'a>(buf: &'a mut ReadBuf<'b>) -> Sink<'a> {
    Box::new(move |s: &[u8]| {
        let k = s.len().min(buf.remaining());
        buf.put_slice(&s[..k]);
        k
    })
}

/// A sink into `buf`'s spare capacity.
fn buf_mut<B: bytes::BufMut>(buf: &mut B) -> impl FnMut(&[u8]) -> usize + '_ {
    move |s: &[u8]| {
        let k = s.len().min(buf.remaining_mut());
        buf.put_slice(&s[..k]);
        k
    }
}

impl Stream {
    pub(crate) fn read_slice(
        &self,
        cx: Option<&mut Context<'_>>,
        buf: &mut [u8],
        peek: bool,
    ) -> Poll<io::Result<usize>> {
        let cap = buf.len();
        self.read(cx, peek, cap, &mut slice(buf))
    }

    pub(crate) fn read_vectored(
        &self,
        cx: Option<&mut Context<'_>>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        let cap = bufs.iter().map(|b| b.len()).sum();
        self.read(cx, false, cap, &mut *vectored(bufs))
    }

    /// A read (or peek) into `buf`'s unfilled part; returns the bytes read.
    pub(crate) fn read_into(
        &self,
        cx: Option<&mut Context<'_>>,
        buf: &mut ReadBuf<'_>,
        peek: bool,
    ) -> Poll<io::Result<usize>> {
        let cap = buf.remaining();
        self.read(cx, peek, cap, &mut *read_buf(buf))
    }

    pub(crate) fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        let cap = buf.remaining_mut();
        done(self.read(None, false, cap, &mut buf_mut(buf)))
    }

    pub(crate) fn write_slice(
        &self,
        cx: Option<&mut Context<'_>>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.write(cx, &[buf])
    }

    pub(crate) fn write_vectored(
        &self,
        cx: Option<&mut Context<'_>>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let bufs: Vec<&[u8]> = bufs.iter().map(|b| &**b).collect();
        self.write(cx, &bufs)
    }

    /// tokio's `try_io`: `f` runs when the stream is ready for `interest`.
    pub(crate) fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        if self.ready_now(interest).is_empty() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        f()
    }

    /// tokio's `async_io`, polled: waits for `interest` and runs `f`, waiting for the
    /// next change after each `WouldBlock`.
    pub(crate) fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        interest: Interest,
        f: &mut impl FnMut() -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        ready!(self.poll_ready(cx, interest, true))?;
        match f() {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.wait_change(cx, interest);
                Poll::Pending
            }
            r => Poll::Ready(r),
        }
    }
}

impl Socket {
    pub(crate) fn recv_slice(
        &self,
        cx: Option<&mut Context<'_>>,
        buf: &mut [u8],
        peek: bool,
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.recv(cx, peek, &mut slice(buf))
    }

    pub(crate) fn recv_into(
        &self,
        cx: Option<&mut Context<'_>>,
        buf: &mut ReadBuf<'_>,
        peek: bool,
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.recv(cx, peek, &mut *read_buf(buf))
    }

    pub(crate) fn recv_buf_mut<B: bytes::BufMut>(
        &self,
        cx: Option<&mut Context<'_>>,
        buf: &mut B,
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.recv(cx, false, &mut buf_mut(buf))
    }

    /// tokio's `try_io`: `f` runs when the socket is ready for `interest`.
    pub(crate) fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        if self.ready_now(interest).is_empty() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        f()
    }

    /// tokio's `async_io`, polled (see `Stream::poll_io`).
    pub(crate) fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        interest: Interest,
        f: &mut impl FnMut() -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        ready!(self.poll_ready(cx, interest, true))?;
        match f() {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.wait_change(cx);
                Poll::Pending
            }
            r => Poll::Ready(r),
        }
    }
}

impl Dgram {
    pub(crate) fn recv_slice(
        &self,
        cx: Option<&mut Context<'_>>,
        buf: &mut [u8],
        peek: bool,
    ) -> Poll<io::Result<(usize, Option<PathBuf>)>> {
        self.recv(cx, peek, &mut slice(buf))
    }

    pub(crate) fn recv_into(
        &self,
        cx: Option<&mut Context<'_>>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<(usize, Option<PathBuf>)>> {
        self.recv(cx, false, &mut *read_buf(buf))
    }

    pub(crate) fn recv_buf_mut<B: bytes::BufMut>(
        &self,
        cx: Option<&mut Context<'_>>,
        buf: &mut B,
    ) -> Poll<io::Result<(usize, Option<PathBuf>)>> {
        self.recv(cx, false, &mut buf_mut(buf))
    }

    /// tokio's `try_io`: `f` runs when the socket is ready for `interest`.
    pub(crate) fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        if self.ready_now(interest).is_empty() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        f()
    }

    /// tokio's `async_io`, polled (see `Stream::poll_io`).
    pub(crate) fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        interest: Interest,
        f: &mut impl FnMut() -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        ready!(self.poll_ready(cx, interest, true))?;
        match f() {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.wait_change(cx, interest);
                Poll::Pending
            }
            r => Poll::Ready(r),
        }
    }
}
