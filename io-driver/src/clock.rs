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
//! (`base` plus the real time elapsed since `unfrozen` while running). The flag that says
//! so (`virtualized`) is Relaxed everywhere: it is set inside the mutex's critical section
//! and every reader that acts on it then takes the mutex, which orders the state (the
//! argument is at the store in `pause`).

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
        // Relaxed: a reader that sees the flag reads the state under the mutex, and the
        // mutex orders it after `pause` (see there); one that does not reads real time.
        if !self.virtualized.load(Ordering::Relaxed) {
            return Instant::now();
        }
        self.state.lock().now()
    }

    pub(crate) fn is_paused(&self) -> bool {
        // Relaxed: as in `now`; `true` is answered only from the state read under the mutex.
        self.virtualized.load(Ordering::Relaxed) && self.state.lock().unfrozen.is_none()
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
        // Relaxed: the flag is written only here, under the mutex we hold.
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
        // Relaxed, and it must stay inside the critical section: the flag publishes nothing
        // itself. Every reader that acts on `true` (`now`, `is_paused`, `can_auto_advance`)
        // then takes this mutex and reads the state under it. Its critical section cannot
        // come before ours: then its unlock would happen-before our lock and so before this
        // store, and a load that happens-before a store cannot read from it (coherence). So
        // it comes after ours, and the mutex gives it the frozen state. A reader that still
        // reads `false` reads real time, as it could just before the pause.
        self.virtualized.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// Freezes a clock that was never paused at exactly `at` (no later than now).
    pub(crate) fn pause_at(&self, at: Instant) -> Result<(), &'static str> {
        let mut state = self.state.lock();
        // Relaxed: written only under the mutex we hold (see `pause`).
        if self.virtualized.load(Ordering::Relaxed) {
            return Err("the clock was paused before: it can be frozen at its origin only once");
        }
        state.base = at;
        state.unfrozen = None;
        // Relaxed, inside the critical section: the argument at `pause`'s store.
        self.virtualized.store(true, Ordering::Relaxed);
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
        // Relaxed: as in `now`.
        if !self.virtualized.load(Ordering::Relaxed) {
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
