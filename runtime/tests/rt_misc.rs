//! Misuse messages, the macros on the real runtime, metrics, idleness, shutdown_timeout.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use runtime::task::yield_now;
use runtime::{Builder, Handle, RuntimeFlavor};

#[test]
fn spawn_outside_a_runtime_panics_with_advice() {
    let err = std::panic::catch_unwind(|| drop(runtime::spawn(async {}))).unwrap_err();
    let msg = panic_message(err);
    assert!(msg.contains("outside of a runtime"), "{msg}");
    assert!(msg.contains("Handle::spawn"), "{msg}");
}

#[test]
fn handle_current_outside_panics_and_try_current_errs() {
    assert!(Handle::try_current().is_err());
    let msg = panic_message(std::panic::catch_unwind(Handle::current).unwrap_err());
    assert!(msg.contains("outside of a runtime"), "{msg}");
}

#[test]
fn block_on_inside_a_runtime_panics_with_advice() {
    watchdog("the refused nested block_on", || {
        for rt in [
            Builder::new_current_thread().build().unwrap(),
            Builder::new_multi_thread()
                .worker_threads(2)
                .build()
                .unwrap(),
        ] {
            let inner = Builder::new_current_thread().build().unwrap();
            let msg = rt.block_on(async {
                // Inside block_on.
                let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    inner.block_on(async {})
                }));
                panic_message(err.unwrap_err())
            });
            assert!(
                msg.contains("Cannot start a runtime from within a runtime"),
                "{msg}"
            );
            assert!(msg.contains(".await"), "{msg}");
            // Inside a task on a worker: the panic becomes the task's JoinError.
            let inner = Arc::new(inner);
            let i2 = inner.clone();
            let err = rt
                .block_on(rt.spawn(async move { i2.block_on(async {}) }))
                .unwrap_err();
            assert!(err.is_panic());
            assert!(panic_message(err.into_panic())
                .contains("Cannot start a runtime from within a runtime"));
            // The runtime is fine afterwards.
            assert_eq!(rt.block_on(rt.spawn(async { 3 })).unwrap(), 3);
        }
    })
}

#[test]
fn enter_makes_spawn_work_outside_block_on() {
    watchdog("the task spawned under enter", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let h = {
            let _g = rt.enter();
            assert_eq!(
                Handle::current().runtime_flavor(),
                RuntimeFlavor::MultiThread
            );
            runtime::spawn(async { 9 })
        };
        assert!(Handle::try_current().is_err());
        assert_eq!(rt.block_on(h).unwrap(), 9);
    })
}

#[runtime::test]
async fn macro_test_default_is_current_thread() {
    let _watchdog = abort_after("the spawned task");
    assert_eq!(
        Handle::current().runtime_flavor(),
        RuntimeFlavor::CurrentThread
    );
    assert_eq!(runtime::spawn(async { 1 }).await.unwrap(), 1);
}

#[runtime::test(flavor = "multi_thread", worker_threads = 3)]
async fn macro_test_multi_thread_with_workers() {
    let _watchdog = abort_after("the spawned task");
    let m = Handle::current().metrics();
    assert_eq!(m.num_workers(), 3);
    assert_eq!(
        Handle::current().runtime_flavor(),
        RuntimeFlavor::MultiThread
    );
}

#[runtime::test]
async fn macro_test_returning_result() -> Result<(), std::num::ParseIntError> {
    let _watchdog = abort_after("the test body");
    let n: u32 = "42".parse()?;
    assert_eq!(n, 42);
    Ok(())
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

#[test]
fn idle_runtime_does_not_spin() {
    watchdog("the idle runtime", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(rt.spawn(async { yield_now().await })).unwrap();
        // Let both workers reach the parked state (they publish metrics as they park).
        let deadline = Instant::now() + Duration::from_secs(10);
        let before = loop {
            let m = rt.metrics();
            std::thread::sleep(Duration::from_millis(50));
            let m2 = rt.metrics();
            if m.workers() == m2.workers() || Instant::now() > deadline {
                break m2;
            }
        };
        std::thread::sleep(Duration::from_millis(200));
        let after = rt.metrics();
        // Parked workers burn nothing: no polls, no wake-ups while idle.
        for (b, a) in before.workers().iter().zip(after.workers()) {
            assert_eq!(
                b.unparks(),
                a.unparks(),
                "an idle worker woke up: {before:?} -> {after:?}"
            );
            assert_eq!(b.polls(), a.polls());
        }
    })
}

#[test]
fn remote_spawns_are_served_while_workers_are_busy() {
    watchdog("the remote spawns behind busy workers", || {
        // Workers stay busy with self-respawning chains; spawns from outside must still run
        // (the global queue is visited every `global_queue_interval` ticks).
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        fn busy(stop: Arc<std::sync::atomic::AtomicBool>) {
            if !stop.load(SeqCst) {
                drop(runtime::spawn(async move { busy(stop) }));
            }
        }
        for _ in 0..4 {
            let s = stop.clone();
            drop(rt.spawn(async move { busy(s) }));
        }
        let (tx, rx) = mpsc::channel();
        for i in 0..100 {
            let tx = tx.clone();
            drop(rt.spawn(async move { tx.send(i).unwrap() }));
        }
        let mut got: Vec<i32> = (0..100)
            .map(|_| {
                rx.recv_timeout(Duration::from_secs(30))
                    .expect("remote task starved")
            })
            .collect();
        got.sort();
        assert_eq!(got, (0..100).collect::<Vec<_>>());
        stop.store(true, SeqCst);
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

#[test]
fn spawn_blocking_runs_off_the_workers_and_pool_grows() {
    watchdog("the blocking tasks", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .max_blocking_threads(4)
            .build()
            .unwrap();
        let names = rt.block_on(async {
            // Four blocking tasks that wait for each other can only finish on four threads.
            let barrier = Arc::new(std::sync::Barrier::new(4));
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    let b = barrier.clone();
                    runtime::task::spawn_blocking(move || {
                        b.wait();
                        std::thread::current().id()
                    })
                })
                .collect();
            let mut ids = Vec::new();
            for h in hs {
                ids.push(h.await.unwrap());
            }
            ids
        });
        let mut unique = names.clone();
        unique.sort_by_key(|id| format!("{id:?}"));
        unique.dedup();
        assert_eq!(unique.len(), 4);
    })
}

