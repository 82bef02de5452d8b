//! `Interval`: ticks at a fixed period.
//!
//! One `Delay` (the `Unpin` timer inside a `Sleep`) holds the next tick's deadline. When
//! it fires, `poll_tick` returns that deadline (the tick's scheduled instant) and resets
//! it to the following one: `deadline + period` normally; if the tick was observed more than 5 ms late the
//! [`MissedTickBehavior`] decides (tokio's rules and default, `Burst`). The first tick is
//! due at the start instant, so `interval(p).tick()` completes at once. Deadlines are
//! never earlier than scheduled, so `k` ticks span at least `(k - 1) * period`.

use std::future::poll_fn;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use super::sleep::Delay;
use super::Instant;

/// How an [`Interval`] catches up after ticks were missed (the task was busy or the
/// runtime was overloaded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissedTickBehavior {
    /// Fire the missed ticks back to back until caught up, keeping the original schedule.
    #[default]
    Burst,
    /// Restart the schedule from now: the next tick is `period` after this late one.
    Delay,
    /// Drop the missed ticks: the next tick is the next multiple of `period` on the
    /// original schedule that is still in the future.
    Skip,
}

impl MissedTickBehavior {
    /// The deadline after a tick scheduled at `timeout` was observed at `now`, late.
    fn next_timeout(self, timeout: Instant, now: Instant, period: Duration) -> Instant {
        match self {
            MissedTickBehavior::Burst => add(timeout, period),
            MissedTickBehavior::Delay => add(now, period),
            MissedTickBehavior::Skip => {
                let late = now.saturating_duration_since(timeout).as_nanos();
                let into_period = late % period.as_nanos();
                // `into_period < period`, which fits in a Duration.
                let into_period = Duration::from_nanos(into_period as u64);
                add(now, period - into_period)
            }
        }
    }
}

fn add(t: Instant, d: Duration) -> Instant {
    t.checked_add(d).unwrap_or_else(Instant::far_future)
}

/// Ticks late by more than this count as missed.
const MISSED_THRESHOLD: Duration = Duration::from_millis(5);

/// Ticks every `period`, the first tick immediately.
///
/// ```
/// use runtime::time::{interval, Duration, Instant};
///
/// # runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let mut ticks = interval(Duration::from_millis(10));
/// let start = Instant::now();
/// for _ in 0..3 {
///     ticks.tick().await; // the first completes at once
///     // ... periodic work: a tick is due every 10 ms, however long this takes
/// }
/// assert!(start.elapsed() >= Duration::from_millis(20));
/// # });
/// ```
///
/// Unlike `sleep(period)` in a loop, which drifts by the time the work between two sleeps
/// takes, an interval keeps a fixed schedule: `start`, `start + period`, `start + 2 *
/// period`, ... (`tick` returns the instant the tick was scheduled for). A tick observed
/// more than 5 ms late counts as missed, and [`MissedTickBehavior`] decides how to catch
/// up: [`Burst`](MissedTickBehavior::Burst) (the default, as tokio's) fires the missed ticks
/// back to back, [`Delay`](MissedTickBehavior::Delay) restarts the schedule from now,
/// [`Skip`](MissedTickBehavior::Skip) drops them. One timer backs the interval, reset in
/// place at every tick.
///
/// # Panics
/// When `period` is zero; outside a runtime, or on one without `Builder::enable_time()`.
#[track_caller]
pub fn interval(period: Duration) -> Interval {
    interval_at(Instant::now(), period)
}

/// Ticks every `period`, the first tick at `start`.
///
/// # Panics
/// When `period` is zero; outside a runtime, or on one without `Builder::enable_time()`.
#[track_caller]
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    assert!(period > Duration::ZERO, "`period` must be non-zero");
    Interval {
        delay: Delay::new(start),
        period,
        missed_tick_behavior: MissedTickBehavior::default(),
    }
}

/// A stream of ticks, from [`interval`] or [`interval_at`].
#[derive(Debug)]
pub struct Interval {
    delay: Delay,
    period: Duration,
    missed_tick_behavior: MissedTickBehavior,
}

impl Interval {
    /// Waits for the next tick; returns the instant it was scheduled for.
    pub async fn tick(&mut self) -> Instant {
        poll_fn(|cx| self.poll_tick(cx)).await
    }

    /// Polls for the next tick; `Ready(scheduled instant)` once it is due.
    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Instant> {
        ready!(self.delay.poll_budgeted(cx));
        let timeout = self.delay.deadline();
        let now = Instant::now();
        let next = if now > add(timeout, MISSED_THRESHOLD) {
            self.missed_tick_behavior
                .next_timeout(timeout, now, self.period)
        } else {
            add(timeout, self.period)
        };
        self.delay.reset(next);
        Poll::Ready(timeout)
    }

    /// Restarts the schedule: the next tick is one `period` from now.
    pub fn reset(&mut self) {
        self.delay.reset(add(Instant::now(), self.period));
    }

    /// Makes the next tick due now.
    pub fn reset_immediately(&mut self) {
        self.delay.reset(Instant::now());
    }

    /// Makes the next tick due `after` from now.
    pub fn reset_after(&mut self, after: Duration) {
        self.delay.reset(add(Instant::now(), after));
    }

    /// Makes the next tick due at `deadline`.
    pub fn reset_at(&mut self, deadline: Instant) {
        self.delay.reset(deadline);
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }

    /// How missed ticks are handled.
    pub fn missed_tick_behavior(&self) -> MissedTickBehavior {
        self.missed_tick_behavior
    }

    /// Sets how missed ticks are handled.
    pub fn set_missed_tick_behavior(&mut self, behavior: MissedTickBehavior) {
        self.missed_tick_behavior = behavior;
    }
}
