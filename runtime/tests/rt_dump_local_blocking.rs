//! `Handle::dump` beyond the runtime's own tasks: the `spawn_local` tasks of a `LocalSet`
//! (or `LocalRuntime`) it drives, with their waits, and the blocking pool's closures,
//! running (with how long) or queued.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::sync::{mpsc as std_mpsc, Arc};
use std::time::Duration;

use runtime::dump::{Dump, TaskState, WaitsOn};
use runtime::sync::Notify;
use runtime::task::{Id, LocalSet};
use runtime::{Handle, LocalRuntime};
use support::watchdog;

const FOREVER: Duration = Duration::from_secs(3600);

/// Dumps until `ready` holds, yielding to the runtime between dumps; panics with the last
/// dump after 1000 tries (these tasks settle within a few turns).
async fn dump_until(mut ready: impl FnMut(&Dump) -> bool) -> Dump {
    let mut d = Handle::current().dump();
    for _ in 0..1000 {
        runtime::task::yield_now().await;
        d = Handle::current().dump();
        if ready(&d) {
            return d;
        }
    }
    panic!("the dump never settled:\n{d}");
}

fn idle_waiting(d: &Dump, id: Id) -> bool {
    d.task(id)
        .is_some_and(|t| t.state() == TaskState::Idle && !t.waits_on().is_empty())
}

#[test]
fn a_local_sets_tasks_are_listed_with_their_set_and_waits() {
    watchdog("spawn_local tasks in a dump", || {
        let rt = support::current_thread();
        let local = LocalSet::new();
        let set_id = local.id();
        let notify = Arc::new(Notify::new());
        local.block_on(&rt, async {
            let sleeper = runtime::task::Builder::new()
                .name("local-sleeper")
                .spawn_local(runtime::time::sleep(FOREVER))
                .unwrap()
                .id();
            let n = notify.clone();
            let notified = runtime::task::spawn_local(async move {
                n.notified().await;
                // !Send, so only a local task may hold it.
                let rc = std::rc::Rc::new(());
                drop(rc);
            })
            .id();
            let d = dump_until(|d| idle_waiting(d, sleeper) && idle_waiting(d, notified)).await;
            let t = d.task(sleeper).unwrap();
            assert_eq!(t.local_set(), Some(set_id), "{d}");
            assert_eq!(t.meta().name(), Some("local-sleeper"));
            assert!(
                matches!(t.waits_on(), [WaitsOn::Sleep { .. }]),
                "{:?}\n{d}",
                t.waits_on()
            );
            assert!(
                matches!(
                    d.task(notified).unwrap().waits_on(),
                    [WaitsOn::Sync { kind: "Notify", .. }]
                ),
                "{d}"
            );
            assert!(
                d.to_string().contains(&format!("(LocalSet {set_id})")),
                "{d}"
            );
            // Local tasks are not the runtime's: they are not taken off its unlisted count.
            assert_eq!(d.unlisted(), 0, "{d}");
        });
        // A set no runtime drives now is still listed by the one that drove it last, and
        // not by another runtime.
        let d = rt.dump();
        assert_eq!(d.tasks().len(), 2, "{d}");
        assert!(
            d.tasks().iter().all(|t| t.local_set() == Some(set_id)),
            "{d}"
        );
        let other = support::current_thread();
        let d = other.dump();
        assert!(d.tasks().is_empty(), "another runtime lists the set:\n{d}");
        drop(local);
        let d = rt.dump();
        assert!(d.tasks().is_empty(), "a dropped set is still listed:\n{d}");
    });
}

#[test]
fn a_local_runtimes_local_tasks_are_listed() {
    watchdog("LocalRuntime tasks in a dump", || {
        let rt = LocalRuntime::new().unwrap();
        let id = rt
            .spawn_local(async { runtime::time::sleep(FOREVER).await })
            .id();
        let d = rt.block_on(dump_until(|d| idle_waiting(d, id)));
        assert!(d.task(id).unwrap().local_set().is_some(), "{d}");
    });
}

