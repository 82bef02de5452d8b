//! A task's identity: `task::Builder` names, spawn locations recorded by every spawn
//! function, and the reports that show them (`JoinError`, the unhandled-panic message).
//! Task ids: `task::id()`/`try_id()` inside and outside tasks, `JoinHandle::id`,
//! `AbortHandle::id`, uniqueness across threads, and `JoinError` naming the task.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::collections::HashSet;
use std::panic::Location;

use runtime::task::{self, JoinSet, LocalSet};
use runtime::{Builder, UnhandledPanic};

fn multi() -> runtime::Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

/// Asserts that `meta`'s task was spawned in this file, between lines `lo` and `hi`
/// (the `line!()`s of the statements around the spawn), and returns its location.
fn spawned_between(meta: &task::TaskMeta, lo: u32, hi: u32) -> &'static Location<'static> {
    let loc = meta.spawned_at().expect("a spawn records its caller");
    assert_eq!(loc.file(), file!());
    assert!(
        lo < loc.line() && loc.line() < hi,
        "spawned at {loc}, not between lines {lo} and {hi}"
    );
    loc
}

#[test]
fn builder_names_a_task_and_records_where_it_was_spawned() {
    watchdog("a named task", || {
        let rt = multi();
        rt.block_on(async {
            let lo = line!();
            let join = task::Builder::new()
                .name("conn")
                .spawn(async { 5 })
                .unwrap();
            let meta = join.meta();
            assert_eq!(meta.name(), Some("conn"));
            let hi = line!();
            let loc = spawned_between(&meta, lo, hi);
            assert_eq!(meta.id(), join.id());
            assert_eq!(
                meta.to_string(),
                format!("task 'conn' (id {}, spawned at {loc})", join.id())
            );
            assert_eq!(join.await.unwrap(), 5);
        });
    })
}

#[test]
fn every_spawn_function_records_its_caller() {
    watchdog("spawns from every entry point", || {
        let rt = multi();
        let lo = line!();
        let a = rt.spawn(async {});
        let hi = line!();
        spawned_between(&a.meta(), lo, hi);
        let lo = line!();
        let b = rt.handle().spawn(async {});
        let hi = line!();
        spawned_between(&b.meta(), lo, hi);
        let lo = line!();
        let c = rt.spawn_blocking(|| ());
        let hi = line!();
        spawned_between(&c.meta(), lo, hi);
        rt.block_on(async move {
            let lo = line!();
            let d = task::spawn(async {});
            let hi = line!();
            spawned_between(&d.meta(), lo, hi);
            let lo = line!();
            let e = task::spawn_blocking(|| ());
            let hi = line!();
            spawned_between(&e.meta(), lo, hi);
            let mut set = JoinSet::new();
            let lo = line!();
            let f = set.spawn(async {});
            let hi = line!();
            spawned_between(&f.meta(), lo, hi);
            let lo = line!();
            let abort = task::Builder::new().spawn(async {}).unwrap().abort_handle();
            let hi = line!();
            spawned_between(&abort.meta(), lo, hi);
            for j in [a, b, c, d, e] {
                j.await.unwrap();
            }
            set.join_all().await;
        });
        let local = LocalSet::new();
        let lo = line!();
        let g = local.spawn_local(async {});
        let hi = line!();
        spawned_between(&g.meta(), lo, hi);
        local.block_on(&rt, async move {
            let lo = line!();
            let h = task::spawn_local(async {});
            let hi = line!();
            spawned_between(&h.meta(), lo, hi);
            let lo = line!();
            let i = task::Builder::new()
                .name("local")
                .spawn_local(async {})
                .unwrap();
            let hi = line!();
            spawned_between(&i.meta(), lo, hi);
            assert_eq!(i.meta().name(), Some("local"));
            h.await.unwrap();
            i.await.unwrap();
            g.await.unwrap();
        });
    })
}

#[test]
fn a_named_tasks_panic_names_it() {
    watchdog("a named task's panic", || {
        let rt = multi();
        let lo = line!();
        let join = task::Builder::new()
            .name("conn")
            .spawn_on(async { panic!("boom") }, rt.handle())
            .unwrap();
        let loc = spawned_between(&join.meta(), lo, line!());
        let id = join.id();
        let err = rt.block_on(join).unwrap_err();
        assert_eq!(err.meta().name(), Some("conn"));
        let task = format!("task 'conn' (id {id}, spawned at {loc})");
        assert_eq!(
            err.to_string(),
            format!("{task} panicked with message \"boom\"")
        );
        assert_eq!(
            format!("{err:?}"),
            format!("JoinError::Panic({task}, \"boom\", ...)")
        );
    })
}

#[test]
fn a_named_blocking_closure_keeps_its_name_after_it_is_gone() {
    watchdog("a named blocking closure", || {
        let rt = multi();
        let join = task::Builder::new()
            .name("dns-lookup")
            .spawn_blocking_on(|| 1, rt.handle())
            .unwrap();
        let meta = join.meta();
        assert_eq!(rt.block_on(join).unwrap(), 1);
        drop(rt);
        assert_eq!(meta.name(), Some("dns-lookup"));
        assert!(
            meta.to_string().starts_with("task 'dns-lookup' (id "),
            "{meta}"
        );
    })
}

