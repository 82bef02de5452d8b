//! `Pipe`: the bounded one-way byte buffer behind [`duplex`](super::duplex) and
//! [`simplex`](super::simplex).
//!
//! A pipe lives behind a mutex and holds at most `max` bytes. A reader finding it empty
//! (and not closed) stores its waker and returns `Pending`; a writer finding it full does
//! the same; each side wakes the other after it moves bytes. Wakers are taken out (or
//! replaced) under the lock and woken (or dropped) only after it is released.
//!
//! States: `write_closed` (the writer shut down or went away) makes the reader see EOF once
//! the buffer is drained and makes further writes fail with `BrokenPipe`; `read_closed`
//! (the reader went away) makes writes fail with `BrokenPipe`. Every read and write spends
//! one unit of the task's coop budget before anything else. A vectored write takes what
//! fits of all its buffers, in order, as tokio's.

use std::collections::VecDeque;
use std::io;
use std::task::{ready, Context, Poll, Waker};

use shim::sync::Mutex;

use crate::coop::poll_proceed;

#[derive(Debug)]
pub(super) struct Pipe {
    buf: VecDeque<u8>,
    max: usize,
    write_closed: bool,
    read_closed: bool,
    read_waker: Option<Waker>,
    write_waker: Option<Waker>,
}

impl Pipe {
    /// An empty pipe holding at most `max` (>= 1) bytes.
    #[track_caller]
    pub(super) fn new(max: usize) -> Pipe {
        assert!(
            max > 0,
            "`max_buf_size` must be greater than 0: a byte pipe of size 0 could never pass \
             a byte, give a buffer size of at least 1"
        );
        Pipe {
            buf: VecDeque::new(),
            max,
            write_closed: false,
            read_closed: false,
            read_waker: None,
            write_waker: None,
        }
    }
}

/// Stores `cx`'s waker in `slot` (keeping an equivalent one), returning the one it
/// replaced so that the caller drops it after releasing the lock.
fn store(slot: &mut Option<Waker>, cx: &Context<'_>) -> Option<Waker> {
    match slot {
        Some(w) if w.will_wake(cx.waker()) => None,
        _ => slot.replace(cx.waker().clone()),
    }
}

fn wake(w: Option<Waker>) {
    if let Some(w) = w {
        w.wake();
    }
}

/// Moves up to `want` buffered bytes out through `out` (the ring's two slices, in order);
/// `Ok(0)` only at EOF or for `want == 0`.
pub(super) fn poll_read_with(
    pipe: &Mutex<Pipe>,
    cx: &mut Context<'_>,
    want: usize,
    out: impl FnOnce(&[u8], &[u8]),
) -> Poll<io::Result<usize>> {
    ready!(poll_proceed(cx));
    if want == 0 {
        return Poll::Ready(Ok(0));
    }
    let mut p = pipe.lock();
    if p.buf.is_empty() {
        if p.write_closed {
            return Poll::Ready(Ok(0));
        }
        let old = store(&mut p.read_waker, cx);
        drop(p);
        drop(old); // never dropped under the lock
        return Poll::Pending;
    }
    let n = want.min(p.buf.len());
    let (a, b) = p.buf.as_slices();
    let (a, b) = if n <= a.len() {
        (&a[..n], &b[..0])
    } else {
        (a, &b[..n - a.len()])
    };
    out(a, b);
    p.buf.drain(..n);
    let writer = p.write_waker.take();
    drop(p);
    wake(writer);
    Poll::Ready(Ok(n))
}

/// Copies as much of `buf` as fits, waiting while the pipe is full.
pub(super) fn poll_write(
    pipe: &Mutex<Pipe>,
    cx: &mut Context<'_>,
    buf: &[u8],
) -> Poll<io::Result<usize>> {
    poll_write_vectored(pipe, cx, &[io::IoSlice::new(buf)])
}

