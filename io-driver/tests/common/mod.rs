//! Shared test scaffolding: a thread that stands in for the runtime by parking in the driver
//! until told to stop, and wakers that record when (and how often) they were woken.

#![allow(dead_code)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Wake, Waker};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use io_driver::{Driver, Handle};

/// Generous bound for "eventually" waits.
pub const EVENTUALLY: Duration = Duration::from_secs(20);

/// A thread looping `driver.park(timeout)` until stopped.
pub struct DriverThread {
    handle: Arc<Handle>,
    stop: Arc<AtomicBool>,
    join: Option<JoinHandle<Driver>>,
}

impl DriverThread {
    /// Park with `Some(10ms)` in a loop.
    pub fn spawn(driver: Driver) -> DriverThread {
        Self::spawn_with(driver, Some(Duration::from_millis(10)))
    }

    /// Park with the given timeout in a loop (`None`: only I/O, timers and unpark wake it).
    pub fn spawn_with(mut driver: Driver, timeout: Option<Duration>) -> DriverThread {
        let handle = driver.handle().clone();
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let join = std::thread::spawn(move || {
            while !stop2.load(Ordering::SeqCst) {
                driver.park(timeout);
            }
            driver
        });
        DriverThread {
            handle,
            stop,
            join: Some(join),
        }
    }

    pub fn handle(&self) -> &Arc<Handle> {
        &self.handle
    }

    /// Stop the loop and get the driver back.
    pub fn stop(mut self) -> Driver {
        self.stop_inner().expect("driver thread already stopped")
    }

    fn stop_inner(&mut self) -> Option<Driver> {
        let join = self.join.take()?;
        self.stop.store(true, Ordering::SeqCst);
        self.handle.unpark();
        Some(join.join().expect("driver thread panicked"))
    }
}

impl Drop for DriverThread {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.stop_inner();
        }
    }
}

/// A waker that counts its wakes and records the instant of each.
#[derive(Default)]
pub struct Recorder {
    count: AtomicUsize,
    times: Mutex<Vec<Instant>>,
}

impl Wake for Recorder {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.times.lock().unwrap().push(Instant::now());
        self.count.fetch_add(1, Ordering::SeqCst);
    }
}

impl Recorder {
    pub fn new() -> (Arc<Recorder>, Waker) {
        let r = Arc::new(Recorder::default());
        let w = Waker::from(r.clone());
        (r, w)
    }
    pub fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }
    pub fn first_wake(&self) -> Option<Instant> {
        self.times.lock().unwrap().first().copied()
    }
    /// Wait (bounded) until woken at least `n` times.
    pub fn wait_for(&self, n: usize) -> bool {
        wait_until(|| self.count() >= n)
    }
}

/// Poll `cond` until true or `EVENTUALLY` passes.
pub fn wait_until(mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < EVENTUALLY {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    cond()
}

/// A context whose waker does nothing.
pub fn noop_cx() -> Context<'static> {
    Context::from_waker(Waker::noop())
}

/// Tiny deterministic xorshift RNG.
pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
