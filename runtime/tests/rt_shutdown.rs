//! Shutdown of the multi-thread flavor: dropping the runtime reaches every remote spawn still
//! waiting in the global queue (each future dropped once, each `JoinHandle` cancelled), and
//! `shutdown_timeout` returns while a blocking task still runs.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use runtime::Builder;

/// Remote spawns enter the global queue unbound and are bound by the worker that takes
/// them. Dropping the runtime while thousands are still queued (the single worker is held
/// up by a task that waits for this thread) must still reach every one: each future is
/// dropped exactly once, each JoinHandle resolves (run to completion, or cancelled), and
/// none is lost in the global queue. Pending futures (never complete on their own) make
/// a lost task show up as a missing drop.
#[test]
fn runtime_drop_reaches_remote_spawns_still_in_the_global_queue() {
    watchdog("the drop of the remote spawns", || {
        const N: usize = 2_000;
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let (hold_tx, hold_rx) = mpsc::channel::<()>();
        let (started_tx, started_rx) = mpsc::channel::<()>();
        // Keeps the only worker busy until released, so the spawns below stay queued.
        drop(rt.spawn(async move {
            started_tx.send(()).unwrap();
            let _ = hold_rx.recv();
        }));
        started_rx.recv().unwrap();
        let drops = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..N)
            .map(|_| {
                let d = CountDrop(drops.clone());
                rt.spawn(async move {
                    let _d = d;
                    std::future::pending::<()>().await
                })
            })
            .collect();
        assert_eq!(rt.metrics().global_queue_depth(), N);
        // Release the worker once the drop below has closed the queues.
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            let _ = hold_tx.send(());
        });
        drop(rt);
        releaser.join().unwrap();
        assert_eq!(
            drops.load(SeqCst),
            N,
            "every queued future dropped exactly once"
        );
        for h in handles {
            let res = futures::executor::block_on(h);
            assert!(res.unwrap_err().is_cancelled());
        }
    })
}

#[test]
fn shutdown_timeout_does_not_wait_forever_on_a_blocking_task() {
    watchdog("shutdown_timeout with a blocking task", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let (tx, rx) = mpsc::channel::<()>();
        let (started_tx, started_rx) = mpsc::channel();
        drop(rt.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            // Blocks until the test ends.
            let _ = rx.recv();
        }));
        started_rx.recv().unwrap();
        let t = Instant::now();
        rt.shutdown_timeout(Duration::from_millis(100));
        // Returned although the blocking task still runs; a generous bound, not a speed test.
        assert!(t.elapsed() < Duration::from_secs(30));
        drop(tx);
    })
}

/// Thread-local state of a pool thread: counts its destruction (the last thing a thread
/// does before it ends, after its stop hook).
struct Exits(Arc<AtomicUsize>);

impl Drop for Exits {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

std::thread_local! {
    static EXITS: std::cell::RefCell<Option<Exits>> = const { std::cell::RefCell::new(None) };
}

/// `drop(rt)` joins the blocking pool's threads: when it returns, every thread that ran a
/// closure has finished, its thread-locals destroyed and its stop hook run (tokio joins
/// them on a shutdown without a timeout; a leak checker then sees no live thread-local).
#[test]
fn drop_joins_the_blocking_threads() {
    watchdog("the blocking threads' join", || {
        for round in 0..20 {
            let stopped = Arc::new(AtomicUsize::new(0));
            let exits = Arc::new(AtomicUsize::new(0));
            let rt = Builder::new_multi_thread()
                .worker_threads(1)
                .on_thread_stop({
                    let stopped = stopped.clone();
                    move || {
                        // The stop hook runs last on a thread: a slow one shows whether
                        // the drop waited for it.
                        std::thread::sleep(Duration::from_millis(2));
                        stopped.fetch_add(1, SeqCst);
                    }
                })
                .build()
                .unwrap();
            let threads = Arc::new(std::sync::Mutex::new(std::collections::HashSet::new()));
            rt.block_on({
                let (threads, exits) = (threads.clone(), exits.clone());
                async move {
                    let hs: Vec<_> = (0..4)
                        .map(|_| {
                            let (threads, exits) = (threads.clone(), exits.clone());
                            runtime::task::spawn_blocking(move || {
                                let me = std::thread::current().id();
                                if threads.lock().unwrap().insert(me) {
                                    EXITS.with(|e| *e.borrow_mut() = Some(Exits(exits)));
                                }
                                std::thread::sleep(Duration::from_millis(5))
                            })
                        })
                        .collect();
                    for h in hs {
                        h.await.unwrap();
                    }
                }
            });
            drop(rt);
            let ran_on = threads.lock().unwrap().len();
            assert_eq!(
                exits.load(SeqCst),
                ran_on,
                "round {round}: a pool thread's thread-locals outlived drop(rt)"
            );
            assert!(
                stopped.load(SeqCst) >= ran_on,
                "round {round}: {} stop hooks ran for {ran_on} pool threads",
                stopped.load(SeqCst)
            );
        }
    });
}

/// As tokio's: `shutdown_timeout(Duration::MAX)` is a timeout past any representable
/// deadline, so it waits for every thread like a drop, on both flavors, blocking tasks
/// included, instead of overflowing the deadline's arithmetic.
#[test]
fn shutdown_timeout_max_waits_like_a_drop() {
    watchdog("shutdown_timeout(Duration::MAX)", || {
        for rt in [current_thread(), multi_thread(1), multi_thread(4)] {
            let finished = Arc::new(AtomicUsize::new(0));
            let f = finished.clone();
            rt.block_on(async {
                runtime::spawn(async {}).await.unwrap();
            });
            let (started_tx, started_rx) = mpsc::channel();
            drop(rt.spawn_blocking(move || {
                started_tx.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(20));
                f.fetch_add(1, SeqCst);
            }));
            started_rx.recv().unwrap();
            rt.shutdown_timeout(Duration::MAX);
            assert_eq!(finished.load(SeqCst), 1, "waited for the blocking task");
        }
    })
}
