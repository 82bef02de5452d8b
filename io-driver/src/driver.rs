//! `Driver` (owned by whichever worker parks) and `Handle` (shared by everyone).
//!
//! Timers live in several wheels ("shards", each behind its own mutex; `shards.rs` holds
//! them and the protocol between inserters and the sleeping driver).
//!
//! `park` runs in four steps: (1) publish the wheel time the caller's timeout allows it to
//! sleep until, then compute the timeout as the earlier of the caller's and the wheels'
//! next expiration, read from each shard's lock-free bound (`TimerShards::arm`); (2) `epoll_wait` via mio, retrying EINTR with the
//! remaining time; (3) bump the dispatch tick and apply each event to its slab entry
//! (generation-checked), collecting the wakers to wake, and wakes them; (4) advance every
//! wheel to now in bounded batches (`FIRE_BATCH` entries per hold of a shard's mutex,
//! taking the shards in turn), waking each batch's fired timers after the mutex is
//! released (`TimerShards::fire`). No waker is ever woken with a lock held.
//! The wake list is a Vec owned by the driver and reused, so steady-state dispatch does not
//! allocate.
//!
//! A turn with a zero timeout (a worker's periodic, non-sleeping one) publishes no sleep
//! limit in step (1), since no deadline can shorten it, and with no resource registered
//! (the slab's `any_live`) skips `epoll_wait` altogether. A *busy* poll (one that does not
//! wait: a zero timeout, or a timer already due) takes at most the busy capacity of events
//! (`set_busy_events_capacity`, tokio's `max_io_events_per_busy_tick`; by default the
//! whole capacity) into a buffer of its own; the rest stay in the kernel for a later poll. `arm` reads the clock only for a
//! non-zero timeout or a pending timer.
//!
//! Paused clock (`clock.rs`): in step (2) a paused driver that would wait polls with a zero
//! timeout instead and, if no event at all arrived (no I/O, no unpark), moves the clock by
//! the wait it computed in (1) (to the next wheel expiration, or the caller's timeout);
//! step (4) then fires what became due. The jump never passes a pending deadline: the
//! wheels' next expiration is at or before every entry's.
//!
//! `Handle::unpark` writes the mio waker's eventfd: the event stays pending in epoll until
//! the next `epoll_wait`, so an unpark that races ahead of `park` still makes it return.

use std::fmt;
use std::io;
use std::sync::Arc;
use std::task::Waker;
use std::time::{Duration, Instant};

use crate::clock::Clock;
use crate::readiness::{Ready, TICK_MASK};
use crate::registration::Registration;
use crate::shards::{TimerShards, MAX_SHARDS};
use crate::slab::{token_for, Slab, WAKER_TOKEN};
use mio::event::Source;
use mio::{Events, Interest, Poll, Registry, Token};

/// Readiness events dispatched per poll unless the runtime's builder says otherwise.
pub const EVENTS_CAPACITY: usize = 1024;
/// Timer entries handled (fired, or moved down a level) per hold of a shard's mutex.
const FIRE_BATCH: usize = 64;
/// Fewest timer shards: a runtime's workers plus a `block_on` thread should each get their
/// own.
const MIN_SHARDS: usize = 4;

/// The I/O and timer driver. Owned by the worker that parks in it (one at a time).
pub struct Driver {
    poll: Poll,
    events: Events,
    /// The buffer of busy polls, when smaller than `events` (module docs).
    busy_events: Option<Events>,
    handle: Arc<Handle>,
    tick: usize,
    wake_list: Vec<Waker>,
}

/// The shared side of the driver: registration, timers, unpark.
pub struct Handle {
    registry: Registry,
    waker: mio::Waker,
    pub(crate) slab: Slab,
    /// The timer wheels (`MIN_SHARDS` to `MAX_SHARDS`, one per CPU) and the deadline the
    /// parked driver published.
    pub(crate) timers: TimerShards,
    pub(crate) start: Instant,
    /// Real or paused time (see `clock.rs`); every reading of "now" in this crate.
    pub(crate) clock: Clock,
}

impl Driver {
    /// A new driver: an epoll instance, its waker on a reserved token, an empty slab and wheel.
    pub fn new() -> io::Result<Driver> {
        Driver::with_events_capacity(EVENTS_CAPACITY)
    }

