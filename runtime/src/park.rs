//! Parking a thread that has nothing to do: in the I/O driver, or on a condvar.
//!
//! Each parking thread (a worker, or a `block_on` caller) owns a `Parker`; anyone may hold
//! its `Unparker`. One state word per parker: EMPTY, PARKED_CONDVAR, PARKED_DRIVER or
//! NOTIFIED. `unpark` swaps in NOTIFIED and only makes a syscall when the target is actually
//! asleep (condvar notify, or the driver's `mio::Waker`): an unpark of a running thread
//! costs one atomic swap. A notification that arrives before `park` is remembered, so the
//! next `park` returns at once: no wake-up is lost.
//!
//! At most one thread sleeps in the driver at a time (`try_lock` on the shared driver);
//! the others sleep on their condvar. A thread that never drives I/O (a `block_on` caller
//! on the multi-thread flavor, a thread waiting for the current-thread core) has a plain
//! thread parker: `Parker::new_thread`, the same state word with no driver behind it.
//! Under loom there is no driver.

use shim::sync::atomic::AtomicUsize;
use shim::sync::atomic::Ordering::SeqCst;
use shim::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::driver::Driver;

const EMPTY: usize = 0;
const PARKED_CONDVAR: usize = 1;
const PARKED_DRIVER: usize = 2;
const NOTIFIED: usize = 3;

/// The parking side; owned by one thread.
pub(crate) struct Parker {
    inner: Arc<Inner>,
}

/// The waking side; cheap to clone, any thread.
#[derive(Clone)]
pub(crate) struct Unparker {
    inner: Arc<Inner>,
}

struct Inner {
    state: AtomicUsize,
    mutex: Mutex<()>,
    condvar: Condvar,
    /// None for a plain thread parker: it only ever sleeps on the condvar.
    driver: Option<Arc<Driver>>,
}

impl Parker {
    /// A scheduler thread's parker: it may sleep in (and dispatch) `driver`.
    pub(crate) fn new(driver: Arc<Driver>) -> Parker {
        Parker::with_driver(Some(driver))
    }

    /// A plain thread parker, for a thread that only waits for its own wake-up.
    pub(crate) fn new_thread() -> Parker {
        Parker::with_driver(None)
    }

    fn with_driver(driver: Option<Arc<Driver>>) -> Parker {
        Parker {
            inner: Arc::new(Inner {
                state: AtomicUsize::new(EMPTY),
                mutex: Mutex::new(()),
                condvar: Condvar::new(),
                driver,
            }),
        }
    }

    pub(crate) fn unparker(&self) -> Unparker {
        Unparker {
            inner: self.inner.clone(),
        }
    }

    /// Blocks until unparked (or, when sleeping in the driver, until the driver has events
    /// or a timer fired: callers loop on their own condition).
    pub(crate) fn park(&mut self) {
        self.inner.park(None);
    }

    /// Consumes a pending notification without sleeping; false when there was none.
    pub(crate) fn try_take_notification(&self) -> bool {
        self.inner.take_notification()
    }

    /// Lets the driver dispatch ready events without sleeping, if this thread can take it.
    pub(crate) fn park_timeout_zero(&mut self) {
        self.inner.park(Some(Duration::ZERO));
    }
}

impl Inner {
    /// NOTIFIED -> EMPTY: a notification that arrived before the park is consumed.
    fn take_notification(&self) -> bool {
        // SeqCst on every state access, though AcqRel (Acquire on a CAS failure) would
        // do: every access to `state` is a read-modify-write (a CAS or a swap), so a
        // parker's and an unparker's accesses are totally ordered by the word's
        // modification order whatever the ordering, and the second reads the first's
        // value: an unpark before the park's CAS makes it fail on NOTIFIED (the park
        // returns), one after it reads PARKED_* and signals. What the callers need
        // ordered (the unparker's pushes seen by the woken thread) is the swap's Release
        // half read by the CAS's or swap's Acquire half. No store-load (Dekker) pattern
        // runs through this word: a worker's idle-state RMW and its park are ordered
        // against a notifier's choice of it by the sleepers mutex, and a notifier's push
        // against a parking worker's re-check by the idle word's own RMW pair (idle/word.rs).
        // Kept SeqCst: on x86 it is the same instruction (`xchg`, `lock cmpxchg`), and loom
        // models SeqCst accesses as AcqRel, so the loom suites verify exactly the AcqRel
        // reading of this code (the weakening sweep's SeqCst rows cannot be told apart).
        self.state
            .compare_exchange(NOTIFIED, EMPTY, SeqCst, SeqCst)
            .is_ok()
    }

    fn park(&self, timeout: Option<Duration>) {
        if timeout == Some(Duration::ZERO) {
            // A turn of the driver, never a sleep: a pending notification is consumed (the
            // thread is awake anyway) and the driver is polled all the same. A thread that
            // is unparked while it runs (a `block_on` future waking itself, wakes sent to
            // a busy worker) must still get its I/O and timers dispatched.
            self.take_notification();
            if let Some(driver) = &self.driver {
                driver.poll_now();
            }
            return;
        }
        if self.take_notification() {
            return;
        }
        let Some(driver) = &self.driver else {
            self.park_condvar();
            return;
        };
        if let Some(mut locked) = driver.try_lock() {
            self.park_driver(&mut locked, timeout);
        } else {
            self.park_condvar();
        }
    }

    fn park_driver(&self, driver: &mut crate::driver::Locked<'_>, timeout: Option<Duration>) {
        match self
            .state
            .compare_exchange(EMPTY, PARKED_DRIVER, SeqCst, SeqCst)
        {
            Ok(_) => {}
            Err(NOTIFIED) => {
                self.state.swap(EMPTY, SeqCst);
                return;
            }
            Err(s) => panic!("inconsistent park state {s}"),
        }
        driver.park(timeout);
        // Woken by an unpark (NOTIFIED) or by events/timers (PARKED_DRIVER): either way
        // this thread is awake now, and any notification has been consumed.
        match self.state.swap(EMPTY, SeqCst) {
            NOTIFIED | PARKED_DRIVER => {}
            s => panic!("inconsistent park_driver state {s}"),
        }
    }

    fn park_condvar(&self) {
        let mut lock = self.mutex.lock();
        match self
            .state
            .compare_exchange(EMPTY, PARKED_CONDVAR, SeqCst, SeqCst)
        {
            Ok(_) => {}
            Err(NOTIFIED) => {
                self.state.swap(EMPTY, SeqCst);
                return;
            }
            Err(s) => panic!("inconsistent park state {s}"),
        }
        loop {
            self.condvar.wait(&mut lock);
            if self
                .state
                .compare_exchange(NOTIFIED, EMPTY, SeqCst, SeqCst)
                .is_ok()
            {
                return;
            }
            // Spurious wake-up: sleep again.
        }
    }
}

impl Unparker {
    /// Wakes the parker; free of syscalls unless it is asleep.
    pub(crate) fn unpark(&self) {
        match self.inner.state.swap(NOTIFIED, SeqCst) {
            EMPTY | NOTIFIED => {}
            PARKED_CONDVAR => {
                // Taking the lock orders this notify after the parker's wait began: the
                // parker set PARKED_CONDVAR while holding it.
                drop(self.inner.mutex.lock());
                self.inner.condvar.notify_one();
            }
            PARKED_DRIVER => self
                .inner
                .driver
                .as_ref()
                .expect("only a parker with a driver sleeps in it")
                .unpark(),
            s => panic!("inconsistent unpark state {s}"),
        }
    }
}