#[test]
fn builder_rejects_zero_workers() {
    let msg = panic_message(
        std::panic::catch_unwind(|| {
            Builder::new_multi_thread().worker_threads(0);
        })
        .unwrap_err(),
    );
    assert!(msg.contains("worker_threads must be at least 1"), "{msg}");
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

/// Polls `rt.metrics()` until `done` holds for it (workers publish on park and every
/// maintenance tick), or 10 s pass; returns the last snapshot either way.
fn metrics_when(
    rt: &Handle,
    done: impl Fn(&runtime::RuntimeMetrics) -> bool,
) -> runtime::RuntimeMetrics {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let m = rt.metrics();
        if done(&m) || Instant::now() > deadline {
            return m;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
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

/// A chain of spawns (each task spawns the next, nothing else queued) stays in the LIFO slot
/// 16 polls at a time, not 3: with no other task waiting on the worker, ending the streak
/// would only hand the chain to the ring. One worker, so no sibling can steal.
#[test]
fn spawn_chain_stays_in_the_lifo_slot_when_nothing_else_waits() {
    watchdog("the spawn chain through the LIFO slot", || {
        fn link(n: usize, done: mpsc::Sender<()>) {
            if n == 0 {
                done.send(()).unwrap();
            } else {
                drop(runtime::spawn(async move { link(n - 1, done) }));
            }
        }
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let (tx, rx) = mpsc::channel();
        let n = 1_000;
        drop(rt.spawn(async move { link(n, tx) }));
        rx.recv_timeout(Duration::from_secs(10))
            .expect("chain finished");
        let m = metrics_when(rt.handle(), |m| m.workers()[0].polls() > n as u64);
        let w = &m.workers()[0];
        assert_eq!(w.polls(), n as u64 + 1, "{m:?}");
        // The root runs from the global queue; each of the 1,000 links is a LIFO candidate, and
        // at most one in 17 goes through the ring (one in 4 with a cap of 3).
        assert!(w.lifo_hits() >= 900, "{m:?}");
    })
}

/// Two tasks ping-ponging through the LIFO slot do not starve a task waiting in the ring:
/// the streak is capped at 3 while the ring holds a task. The ping-pong would otherwise
/// run all its 10,000 exchanges before the waiting task.
#[test]
fn lifo_ping_pong_lets_a_ring_task_run() {
    watchdog("the ring task behind a LIFO ping-pong", || {
        use futures::channel::mpsc as fmpsc;
        use futures::StreamExt;
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let exchanges = Arc::new(AtomicUsize::new(0));
        let seen_by_ring_task = Arc::new(AtomicUsize::new(usize::MAX));
        let (to_a, mut rx_a) = fmpsc::unbounded::<()>();
        let (to_b, mut rx_b) = fmpsc::unbounded::<()>();
        let (done_tx, done_rx) = mpsc::channel();
        // Both tasks report in before the first message, so A's first send finds B waiting.
        let (ready_tx, ready_rx) = mpsc::channel();
        let total = 10_000;
        {
            let (ex, seen, to_b) = (exchanges.clone(), seen_by_ring_task.clone(), to_b.clone());
            let (done_tx, ready_tx) = (done_tx.clone(), ready_tx.clone());
            drop(rt.spawn(async move {
                ready_tx.send(()).unwrap();
                let mut first = true;
                while rx_a.next().await.is_some() {
                    if first {
                        first = false;
                        // Lands in the LIFO slot, then is displaced into the ring by the wake
                        // of B just below: it waits there while A and B ping-pong.
                        let (ex, seen) = (ex.clone(), seen.clone());
                        drop(runtime::spawn(async move {
                            seen.store(ex.load(SeqCst), SeqCst)
                        }));
                    }
                    if ex.fetch_add(1, SeqCst) + 1 >= total {
                        done_tx.send(()).unwrap();
                        return;
                    }
                    to_b.unbounded_send(()).unwrap();
                }
            }));
        }
        {
            let (ex, to_a) = (exchanges.clone(), to_a.clone());
            drop(rt.spawn(async move {
                ready_tx.send(()).unwrap();
                while rx_b.next().await.is_some() {
                    if ex.fetch_add(1, SeqCst) + 1 >= total {
                        done_tx.send(()).unwrap();
                        return;
                    }
                    to_a.unbounded_send(()).unwrap();
                }
            }));
        }
        for _ in 0..2 {
            ready_rx
                .recv_timeout(Duration::from_secs(10))
                .expect("task started");
        }
        to_a.unbounded_send(()).unwrap();
        done_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("ping-pong finished");
        let seen = seen_by_ring_task.load(SeqCst);
        assert!(seen <= 8, "the ring task ran only after {seen} exchanges");
        drop(to_b);
    })
}
