//! `Builder::{on_thread_start, on_thread_stop, on_thread_park, on_thread_unpark, name}`,
//! `Handle::{id, name}` and `RuntimeMetrics`' tokio-style methods. Waits for what workers
//! publish asynchronously are bounded (10 s) and panic with what they waited for.
//!
//! Worker threads take `thread_name`; the metrics count polls, steals and overflow, and
//! `live_tasks` counts every spawned, unfinished task of either flavor.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::time::Instant;
use support::*;

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;
use std::time::Duration;

use runtime::{Builder, Handle};

fn counter() -> (Arc<AtomicUsize>, impl Fn() + Send + Sync + 'static) {
    let n = Arc::new(AtomicUsize::new(0));
    let n2 = n.clone();
    (n, move || {
        n2.fetch_add(1, SeqCst);
    })
}

#[test]
fn start_and_stop_run_once_on_each_worker_thread() {
    watchdog("the worker threads' start and stop hooks", || {
        let threads = Arc::new(Mutex::new(HashSet::<ThreadId>::new()));
        let t2 = threads.clone();
        let (stopped, on_stop) = counter();
        let rt = Builder::new_multi_thread()
            .worker_threads(3)
            .on_thread_start(move || {
                assert!(t2.lock().unwrap().insert(std::thread::current().id()));
            })
            .on_thread_stop(on_stop)
            .build()
            .unwrap();
        // Every task runs on a thread whose start hook ran first.
        let ran_on: Vec<ThreadId> = rt.block_on(async {
            let mut hs = Vec::new();
            for _ in 0..20 {
                hs.push(runtime::spawn(async { std::thread::current().id() }));
            }
            let mut out = Vec::new();
            for h in hs {
                out.push(h.await.unwrap());
            }
            out
        });
        for id in ran_on {
            assert!(
                threads.lock().unwrap().contains(&id),
                "a worker ran before its start hook"
            );
        }
        drop(rt);
        assert_eq!(threads.lock().unwrap().len(), 3);
        assert_eq!(
            stopped.load(SeqCst),
            3,
            "each worker's stop hook ran before the join"
        );
    })
}

#[test]
fn blocking_pool_threads_call_the_start_and_stop_hooks() {
    watchdog("the blocking threads' hooks", || {
        for multi in [false, true] {
            let threads = Arc::new(Mutex::new(HashSet::<ThreadId>::new()));
            let t2 = threads.clone();
            let (stopped, on_stop) = counter();
            let mut b = if multi {
                Builder::new_multi_thread()
            } else {
                Builder::new_current_thread()
            };
            if multi {
                b.worker_threads(1);
            }
            let rt = b
                .on_thread_start(move || {
                    t2.lock().unwrap().insert(std::thread::current().id());
                })
                .on_thread_stop(on_stop)
                .build()
                .unwrap();
            let id = rt
                .block_on(async {
                    runtime::task::spawn_blocking(|| std::thread::current().id()).await
                })
                .unwrap();
            assert!(
                threads.lock().unwrap().contains(&id),
                "the pool thread started unhooked"
            );
            drop(rt);
            let started = threads.lock().unwrap().len();
            // A pool thread calls its stop hook as it exits, just after shutdown saw it leave.
            eventually("every stop hook", || stopped.load(SeqCst) == started);
        }
    })
}

#[test]
fn workers_call_park_and_unpark() {
    watchdog("the workers' park and unpark hooks", || {
        let (parks, on_park) = counter();
        let (unparks, on_unpark) = counter();
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .on_thread_park(on_park)
            .on_thread_unpark(on_unpark)
            .build()
            .unwrap();
        eventually("the idle workers to park", || parks.load(SeqCst) >= 2);
        let before = unparks.load(SeqCst);
        // Work from outside wakes a parked worker.
        rt.block_on(async { runtime::spawn(async {}).await.unwrap() });
        eventually("a worker to unpark", || unparks.load(SeqCst) > before);
        // Parks and unparks alternate on each worker: never more unparks than parks.
        assert!(unparks.load(SeqCst) <= parks.load(SeqCst));
    })
}

