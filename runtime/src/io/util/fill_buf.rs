//! The future of [`fill_buf`](crate::io::AsyncBufReadExt::fill_buf) ([`FillBuf`]): one
//! `poll_fill_buf`, resolving to the reader's buffered bytes for the whole borrow `'a`.
//!
//! The future holds its `&'a mut R` until the poll that completes; it then gives it up
//! (`None`), which is what lets the returned slice borrow the reader for `'a`: the
//! future never touches the reader again. Polling it after completion panics.

use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::io::AsyncBufRead;

/// The future of [`fill_buf`](crate::io::AsyncBufReadExt::fill_buf).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct FillBuf<'a, R: ?Sized> {
    reader: Option<&'a mut R>,
    _pin: PhantomPinned,
}

pub(super) fn fill_buf<R>(reader: &mut R) -> FillBuf<'_, R>
where
    R: AsyncBufRead + ?Sized + Unpin,
{
    FillBuf {
        reader: Some(reader),
        _pin: PhantomPinned,
    }
}

impl<'a, R: AsyncBufRead + ?Sized + Unpin> Future for FillBuf<'a, R> {
    type Output = io::Result<&'a [u8]>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        let reader: &'a mut R = me
            .reader
            .take()
            .expect("Polled after completion: `FillBuf` resolves once; call `fill_buf` again");
        let raw: *mut R = &mut *reader;
        // SAFETY: `raw` comes from `reader`, valid for `'a`. The borrow made from it is used
        // for `'a` only if the poll completes, and then `reader` is dropped and never used
        // again (the future holds `None`); when the poll is pending the borrow is dead
        // before `reader` is stored back.
        let poll = Pin::new(unsafe { &mut *raw }).poll_fill_buf(cx);
        match poll {
            Poll::Ready(res) => Poll::Ready(res),
            Poll::Pending => {
                me.reader = Some(reader);
                Poll::Pending
            }
        }
    }
}
