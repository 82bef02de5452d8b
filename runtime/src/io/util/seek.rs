//! The future of the [`AsyncSeekExt`](crate::io::AsyncSeekExt) methods ([`Seek`]): wait
//! for any seek in progress (`poll_complete`), start ours (`start_seek`), then wait for
//! it. Once started, the position is forgotten (`None`) so a later poll only waits.

use std::future::Future;
use std::io::{self, SeekFrom};
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::io::AsyncSeek;

/// The future of [`seek`](crate::io::AsyncSeekExt::seek) (and `rewind`,
/// `stream_position`).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Seek<'a, S: ?Sized> {
    seek: &'a mut S,
    pos: Option<SeekFrom>,
    _pin: PhantomPinned,
}

pub(super) fn seek<S: AsyncSeek + ?Sized + Unpin>(seek: &mut S, pos: SeekFrom) -> Seek<'_, S> {
    Seek {
        seek,
        pos: Some(pos),
        _pin: PhantomPinned,
    }
}

impl<S: AsyncSeek + ?Sized + Unpin> Future for Seek<'_, S> {
    type Output = io::Result<u64>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        let mut s = Pin::new(&mut *me.seek);
        if let Some(pos) = me.pos {
            ready!(s.as_mut().poll_complete(cx))?;
            s.as_mut().start_seek(pos)?;
            me.pos = None;
        }
        s.poll_complete(cx)
    }
}
