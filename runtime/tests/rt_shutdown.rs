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

/// The pool's threads named `name` alive now (Linux: /proc/self/task/*/comm).
fn threads_named(name: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|dir| {
            dir.filter_map(Result::ok)
                .filter(|t| {
                    std::fs::read_to_string(t.path().join("comm"))
                        .is_ok_and(|comm| comm.trim_end() == name)
                })
                .count()
        })
        .unwrap_or(0)
}

/// `drop(rt)` joins the blocking pool's threads: when it returns, none of them is alive and
/// each one's stop hook has run (tokio joins them on a shutdown without a timeout).
#[test]
fn drop_joins_the_blocking_threads() {
    watchdog("the blocking threads' join", || {
        for round in 0..20 {
            let stopped = Arc::new(AtomicUsize::new(0));
            let rt = Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("blk-join-probe")
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
            let started = rt.block_on(async {
                let hs: Vec<_> = (0..4)
                    .map(|_| {
                        runtime::task::spawn_blocking(|| {
                            std::thread::sleep(Duration::from_millis(5))
                        })
                    })
                    .collect();
                for h in hs {
                    h.await.unwrap();
                }
                rt_blocking_threads()
            });
            drop(rt);
            assert_eq!(
                threads_named("blk-join-probe"),
                0,
                "round {round}: a pool thread outlived drop(rt)"
            );
            assert!(
                stopped.load(SeqCst) > started,
                "round {round}: {} stop hooks ran for {started} pool threads and a worker",
                stopped.load(SeqCst)
            );
        }
    });
}

/// The blocking threads of the current runtime (its metrics).
fn rt_blocking_threads() -> usize {
    runtime::Handle::current().metrics().num_blocking_threads()
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
