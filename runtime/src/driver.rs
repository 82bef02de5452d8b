//! The runtime's view of the I/O and timer driver (`io-driver` crate).
//!
//! One `io_driver::Driver` per runtime, behind a lock that is only ever `try_lock`ed: the
//! thread that gets it sleeps in epoll (bounded by the next timer deadline) when it parks;
//! the others park on their condvars. `enable_io` / `enable_time` record what the user
//! asked for, so a socket or timer used on a runtime without it fails with a message that
//! says which `Builder::enable_*` to call. Under loom there is no driver at all.

use std::io;
use std::time::Duration;

#[cfg(not(loom))]
use std::sync::Arc;

pub(crate) struct Driver {
    #[cfg(not(loom))]
    inner: Option<Inner>,
    // Read by the I/O and timer handles, which are not built under loom.
    #[cfg_attr(loom, allow(dead_code))]
    enable_io: bool,
    #[cfg_attr(loom, allow(dead_code))]
    enable_time: bool,
}

#[cfg(not(loom))]
struct Inner {
    driver: parking_lot::Mutex<io_driver::Driver>,
    handle: Arc<io_driver::Handle>,
    /// Parks (blocking or not) so far; written under `driver`'s lock only, read by the
    /// multi-thread monitor to tell whether anyone polls the driver.
    polls: std::sync::atomic::AtomicU64,
}

/// The driver, locked by the thread about to sleep in it.
pub(crate) struct Locked<'a> {
    #[cfg(not(loom))]
    guard: parking_lot::MutexGuard<'a, io_driver::Driver>,
    #[cfg(not(loom))]
    polls: &'a std::sync::atomic::AtomicU64,
    #[cfg(loom)]
    _p: std::marker::PhantomData<&'a ()>,
}

impl Driver {
    /// `events`: readiness events dispatched per driver poll (`Builder::max_io_events_per_tick`).
    pub(crate) fn new(enable_io: bool, enable_time: bool, events: usize) -> io::Result<Driver> {
        Driver::with_timer_shards(enable_io, enable_time, events, 0)
    }

    /// `new` with `shards` timer wheels (0: one per CPU, io-driver's default).
    pub(crate) fn with_timer_shards(
        enable_io: bool,
        enable_time: bool,
        events: usize,
        shards: usize,
    ) -> io::Result<Driver> {
        #[cfg(not(loom))]
        {
            let inner = if enable_io || enable_time {
                let driver = if shards == 0 {
                    io_driver::Driver::with_events_capacity(events)?
                } else {
                    io_driver::Driver::with_config(events, shards)?
                };
                let handle = driver.handle().clone();
                Some(Inner {
                    driver: parking_lot::Mutex::new(driver),
                    handle,
                    polls: std::sync::atomic::AtomicU64::new(0),
                })
            } else {
                None
            };
            Ok(Driver {
                inner,
                enable_io,
                enable_time,
            })
        }
        #[cfg(loom)]
        {
            let _ = (events, shards);
            Ok(Driver {
                enable_io,
                enable_time,
            })
        }
    }

    /// At most `events` readiness events per poll that does not wait
    /// (`Builder::max_io_events_per_busy_tick`); called once, while the runtime is built.
    pub(crate) fn set_busy_events(&self, events: usize) {
        #[cfg(not(loom))]
        if let Some(inner) = &self.inner {
            inner.driver.lock().set_busy_events_capacity(events);
        }
        #[cfg(loom)]
        let _ = events;
    }

    /// The driver, if there is one and nobody else sleeps in it.
    pub(crate) fn try_lock(&self) -> Option<Locked<'_>> {
        #[cfg(not(loom))]
        {
            let inner = self.inner.as_ref()?;
            inner.driver.try_lock().map(|guard| Locked {
                guard,
                polls: &inner.polls,
            })
        }
        #[cfg(loom)]
        {
            None
        }
    }

    /// True when the runtime has an I/O or timer driver.
    // The monitor that reads these is not built under loom.
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn exists(&self) -> bool {
        #[cfg(not(loom))]
        return self.inner.is_some();
        #[cfg(loom)]
        false
    }

    /// True while a thread holds the driver (sleeps in it, or polls it).
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn is_held(&self) -> bool {
        #[cfg(not(loom))]
        return self.inner.as_ref().is_some_and(|i| i.driver.is_locked());
        #[cfg(loom)]
        false
    }

    /// How many times the driver was polled so far (changes whenever anyone polls it).
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn polls(&self) -> u64 {
        #[cfg(not(loom))]
        return self
            .inner
            .as_ref()
            .map_or(0, |i| i.polls.load(std::sync::atomic::Ordering::Relaxed));
        #[cfg(loom)]
        0
    }

    /// Wakes the thread sleeping in the driver.
    pub(crate) fn unpark(&self) {
        #[cfg(not(loom))]
        if let Some(inner) = &self.inner {
            inner.handle.unpark();
        }
    }

    /// Dispatches ready events and expired timers without sleeping, if the driver is free.
    pub(crate) fn poll_now(&self) {
        if let Some(mut locked) = self.try_lock() {
            locked.park(Some(Duration::ZERO));
        }
    }

    /// Shuts the driver down: pending I/O and timers resolve with an error.
    pub(crate) fn shutdown(&self) {
        #[cfg(not(loom))]
        if let Some(inner) = &self.inner {
            inner.driver.lock().shutdown();
        }
    }

    /// The I/O handle, or a panic that says how to enable it.
    #[cfg(not(loom))]
    #[track_caller]
    pub(crate) fn io_handle(&self) -> &Arc<io_driver::Handle> {
        match (&self.inner, self.enable_io) {
            (Some(inner), true) => &inner.handle,
            _ => panic!("{}", crate::misuse::NO_IO_DRIVER),
        }
    }

    /// The timer handle, or a panic that says how to enable it.
    #[cfg(not(loom))]
    #[track_caller]
    pub(crate) fn time_handle(&self) -> &Arc<io_driver::Handle> {
        match (&self.inner, self.enable_time) {
            (Some(inner), true) => &inner.handle,
            _ => panic!("{}", crate::misuse::NO_TIMER_DRIVER),
        }
    }
}

#[cfg(not(loom))]
impl Driver {
    /// The timer driver's handle, if time is enabled.
    pub(crate) fn time_handle_opt(&self) -> Option<&Arc<io_driver::Handle>> {
        match (&self.inner, self.enable_time) {
            (Some(inner), true) => Some(&inner.handle),
            _ => None,
        }
    }

    /// The I/O driver's handle, if I/O is enabled.
    pub(crate) fn io_handle_opt(&self) -> Option<&Arc<io_driver::Handle>> {
        match (&self.inner, self.enable_io) {
            (Some(inner), true) => Some(&inner.handle),
            _ => None,
        }
    }
}

impl Locked<'_> {
    pub(crate) fn park(&mut self, timeout: Option<Duration>) {
        #[cfg(not(loom))]
        {
            use std::sync::atomic::Ordering::Relaxed;
            // Under the lock: a load and a store, no RMW.
            self.polls.store(self.polls.load(Relaxed) + 1, Relaxed);
            self.guard.park(timeout);
        }
        #[cfg(loom)]
        let _ = timeout;
    }
}
