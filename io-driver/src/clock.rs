//! The driver's clock: real time, or a paused (virtual) clock for tests.
//!
//! A new clock reads `Instant::now()`. [`Handle::pause`](crate::Handle::pause) freezes it
//! at its current reading; from then on it only moves forward by
//! [`Handle::advance`](crate::Handle::advance) or by the driver's auto-advance (a
//! [`Driver::park`](crate::Driver::park) that finds nothing to do jumps the clock to the
//! next timer instead of sleeping). [`Handle::resume`](crate::Handle::resume) lets it run
//! again at real speed from where it stands, so it stays ahead of real time by what was
//! skipped.
//!
//! Invariants: the clock never goes backwards (pausing rounds its reading up to the wheel's
//! millisecond grid, a forward step of under 1 ms); while it was never paused, `now()` is one
//! atomic load plus `Instant::now()` (no lock). Once paused, readings go through a mutex
//! (`base` plus the real time elapsed since `unfrozen` while running).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

pub(crate) struct Clock {
    /// False until the first pause: `now()` is the real time.
    virtualized: AtomicBool,
    state: Mutex<State>,
}

struct State {
    /// The reading when `unfrozen` was taken (running) or the frozen reading (paused).
    base: Instant,
    /// `Some(real instant)` while running, `None` while paused.
    unfrozen: Option<Instant>,
    /// Holders that forbid auto-advance (e.g. a blocking task that is still running).
    inhibit: usize,
}

impl Clock {
    pub(crate) fn new() -> Clock {
        let now = Instant::now();
        Clock {
            virtualized: AtomicBool::new(false),
            state: Mutex::new(State {
                base: now,
                unfrozen: Some(now),
                inhibit: 0,
            }),
        }
    }

    pub(crate) fn now(&self) -> Instant {
        // Acquire: pairs with the Release in `pause`, so a reader that sees the flag
        // reads the state through the mutex.
        if !self.virtualized.load(Ordering::Acquire) {
            return Instant::now();
        }
        self.state.lock().now()
    }

    pub(crate) fn is_paused(&self) -> bool {
        self.virtualized.load(Ordering::Acquire) && self.state.lock().unfrozen.is_none()
    }

    /// Freezes the clock at its reading rounded up to a whole millisecond after `grid` (the
    /// wheel's origin), so deadlines set and advances made in whole milliseconds while
    /// paused land exactly on wheel ticks (a `sleep(10s)` fires on `advance(10s)`).
    pub(crate) fn pause(&self, grid: Instant) -> Result<(), &'static str> {
        let mut state = self.state.lock();
        if state.unfrozen.is_none() {
            return Err(
                "time is already frozen: `time::pause()` was called twice without \
                        `time::resume()` in between",
            );
        }
        let now = if self.virtualized.load(Ordering::Relaxed) {
            state.now()
        } else {
            Instant::now()
        };
        let since = now.saturating_duration_since(grid);
        let aligned = Duration::from_millis(
            u64::try_from(since.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX),
        );
        // Moving forward by less than a millisecond; never backwards.
        state.base = grid
            .checked_add(aligned)
            .filter(|&t| t >= now)
            .unwrap_or(now);
        state.unfrozen = None;
        self.virtualized.store(true, Ordering::Release);
        Ok(())
    }

    pub(crate) fn resume(&self) -> Result<(), &'static str> {
        let mut state = self.state.lock();
        if state.unfrozen.is_some() {
            return Err("time is not frozen: call `time::pause()` before `time::resume()`");
        }
        state.unfrozen = Some(Instant::now());
        Ok(())
    }

    pub(crate) fn advance(&self, by: Duration) -> Result<(), &'static str> {
        let mut state = self.state.lock();
        if state.unfrozen.is_some() {
            return Err("time is not frozen: call `time::pause()` before `time::advance()`");
        }
        state.base = state
            .base
            .checked_add(by)
            .ok_or("`time::advance()` overflowed the clock: the duration is too large")?;
        Ok(())
    }

    /// Paused, and nobody inhibits auto-advance.
    pub(crate) fn can_auto_advance(&self) -> bool {
        if !self.virtualized.load(Ordering::Acquire) {
            return false;
        }
        let state = self.state.lock();
        state.unfrozen.is_none() && state.inhibit == 0
    }

    pub(crate) fn inhibit_auto_advance(&self) {
        self.state.lock().inhibit += 1;
    }

    pub(crate) fn allow_auto_advance(&self) {
        let mut state = self.state.lock();
        state.inhibit = state.inhibit.saturating_sub(1);
    }
}

impl State {
    fn now(&self) -> Instant {
        match self.unfrozen {
            Some(real) => self.base + real.elapsed(),
            None => self.base,
        }
    }
}
