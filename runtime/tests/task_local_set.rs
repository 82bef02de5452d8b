//! `!Send` tasks: `task::LocalSet`, `task::spawn_local`, `LocalRuntime`, and
//! `JoinSet::spawn_local{,_on}`. Rc-holding tasks stay on their thread, wakes from other
//! threads and from the runtime's tasks reach them, nesting, drop semantics, the misuse
//! panic, and join handles of local tasks awaited from `Send` tasks.
//! Every wait is bounded by a 10 s timeout that panics with what it waited for.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use runtime::sync::oneshot;
use runtime::task::{self, JoinSet, LocalSet};
use runtime::{Builder, LocalOptions, LocalRuntime};

fn local_runtime() -> LocalRuntime {
    Builder::new_current_thread()
        .enable_all()
        .build_local(LocalOptions::default())
        .unwrap()
}

/// Counts drops, and the thread each drop ran on.
struct DropProbe {
    drops: Rc<Cell<usize>>,
    owner: std::thread::ThreadId,
}

impl Drop for DropProbe {
    fn drop(&mut self) {
        assert_eq!(
            std::thread::current().id(),
            self.owner,
            "dropped off its thread"
        );
        self.drops.set(self.drops.get() + 1);
    }
}

rt_test! {
    #[test]
    fn rc_tasks_run_on_the_owner_thread() {
        watchdog("the local tasks", || {
            let rt = rt();
            let local = LocalSet::new();
            let me = std::thread::current().id();
            let counter = Rc::new(RefCell::new(Vec::new()));
            local.block_on(&rt, async {
                within("local tasks", async {
                    let mut handles = Vec::new();
                    for i in 0..50 {
                        let counter = counter.clone();
                        handles.push(task::spawn_local(async move {
                            task::yield_now().await;
                            assert_eq!(std::thread::current().id(), me);
                            counter.borrow_mut().push(i);
                            i * 2
                        }));
                    }
                    for (i, h) in handles.into_iter().enumerate() {
                        assert_eq!(h.await.unwrap(), i * 2);
                    }
                })
                .await
            });
            assert_eq!(counter.borrow().len(), 50);
        })
    }

    #[test]
    fn remote_wakes_from_std_threads_reach_local_tasks() {
        watchdog("the local tasks woken from plain threads", || {
            let rt = rt();
            let mut local = LocalSet::new();
            let done = Rc::new(Cell::new(0));
            let mut senders = Vec::new();
            for _ in 0..64 {
                let (tx, rx) = oneshot::channel::<usize>();
                senders.push(tx);
                let done = done.clone();
                local.spawn_local(async move {
                    let v = rx.await.expect("sender kept");
                    done.set(done.get() + v);
                });
            }
            // The senders fire from a plain thread once the tasks are parked.
            let thread = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                for tx in senders {
                    tx.send(1).unwrap();
                }
            });
            // Awaiting the set itself (`&mut LocalSet` is a future too).
            rt.block_on(async {
                within("every remotely woken local task", &mut local).await;
            });
            thread.join().unwrap();
            assert_eq!(done.get(), 64);
        })
    }
}

#[test]
fn a_local_task_woken_by_a_runtime_task_runs() {
    watchdog("the local task woken by a runtime task", || {
        let rt = multi_thread(2);
        let local = LocalSet::new();
        let out = local.block_on(&rt, async {
            let (tx, rx) = oneshot::channel();
            let waiter = task::spawn_local(async move { Rc::new(rx.await.unwrap()) });
            runtime::spawn(async move {
                runtime::time::sleep(Duration::from_millis(5)).await;
                tx.send(9).unwrap();
            });
            within("the local waiter", waiter).await.unwrap()
        });
        assert_eq!(*out, 9);
    })
}

#[test]
fn nested_spawn_local() {
    watchdog("the nested local tasks", || {
        let rt = current_thread();
        let local = LocalSet::new();
        let log = Rc::new(RefCell::new(Vec::new()));
        let log2 = log.clone();
        local.block_on(&rt, async move {
            within("nested local tasks", async move {
                let log3 = log2.clone();
                task::spawn_local(async move {
                    log3.borrow_mut().push(1);
                    let log4 = log3.clone();
                    task::spawn_local(async move {
                        log4.borrow_mut().push(2);
                        let log5 = log4.clone();
                        task::spawn_local(async move { log5.borrow_mut().push(3) })
                            .await
                            .unwrap();
                    })
                    .await
                    .unwrap();
                })
                .await
                .unwrap();
            })
            .await
        });
        assert_eq!(*log.borrow(), [1, 2, 3]);
    })
}