    /// [`new`](Driver::new), dispatching at most `capacity` readiness events per poll
    /// (more stay pending in epoll for the next). `capacity` is at least 1.
    pub fn with_events_capacity(capacity: usize) -> io::Result<Driver> {
        Driver::with_config(capacity, shard_count())
    }

    /// [`with_events_capacity`](Driver::with_events_capacity) with `shards` timer wheels
    /// (1 to 32) instead of one per CPU. One shard makes the order in which due timers
    /// fire a function of their deadlines and insertion order alone, whatever the machine
    /// (the deterministic mode's driver).
    pub fn with_config(capacity: usize, shards: usize) -> io::Result<Driver> {
        assert!(capacity > 0, "the events capacity must be at least 1");
        let poll = Poll::new()?;
        let waker = mio::Waker::new(poll.registry(), WAKER_TOKEN)?;
        let registry = poll.registry().try_clone()?;
        let handle = Arc::new(Handle {
            registry,
            waker,
            slab: Slab::new(),
            timers: TimerShards::new(shards, FIRE_BATCH),
            start: Instant::now(),
            clock: Clock::new(),
        });
        Ok(Driver {
            poll,
            events: Events::with_capacity(capacity),
            busy_events: None,
            handle,
            tick: 0,
            wake_list: Vec::with_capacity(64),
        })
    }

    /// Dispatches at most `capacity` readiness events on a poll that does not wait (a zero
    /// timeout, or a timer already due): a worker with tasks to run takes a small batch and
    /// leaves the rest in the kernel. A capacity at or above the driver's own is the default
    /// (one capacity for every poll).
    ///
    /// # Panics
    /// When `capacity` is 0.
    pub fn set_busy_events_capacity(&mut self, capacity: usize) {
        assert!(capacity > 0, "the busy events capacity must be at least 1");
        self.busy_events =
            (capacity < self.events.capacity()).then(|| Events::with_capacity(capacity));
    }

    /// The shared handle.
    pub fn handle(&self) -> &Arc<Handle> {
        &self.handle
    }

    /// Block until I/O readiness, the next timer deadline, [`Handle::unpark`] or `timeout`
    /// (None: no limit but the timers'), then dispatch readiness and fire expired timers.
    ///
    /// Paused clock (see [`Handle::pause`]): when the wait would be longer than zero and
    /// nothing inhibits auto-advance, the driver only polls for events; if there were none
    /// (no I/O, no unpark: every task is idle), it moves the clock forward by the wait (to
    /// the next timer, or the caller's timeout if earlier) instead of sleeping, and fires
    /// what became due. With no timer and no timeout it sleeps for real, as it must.
    pub fn park(&mut self, timeout: Option<Duration>) {
        let timeout = self.arm(timeout);
        match timeout {
            Some(wait) if !wait.is_zero() && self.handle.clock.can_auto_advance() => {
                self.poll_events(Some(Duration::ZERO));
                if self.events.is_empty() {
                    // Only fails when unpaused meanwhile (then time runs by itself) or on
                    // an overflow of the clock (a wait of ~Duration::MAX: nothing to reach).
                    let _ = self.handle.clock.advance(wait);
                }
            }
            // A turn that may not sleep, with no resource registered: nothing for
            // `epoll_wait` to dispatch (the slab's `any_live`), so no syscall. An unpark
            // pending on the waker stays queued for the next sleeping poll, which it ends.
            Some(wait) if wait.is_zero() && !self.handle.slab.any_live() => self.events.clear(),
            Some(wait) if wait.is_zero() && self.busy_events.is_some() => {
                // A busy poll: into the smaller buffer, swapped in for this turn.
                let busy = self.busy_events.as_mut().expect("checked");
                std::mem::swap(&mut self.events, busy);
                self.poll_events(timeout);
            }
            _ => self.poll_events(timeout),
        }
        // A stale non-zero deadline read by an inserter only costs one spurious unpark.
        self.handle.timers.disarm();
        self.tick = self.tick.wrapping_add(1) & TICK_MASK;
        for event in self.events.iter() {
            let token = event.token();
            if token != WAKER_TOKEN {
                let ready = Ready::from_mio(event);
                self.handle
                    .slab
                    .dispatch(token, ready, self.tick, &mut self.wake_list);
            }
        }
        if let Some(busy) = &mut self.busy_events {
            if busy.capacity() > self.events.capacity() {
                // The busy buffer was swapped in above: the full one goes back.
                std::mem::swap(&mut self.events, busy);
            }
        }
        // I/O wakers first, then the timers batch by batch (each batch woken at once).
        self.wake_all();
        self.fire_timers();
    }

