//! `Handle::dump` names the wait of every channel and one-time primitive: `watch`,
//! `broadcast`, `oneshot`, the senders' `closed()`, `Barrier`, `OnceCell`, `SetOnce`; and a
//! wait that ends (served, or its task cancelled) leaves the wait registry.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use runtime::dump::{Dump, TaskState, WaitsOn};
use runtime::sync::{broadcast, mpsc, oneshot, watch, Barrier, OnceCell, SetOnce};
use runtime::task::Id;
use runtime::Runtime;
use support::watchdog;

const FOREVER: Duration = Duration::from_secs(3600);

/// Runs `rt`'s tasks until every task of `ids` is idle with a known wait, and returns that
/// dump (a current-thread runtime runs tasks only inside `block_on`, and these tasks need
/// a handful of turns); panics with the last dump when they do not settle.
fn settle(rt: &Runtime, ids: &[Id]) -> Dump {
    let mut d = rt.dump();
    for _ in 0..1000 {
        rt.block_on(runtime::task::yield_now());
        d = rt.dump();
        let ready = ids.iter().all(|&id| {
            d.task(id)
                .is_some_and(|t| t.state() == TaskState::Idle && !t.waits_on().is_empty())
        });
        if ready {
            return d;
        }
    }
    panic!("tasks {ids:?} never all idle with a known wait:\n{d}");
}

fn kind_of(d: &Dump, id: Id) -> &'static str {
    match d.task(id).map(|t| t.waits_on()) {
        Some([WaitsOn::Sync { kind, .. }]) => kind,
        other => panic!("task {id}: {other:?}\n{d}"),
    }
}

fn object_of(d: &Dump, id: Id) -> usize {
    match d.task(id).map(|t| t.waits_on()) {
        Some([WaitsOn::Sync { object, .. }]) => *object,
        other => panic!("task {id}: {other:?}\n{d}"),
    }
}

/// The registry's records of the tasks in `ids`.
fn recorded(ids: &[Id]) -> Vec<task::waits::WaitRecord> {
    task::waits::snapshot()
        .into_iter()
        .filter(|r| r.waiter.is_some_and(|w| ids.contains(&w)))
        .collect()
}

#[test]
fn channels_and_one_time_primitives_name_their_waiters_and_forget_them_when_served() {
    watchdog(
        "waiters of watch, broadcast, oneshot, closed(), Barrier, OnceCell, SetOnce",
        || {
            let rt = support::current_thread();
            let mut expect: HashMap<Id, &str> = HashMap::new();

            let (wtx, mut wrx) = watch::channel(0);
            let watch_changed = rt.spawn(async move { wrx.changed().await.is_ok() });
            expect.insert(watch_changed.id(), "watch changed");
            let (wtx2, wrx2) = watch::channel(0);
            let watch_closed = {
                let wtx2 = wtx2.clone();
                rt.spawn(async move { wtx2.closed().await })
            };
            expect.insert(watch_closed.id(), "watch closed");

            let (btx, mut brx) = broadcast::channel::<u8>(4);
            let broadcast_recv = rt.spawn(async move { brx.recv().await.is_ok() });
            expect.insert(broadcast_recv.id(), "broadcast recv");
            let (btx2, brx2) = broadcast::channel::<u8>(4);
            let broadcast_closed = {
                let btx2 = btx2.clone();
                rt.spawn(async move { btx2.closed().await })
            };
            expect.insert(broadcast_closed.id(), "broadcast closed");

            let (mtx, mrx) = mpsc::channel::<u8>(1);
            let mpsc_closed = {
                let mtx = mtx.clone();
                rt.spawn(async move { mtx.closed().await })
            };
            expect.insert(mpsc_closed.id(), "mpsc closed");

            let (otx, orx) = oneshot::channel::<u8>();
            let oneshot_recv = rt.spawn(async move { orx.await.is_ok() });
            expect.insert(oneshot_recv.id(), "oneshot recv");
            let (mut otx2, orx2) = oneshot::channel::<u8>();
            let oneshot_closed = rt.spawn(async move {
                otx2.closed().await;
            });
            expect.insert(oneshot_closed.id(), "oneshot closed");

            let barrier = Arc::new(Barrier::new(2));
            let barrier_wait = {
                let b = barrier.clone();
                rt.spawn(async move {
                    b.wait().await;
                })
            };
            expect.insert(barrier_wait.id(), "Notify");

            let cell = Arc::new(OnceCell::<u8>::new());
            let initializing = {
                let cell = cell.clone();
                rt.spawn(async move {
                    cell.get_or_init(|| async {
                        runtime::time::sleep(FOREVER).await;
                        0
                    })
                    .await;
                })
            };
            let cell_waiter = {
                let cell = cell.clone();
                rt.spawn(async move { *cell.get_or_init(|| async { 1 }).await })
            };
            expect.insert(cell_waiter.id(), "Semaphore");

            let once = Arc::new(SetOnce::<u8>::new());
            let set_once_wait = {
                let once = once.clone();
                rt.spawn(async move { *once.wait().await })
            };
            expect.insert(set_once_wait.id(), "Notify");

            let ids: Vec<Id> = expect.keys().copied().collect();
            let d = settle(&rt, &ids);
            for (&id, &kind) in &expect {
                assert_eq!(kind_of(&d, id), kind, "task {id}\n{d}");
            }
            // One object per channel: a changed() and a closed() on one watch channel agree.
            let (mut wrx3, wtx3) = (wtx2.subscribe(), wtx2.clone());
            let changed_on_2 = rt.spawn(async move { wrx3.changed().await.is_ok() });
            let d = settle(&rt, &[changed_on_2.id()]);
            assert_eq!(
                object_of(&d, changed_on_2.id()),
                object_of(&d, watch_closed.id()),
                "{d}"
            );
            drop(wtx3);

            // Serve every wait; each task finishes and its record goes.
            wtx.send(1).unwrap();
            // The second watch closes once `changed_on_2` has its change and drops its receiver.
            wtx2.send(1).unwrap();
            drop(wrx2);
            btx.send(1).unwrap();
            drop(brx2);
            drop(mrx);
            otx.send(1).unwrap();
            drop(orx2);
            once.set(1).unwrap();
            let served = [
                watch_changed.id(),
                watch_closed.id(),
                broadcast_recv.id(),
                broadcast_closed.id(),
                mpsc_closed.id(),
                oneshot_recv.id(),
                oneshot_closed.id(),
                set_once_wait.id(),
                changed_on_2.id(),
            ];
            rt.block_on(async {
                assert!(watch_changed.await.unwrap());
                assert!(changed_on_2.await.unwrap());
                watch_closed.await.unwrap();
                assert!(broadcast_recv.await.unwrap());
                broadcast_closed.await.unwrap();
                mpsc_closed.await.unwrap();
                assert!(oneshot_recv.await.unwrap());
                oneshot_closed.await.unwrap();
                assert_eq!(set_once_wait.await.unwrap(), 1);
            });
            let left = recorded(&served);
            assert!(left.is_empty(), "served waiters still recorded: {left:?}");

            // Cancelled waits (shutdown drops their futures) leave too.
            let cancelled = [barrier_wait.id(), cell_waiter.id(), initializing.id()];
            drop(rt);
            let left = recorded(&cancelled);
            assert!(
                left.is_empty(),
                "cancelled waiters still recorded: {left:?}"
            );
            drop((btx, btx2, mtx, wtx2));
        },
    );
}

