//! `Timeout<F>`: runs a future against a deadline.
//!
//! Each poll polls the inner future first (so a future that is ready is never reported as
//! timed out, however late it is polled), then the deadline's timer, without spending
//! cooperative budget (the inner future may have spent it all; the timeout must still be
//! able to fire). Dropping the `Timeout` drops the inner future and removes the timer.
//!
//! Pinning: the inner future and the `Sleep` are structurally pinned (`Timeout` never
//! moves them and has no `Drop` impl); the `Sleep` is `!Unpin`, so a `Timeout` is too,
//! whatever `F`, as tokio's.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use super::error::Elapsed;
use super::sleep::Sleep;
use super::Instant;

/// Runs `future` until it completes or `duration` passes, whichever comes first.
///
/// ```
/// use runtime::time::{timeout, Duration};
///
/// # runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let (tx, rx) = runtime::sync::oneshot::channel::<u32>();
/// // Nobody sends: give up after 10 ms.
/// let res = timeout(Duration::from_millis(10), rx).await;
/// assert!(res.is_err());
/// drop(tx);
///
/// let quick = timeout(Duration::from_secs(5), async { 7 }).await;
/// assert_eq!(quick.unwrap(), 7);
/// # });
/// ```
///
/// The result is `Ok(output)` when the future finished in time, and `Err(Elapsed)` when
/// the time ran out; then the future is dropped (whatever it was waiting for is given up:
/// a lock request withdrawn, a read abandoned), as when any future is dropped. Each poll
/// polls the future first and the timer second, so a future that is ready is never
/// reported as timed out however late it is polled; the timer does not spend the task's
/// cooperative budget, so even a future that keeps using up its budget times out. A timeout
/// wraps one future; for a deadline shared by several operations, use [`timeout_at`] with
/// one `Instant`.
///
/// # Panics
/// Outside a runtime, or on one built without `Builder::enable_time()`.
#[track_caller]
pub fn timeout<F: IntoFuture>(duration: Duration, future: F) -> Timeout<F::IntoFuture> {
    Timeout::new(
        future.into_future(),
        Sleep::new(super::clock::deadline_after(duration)),
    )
}

/// Runs `future` until it completes or `deadline` is reached, whichever comes first.
///
/// # Panics
/// Outside a runtime, or on one built without `Builder::enable_time()`.
#[track_caller]
pub fn timeout_at<F: IntoFuture>(deadline: Instant, future: F) -> Timeout<F::IntoFuture> {
    Timeout::new(future.into_future(), Sleep::new(deadline))
}

/// Future returned by [`timeout`] and [`timeout_at`]: `Ok(output)`, or `Err(Elapsed)`.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Timeout<F> {
    value: F,
    delay: Sleep,
}

impl<F> Timeout<F> {
    fn new(value: F, delay: Sleep) -> Timeout<F> {
        Timeout { value, delay }
    }

    /// The inner future.
    pub fn get_ref(&self) -> &F {
        &self.value
    }

    /// The inner future, mutably (only for an unpinned `Timeout`).
    pub fn get_mut(&mut self) -> &mut F {
        &mut self.value
    }

    /// Gives the inner future back, cancelling the timer.
    pub fn into_inner(self) -> F {
        self.value
    }

    /// The deadline.
    pub fn deadline(&self) -> Instant {
        self.delay.deadline()
    }
}

impl<F: Future> Future for Timeout<F> {
    type Output = Result<F::Output, Elapsed>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: we never move out of `this`: `value` and `delay` are only re-pinned in
        // place below; see the module docs for why both are structurally pinned.
        let this = unsafe { self.get_unchecked_mut() };
        // SAFETY: `value` lives inside the pinned `Timeout` and is never moved (no `Drop`
        // impl, no method moving it out of a pinned `Timeout`), so it stays pinned.
        let value = unsafe { Pin::new_unchecked(&mut this.value) };
        if let Poll::Ready(v) = value.poll(cx) {
            return Poll::Ready(Ok(v));
        }
        // SAFETY: as for `value`: `delay` is never moved out of a pinned `Timeout`.
        let delay = unsafe { Pin::new_unchecked(&mut this.delay) };
        match delay.poll_unbudgeted(cx) {
            Poll::Ready(()) => Poll::Ready(Err(Elapsed::new())),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<F: fmt::Debug> fmt::Debug for Timeout<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timeout")
            .field("value", &self.value)
            .field("delay", &self.delay)
            .finish()
    }
}
