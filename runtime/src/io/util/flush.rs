//! The futures of [`flush`](crate::io::AsyncWriteExt::flush) ([`Flush`]) and
//! [`shutdown`](crate::io::AsyncWriteExt::shutdown) ([`Shutdown`]): each drives one
//! method of the writer (`poll_flush`, `poll_shutdown`) to completion.

use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::io::AsyncWrite;

/// The future of [`flush`](crate::io::AsyncWriteExt::flush).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Flush<'a, A: ?Sized> {
    a: &'a mut A,
    _pin: PhantomPinned,
}

pub(super) fn flush<A: AsyncWrite + Unpin + ?Sized>(a: &mut A) -> Flush<'_, A> {
    Flush {
        a,
        _pin: PhantomPinned,
    }
}

impl<A: AsyncWrite + Unpin + ?Sized> Future for Flush<'_, A> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        Pin::new(&mut *me.a).poll_flush(cx)
    }
}

/// The future of [`shutdown`](crate::io::AsyncWriteExt::shutdown).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Shutdown<'a, A: ?Sized> {
    a: &'a mut A,
    _pin: PhantomPinned,
}

pub(super) fn shutdown<A: AsyncWrite + Unpin + ?Sized>(a: &mut A) -> Shutdown<'_, A> {
    Shutdown {
        a,
        _pin: PhantomPinned,
    }
}

impl<A: AsyncWrite + Unpin + ?Sized> Future for Shutdown<'_, A> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        Pin::new(&mut *me.a).poll_shutdown(cx)
    }
}
