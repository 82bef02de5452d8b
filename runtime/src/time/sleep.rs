//! `Sleep`: a future that completes at a deadline, backed by one `io_driver::Timer`.
//!
//! The timer handle is taken from the current runtime when the `Sleep` is created (so a
//! `sleep` outside a runtime, or on one without `enable_time`, panics right there, with
//! the fix in the message). Polling spends one unit of cooperative budget and asks the
//! timer: `Ready` only once the runtime's clock (real or paused) reads at least `deadline`.
//!
//! The timer logic lives in [`Delay`], which is `Unpin`: the wheel entry lives in the
//! driver, not inside the future, so moving it is harmless, and `Interval` holds one
//! unboxed. `Sleep` wraps a `Delay` with a `PhantomPinned`, so it is `!Unpin` as tokio's
//! `Sleep` is (tokio's users pin it, `tokio::pin!(sleep)` or `Box::pin`, and code written
//! against tokio must not start to rely on an `Unpin` that tokio does not promise). Nothing
//! in a `Sleep` is structurally pinned: its methods reach the `Delay` through
//! `get_unchecked_mut` and never move it.
//!
//! If the driver shut down (the runtime was dropped) before the deadline, the sleep can
//! never complete; polling it then panics with that explanation rather than hanging.

use std::fmt;
use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use super::Instant;

use crate::coop;

/// Waits until `duration` has passed.
///
/// ```
/// use runtime::time::{sleep, Duration, Instant};
///
/// # runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let start = Instant::now();
/// sleep(Duration::from_millis(20)).await;
/// assert!(start.elapsed() >= Duration::from_millis(20));
/// # });
/// ```
///
/// The asynchronous `std::thread::sleep`: only this task waits, and the worker runs
/// others meanwhile (never call `std::thread::sleep` in a task: it stops the worker). The
/// returned [`Sleep`] does nothing until polled; its first poll registers a timer in the
/// runtime's timer wheel, which a parked worker waits on. The wheel counts whole
/// milliseconds and rounds the deadline up, so a sleep never ends early and usually ends
/// within a millisecond of its deadline; a zero duration completes on the first poll.
/// Dropping the `Sleep` removes the timer, which is how a `select!` branch or a
/// [`timeout`](super::timeout) stops waiting. [`Sleep::reset`] moves the deadline of a
/// sleep in place.
///
/// # Panics
/// Outside a runtime, or on one built without `Builder::enable_time()`.
#[track_caller]
pub fn sleep(duration: Duration) -> Sleep {
    Sleep::new(super::clock::deadline_after(duration))
}

/// Waits until `deadline`.
///
/// # Panics
/// Outside a runtime, or on one built without `Builder::enable_time()`.
#[track_caller]
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep::new(deadline)
}

/// Future returned by [`sleep`] and [`sleep_until`].
///
/// `!Unpin`, as tokio's: pin it to poll it by hand (`let mut s = std::pin::pin!(sleep(d));`,
/// `Box::pin(sleep(d))`), or just `.await` it.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Sleep {
    delay: Delay,
    _pinned: PhantomPinned,
}

impl Sleep {
    #[track_caller]
    pub(crate) fn new(deadline: Instant) -> Sleep {
        Sleep {
            delay: Delay::new(deadline),
            _pinned: PhantomPinned,
        }
    }

    /// The instant at which this sleep completes.
    pub fn deadline(&self) -> Instant {
        self.delay.deadline()
    }

    /// Whether the deadline has passed.
    pub fn is_elapsed(&self) -> bool {
        self.delay.is_elapsed()
    }

    /// Moves the deadline (earlier or later), also re-arming a sleep that already
    /// completed. Takes the sleep pinned, as tokio's (`sleep.as_mut().reset(..)`).
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        self.delay_mut().reset(deadline);
    }

    fn delay_mut(self: Pin<&mut Self>) -> &mut Delay {
        // SAFETY: nothing in a `Sleep` is structurally pinned (the module doc): the `Delay`
        // is `Unpin`, and the `&mut` handed out is only used in place, never to move it.
        unsafe { &mut self.get_unchecked_mut().delay }
    }

    /// Polls the timer without spending cooperative budget (for `Timeout`, which spends
    /// the budget on its inner future).
    pub(crate) fn poll_unbudgeted(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.delay_mut().poll_unbudgeted(cx)
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.delay_mut().poll_budgeted(cx)
    }
}

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sleep")
            .field("deadline", &self.deadline())
            .field("timer", &self.delay.timer)
            .finish()
    }
}

impl fmt::Debug for Delay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Delay")
            .field("deadline", &self.deadline())
            .field("timer", &self.timer)
            .finish()
    }
}

/// The timer behind a [`Sleep`], `Unpin` (see the module doc).
pub(crate) struct Delay {
    timer: io_driver::Timer,
}

impl Delay {
    #[track_caller]
    pub(crate) fn new(deadline: Instant) -> Delay {
        let handle = crate::scheduler::Handle::current_time();
        Delay {
            timer: handle.timer(deadline.into_std()),
        }
    }

    /// A delay of `duration` from now (on the runtime's clock, paused or not).
    #[cfg(all(feature = "hyper", not(loom)))]
    #[track_caller]
    pub(crate) fn after(duration: Duration) -> Delay {
        Delay::new(super::clock::deadline_after(duration))
    }

    pub(crate) fn deadline(&self) -> Instant {
        Instant::from_std(self.timer.deadline())
    }

    pub(crate) fn is_elapsed(&self) -> bool {
        self.timer.is_elapsed()
    }

    pub(crate) fn reset(&mut self, deadline: Instant) {
        self.timer.reset(deadline.into_std());
    }

    /// Spends one unit of cooperative budget, then polls the timer.
    pub(crate) fn poll_budgeted(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        ready!(coop::poll_proceed(cx));
        self.poll_unbudgeted(cx)
    }

    pub(crate) fn poll_unbudgeted(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        match ready!(self.timer.poll_elapsed(cx)) {
            Ok(()) => Poll::Ready(()),
            Err(io_driver::TimerShutdown) => panic!("{}", crate::misuse::TIMER_AFTER_SHUTDOWN),
        }
    }
}