#[test]
fn a_local_set_inside_a_local_task_keeps_its_own_tasks() {
    watchdog("the inner set's tasks", || {
        let rt = current_thread();
        let outer = LocalSet::new();
        outer.block_on(&rt, async {
            within("inner set", async {
                let inner = LocalSet::new();
                let h = inner.spawn_local(async { Rc::new(1) });
                let got = inner
                    .run_until(async {
                        // Inside `inner`: spawn_local goes to the innermost set.
                        task::spawn_local(async { 2 }).await.unwrap()
                    })
                    .await;
                assert_eq!(got, 2);
                assert_eq!(*inner.run_until(h).await.unwrap(), 1);
                // Back in `outer`.
                task::spawn_local(async { 3 }).await.unwrap()
            })
            .await
        });
    })
}

#[test]
fn awaiting_the_set_completes_when_every_task_is_done() {
    watchdog("the awaited set", || {
        let rt = current_thread();
        let local = LocalSet::new();
        let finished = Rc::new(Cell::new(0));
        for i in 0..10u64 {
            let finished = finished.clone();
            local.spawn_local(async move {
                runtime::time::sleep(Duration::from_millis(i)).await;
                // A task spawned by a task is waited for too.
                let finished2 = finished.clone();
                task::spawn_local(async move { finished2.set(finished2.get() + 1) });
                finished.set(finished.get() + 1);
            });
        }
        rt.block_on(async { within("the whole set", local).await });
        assert_eq!(finished.get(), 20);
    })
}

#[test]
fn dropping_the_set_drops_its_tasks_on_its_thread_within_its_context() {
    watchdog("the dropped set's tasks", || {
        let rt = current_thread();
        let local = LocalSet::new();
        let drops = Rc::new(Cell::new(0));
        let me = std::thread::current().id();
        let (tx, rx) = oneshot::channel::<()>();
        // Parked (bound) tasks, and one never polled (unbound).
        for _ in 0..3 {
            let probe = DropProbe {
                drops: drops.clone(),
                owner: me,
            };
            local.spawn_local(async move {
                let _probe = probe;
                std::future::pending::<()>().await;
            });
        }
        // Its destructor spawns: inside the set's context, so no panic; the spawn is refused.
        struct SpawnsOnDrop(Rc<Cell<bool>>);
        impl Drop for SpawnsOnDrop {
            fn drop(&mut self) {
                let h = task::spawn_local(async {});
                self.0.set(true);
                drop(h);
            }
        }
        let spawned_on_drop = Rc::new(Cell::new(false));
        let guard = SpawnsOnDrop(spawned_on_drop.clone());
        let blocked = local.spawn_local(async move {
            let _guard = guard;
            let _ = rx.await;
        });
        local.block_on(&rt, async {
            within("the tasks to park", async {
                for _ in 0..10 {
                    task::yield_now().await;
                }
            })
            .await
        });
        assert_eq!(drops.get(), 0);
        let never_polled = DropProbe {
            drops: drops.clone(),
            owner: me,
        };
        let unpolled = local.spawn_local(async move {
            let _p = never_polled;
        });
        drop(local);
        assert_eq!(drops.get(), 4, "every future dropped once, on its thread");
        assert!(spawned_on_drop.get());
        let err = rt.block_on(blocked).unwrap_err();
        assert!(err.is_cancelled(), "{err:?}");
        assert!(rt.block_on(unpolled).unwrap_err().is_cancelled());
        drop(tx);
    })
}

#[test]
fn spawn_local_outside_a_local_set_panics_with_what_to_use() {
    watchdog("the refused spawn_local", || {
        let rt = current_thread();
        for in_runtime in [false, true] {
            let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                if in_runtime {
                    rt.block_on(async {
                        task::spawn_local(async {});
                    });
                } else {
                    task::spawn_local(async {});
                }
            }));
            let payload = res.expect_err("spawn_local outside a LocalSet must panic");
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap();
            assert!(
                msg.contains(
                    "`spawn_local` called from outside of a `task::LocalSet` or \
                     `runtime::LocalRuntime`"
                ),
                "{msg}"
            );
            assert!(msg.contains("LocalSet::run_until"), "{msg}");
        }
    })
}