    /// Shut down: every resource's polls fail from now on, every pending timer reports
    /// [`TimerShutdown`](crate::TimerShutdown). Wakes everyone waiting. Idempotent.
    pub fn shutdown(&mut self) {
        if !self.handle.slab.shutdown(&mut self.wake_list) {
            return;
        }
        self.handle.timers.shutdown(&mut self.wake_list, wake_all);
    }

    /// Test hook: dispatch one synthetic event exactly as `park` would (new tick, then wake).
    #[doc(hidden)]
    pub fn inject_event(&mut self, token: Token, ready: Ready) {
        self.tick = self.tick.wrapping_add(1) & TICK_MASK;
        self.handle
            .slab
            .dispatch(token, ready, self.tick, &mut self.wake_list);
        self.wake_all();
    }

    /// Compute the poll timeout: the earlier of the caller's and the wheels' next
    /// expiration, with the deadline published first (`TimerShards::arm`: an insert into
    /// any shard either is seen here or sees the deadline).
    ///
    /// The clock is read only when there is a timeout or a timer to measure (a server
    /// with no timer pending parks without reading it).
    fn arm(&self, timeout: Option<Duration>) -> Option<Duration> {
        let handle = &*self.handle;
        if timeout == Some(Duration::ZERO) {
            // A turn that will not sleep: no deadline can shorten it, so nothing is
            // published. An inserter that reads this (or a stale larger value) at worst
            // unparks a driver that is not asleep.
            handle.timers.disarm();
            return timeout;
        }
        let mut now = None;
        let mut now = || *now.get_or_insert_with(|| handle.now());
        let limit = match timeout {
            None => u64::MAX,
            Some(d) => now()
                .checked_add(d)
                .map_or(u64::MAX, |at| handle.ms_ceil(at)),
        };
        let until = handle.timers.arm(limit);
        let timeout = if until < limit {
            let now = now();
            let timer = handle
                .instant_at(until)
                .map_or(Duration::MAX, |at| at.saturating_duration_since(now));
            Some(timeout.map_or(timer, |t| t.min(timer)))
        } else {
            timeout
        };
        if timeout == Some(Duration::ZERO) {
            // A timer is due: no sleep, so no unpark is needed for an earlier one.
            handle.timers.disarm();
        }
        timeout
    }

    /// `epoll_wait` for at most `timeout` of real time (EINTR retried with what is left).
    fn poll_events(&mut self, timeout: Option<Duration>) {
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let mut timeout = timeout;
        loop {
            match self.poll.poll(&mut self.events, timeout) {
                Ok(()) => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                    if let Some(deadline) = deadline {
                        timeout = Some(deadline.saturating_duration_since(Instant::now()));
                    }
                }
                // epoll_wait only fails otherwise with EBADF/EFAULT/EINVAL: the epoll fd or
                // the events buffer is broken, and nothing can drive I/O any more.
                Err(e) => panic!("io-driver: epoll_wait failed, the epoll instance is broken: {e}"),
            }
        }
    }

    /// Advances every wheel to now in batches of at most `FIRE_BATCH` entries, the shards
    /// in turn, waking each batch's wakers with the mutex released: the first timers due
    /// run while the rest are still being fired, and nobody waits for a wheel's mutex
    /// behind a whole cascade.
    fn fire_timers(&mut self) {
        let handle = &*self.handle;
        // The clock is read only if some shard has a timer pending (`fire`).
        handle.timers.fire(
            || handle.ms_floor(handle.now()),
            &mut self.wake_list,
            wake_all,
        );
    }

    fn wake_all(&mut self) {
        wake_all(&mut self.wake_list);
    }
}

/// Wakes (and so empties) `list`, keeping its buffer.
fn wake_all(list: &mut Vec<Waker>) {
    for waker in list.drain(..) {
        waker.wake();
    }
}

