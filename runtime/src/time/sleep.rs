//! `Sleep`: a future that completes at a deadline, backed by one `io_driver::Timer`.
//!
//! The timer handle is taken from the current runtime when the `Sleep` is created (so a
//! `sleep` outside a runtime, or on one without `enable_time`, panics right there, with
//! the fix in the message). Polling spends one unit of cooperative budget and asks the
//! timer: `Ready` only once the runtime's clock (real or paused) reads at least `deadline`. `Sleep` is `Unpin`: the wheel
//! entry lives in the driver, not inside the future, so moving it is harmless.
//!
//! If the driver shut down (the runtime was dropped) before the deadline, the sleep can
//! never complete; polling it then panics with that explanation rather than hanging.

use std::fmt;
use std::future::Future;
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
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Sleep {
    timer: io_driver::Timer,
}

impl Sleep {
    #[track_caller]
    pub(crate) fn new(deadline: Instant) -> Sleep {
        let handle = crate::scheduler::Handle::current_time();
        Sleep {
            timer: handle.timer(deadline.into_std()),
        }
    }

    /// The instant at which this sleep completes.
    pub fn deadline(&self) -> Instant {
        Instant::from_std(self.timer.deadline())
    }

    /// Whether the deadline has passed.
    pub fn is_elapsed(&self) -> bool {
        self.timer.is_elapsed()
    }

    /// Moves the deadline (earlier or later), also re-arming a sleep that already
    /// completed. Takes the sleep pinned, as tokio's (`sleep.as_mut().reset(..)`; a
    /// `Sleep` is `Unpin`, so `Pin::new(&mut sleep).reset(..)` works too).
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        self.get_mut().timer.reset(deadline.into_std());
    }

    /// Polls the timer without spending cooperative budget.
    pub(crate) fn poll_unbudgeted(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        match ready!(self.timer.poll_elapsed(cx)) {
            Ok(()) => Poll::Ready(()),
            Err(io_driver::TimerShutdown) => panic!("{}", crate::misuse::TIMER_AFTER_SHUTDOWN),
        }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        ready!(coop::poll_proceed(cx));
        self.get_mut().poll_unbudgeted(cx)
    }
}

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sleep")
            .field("deadline", &self.deadline())
            .field("timer", &self.timer)
            .finish()
    }
}