#[test]
fn blocking_closures_are_listed_running_with_their_elapsed_time_or_queued() {
    watchdog("spawn_blocking closures in a dump", || {
        let rt = runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .max_blocking_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let (started_tx, started_rx) = std_mpsc::channel();
        let (release_tx, release_rx) = std_mpsc::channel::<()>();
        let _enter = rt.enter();
        let running = runtime::task::Builder::new()
            .name("blocker")
            .spawn_blocking(move || {
                started_tx.send(()).unwrap();
                release_rx.recv().unwrap();
            })
            .unwrap();
        started_rx.recv().unwrap();
        let queued = runtime::task::Builder::new()
            .name("behind-it")
            .spawn_blocking(|| ())
            .unwrap();
        let d = loop {
            let d = rt.dump();
            let blocker = d
                .blocking()
                .iter()
                .find(|b| b.meta().name() == Some("blocker"));
            if blocker.is_some_and(|b| b.running_for().is_some()) {
                break d;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        let find = |name| {
            d.blocking()
                .iter()
                .find(|b| b.meta().name() == Some(name))
                .unwrap_or_else(|| panic!("{name} not listed:\n{d}"))
        };
        let b = find("blocker");
        assert!(b.is_running(), "{d}");
        assert_eq!(b.meta().id(), running.id());
        assert!(b
            .meta()
            .spawned_at()
            .is_some_and(|l| l.file().ends_with("rt_dump_local_blocking.rs")));
        let q = find("behind-it");
        assert!(!q.is_running() && q.running_for().is_none(), "{d}");
        assert_eq!(q.meta().id(), queued.id());
        let text = d.to_string();
        assert!(
            text.contains("blocking pool: 1 closure(s) running, 1 queued"),
            "{text}"
        );
        assert!(text.contains("running for"), "{text}");
        release_tx.send(()).unwrap();
        rt.block_on(async {
            running.await.unwrap();
            queued.await.unwrap();
        });
        let d = rt.dump();
        assert!(
            d.blocking().is_empty(),
            "finished closures still listed:\n{d}"
        );
    });
}

#[test]
fn tasks_spawned_from_outside_and_not_yet_polled_are_listed() {
    watchdog("never-polled tasks in a dump", || {
        // Current-thread: nothing runs the tasks until `block_on`.
        let rt = support::current_thread();
        let ids: Vec<Id> = (0..3)
            .map(|i| {
                let name = format!("queued-{i}");
                runtime::task::Builder::new()
                    .name(&name)
                    .spawn_on(async {}, rt.handle())
                    .unwrap()
                    .id()
            })
            .collect();
        let d = rt.dump();
        for &id in &ids {
            let t = d
                .task(id)
                .unwrap_or_else(|| panic!("task {id} not listed:\n{d}"));
            assert!(t.not_yet_polled(), "{d}");
            assert_eq!(t.state(), TaskState::Scheduled, "{d}");
        }
        assert_eq!(d.unlisted(), 0, "{d}");
        assert!(d.to_string().contains("scheduled, not yet polled"), "{d}");
        // Once they ran they are gone.
        rt.block_on(runtime::task::yield_now());
        let d = rt.dump();
        assert!(ids.iter().all(|&id| d.task(id).is_none()), "{d}");

        // Multi-thread: behind the only worker, stuck in a poll, a remote spawn waits in
        // the global queue.
        let rt = support::multi_thread(1);
        let (stuck_tx, stuck_rx) = std_mpsc::channel();
        let (release_tx, release_rx) = std_mpsc::channel::<()>();
        let stuck = rt.spawn(async move {
            stuck_tx.send(()).unwrap();
            release_rx.recv().unwrap();
        });
        stuck_rx.recv().unwrap();
        let behind = runtime::task::Builder::new()
            .name("behind-the-stuck-worker")
            .spawn_on(async { 7 }, rt.handle())
            .unwrap();
        let d = rt.dump();
        let t = d
            .task(behind.id())
            .unwrap_or_else(|| panic!("the queued task is not listed:\n{d}"));
        assert!(t.not_yet_polled(), "{d}");
        assert_eq!(t.meta().name(), Some("behind-the-stuck-worker"));
        release_tx.send(()).unwrap();
        rt.block_on(async {
            stuck.await.unwrap();
            assert_eq!(behind.await.unwrap(), 7);
        });
    });
}

#[test]
fn a_local_task_woken_into_the_remote_queue_is_listed_once_from_its_owned_list() {
    watchdog("a woken local task in a dump", || {
        let rt = support::current_thread();
        let local = LocalSet::new();
        let (tx, rx) = runtime::sync::oneshot::channel::<()>();
        let id = local.block_on(&rt, async {
            let id = runtime::task::spawn_local(async move {
                let _ = rx.await;
            })
            .id();
            dump_until(|d| idle_waiting(d, id)).await;
            id
        });
        // Nobody drives the set now: a wake from another thread lands in its remote
        // queue, which the dump walks (a bound task there is listed from the owned list).
        std::thread::spawn(move || tx.send(()).unwrap())
            .join()
            .unwrap();
        let d = rt.dump();
        let listed: Vec<_> = d.tasks().iter().filter(|t| t.id() == id).collect();
        assert_eq!(listed.len(), 1, "{d}");
        assert_eq!(listed[0].state(), TaskState::Scheduled, "{d}");
        assert!(!listed[0].not_yet_polled(), "{d}");
        // Driven again, it runs and leaves the dump.
        local.block_on(&rt, dump_until(|d| d.task(id).is_none()));
    });
}
