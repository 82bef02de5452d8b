//! Behaviour every flavor must have: the same tests run on the current-thread runtime and
//! on multi-thread runtimes with 1 and 4 workers.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use runtime::task::{self, yield_now, JoinError};
use runtime::Builder;

/// A future that counts its drops and stays pending until `flag` is set and it is woken.
struct Pending {
    drops: Arc<AtomicUsize>,
    waker: Arc<Mutex<Option<Waker>>>,
}

impl Future for Pending {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        *self.waker.lock().unwrap() = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.drops.fetch_add(1, SeqCst);
    }
}

rt_test! {
    flavors {
        current_thread => support::current_thread();
        multi_thread_1 => support::multi_thread(1);
        multi_thread_4 => support::multi_thread(4);
        multi_thread_2_no_lifo => runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .disable_lifo_slot()
            .global_queue_interval(7)
            .build()
            .unwrap();
    }

    #[test]
    fn spawn_from_outside_and_join() {
        watchdog("the spawned task's JoinHandle", || {
            let rt = rt();
            let h = rt.spawn(async { 40 + 2 });
            assert_eq!(rt.block_on(h).unwrap(), 42);
        })
    }

    #[test]
    fn spawn_from_inside_and_join() {
        watchdog("the nested spawned tasks", || {
            let rt = rt();
            let v = rt.block_on(async {
                let h = runtime::spawn(async {
                    let inner = runtime::spawn(async { 20 });
                    inner.await.unwrap() + 1
                });
                h.await.unwrap() * 2
            });
            assert_eq!(v, 42);
        })
    }

    #[test]
    fn hundred_thousand_tasks_complete() {
        watchdog("100,000 spawned tasks", || {
            let rt = rt();
            let done = Arc::new(AtomicUsize::new(0));
            let handles: Vec<_> = (0..100_000usize)
                .map(|i| {
                    let done = done.clone();
                    rt.spawn(async move {
                        done.fetch_add(1, SeqCst);
                        i
                    })
                })
                .collect();
            let sum = rt.block_on(async move {
                let mut sum = 0usize;
                for h in handles {
                    sum += h.await.unwrap();
                }
                sum
            });
            assert_eq!(done.load(SeqCst), 100_000);
            assert_eq!(sum, (0..100_000usize).sum::<usize>());
        })
    }

    #[test]
    fn chained_spawn_completes() {
        watchdog("the end of a chain of 1000 spawns", || {
            fn chain(n: usize, tx: mpsc::Sender<usize>) {
                if n == 0 {
                    tx.send(0).unwrap();
                } else {
                    drop(runtime::spawn(async move { chain(n - 1, tx) }));
                }
            }
            let rt = rt();
            let (tx, rx) = mpsc::channel();
            drop(rt.spawn(async move { chain(1000, tx) }));
            rt.block_on(async {
                // Drive the current-thread flavor until the chain ends.
                loop {
                    if rx.try_recv().is_ok() {
                        break;
                    }
                    yield_now().await;
                }
            });
        })
    }

    #[test]
    fn panic_becomes_join_error_and_runtime_lives_on() {
        watchdog("the panicking task's JoinError", || {
            let rt = rt();
            let line = line!() + 1;
            let h = rt.spawn(async {
                panic!("boom");
            });
            let id = h.id();
            let err = rt.block_on(h).unwrap_err();
            assert!(err.is_panic());
            assert!(!err.is_cancelled());
            assert_eq!(err.id(), id);
            assert_eq!(
                err.to_string(),
                format!(
                    "task {id} (spawned at {}:{line}:24) panicked with message \"boom\"",
                    file!()
                )
            );
            assert_eq!(
                format!("{err:?}"),
                format!("JoinError::Panic(Id({id}), \"boom\", ...)")
            );
            let payload = err.into_panic();
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom"));
            // The worker survived: more tasks run.
            for i in 0..10 {
                assert_eq!(rt.block_on(rt.spawn(async move { i })).unwrap(), i);
            }
        })
    }

    #[test]
    fn abort_cancels_a_pending_task() {
        watchdog("the aborted task's JoinError", || {
            let rt = rt();
            let drops = Arc::new(AtomicUsize::new(0));
            let waker = Arc::new(Mutex::new(None));
            let h = rt.spawn(Pending {
                drops: drops.clone(),
                waker: waker.clone(),
            });
            rt.block_on(async {
                // Let it be polled once.
                while waker.lock().unwrap().is_none() {
                    yield_now().await;
                }
            });
            assert!(!h.is_finished());
            h.abort();
            let err: JoinError = rt.block_on(h).unwrap_err();
            assert!(err.is_cancelled());
            assert_eq!(drops.load(SeqCst), 1);
            // A wake after cancellation is harmless.
            waker.lock().unwrap().take().unwrap().wake();
            assert_eq!(drops.load(SeqCst), 1);
        })
    }

    #[test]
    fn abort_handle_and_abort_after_completion() {
        watchdog("the aborted and completed tasks", || {
            let rt = rt();
            let h = rt.spawn(async { 7 });
            let ah = h.abort_handle();
            let v = rt.block_on(h).unwrap();
            assert_eq!(v, 7);
            assert!(ah.is_finished());
            ah.abort(); // no effect after completion
        })
    }

    #[test]
    fn yield_now_lets_others_run_first() {
        watchdog("the yielding tasks", || {
            let rt = rt();
            let single = rt.metrics().num_workers() == 1;
            let log = Arc::new(Mutex::new(Vec::new()));
            let l = log.clone();
            rt.block_on(async move {
                let l2 = l.clone();
                let h = runtime::spawn(async move {
                    let l3 = l2.clone();
                    l2.lock().unwrap().push("a1");
                    let b = runtime::spawn(async move {
                        l3.lock().unwrap().push("b");
                    });
                    yield_now().await;
                    l2.lock().unwrap().push("a2");
                    b.await.unwrap();
                });
                h.await.unwrap();
            });
            let log = log.lock().unwrap().clone();
            if single {
                // One thread runs both: the yielder resumes only after b ran.
                assert_eq!(log, vec!["a1", "b", "a2"]);
            } else {
                assert_eq!(log.len(), 3);
                assert_eq!(log[0], "a1");
            }
        })
    }

    #[test]
    fn yielding_loop_does_not_starve_a_spawned_task() {
        watchdog("the spawned task behind a yielding loop", || {
            let rt = rt();
            let spins = rt
                .block_on(rt.spawn(async {
                    let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
                    let f = flag.clone();
                    // b lands in this worker's LIFO slot; a keeps yielding until b ran.
                    let _b = runtime::spawn(async move { f.store(true, SeqCst) });
                    let mut spins = 0u64;
                    while !flag.load(SeqCst) {
                        yield_now().await;
                        spins += 1;
                    }
                    spins
                }))
                .unwrap();
            if rt.metrics().num_workers() == 1 {
                assert_eq!(spins, 1, "b must run at the first yield");
            }
        })
    }

    #[test]
    fn task_woken_from_foreign_thread() {
        watchdog("the task woken from a plain thread", || {
            let rt = rt();
            let (tx, rx) = futures::channel::oneshot::channel::<u32>();
            let h = rt.spawn(async move { rx.await.unwrap() + 1 });
            let t = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                tx.send(41).unwrap();
            });
            assert_eq!(rt.block_on(h).unwrap(), 42);
            t.join().unwrap();
        })
    }

    #[test]
    fn many_foreign_wakes() {
        watchdog("the tasks woken from plain threads", || {
            let rt = rt();
            let n = 200;
            let mut senders = Vec::new();
            let mut handles = Vec::new();
            for i in 0..n {
                let (tx, rx) = futures::channel::oneshot::channel::<usize>();
                senders.push(tx);
                handles.push(rt.spawn(async move { rx.await.unwrap() * 2 + i - i }));
            }
            let t = std::thread::spawn(move || {
                for (i, tx) in senders.into_iter().enumerate() {
                    tx.send(i).unwrap();
                }
            });
            let total = rt.block_on(async move {
                let mut total = 0;
                for h in handles {
                    total += h.await.unwrap();
                }
                total
            });
            t.join().unwrap();
            assert_eq!(total, (0..n).map(|i| i * 2).sum::<usize>());
        })
    }

    #[test]
    fn shutdown_drops_every_pending_future_once() {
        watchdog("the runtime's shutdown", || {
            let drops = Arc::new(AtomicUsize::new(0));
            let wakers = Arc::new(Mutex::new(Vec::new()));
            let handles;
            {
                let rt = rt();
                handles = (0..1000)
                    .map(|_| {
                        let w = Arc::new(Mutex::new(None));
                        wakers.lock().unwrap().push(w.clone());
                        rt.spawn(Pending {
                            drops: drops.clone(),
                            waker: w,
                        })
                    })
                    .collect::<Vec<_>>();
                // Some never-polled tasks too.
                let never: Vec<_> = (0..100)
                    .map(|_| {
                        let d = CountDrop(drops.clone());
                        rt.spawn(async move {
                            let _d = d;
                            std::future::pending::<()>().await
                        })
                    })
                    .collect();
                drop(never);
                rt.block_on(async { yield_now().await });
            }
            assert_eq!(drops.load(SeqCst), 1100);
            // JoinHandles awaited after shutdown: cancelled.
            let rt2 = Builder::new_current_thread().build().unwrap();
            for h in handles {
                let err = rt2.block_on(h).unwrap_err();
                assert!(err.is_cancelled(), "{err:?}");
            }
            // Wakers outliving the runtime: waking them does nothing harmful.
            for w in wakers.lock().unwrap().iter() {
                if let Some(w) = w.lock().unwrap().take() {
                    w.wake_by_ref();
                    w.wake();
                }
            }
            assert_eq!(drops.load(SeqCst), 1100);
        })
    }

    #[test]
    fn spawn_after_shutdown_via_handle_is_cancelled() {
        watchdog("the JoinHandle of a spawn after shutdown", || {
            let rt = rt();
            let handle = rt.handle().clone();
            drop(rt);
            let drops = Arc::new(AtomicUsize::new(0));
            let d = CountDrop(drops.clone());
            let h = handle.spawn(async move {
                let _d = d;
                1
            });
            assert_eq!(drops.load(SeqCst), 1);
            let rt2 = Builder::new_current_thread().build().unwrap();
            assert!(rt2.block_on(h).unwrap_err().is_cancelled());
        })
    }

    #[test]
    fn output_dropped_when_join_handle_dropped() {
        watchdog("the task whose JoinHandle was dropped", || {
            let rt = rt();
            let drops = Arc::new(AtomicUsize::new(0));
            let d = drops.clone();
            let (tx, rx) = mpsc::channel();
            drop(rt.spawn(async move {
                tx.send(()).unwrap();
                CountDrop(d)
            }));
            rt.block_on(async {
                while rx.try_recv().is_err() {
                    yield_now().await;
                }
            });
            drop(rt);
            assert_eq!(drops.load(SeqCst), 1);
        })
    }

    #[test]
    fn handle_current_and_spawn_blocking() {
        watchdog("the spawn_blocking result", || {
            let rt = rt();
            let v = rt.block_on(async {
                let h = runtime::Handle::current();
                let j = h.spawn(async { 5 });
                let b = task::spawn_blocking(|| std::thread::current().name().map(str::to_owned));
                let name = b.await.unwrap();
                assert_eq!(name.as_deref(), Some("runtime-worker"));
                j.await.unwrap()
            });
            assert_eq!(v, 5);
        })
    }

    #[test]
    fn spawn_blocking_panic_is_join_error() {
        watchdog("the panicking blocking task's JoinError", || {
            let rt = rt();
            let err = rt
                .block_on(rt.spawn_blocking(|| panic!("blocking boom")))
                .unwrap_err();
            assert!(err.is_panic());
        })
    }
}