/// Polls `fut` once in a first task (it starts waiting), hands it to a second task that
/// awaits it, and checks that the dump shows the wait (`kind`) under the second task only
/// (the first sleeps); then `release` ends the wait, and neither task leaves a record.
/// Returns the output.
fn a_wait_moved_to_another_task<F>(fut: F, kind: &str, release: impl FnOnce()) -> F::Output
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let rt = support::current_thread();
    let (hand_tx, hand_rx) = oneshot::channel();
    let first = rt.spawn(async move {
        let mut fut = Box::pin(fut);
        let poll = std::future::poll_fn(|cx| {
            let _ = fut.as_mut().poll(cx);
            std::task::Poll::Ready(())
        });
        poll.await;
        assert!(hand_tx.send(fut).is_ok(), "the second task is gone");
        runtime::time::sleep(FOREVER).await;
    });
    let second = rt.spawn(async move { hand_rx.await.unwrap().await });
    let d = settle(&rt, &[first.id(), second.id()]);
    assert_eq!(kind_of(&d, second.id()), kind, "{d}");
    assert!(
        matches!(
            d.task(first.id()).unwrap().waits_on(),
            [WaitsOn::Sleep { .. }]
        ),
        "the first task no longer waits on {kind}:\n{d}"
    );
    let ids = [first.id(), second.id()];
    release();
    let out = rt.block_on(second).unwrap();
    assert!(recorded(&ids).is_empty());
    out
}

#[test]
fn a_oneshot_receiver_that_moves_to_another_task_is_shown_under_the_new_one() {
    watchdog("a oneshot receiver awaited by two tasks in turn", || {
        let (tx, rx) = oneshot::channel::<u8>();
        let got = a_wait_moved_to_another_task(rx, "oneshot recv", move || tx.send(9).unwrap());
        assert_eq!(got.unwrap(), 9);
    });
}

#[test]
fn a_queued_acquire_that_moves_to_another_task_is_shown_under_the_new_one() {
    watchdog(
        "a queued semaphore acquire awaited by two tasks in turn",
        || {
            let s = Arc::new(runtime::sync::Semaphore::new(0));
            let s2 = s.clone();
            let permit =
                a_wait_moved_to_another_task(s.clone().acquire_owned(), "Semaphore", move || {
                    s2.add_permits(1)
                });
            assert!(permit.is_ok());
        },
    );
}