#[test]
fn the_unhandled_panic_message_names_the_task() {
    watchdog("the runtime shut down by a named task's panic", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .unhandled_panic(UnhandledPanic::ShutdownRuntime)
            .build()
            .unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            rt.block_on(async {
                let _ = task::Builder::new()
                    .name("worker-7")
                    .spawn(async { panic!("boom") })
                    .unwrap()
                    .await;
                std::future::pending::<()>().await
            })
        }));
        let payload = r.expect_err("block_on panics once a task panicked");
        let msg = payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(
            msg.contains("task 'worker-7' (id ") && msg.contains("panicked with message \"boom\""),
            "{msg}"
        );
    })
}

#[test]
fn builder_outside_a_runtime_is_an_error_not_a_panic() {
    let err = task::Builder::new().name("x").spawn(async {}).unwrap_err();
    assert!(err.to_string().contains("runtime"), "{err}");
    let err = task::Builder::new().spawn_blocking(|| ()).unwrap_err();
    assert!(err.to_string().contains("runtime"), "{err}");
    let err = task::Builder::new().spawn_local(async {}).unwrap_err();
    assert!(err.to_string().contains("LocalSet"), "{err}");
}

#[test]
fn ids_stay_unique_across_named_unnamed_and_read_orders() {
    watchdog("ids of many tasks", || {
        let rt = multi();
        rt.block_on(async {
            let mut seen = std::collections::HashSet::new();
            let mut joins = Vec::new();
            for i in 0..200 {
                let j = if i % 3 == 0 {
                    task::Builder::new()
                        .name("n")
                        .spawn(async { task::try_id() })
                        .unwrap()
                } else {
                    task::spawn(async { task::try_id() })
                };
                joins.push(j);
            }
            for j in joins {
                let id = j.id();
                assert!(seen.insert(id), "duplicate id {id}");
                assert_eq!(j.await.unwrap(), Some(id));
            }
        });
    })
}

rt_test! {
    flavors {
        current_thread => support::current_thread();
        multi_thread => support::multi_thread(4);
    }

    #[test]
    fn ids_match_inside_and_out() {
        watchdog("the 100 tasks' ids", || {
            let rt = rt();
            rt.block_on(async {
                assert_eq!(task::try_id(), None, "block_on's future is no task");
                let mut handles = Vec::new();
                for _ in 0..100 {
                    handles.push(runtime::spawn(async {
                        let before = task::id();
                        task::yield_now().await;
                        assert_eq!(task::try_id(), Some(before));
                        before
                    }));
                }
                let mut seen = HashSet::new();
                for h in handles {
                    let id = h.id();
                    assert_eq!(h.abort_handle().id(), id);
                    assert_eq!(h.await.unwrap(), id);
                    assert!(seen.insert(id), "duplicate id {id}");
                }
                let blocking = runtime::task::spawn_blocking(task::try_id);
                let id = blocking.id();
                assert_eq!(blocking.await.unwrap(), Some(id));
            });
        })
    }

    /// As tokio's: a task's output dropped by the runtime (its `JoinHandle` dropped before
    /// completion) or by its `JoinHandle` (dropped after) sees its own task as current.
    #[test]
    fn an_outputs_destructor_sees_its_own_task_id() {
        struct Output(Option<runtime::sync::oneshot::Sender<Option<task::Id>>>);
        impl Drop for Output {
            fn drop(&mut self) {
                let _ = self.0.take().unwrap().send(task::try_id());
            }
        }
        watchdog("the outputs' destructors", || {
            let rt = rt();
            // Dropped before completion: the runtime drops the output.
            let (tx, rx) = runtime::sync::oneshot::channel();
            let h = rt.spawn(async move { Output(Some(tx)) });
            let id = h.id();
            drop(h);
            assert_eq!(rt.block_on(rx).unwrap(), Some(id));
            // Dropped after completion: the handle drops it, outside any task.
            let (tx, mut rx) = runtime::sync::oneshot::channel();
            let h = rt.spawn(async move { Output(Some(tx)) });
            let id = h.id();
            while !h.is_finished() {
                std::thread::yield_now();
                rt.block_on(task::yield_now());
            }
            assert!(rx.try_recv().is_err(), "not dropped while the handle holds it");
            drop(h);
            assert_eq!(rx.try_recv().unwrap(), Some(id));
            assert_eq!(task::try_id(), None, "the id was current only for the drop");
        })
    }

    #[test]
    fn cancelled_join_error_names_the_task() {
        watchdog("the aborted task's JoinError", || {
            let rt = rt();
            let line = line!() + 1;
            let h = rt.spawn(std::future::pending::<()>());
            let id = h.id();
            h.abort();
            let err = rt.block_on(h).unwrap_err();
            assert!(err.is_cancelled());
            assert_eq!(err.id(), id);
            assert_eq!(
                err.to_string(),
                format!("task {id} (spawned at {}:{line}:24) was cancelled", file!())
            );
            assert_eq!(
                format!("{err:?}"),
                format!("JoinError::Cancelled(Id({id}))")
            );
            let err = err.try_into_panic().unwrap_err();
            assert!(!err.is_panic());
        })
    }
}

#[test]
#[should_panic(expected = "outside of a task")]
fn id_outside_a_task_panics() {
    task::id();
}

/// A task's id is assigned at its first use; readers racing to be first all get the same
/// one, and it never changes after.
#[test]
fn first_readers_racing_agree_on_the_id() {
    let rt = runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    for _ in 0..50 {
        let join = rt.spawn(std::future::pending::<()>());
        let abort = join.abort_handle();
        let ids: Vec<_> = (0..4)
            .map(|_| {
                let abort = abort.clone();
                std::thread::spawn(move || abort.id())
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect();
        assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
        assert_eq!(join.id(), ids[0]);
        join.abort();
    }
}
