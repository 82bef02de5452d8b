//! `spawn_remote_threads_{1,4,16,64}`: [`NUM_SPAWN`] empty tasks per iteration, spawned
//! into an idle runtime from K plain threads at once, each spawning its share; every task
//! decrements a counter and the last one signals the bench thread.
//!
//! This is the path of every accept loop on a non-worker thread, every blocking-pool
//! completion and every `Handle::spawn` from a plain thread, with K of them at once: the
//! injection queue's push under contention, the notify of a parked worker per spawn, the
//! batch a worker takes from the queue. With K above the CPU count the spawners are
//! oversubscribed: a spawner descheduled while it holds the queue shows up as every other
//! spawner's wait, even on 2 CPUs.
//!
//! The K threads live for the whole group (made in the setup, joined when the iteration
//! closure is dropped) and meet the bench thread at a barrier at the start of each
//! iteration, so thread creation is not timed; the barrier's wake-up of K threads is, the
//! same for every runtime.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Barrier};
use std::thread::JoinHandle;

use super::scheduler::{Iteration, NUM_SPAWN};
use crate::{Bench, Notify, RemoteSpawner, Signal};

/// The spawning threads of one group, stopped and joined on drop.
struct Spawners {
    stop: Arc<AtomicBool>,
    start: Arc<Barrier>,
    threads: Vec<JoinHandle<()>>,
}

impl Drop for Spawners {
    fn drop(&mut self) {
        // Relaxed: the barrier below orders it for the threads that read it after.
        self.stop.store(true, Relaxed);
        self.start.wait();
        for t in self.threads.drain(..) {
            t.join().expect("a spawning thread panicked");
        }
    }
}

/// `NUM_SPAWN` spawns per iteration from `k` threads (see the module doc).
pub fn spawn_remote_threads<B: Bench, S: Signal>(rt: &B, k: usize) -> Iteration<'_> {
    assert!(k > 0, "at least one spawning thread");
    let (tx, mut rx) = S::channel();
    let rem = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(k + 1));
    let threads = (0..k)
        .map(|i| {
            let share = NUM_SPAWN / k + usize::from(i < NUM_SPAWN % k);
            let remote = rt.remote();
            let (tx, rem, stop, start) = (tx.clone(), rem.clone(), stop.clone(), start.clone());
            std::thread::Builder::new()
                .name(format!("bench-spawner-{i}"))
                .spawn(move || loop {
                    start.wait();
                    // Relaxed: set before the barrier the thread just passed.
                    if stop.load(Relaxed) {
                        return;
                    }
                    for _ in 0..share {
                        let (tx, rem) = (tx.clone(), rem.clone());
                        remote.spawn_detached(async move {
                            // Relaxed: only the count matters; the last task signals.
                            if rem.fetch_sub(1, Relaxed) == 1 {
                                tx.notify();
                            }
                        });
                    }
                })
                .expect("spawning a bench thread")
        })
        .collect();
    let spawners = Spawners {
        stop,
        start,
        threads,
    };
    Box::new(move || {
        // Relaxed: the barrier orders it before every spawner's first spawn, and the
        // signal's channel orders the last iteration's decrements before it.
        rem.store(NUM_SPAWN, Relaxed);
        spawners.start.wait();
        rt.block_on(rx.recv());
    })
}

/// One spawning thread.
pub fn spawn_remote_threads_1<B: Bench, S: Signal>(rt: &B) -> Iteration<'_> {
    spawn_remote_threads::<B, S>(rt, 1)
}

/// Four spawning threads.
pub fn spawn_remote_threads_4<B: Bench, S: Signal>(rt: &B) -> Iteration<'_> {
    spawn_remote_threads::<B, S>(rt, 4)
}

/// Sixteen spawning threads.
pub fn spawn_remote_threads_16<B: Bench, S: Signal>(rt: &B) -> Iteration<'_> {
    spawn_remote_threads::<B, S>(rt, 16)
}

/// Sixty-four spawning threads.
pub fn spawn_remote_threads_64<B: Bench, S: Signal>(rt: &B) -> Iteration<'_> {
    spawn_remote_threads::<B, S>(rt, 64)
}