#[test]
fn the_current_thread_block_on_thread_calls_park_and_unpark() {
    watchdog("the block_on thread's park hooks", || {
        let me = std::thread::current().id();
        let (parks, on_park) = counter();
        let (unparks, on_unpark) = counter();
        let rt = Builder::new_current_thread()
            .enable_time()
            .on_thread_park(move || {
                assert_eq!(std::thread::current().id(), me);
                on_park();
            })
            .on_thread_unpark(on_unpark)
            .build()
            .unwrap();
        rt.block_on(async { runtime::time::sleep(Duration::from_millis(5)).await });
        assert!(parks.load(SeqCst) >= 1);
        assert_eq!(parks.load(SeqCst), unparks.load(SeqCst));
    })
}

#[test]
fn handle_id_is_per_runtime_and_name_is_the_builders() {
    watchdog("the runtimes' handles", || {
        let a = Builder::new_multi_thread()
            .worker_threads(1)
            .name("alpha")
            .build()
            .unwrap();
        let b = Builder::new_current_thread().build().unwrap();
        assert_ne!(a.handle().id(), b.handle().id());
        assert_eq!(a.handle().id(), a.handle().clone().id());
        let inside = a.block_on(async { Handle::current().id() });
        assert_eq!(inside, a.handle().id());
        assert_eq!(a.handle().name(), Some("alpha"));
        assert_eq!(b.handle().name(), None);
        assert!(!a.handle().id().to_string().is_empty());
    })
}

#[test]
fn metrics_methods_follow_the_snapshot() {
    watchdog("the metrics to settle", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let n = 100;
        rt.block_on(async {
            let mut hs = Vec::new();
            for _ in 0..n {
                hs.push(runtime::spawn(async { runtime::task::yield_now().await }));
            }
            for h in hs {
                h.await.unwrap();
            }
        });
        // Workers publish when they park.
        eventually("the workers' counters", || {
            let m = rt.metrics();
            m.spawned_tasks_count() >= n && m.num_alive_tasks() == 0
        });
        let m = rt.metrics();
        assert_eq!(m.num_workers(), 2);
        assert_eq!(m.global_queue_depth(), 0);
        let polls: u64 = (0..2).map(|w| m.worker_poll_count(w)).sum();
        assert!(
            polls >= 2 * n,
            "each task polled at least twice (it yields): {polls}"
        );
        for w in 0..2 {
            assert_eq!(m.worker_park_count(w), m.workers()[w].parks());
            assert!(m.worker_park_unpark_count(w) >= m.worker_park_count(w));
            assert_eq!(m.worker_total_busy_duration(w), m.workers()[w].busy());
            let _ = (
                m.worker_noop_count(w),
                m.worker_steal_count(w),
                m.worker_steal_operations(w),
                m.worker_local_schedule_count(w),
                m.worker_overflow_count(w),
            );
        }
        let err = std::panic::catch_unwind(|| m.worker_poll_count(2)).unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.contains("0..num_workers()"), "{msg}");
    })
}

#[test]
fn blocking_pool_metrics() {
    watchdog("the blocking pool's metrics", || {
        let rt = Builder::new_current_thread().build().unwrap();
        let m = rt.metrics();
        assert_eq!(m.num_blocking_threads(), 0);
        assert_eq!(m.blocking_queue_depth(), 0);
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let h = rt.spawn_blocking(move || rx.recv_timeout(Duration::from_secs(10)).is_ok());
        eventually("the pool thread to start", || {
            rt.metrics().num_blocking_threads() == 1
        });
        tx.send(()).unwrap();
        assert!(rt.block_on(h).unwrap());
        eventually("the pool thread to go idle", || {
            let m = rt.metrics();
            m.num_idle_blocking_threads() == 1 && m.num_blocking_threads() == 1
        });
    })
}

