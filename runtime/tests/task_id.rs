//! Task ids: `task::id()`/`try_id()` inside and outside tasks, `JoinHandle::id`,
//! `AbortHandle::id`, uniqueness across threads, and `JoinError` naming the task.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::collections::HashSet;

use runtime::task;

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
