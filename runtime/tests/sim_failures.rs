//! A deterministic run that cannot finish says so: a deadlock (nothing runnable, nothing
//! due) and a livelock (one task polled 10^6 times at one virtual instant) panic with the
//! seed and the task; a blocking closure that waits on a task is reported by its spawn
//! location within a second of wall time. Blocking closures run at deterministic points.
//!
//! Each run is bounded by the watchdog: none of these may hang.
#![cfg(all(feature = "deterministic", not(loom)))]

#[macro_use]
mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use runtime::Builder;
use support::*;

fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn deadlock_panics_with_the_seed_and_a_dump() {
    let text = watchdog("a deadlocked run", || {
        let r = std::panic::catch_unwind(|| {
            let rt = sim(1234);
            rt.block_on(async {
                let (_tx, rx) = runtime::sync::oneshot::channel::<()>();
                let stuck = runtime::task::Builder::new()
                    .name("waits-forever")
                    .spawn(async move {
                        let _ = rx.await;
                    })
                    .unwrap();
                // The sender is held here, never dropped: nothing can ever run again.
                let _keep = _tx;
                stuck.await.unwrap();
            });
        });
        panic_text(r.expect_err("a deadlocked run returned"))
    });
    assert!(text.contains("deadlock"), "{text}");
    assert!(text.contains("seed 1234"), "{text}");
    assert!(text.contains("algorithm version"), "{text}");
    assert!(
        text.contains("waits-forever"),
        "the dump names the stuck task: {text}"
    );
}

#[test]
fn livelock_panics_naming_the_task() {
    let text = watchdog("a livelocked run", || {
        let r = std::panic::catch_unwind(|| {
            let rt = sim(99);
            rt.block_on(async {
                let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
                runtime::task::Builder::new()
                    .name("spinner")
                    .spawn({
                        let flag = flag.clone();
                        async move {
                            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                                runtime::task::yield_now().await;
                            }
                        }
                    })
                    .unwrap()
                    .await
                    .unwrap();
            });
        });
        panic_text(r.expect_err("a livelocked run returned"))
    });
    assert!(text.contains("livelock"), "{text}");
    assert!(text.contains("spinner"), "{text}");
    assert!(text.contains("seed 99"), "{text}");
}

#[test]
fn blocking_closure_waiting_on_a_task_is_reported() {
    let text = watchdog("a blocking closure that waits on a task", || {
        let r = std::panic::catch_unwind(|| {
            let rt = sim(5);
            rt.block_on(async {
                let (tx, mut rx) = runtime::sync::mpsc::channel::<u32>(1);
                let feeder = runtime::spawn(async move {
                    runtime::time::sleep(Duration::from_millis(1)).await;
                    tx.send(1).await.unwrap();
                });
                let b = runtime::task::spawn_blocking(move || rx.blocking_recv());
                let _ = b.await;
                let _ = feeder.await;
            });
        });
        panic_text(r.expect_err("a stuck blocking closure returned"))
    });
    assert!(text.contains("blocking closure"), "{text}");
    assert!(
        text.contains("sim_failures.rs"),
        "the report names the spawn location: {text}"
    );
    assert!(text.contains("seed 5"), "{text}");
}

#[test]
fn spawn_blocking_replays() {
    watchdog("blocking closures at deterministic points", || {
        let run = |seed| {
            let rt = sim(seed);
            let log = Arc::new(Mutex::new(Vec::new()));
            rt.block_on({
                let log = log.clone();
                async move {
                    let mut hs = Vec::new();
                    for i in 0..6u32 {
                        let log = log.clone();
                        hs.push(runtime::spawn(async move {
                            let l2 = log.clone();
                            let v = runtime::task::spawn_blocking(move || {
                                l2.lock().unwrap().push(1000 + i);
                                i * 2
                            })
                            .await
                            .unwrap();
                            log.lock().unwrap().push(v);
                        }));
                    }
                    for h in hs {
                        h.await.unwrap();
                    }
                    let path =
                        std::env::temp_dir().join(format!("sim-fs-{}-{seed}", std::process::id()));
                    runtime::fs::write(&path, b"sim").await.unwrap();
                    let back = runtime::fs::read(&path).await.unwrap();
                    runtime::fs::remove_file(&path).await.unwrap();
                    assert_eq!(back, b"sim");
                }
            });
            let v = log.lock().unwrap().clone();
            (v, rt.trace_hash())
        };
        let mut distinct = std::collections::HashSet::new();
        for seed in 0..20 {
            let a = run(seed);
            assert_eq!(a.0.len(), 12);
            assert_eq!(a, run(seed), "seed {seed} ran two ways");
            distinct.insert(a.0);
        }
        assert!(
            distinct.len() > 1,
            "blocking closures ran in one order for 20 seeds"
        );
    });
}

