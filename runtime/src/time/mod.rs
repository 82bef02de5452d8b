//! Time: [`sleep`], [`timeout`] and [`interval`] on the runtime's timer wheel.
//!
//! Each [`Sleep`] owns one `io_driver::Timer`: creating it takes no lock; the first poll
//! that finds the deadline still ahead inserts an entry in the driver's hierarchical wheel
//! (1 ms resolution, deadlines rounded up, so a timer never fires early), later polls only
//! refresh the waker, `reset` moves the entry in O(1), and dropping the `Sleep` removes it:
//! a timer dropped before it fires leaves nothing behind. The worker parked in the driver
//! sleeps in `epoll_wait` until the earliest deadline. Timers must be created inside a
//! runtime built with `Builder::enable_time()` (`#[runtime::main]` enables it); elsewhere
//! they panic with a message saying so.
//!
//! A ready timer spends one unit of the task's cooperative budget, like an I/O operation.
//! [`Timeout`] polls its future first and its timer without spending budget, so a future
//! that keeps exhausting the budget still times out.
//!
//! ```
//! use std::time::Duration;
//! use runtime::time::{sleep, timeout, Instant};
//!
//! # runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
//! let start = Instant::now();
//! sleep(Duration::from_millis(10)).await;
//! assert!(start.elapsed() >= Duration::from_millis(10));
//! let res = timeout(Duration::from_millis(10), std::future::pending::<()>()).await;
//! assert!(res.is_err());
//! # });
//! ```

pub mod error;
mod interval;
mod sleep;
mod timeout;

#[cfg(test)]
mod tests;

pub use error::Elapsed;
pub use interval::{interval, interval_at, Interval, MissedTickBehavior};
pub use sleep::{sleep, sleep_until, Sleep};
pub use std::time::{Duration, Instant};
pub use timeout::{timeout, timeout_at, Timeout};

/// A deadline far enough away to never fire in practice (about 30 years), used when
/// `now + duration` overflows.
pub(crate) fn far_future() -> Instant {
    Instant::now() + Duration::from_secs(86_400 * 365 * 30)
}

/// `now + duration`, or [`far_future`] on overflow.
pub(crate) fn deadline_after(duration: Duration) -> Instant {
    Instant::now()
        .checked_add(duration)
        .unwrap_or_else(far_future)
}
