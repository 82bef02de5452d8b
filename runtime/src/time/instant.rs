//! `Instant`: a measurement of the runtime's clock, tokio's `time::Instant`.
//!
//! A thin wrapper around `std::time::Instant` whose [`Instant::now`] reads the current
//! runtime's clock: real time, or the paused clock while time is paused (see
//! [`pause`](super::pause)). Outside a runtime, or on one built without
//! `Builder::enable_time()`, it is `std::time::Instant::now()`. Until some runtime in the
//! process pauses its clock, `now` costs one atomic load on top of the std call (no
//! runtime lookup); after that, a thread-local lookup and the clock's own read.

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};
use std::time::Duration;

/// A measurement of a monotonically nondecreasing clock; follows paused time.
///
/// ```
/// use runtime::time::{Duration, Instant};
///
/// # runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(async {
/// let start = Instant::now();
/// runtime::time::sleep(Duration::from_secs(3600)).await; // paused: no real wait
/// assert!(start.elapsed() >= Duration::from_secs(3600));
/// # });
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    std: std::time::Instant,
}

impl Instant {
    /// The current reading of the runtime's clock (see the module docs).
    pub fn now() -> Instant {
        Instant::from_std(crate::scheduler::Handle::clock_now())
    }

    /// Wraps a `std::time::Instant`.
    pub fn from_std(std: std::time::Instant) -> Instant {
        Instant { std }
    }

    /// The `std::time::Instant` inside.
    pub fn into_std(self) -> std::time::Instant {
        self.std
    }

    /// Time from `earlier` to `self`; zero if `earlier` is later.
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// Time from `earlier` to `self`, or `None` if `earlier` is later.
    pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
        self.std.checked_duration_since(earlier.std)
    }

    /// Time from `earlier` to `self`; zero if `earlier` is later.
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// Time since `self`, by the runtime's clock ([`Instant::now`]).
    pub fn elapsed(&self) -> Duration {
        Instant::now().saturating_duration_since(*self)
    }

    /// `self + duration`, or `None` on overflow.
    pub fn checked_add(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_add(duration).map(Instant::from_std)
    }

    /// `self - duration`, or `None` on underflow.
    pub fn checked_sub(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_sub(duration).map(Instant::from_std)
    }

    /// A deadline far enough away to never fire in practice (about 30 years), used when
    /// `now + duration` overflows.
    pub(crate) fn far_future() -> Instant {
        Instant::now() + Duration::from_secs(86_400 * 365 * 30)
    }
}

impl From<std::time::Instant> for Instant {
    fn from(std: std::time::Instant) -> Instant {
        Instant::from_std(std)
    }
}

impl From<Instant> for std::time::Instant {
    fn from(i: Instant) -> std::time::Instant {
        i.into_std()
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;

    /// # Panics
    /// On overflow (use [`Instant::checked_add`] to avoid it).
    fn add(self, rhs: Duration) -> Instant {
        Instant::from_std(self.std + rhs)
    }
}

impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, rhs: Duration) {
        *self = *self + rhs;
    }
}

impl Sub for Instant {
    type Output = Duration;

    /// Saturates at zero, like `std::time::Instant`'s subtraction.
    fn sub(self, rhs: Instant) -> Duration {
        self.std.saturating_duration_since(rhs.std)
    }
}

impl Sub<Duration> for Instant {
    type Output = Instant;

    /// # Panics
    /// On underflow (use [`Instant::checked_sub`] to avoid it).
    fn sub(self, rhs: Duration) -> Instant {
        Instant::from_std(self.std - rhs)
    }
}

impl SubAssign<Duration> for Instant {
    fn sub_assign(&mut self, rhs: Duration) {
        *self = *self - rhs;
    }
}

impl fmt::Debug for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.std.fmt(f)
    }
}