/// `RuntimeMetrics` is a live view, as tokio's: one value kept by a monitoring loop sees
/// the counters move, and it can still be read after the runtime is dropped.
#[test]
fn metrics_are_a_live_view() {
    watchdog("the spawned tasks", || {
        for rt in runtimes() {
            let m = rt.metrics();
            let before = m.spawned_tasks_count();
            rt.block_on(async {
                for _ in 0..10 {
                    runtime::spawn(async {}).await.unwrap();
                }
            });
            // Published when the workers park or tick: wait (bounded) for it.
            let start = std::time::Instant::now();
            while m.spawned_tasks_count() < before + 10 {
                assert!(
                    start.elapsed() < GENEROUS,
                    "the kept metrics never saw the spawns ({} then {})",
                    before,
                    m.spawned_tasks_count()
                );
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            drop(rt);
            assert_eq!(m.num_alive_tasks(), 0);
            assert!(m.spawned_tasks_count() >= before + 10);
        }
    })
}

#[test]
fn worker_threads_are_named() {
    watchdog("the named worker threads", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("my-pool")
            .build()
            .unwrap();
        let name = rt
            .block_on(rt.spawn(async { std::thread::current().name().map(str::to_owned) }))
            .unwrap();
        assert_eq!(name.as_deref(), Some("my-pool"));
    })
}

