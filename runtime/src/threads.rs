//! The runtime's own threads: how a worker thread is started, and how shutdown waits for
//! all of them.
//!
//! A `ThreadSpawner` starts every thread a multi-thread runtime runs its scheduler on:
//! the workers at build time, the monitor, and later the thread a worker's core is handed
//! to by `task::block_in_place`. Each is named by `Builder::thread_name`, sized by
//! `Builder::thread_stack_size`, and a worker runs the user's thread hooks
//! (`on_thread_start` / `on_thread_stop`) and takes the next RNG seed.
//!
//! Shutdown waits on a `Latch` that counts threads started and threads exited. A thread
//! is counted in before it is spawned and counted out when its body ends, by a return or a
//! panic (a drop guard), so the latch opens only once every thread that ever ran the
//! scheduler has left it, whatever number of hand-offs happened.

use std::time::Duration;

use shim::sync::{Arc, Condvar, Mutex};

use crate::observe::hooks::Hooks;
use crate::rand::SeedGenerator;

/// Counts the runtime's threads in and out, so shutdown can wait with a timeout.
pub(crate) struct Latch {
    counts: Mutex<Counts>,
    condvar: Condvar,
}

#[derive(Default)]
struct Counts {
    started: usize,
    exited: usize,
}

impl Latch {
    pub(crate) fn new() -> Latch {
        Latch {
            counts: Mutex::new(Counts::default()),
            condvar: Condvar::new(),
        }
    }

    fn count_in(&self, n: usize) {
        self.counts.lock().started += n;
    }

    fn count_out(&self) {
        self.counts.lock().exited += 1;
        self.condvar.notify_all();
    }

    /// Waits until every thread counted in has exited; false on timeout.
    pub(crate) fn wait(&self, timeout: Option<Duration>) -> bool {
        let mut counts = self.counts.lock();
        // A timeout past what `Instant` can represent (`Duration::MAX`) waits forever.
        #[cfg(not(loom))]
        let deadline = timeout.and_then(|t| std::time::Instant::now().checked_add(t));
        #[cfg(loom)]
        let deadline = timeout.map(|_| ());
        match deadline {
            #[cfg(not(loom))]
            Some(deadline) => {
                while counts.exited < counts.started {
                    let now = std::time::Instant::now();
                    if now >= deadline {
                        return false;
                    }
                    self.condvar.wait_for(&mut counts, deadline - now);
                }
                true
            }
            _ => {
                while counts.exited < counts.started {
                    self.condvar.wait(&mut counts);
                }
                true
            }
        }
    }
}

/// Counts a thread out when its body ends, even by a panic.
struct ExitSignal(Arc<Latch>);

impl Drop for ExitSignal {
    fn drop(&mut self) {
        self.0.count_out();
    }
}

/// Starts the runtime's threads (module docs).
#[derive(Clone)]
pub(crate) struct ThreadSpawner {
    pub(crate) name: std::sync::Arc<dyn Fn() -> String + Send + Sync>,
    pub(crate) stack_size: Option<usize>,
    pub(crate) hooks: Hooks,
    pub(crate) seeds: Option<Arc<SeedGenerator>>,
    pub(crate) latch: Arc<Latch>,
}

/// What a thread is for: a worker runs the user's hooks and takes a seed; the runtime's
/// own helpers (the monitor) do not.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Worker,
    #[cfg_attr(loom, allow(dead_code))]
    Helper,
}

impl ThreadSpawner {
    /// Spawns a thread running `body`, counted in the latch until it ends.
    pub(crate) fn spawn(
        &self,
        role: Role,
        body: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<shim::thread::JoinHandle<()>> {
        self.latch.count_in(1);
        self.spawn_counted(role, body)
    }

    /// Counts `n` threads in at once, before they are started with `spawn_counted`: the
    /// runtime's first threads take the latch's lock once, before any of them runs (under
    /// loom, a lock per thread while the first workers already run would only multiply
    /// the interleavings every scheduler model explores).
    pub(crate) fn count_in(&self, n: usize) {
        self.latch.count_in(n);
    }

    /// As `spawn`, for a thread already counted in (`count_in`).
    pub(crate) fn spawn_counted(
        &self,
        role: Role,
        body: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<shim::thread::JoinHandle<()>> {
        let signal = ExitSignal(self.latch.clone());
        let hooks = self.hooks.clone();
        let seeds = self.seeds.clone();
        let body = move || {
            let _signal = signal;
            if role == Role::Worker {
                let _thread = hooks.enter_thread();
                let _seed = crate::rand::enter(seeds.as_deref());
                body();
            } else {
                body();
            }
        };
        // A failed spawn drops `body`, and with it the signal: counted out again.
        shim::thread::spawn_named((self.name)(), self.stack_size, body)
    }
}