impl Drop for Driver {
    /// Nobody will dispatch events any more: fail every pending operation instead of hanging.
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The shard count for a new driver: one per CPU, within `MIN_SHARDS..=MAX_SHARDS`.
fn shard_count() -> usize {
    std::thread::available_parallelism()
        .map_or(MIN_SHARDS, |n| n.get())
        .clamp(MIN_SHARDS, MAX_SHARDS)
}

impl fmt::Debug for Driver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Driver")
            .field("tick", &self.tick)
            .field("handle", &self.handle)
            .finish()
    }
}

impl Handle {
    /// Wake the thread blocked in [`Driver::park`] (one eventfd write). An unpark before the
    /// park makes that park return promptly.
    pub fn unpark(&self) {
        // Writing to our own eventfd only fails if it was closed under us; the mio waker
        // already handles counter overflow. Nothing useful to do with an error here.
        let _ = self.waker.wake();
    }

    /// Register `source` with `interest`; the returned [`Registration`] tracks its readiness.
    pub fn register(
        self: &Arc<Self>,
        source: &mut impl Source,
        interest: Interest,
    ) -> io::Result<Registration> {
        let (index, gen) = self.slab.alloc()?;
        // Built first so that a failed mio registration frees the slot through its Drop.
        let registration = Registration::new(self.clone(), index, gen);
        self.registry
            .register(source, token_for(index, gen), interest)?;
        Ok(registration)
    }

    /// The driver's clock: `Instant::now()`, unless time was paused (see [`Handle::pause`]).
    pub fn now(&self) -> Instant {
        self.clock.now()
    }

    /// Freezes the clock at its current reading (rounded up to the wheel's millisecond).
    /// From then on it moves only through
    /// [`Handle::advance`] and the auto-advance of [`Driver::park`]. Callers must make sure
    /// a single thread parks in this driver while paused (the current-thread flavor).
    ///
    /// # Errors
    /// When the clock is already paused.
    pub fn pause(&self) -> Result<(), &'static str> {
        self.clock.pause(self.start)
    }

    /// Freezes a clock that was never paused at the driver's origin (wheel millisecond 0),
    /// whatever real time has passed since the driver was made: a clock whose readings
    /// are a function of the advances alone (the deterministic mode).
    ///
    /// # Errors
    /// When the clock is already paused.
    pub fn pause_at_origin(&self) -> Result<(), &'static str> {
        self.clock.pause_at(self.start)
    }

    /// The deadline of the earliest timer pending in the wheels (or of the wheels' next
    /// cascade, which is no later), None when no timer is pending. Exact: reads each
    /// wheel under its mutex.
    pub fn next_timer(&self) -> Option<Instant> {
        self.timers
            .next_expiration()
            .and_then(|ms| self.instant_at(ms))
    }

    /// Lets a paused clock run again at real speed, from the time it shows.
    ///
    /// # Errors
    /// When the clock is not paused.
    pub fn resume(&self) -> Result<(), &'static str> {
        self.clock.resume()
    }

    /// Moves a paused clock forward by `by`. Timers that became due fire on the driver's
    /// next park (`park(Some(Duration::ZERO))` to fire them without sleeping).
    ///
    /// # Errors
    /// When the clock is not paused, or `by` overflows it.
    pub fn advance(&self, by: Duration) -> Result<(), &'static str> {
        self.clock.advance(by)
    }

    /// Whether the clock is paused.
    pub fn is_paused(&self) -> bool {
        self.clock.is_paused()
    }

    /// Forbids auto-advance until the matching [`Handle::allow_auto_advance`] (work the
    /// driver cannot see, like a blocking task, is still running). Counted.
    pub fn inhibit_auto_advance(&self) {
        self.clock.inhibit_auto_advance();
    }

    /// Undoes one [`Handle::inhibit_auto_advance`].
    pub fn allow_auto_advance(&self) {
        self.clock.allow_auto_advance();
    }

    /// Whether [`Driver::shutdown`] ran.
    pub fn is_shutdown(&self) -> bool {
        self.slab.is_shutdown()
    }

    /// Live registrations (test/diagnostic hook).
    #[doc(hidden)]
    pub fn registrations(&self) -> usize {
        self.slab.live()
    }

    pub(crate) fn registry(&self) -> &Registry {
        &self.registry
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("start", &self.start)
            .field("shutdown", &self.is_shutdown())
            .finish_non_exhaustive()
    }
}
