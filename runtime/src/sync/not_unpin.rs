//! `NotUnpin<F>`: an `Unpin` future made `!Unpin`, for the futures whose tokio
//! counterparts are `async fn`s.
//!
//! tokio's `Mutex::lock`, `RwLock::read`/`write` and `Semaphore::acquire*` are `async fn`s,
//! so their futures are `!Unpin`, and code written against tokio pins them
//! (`tokio::pin!`, `Box::pin`). Ours are hand-written state machines that are `Unpin`;
//! wrapping them keeps tokio's auto traits, so a port that compiles here compiles on tokio
//! and tokio's own `async_send_sync` checks hold. The wrapper adds no state: a
//! `PhantomPinned` is zero-sized, and nothing inside is structurally pinned (`F: Unpin`),
//! so `poll` reaches the inner future in place through one `get_unchecked_mut`.

use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};

/// `F`, polled as is, but `!Unpin` (see the module doc).
pub(crate) struct NotUnpin<F> {
    inner: F,
    _pinned: PhantomPinned,
}

impl<F: Future + Unpin> NotUnpin<F> {
    #[inline(always)]
    pub(crate) fn new(inner: F) -> NotUnpin<F> {
        NotUnpin {
            inner,
            _pinned: PhantomPinned,
        }
    }
}

impl<F: Future + Unpin> Future for NotUnpin<F> {
    type Output = F::Output;

    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `inner` is `Unpin` and only polled in place; the `PhantomPinned` holds no
        // data, so no pinned value is ever moved through the `&mut` taken here.
        let inner = unsafe { &mut self.get_unchecked_mut().inner };
        Pin::new(inner).poll(cx)
    }
}
