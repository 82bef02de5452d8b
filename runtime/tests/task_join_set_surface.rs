//! The rest of tokio's stable `JoinSet` surface on both flavors: `Default`,
//! `poll_join_next` / `poll_join_next_with_id` (ids matching the spawns, `Ready(None)`
//! once empty), `spawn_local_on` and `spawn_blocking_on`.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::collections::HashMap;
use std::future::poll_fn;
use std::task::Poll;

use runtime::task::{JoinSet, LocalSet};
use support::*;

rt_test! {
    #[test]
    fn poll_join_next_with_id_reports_each_task_once_with_its_id() {
        watchdog("the polled joins", || {
            on(&rt(), || async {
                let mut set: JoinSet<u32> = JoinSet::default();
                let mut ids = HashMap::new();
                for i in 0..8 {
                    let id = set.spawn(async move { i * 10 }).id();
                    ids.insert(id, i * 10);
                }
                let h = runtime::runtime::Handle::current();
                let id = set.spawn_blocking_on(|| 99, &h).id();
                ids.insert(id, 99);
                while !set.is_empty() {
                    let (id, v) = within("a join", poll_fn(|cx| set.poll_join_next_with_id(cx)))
                        .await
                        .expect("a task is left")
                        .unwrap();
                    assert_eq!(ids.remove(&id), Some(v), "the id names the task that ran");
                }
                assert!(ids.is_empty());
                let end = poll_fn(|cx| Poll::Ready(set.poll_join_next(cx))).await;
                assert!(matches!(end, Poll::Ready(None)), "an empty set is ready with None");
            });
        });
    }
}

#[test]
fn spawn_local_on_runs_in_the_given_local_set() {
    watchdog("the local join", || {
        let rt = current_thread();
        let local = LocalSet::new();
        let mut set = JoinSet::new();
        let rc = std::rc::Rc::new(5);
        let moved = rc.clone();
        set.spawn_local_on(async move { *moved + 1 }, &local);
        let out = local.block_on(&rt, async {
            within("the local task", set.join_next()).await
        });
        assert_eq!(out.unwrap().unwrap(), 6);
        assert_eq!(
            std::rc::Rc::strong_count(&rc),
            1,
            "the task's capture was dropped"
        );
    });
}
