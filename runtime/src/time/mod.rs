//! Time: [`sleep`], [`timeout`] and [`interval`] on the runtime's timer wheel, an
//! [`Instant`] that follows the runtime's clock, and paused time for tests ([`pause`],
//! [`resume`], [`advance`]).
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
//!
//! Each [`Sleep`] owns one `io_driver::Timer`: creating it takes no lock; the first poll
//! that finds the deadline still ahead inserts an entry in the driver's hierarchical wheel,
//! later polls only refresh the waker, `reset` moves the entry in O(1), and dropping the
//! `Sleep` removes it: a timer dropped before it fires leaves nothing behind. The worker
//! parked in the driver sleeps in `epoll_wait` until the earliest deadline. Timers must be
//! created inside a runtime built with `Builder::enable_time()` (`#[runtime::main]`
//! enables it); elsewhere they panic with a message saying so.
//!
//! # Resolution
//!
//! The wheel counts whole milliseconds. A deadline is rounded **up** to the next
//! millisecond, and a timer completes only once the clock reads at least its deadline, so
//! a sleep never completes early: `sleep(Duration::from_micros(1))` waits at least 1 µs and
//! typically up to about 1 ms (plus scheduling latency). A zero or past deadline completes
//! on its first poll without touching the wheel.
//!
//! # Paused time
//!
//! On a current-thread runtime, [`pause`] (or `Builder::start_paused(true)`,
//! `#[runtime::test(start_paused = true)]`) freezes the clock that [`Instant::now`] and
//! every timer read. It then moves only when every task is idle (instead of sleeping, the
//! runtime jumps the clock to the next timer and fires it) or by [`advance`]; timers still
//! fire in deadline order. A test that sleeps for an hour finishes at once.
//!
//! # Budget
//!
//! A ready timer spends one unit of the task's cooperative budget, like an I/O operation.
//! [`Timeout`] polls its future first and its timer without spending budget, so a future
//! that keeps exhausting the budget still times out.

mod clock;
pub mod error;
mod instant;
mod interval;
mod sleep;
mod timeout;

#[cfg(test)]
mod tests;

pub use clock::{advance, pause, resume};
pub(crate) use clock::{any_paused, note_paused, AutoAdvanceGuard};
pub use error::Elapsed;
pub use instant::Instant;
pub use interval::{interval, interval_at, Interval, MissedTickBehavior};
#[cfg(all(feature = "hyper", not(loom)))]
pub(crate) use sleep::Delay;
pub use sleep::{sleep, sleep_until, Sleep};
pub use std::time::Duration;
pub use timeout::{timeout, timeout_at, Timeout};