#[test]
fn a_local_join_handle_is_awaited_from_a_send_task() {
    watchdog("the local JoinHandle from a Send task", || {
        let rt = multi_thread(2);
        let local = LocalSet::new();
        let out = local.block_on(&rt, async {
            let handle = task::spawn_local(async {
                let rc = Rc::new(20);
                task::yield_now().await;
                *rc + 1
            });
            // `JoinHandle<u32>` is Send: a worker task awaits it.
            let joiner = runtime::spawn(async move { handle.await.unwrap() * 2 });
            within("the Send joiner", joiner).await.unwrap()
        });
        assert_eq!(out, 42);
    })
}

#[test]
fn a_local_task_is_aborted_from_another_thread() {
    watchdog("the local task aborted from another thread", || {
        let rt = current_thread();
        let local = LocalSet::new();
        let drops = Rc::new(Cell::new(0));
        let probe = DropProbe {
            drops: drops.clone(),
            owner: std::thread::current().id(),
        };
        let handle = local.spawn_local(async move {
            let _probe = probe;
            std::future::pending::<()>().await
        });
        let abort = handle.abort_handle();
        let err = local.block_on(&rt, async {
            task::yield_now().await; // let it park
            std::thread::spawn(move || abort.abort()).join().unwrap();
            within("the aborted task", handle).await.unwrap_err()
        });
        assert!(err.is_cancelled());
        assert_eq!(drops.get(), 1);
    })
}

#[test]
fn a_yielding_local_task_does_not_starve_run_until() {
    watchdog("run_until behind a yielding local task", || {
        let rt = current_thread();
        let local = LocalSet::new();
        let spins = Rc::new(Cell::new(0u64));
        let spins2 = spins.clone();
        local.spawn_local(async move {
            loop {
                spins2.set(spins2.get() + 1);
                task::yield_now().await;
            }
        });
        local.block_on(&rt, async {
            within("a timer beside a busy local task", async {
                runtime::time::sleep(Duration::from_millis(10)).await;
            })
            .await
        });
        assert!(spins.get() > 0);
    })
}

#[test]
fn run_until_leaves_unfinished_tasks_for_later() {
    watchdog("the unfinished local tasks", || {
        let rt = current_thread();
        let local = LocalSet::new();
        let (tx, rx) = oneshot::channel();
        let h = local.spawn_local(async move { rx.await.unwrap() + 1 });
        local.block_on(&rt, async { task::yield_now().await });
        tx.send(1).unwrap();
        assert_eq!(
            local.block_on(&rt, async { within("h", h).await.unwrap() }),
            2
        );
    })
}

#[test]
fn join_set_spawn_local_and_spawn_local_on() {
    watchdog("the JoinSet's local tasks", || {
        let rt = current_thread();
        let local = LocalSet::new();
        let mut set = JoinSet::new();
        for i in 0..5 {
            set.spawn_local_on(async move { Rc::new(i) }, &local);
        }
        let total = local.block_on(&rt, async move {
            within("the join set", async move {
                for i in 5..10 {
                    set.spawn_local(async move {
                        task::yield_now().await;
                        Rc::new(i)
                    });
                }
                let mut total = 0;
                while let Some(res) = set.join_next().await {
                    total += *res.unwrap();
                }
                total
            })
            .await
        });
        assert_eq!(total, 45);
    })
}

#[test]
fn local_runtime_runs_local_and_send_tasks() {
    watchdog("the local runtime's tasks", || {
        let rt = local_runtime();
        let rc = Rc::new(Cell::new(0));
        let early = rt.spawn_local({
            let rc = rc.clone();
            async move { rc.set(rc.get() + 1) }
        });
        let counter = Arc::new(AtomicUsize::new(0));
        let c2 = counter.clone();
        let out = rt.block_on(async {
            within("local runtime work", async {
                early.await.unwrap();
                let rc2 = rc.clone();
                task::spawn_local(async move { rc2.set(rc2.get() + 10) })
                    .await
                    .unwrap();
                // A Send task on the same runtime may spawn local tasks too.
                let from_send = rt.spawn(async move {
                    c2.fetch_add(1, SeqCst);
                    task::spawn_local(async { *Rc::new(5) }).await
                });
                from_send.await.unwrap().unwrap()
            })
            .await
        });
        assert_eq!(out, 5);
        assert_eq!(rc.get(), 11);
        assert_eq!(counter.load(SeqCst), 1);
        assert_eq!(
            rt.handle().runtime_flavor(),
            runtime::RuntimeFlavor::CurrentThread
        );
    })
}