#[test]
fn metrics_count_polls_and_steals() {
    watchdog("the spawned tasks counted by the metrics", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let n = 20_000;
        let done = Arc::new(AtomicUsize::new(0));
        let d = done.clone();
        rt.block_on(rt.spawn(async move {
            let hs: Vec<_> = (0..n)
                .map(|_| {
                    let d = d.clone();
                    runtime::spawn(async move {
                        d.fetch_add(1, SeqCst);
                    })
                })
                .collect();
            for h in hs {
                h.await.unwrap();
            }
        }))
        .unwrap();
        assert_eq!(done.load(SeqCst), n);
        let m = rt.metrics();
        assert_eq!(m.num_workers(), 2);
        // Workers publish on park and every maintenance tick; wait until both parked again.
        let deadline = Instant::now() + Duration::from_secs(10);
        let m = loop {
            let m = rt.metrics();
            let polls: u64 = m.workers().iter().map(|w| w.polls()).sum();
            // A completed task leaves the owned list just after waking its JoinHandle.
            if (polls > n as u64 && m.num_alive_tasks() == 0) || Instant::now() > deadline {
                break m;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let polls: u64 = m.workers().iter().map(|w| w.polls()).sum();
        assert!(polls > n as u64, "{m:?}");
        assert_eq!(m.num_alive_tasks(), 0, "{m:?}");
        // 20,000 tasks spawned in one poll cannot stay in the spawner's 256-slot ring: all but
        // a ring's worth left it, by overflow into the global queue or stolen by the sibling.
        let overflowed: u64 = m.workers().iter().map(|w| w.overflowed_tasks()).sum();
        let stolen: u64 = m.workers().iter().map(|w| w.stolen_tasks()).sum();
        assert!(overflowed + stolen >= (n - 256) as u64, "{m:?}");
    })
}

/// `live_tasks` counts every spawned, unfinished task, whether spawned from outside (counted
/// by the spawner, in `remote_spawned_tasks_count`) or from a task (counted by its worker), and whether
/// or not it ever parked (tasks join the owned list only at their first park); it reads 0
/// again once they complete, and after the runtime drops the ones still pending. Spawns
/// and completions add up.
#[test]
fn live_tasks_counts_pending_tasks_of_both_flavors() {
    watchdog("the pending tasks", || {
        use futures::channel::oneshot;
        for multi in [true, false] {
            let rt = if multi {
                Builder::new_multi_thread().worker_threads(2).build()
            } else {
                Builder::new_current_thread().build()
            }
            .unwrap();
            let handle = rt.handle().clone();
            let mut txs = Vec::new();
            let mut joins = Vec::new();
            // Five from outside, five from a task.
            for _ in 0..5 {
                let (tx, rx) = oneshot::channel::<u32>();
                txs.push(tx);
                joins.push(rt.spawn(async move { rx.await.unwrap() }));
            }
            let mut rxs = Vec::new();
            for _ in 0..5 {
                let (tx, rx) = oneshot::channel::<u32>();
                txs.push(tx);
                rxs.push(rx);
            }
            let local: Vec<_> = rt.block_on(async move {
                runtime::spawn(async move {
                    rxs.into_iter()
                        .map(|rx| runtime::spawn(async move { rx.await.unwrap() }))
                        .collect()
                })
                .await
                .unwrap()
            });
            joins.extend(local);
            let sum = |m: &runtime::RuntimeMetrics, f: fn(&runtime::WorkerMetrics) -> u64| -> u64 {
                m.workers().iter().map(f).sum()
            };
            // 10 pending tasks; the spawner task finished. Five spawns from outside, five
            // by a task, and the spawner: from outside on the multi-thread flavor (the
            // `block_on` thread is no worker), on the core's thread on the current-thread one.
            let m = metrics_when(&handle, |m| {
                m.num_alive_tasks() == 10 && m.spawned_tasks_count() == 11
            });
            assert_eq!(m.num_alive_tasks(), 10, "multi {multi}: {m:?}");
            let remote = if multi { 6 } else { 5 };
            assert_eq!(
                m.remote_spawned_tasks_count(),
                remote,
                "multi {multi}: {m:?}"
            );
            assert_eq!(
                sum(&m, |w| w.spawned()),
                11 - remote,
                "multi {multi}: {m:?}"
            );
            assert_eq!(m.spawned_tasks_count(), 11, "multi {multi}: {m:?}");
            // Complete the first eight; two stay pending until the runtime drops.
            for (i, tx) in txs.drain(..8).enumerate() {
                tx.send(i as u32).unwrap();
            }
            let finished: Vec<u32> = rt.block_on(async {
                let mut out = Vec::new();
                for j in joins.drain(..8) {
                    out.push(j.await.unwrap());
                }
                out
            });
            assert_eq!(finished, (0..8).collect::<Vec<u32>>());
            let m = metrics_when(&handle, |m| m.num_alive_tasks() == 2);
            assert_eq!(m.num_alive_tasks(), 2, "multi {multi}: {m:?}");
            drop(rt);
            let m = handle.metrics();
            assert_eq!(
                m.num_alive_tasks(),
                0,
                "multi {multi}: dropped with the runtime: {m:?}"
            );
            assert_eq!(sum(&m, |w| w.completed()), 11, "multi {multi}: {m:?}");
            for j in joins {
                assert!(futures::executor::block_on(j).unwrap_err().is_cancelled());
            }
            drop(txs);
        }
    })
}

/// As tokio's (tokio#8212): a current-thread runtime driven by short `block_on` calls
/// whose `on_thread_park` hook wakes each one still turns its timer: a spawned task's
/// sleep fires. Without the driver's turn it never does (bounded by the loop).
#[test]
fn a_park_hook_that_wakes_block_on_still_turns_the_timer() {
    watchdog("the spawned task's sleep under a waking park hook", || {
        let notify = Arc::new(runtime::sync::Notify::new());
        let hook = notify.clone();
        let rt = Builder::new_current_thread()
            .enable_all()
            .on_thread_park(move || hook.notify_waiters())
            .build()
            .unwrap();
        let done = Arc::new(AtomicUsize::new(0));
        let d = done.clone();
        rt.spawn(async move {
            runtime::time::sleep(Duration::from_millis(1)).await;
            d.store(1, SeqCst);
        });
        rt.block_on(runtime::task::yield_now());
        for _ in 0..2000 {
            if done.load(SeqCst) == 1 {
                break;
            }
            rt.block_on(notify.notified());
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(done.load(SeqCst), 1, "the spawned task's timer never fired");
    })
}