/// Copies as much of `bufs` as fits, in order (all of the first, then of the next, ...),
/// waiting while the pipe is full; `Ok(0)` only when every buffer is empty.
pub(super) fn poll_write_vectored(
    pipe: &Mutex<Pipe>,
    cx: &mut Context<'_>,
    bufs: &[io::IoSlice<'_>],
) -> Poll<io::Result<usize>> {
    ready!(poll_proceed(cx));
    let mut p = pipe.lock();
    if p.read_closed || p.write_closed {
        return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
    }
    if bufs.iter().all(|b| b.is_empty()) {
        return Poll::Ready(Ok(0));
    }
    let mut room = p.max - p.buf.len();
    if room == 0 {
        let old = store(&mut p.write_waker, cx);
        drop(p);
        drop(old); // never dropped under the lock
        return Poll::Pending;
    }
    let mut n = 0;
    for b in bufs {
        if room == 0 {
            break;
        }
        let take = room.min(b.len());
        p.buf.extend(&b[..take]);
        room -= take;
        n += take;
    }
    let reader = p.read_waker.take();
    drop(p);
    wake(reader);
    Poll::Ready(Ok(n))
}

/// The writer is done: the reader gets EOF after the buffered bytes.
pub(super) fn close_write(pipe: &Mutex<Pipe>) {
    let mut p = pipe.lock();
    p.write_closed = true;
    let reader = p.read_waker.take();
    drop(p);
    wake(reader);
}

/// The reader is gone: writes fail with `BrokenPipe`.
pub(super) fn close_read(pipe: &Mutex<Pipe>) {
    let mut p = pipe.lock();
    p.read_closed = true;
    let writer = p.write_waker.take();
    drop(p);
    wake(writer);
}

/// Both trait families for a type whose reads come from the pipe in field `$read` and
/// whose writes go to the pipe in field `$write` (the same field for a simplex pipe). A
/// read or write spends coop budget inside `poll_read_with` / `poll_write`; a flush or
/// shutdown spends it here.
macro_rules! pipe_io_impls {
    ($ty:ty, read: $read:ident, write: $write:ident) => {
        impl crate::io::AsyncRead for $ty {
            fn poll_read(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &mut crate::io::ReadBuf<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                let want = buf.remaining();
                std::task::ready!($crate::io::pipe::poll_read_with(
                    &self.$read,
                    cx,
                    want,
                    |a, b| {
                        buf.put_slice(a);
                        buf.put_slice(b);
                    }
                ))?;
                std::task::Poll::Ready(Ok(()))
            }
        }

        impl crate::io::AsyncWrite for $ty {
            fn poll_write(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &[u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                $crate::io::pipe::poll_write(&self.$write, cx, buf)
            }
            fn poll_write_vectored(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                bufs: &[std::io::IoSlice<'_>],
            ) -> std::task::Poll<std::io::Result<usize>> {
                $crate::io::pipe::poll_write_vectored(&self.$write, cx, bufs)
            }
            fn is_write_vectored(&self) -> bool {
                true
            }
            fn poll_flush(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                std::task::ready!($crate::coop::poll_proceed(cx));
                std::task::Poll::Ready(Ok(()))
            }
            fn poll_shutdown(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                std::task::ready!($crate::coop::poll_proceed(cx));
                $crate::io::pipe::close_write(&self.$write);
                std::task::Poll::Ready(Ok(()))
            }
        }

        impl futures_io::AsyncRead for $ty {
            fn poll_read(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &mut [u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                $crate::io::pipe::poll_read_with(&self.$read, cx, buf.len(), |a, b| {
                    buf[..a.len()].copy_from_slice(a);
                    buf[a.len()..a.len() + b.len()].copy_from_slice(b);
                })
            }
        }

        impl futures_io::AsyncWrite for $ty {
            fn poll_write(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &[u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                $crate::io::pipe::poll_write(&self.$write, cx, buf)
            }
            fn poll_write_vectored(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                bufs: &[std::io::IoSlice<'_>],
            ) -> std::task::Poll<std::io::Result<usize>> {
                $crate::io::pipe::poll_write_vectored(&self.$write, cx, bufs)
            }
            fn poll_flush(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                crate::io::AsyncWrite::poll_flush(self, cx)
            }
            fn poll_close(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                crate::io::AsyncWrite::poll_shutdown(self, cx)
            }
        }
    };
}
pub(super) use pipe_io_impls;