#[test]
fn dropping_a_local_runtime_drops_its_local_tasks() {
    watchdog("the local runtime's drop", || {
        let drops = Rc::new(Cell::new(0));
        {
            let rt = local_runtime();
            let probe = DropProbe {
                drops: drops.clone(),
                owner: std::thread::current().id(),
            };
            rt.spawn_local(async move {
                let _probe = probe;
                runtime::time::sleep(Duration::from_secs(3600)).await;
            });
            rt.block_on(task::yield_now());
            assert_eq!(drops.get(), 0);
        }
        assert_eq!(drops.get(), 1);
    })
}

#[test]
#[should_panic(expected = "`build_local` needs a current-thread builder")]
fn build_local_on_a_multi_thread_builder_panics() {
    let _ = Builder::new_multi_thread().build_local(LocalOptions::default());
}

#[runtime::test(flavor = "local")]
async fn the_local_test_flavor_allows_spawn_local() {
    let _watchdog = abort_after("the local task");
    let rc = Rc::new(3);
    let rc2 = rc.clone();
    let got = within(
        "spawn_local in a local test",
        task::spawn_local(async move { *rc2 }),
    )
    .await
    .unwrap();
    assert_eq!(got, *rc);
}

#[test]
fn enter_makes_spawn_local_target_the_set() {
    watchdog("the local task spawned under enter", || {
        let rt = current_thread();
        let local = LocalSet::new();
        let handle = {
            let _guard = local.enter();
            task::spawn_local(async { Rc::new(8) })
        };
        // Outside the guard again.
        assert!(std::panic::catch_unwind(|| task::spawn_local(async {})).is_err());
        let got = local.block_on(&rt, async { within("the entered spawn", handle).await });
        assert_eq!(*got.unwrap(), 8);
    })
}

#[test]
fn local_runtime_shutdown_timeout_drops_local_tasks_on_its_thread() {
    watchdog("the local runtime's shutdown_timeout", || {
        let drops = Rc::new(Cell::new(0));
        let rt = local_runtime();
        let probe = DropProbe {
            drops: drops.clone(),
            owner: std::thread::current().id(),
        };
        rt.spawn_local(async move {
            let _probe = probe;
            std::future::pending::<()>().await;
        });
        rt.block_on(task::yield_now());
        rt.shutdown_timeout(Duration::from_secs(5));
        assert_eq!(drops.get(), 1);
    })
}

/// As tokio's: with a `LocalRuntime` only entered (its `enter()` or its handle's), not in
/// `block_on`, `spawn_local` queues the task on it; it runs at the next `block_on`. On
/// another thread, entering its handle and calling `spawn_local` panics with tokio's words.
#[test]
fn spawn_local_under_a_local_runtimes_enter_guard() {
    watchdog("the task spawned under the enter guard", || {
        let rt = local_runtime();
        let (tx, rx) = oneshot::channel();
        let rc = Rc::new(5);
        {
            let _guard = rt.enter();
            let rc = rc.clone();
            task::spawn_local(async move {
                task::yield_now().await;
                tx.send(*rc).unwrap();
            });
        }
        {
            let _guard = rt.handle().enter();
            drop(task::spawn_local(async {}));
        }
        assert_eq!(rt.block_on(rx).unwrap(), 5);

        let handle = rt.handle().clone();
        let msg = std::thread::spawn(move || {
            let _guard = handle.enter();
            let payload = std::panic::catch_unwind(|| drop(task::spawn_local(async {})))
                .expect_err("spawn_local on another thread than the LocalRuntime's");
            payload.downcast_ref::<String>().cloned().unwrap()
        })
        .join()
        .unwrap();
        assert!(
            msg.contains(
                "Local tasks can only be spawned on a LocalRuntime from the thread the \
                 runtime was created on"
            ),
            "{msg}"
        );
        // A plain current-thread runtime entered is still no place for `spawn_local`.
        let plain = current_thread();
        let _guard = plain.enter();
        let res = std::panic::catch_unwind(|| drop(task::spawn_local(async {})));
        assert!(res.is_err());
    })
}