#[test]
fn block_in_place_runs_inline() {
    watchdog("block_in_place in a deterministic run", || {
        let rt = sim(8);
        let v = rt.block_on(async {
            runtime::spawn(async { runtime::task::block_in_place(|| 41) + 1 })
                .await
                .unwrap()
        });
        assert_eq!(v, 42);
    });
}

#[test]
fn a_panicking_task_is_reported_to_its_join_handle() {
    watchdog("a panicking task", || {
        let rt = sim(3);
        let err =
            rt.block_on(async { runtime::spawn(async { panic!("boom") }).await.unwrap_err() });
        assert!(err.is_panic());
    });
}

#[test]
fn a_current_thread_deterministic_runtime_is_that_flavor() {
    watchdog(
        "the flavor of a current-thread deterministic runtime",
        || {
            let rt = Builder::new_current_thread()
                .enable_all()
                .deterministic(1)
                .build()
                .unwrap();
            assert_eq!(
                rt.handle().runtime_flavor(),
                runtime::RuntimeFlavor::CurrentThread
            );
            let err = rt.block_on(async {
                runtime::spawn(async { runtime::task::block_in_place(|| 1) })
                    .await
                    .unwrap_err()
            });
            let text = panic_text(err.into_panic());
            assert!(
                text.contains("can call blocking only when running on the multi-threaded runtime"),
                "{text}"
            );
            let mt = sim(1);
            assert_eq!(
                mt.handle().runtime_flavor(),
                runtime::RuntimeFlavor::MultiThread
            );
        },
    );
}

#[test]
fn handle_block_on_outside_the_stepper_panics() {
    let text = watchdog("Handle::block_on on a deterministic runtime", || {
        let rt = sim(2);
        let handle = rt.handle().clone();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            handle.block_on(async { runtime::spawn(async { 1 }).await.unwrap() })
        }));
        panic_text(r.expect_err("Handle::block_on returned"))
    });
    assert!(
        text.contains("Handle::block_on` on a deterministic runtime"),
        "{text}"
    );
    assert!(text.contains("Runtime::block_on"), "{text}");
}

/// Every way to shut a deterministic runtime down ends: its tasks are stepped to their
/// shutdown and dropped, its queued blocking closures run.
#[test]
fn every_shutdown_ends() {
    watchdog("the shutdowns of a deterministic runtime", || {
        for how in 0..3 {
            let rt = sim(4);
            let dropped = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            struct Count(Arc<std::sync::atomic::AtomicUsize>);
            impl Drop for Count {
                fn drop(&mut self) {
                    self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            }
            let ran = Arc::new(std::sync::atomic::AtomicBool::new(false));
            rt.block_on(async {
                for _ in 0..16 {
                    let c = Count(dropped.clone());
                    runtime::spawn(async move {
                        let _c = c;
                        std::future::pending::<()>().await
                    });
                }
                let ran = ran.clone();
                drop(runtime::task::spawn_blocking(move || {
                    ran.store(true, std::sync::atomic::Ordering::SeqCst)
                }));
            });
            match how {
                0 => drop(rt),
                1 => rt.shutdown_timeout(Duration::from_secs(1)),
                _ => rt.shutdown_background(),
            }
            assert_eq!(
                dropped.load(std::sync::atomic::Ordering::SeqCst),
                16,
                "shutdown {how}"
            );
            assert!(
                ran.load(std::sync::atomic::Ordering::SeqCst),
                "shutdown {how}: the blocking closure"
            );
        }
    });
}