#[test]
fn a_queued_lock_waiter_is_shown_where_it_awaits_the_lock() {
    watchdog("Mutex and RwLock waiters' await locations", || {
        let rt = support::current_thread();
        let m = Arc::new(runtime::sync::Mutex::new(()));
        let guard = rt.block_on(m.clone().lock_owned());
        let (m1, m2) = (m.clone(), m.clone());
        let lock_line = line!() + 1;
        let by_ref = rt.spawn(async move { drop(m1.lock().await) }).id();
        let owned_line = line!() + 1;
        let owned = rt.spawn(async move { drop(m2.lock_owned().await) }).id();
        // Queued behind a writer: a reader and a writer, by reference and through an `Arc`.
        let l = Arc::new(runtime::sync::RwLock::new(()));
        let write_guard = rt.block_on(l.write());
        let (l1, l2, l3, l4) = (l.clone(), l.clone(), l.clone(), l.clone());
        let read_line = line!() + 1;
        let reader = rt.spawn(async move { drop(l1.read().await) }).id();
        let write_line = line!() + 1;
        let writer = rt.spawn(async move { drop(l2.write().await) }).id();
        let read_owned_line = line!() + 1;
        let reader_owned = rt.spawn(async move { drop(l3.read_owned().await) }).id();
        let write_owned_line = line!() + 1;
        let writer_owned = rt.spawn(async move { drop(l4.write_owned().await) }).id();
        // A semaphore with no permits: by reference and through an `Arc`.
        let s = Arc::new(runtime::sync::Semaphore::new(0));
        let (s1, s2) = (s.clone(), s.clone());
        let acquire_line = line!() + 1;
        let acquirer = rt.spawn(async move { drop(s1.acquire_many(2).await) }).id();
        let acquire_owned_line = line!() + 1;
        let acquirer_owned = rt.spawn(async move { drop(s2.acquire_owned().await) }).id();
        let d = settle(
            &rt,
            &[
                by_ref,
                owned,
                reader,
                writer,
                reader_owned,
                writer_owned,
                acquirer,
                acquirer_owned,
            ],
        );
        for (id, line) in [
            (by_ref, lock_line),
            (owned, owned_line),
            (reader, read_line),
            (writer, write_line),
            (reader_owned, read_owned_line),
            (writer_owned, write_owned_line),
            (acquirer, acquire_line),
            (acquirer_owned, acquire_owned_line),
        ] {
            match d.task(id).map(|t| t.waits_on()) {
                Some([WaitsOn::Sync { at: Some(at), .. }]) => {
                    assert_eq!((at.file(), at.line()), (file!(), line), "{d}");
                }
                other => panic!("task {id}: {other:?}\n{d}"),
            }
        }
        assert!(
            d.to_string()
                .contains(&format!("at {}:{lock_line}:", file!())),
            "{d}"
        );
        drop(guard);
        drop(write_guard);
        s.add_permits(3);
        rt.block_on(runtime::task::yield_now());
    });
}

#[test]
fn a_join_set_and_a_signal_stream_name_their_waiters_and_forget_them_when_done() {
    watchdog(
        "waiters in JoinSet::join_next and a signal stream's recv",
        || {
            let rt = support::current_thread();
            let (release_tx, release_rx) = oneshot::channel::<()>();
            let joiner = rt.spawn(async move {
                let mut set = runtime::task::JoinSet::new();
                set.spawn(async move {
                    let _ = release_rx.await;
                });
                set.spawn(std::future::pending::<()>());
                set.join_next().await.unwrap().unwrap();
                set.len()
            });
            // SIGUSR2: nothing in this test binary raises it.
            let listener = rt.spawn(async {
                let kind = runtime::signal::unix::SignalKind::user_defined2();
                let mut usr2 = runtime::signal::unix::signal(kind).unwrap();
                usr2.recv().await
            });
            let ids = [joiner.id(), listener.id()];
            let d = settle(&rt, &ids);
            assert!(
                matches!(
                    d.task(joiner.id()).unwrap().waits_on(),
                    [WaitsOn::JoinSet { tasks: 2, .. }]
                ),
                "{d}"
            );
            // Its stream also waits on the signal socket's readiness (an I/O wait).
            assert!(
                d.task(listener.id())
                    .unwrap()
                    .waits_on()
                    .contains(&WaitsOn::Signal {
                        signal: libc::SIGUSR2
                    }),
                "{d}"
            );
            let text = d.to_string();
            assert!(text.contains("(2 task(s) in it)"), "{text}");
            let usr2 = format!("signal {} (SIGUSR2)", libc::SIGUSR2);
            assert!(text.contains(&usr2), "{text}");

            // Served (the set joins a task and is dropped), or cancelled: the records go.
            release_tx.send(()).unwrap();
            assert_eq!(rt.block_on(joiner).unwrap(), 1);
            listener.abort();
            assert!(rt.block_on(listener).unwrap_err().is_cancelled());
            assert!(recorded(&ids).is_empty(), "{:?}", recorded(&ids));
        },
    );
}
