//! The waits a task writes into its own slots (`task::waits::inline`: the `oneshot` sides
//! and `JoinHandle`s) as `Handle::dump` shows them: several at once, more than the slots
//! hold (the rest in the registry's map), a receiver moved to another task or dropped on
//! another thread, and waits that ended (served while the receiver sits unpolled, closed,
//! one branch of a `select!` served) never shown.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use runtime::dump::{Dump, TaskState, WaitsOn};
use runtime::sync::{oneshot, Notify};
use runtime::task::Id;
use runtime::Runtime;
use support::watchdog;

/// Runs `rt`'s tasks until each task of `ids` is idle with `want(its waits)` true, and
/// returns that dump; panics with the last dump when they do not settle.
fn settle_until(rt: &Runtime, ids: &[Id], want: impl Fn(Id, &[WaitsOn]) -> bool) -> Dump {
    let mut d = rt.dump();
    for _ in 0..1000 {
        rt.block_on(runtime::task::yield_now());
        d = rt.dump();
        let ready = ids.iter().all(|&id| {
            d.task(id)
                .is_some_and(|t| t.state() == TaskState::Idle && want(id, t.waits_on()))
        });
        if ready {
            return d;
        }
    }
    panic!("tasks {ids:?} never settled as wanted:\n{d}");
}

/// The objects of a task's "oneshot recv" waits, and whether anything else is there.
fn oneshot_objects(waits: &[WaitsOn]) -> Vec<usize> {
    waits
        .iter()
        .filter_map(|w| match w {
            WaitsOn::Sync {
                kind: "oneshot recv",
                object,
                ..
            } => Some(*object),
            _ => None,
        })
        .collect()
}

fn only_notify(waits: &[WaitsOn]) -> bool {
    matches!(waits, [WaitsOn::Sync { kind: "Notify", .. }])
}

/// Polls `rx` once (it starts waiting: its record goes into this task's slots), then
/// hands it to `keep`.
async fn poll_once<R: Future + Unpin>(rx: &mut R) {
    std::future::poll_fn(|cx| {
        let _ = Pin::new(&mut *rx).poll(cx);
        Poll::Ready(())
    })
    .await
}

#[test]
fn two_oneshots_in_one_select_are_both_shown_and_the_served_one_leaves() {
    watchdog("a select! over two oneshots, one served", || {
        let rt = support::current_thread();
        let (tx1, mut rx1) = oneshot::channel::<u8>();
        let (tx2, mut rx2) = oneshot::channel::<u8>();
        let waiter = rt.spawn(async move {
            let first = runtime::select! {
                v = &mut rx1 => v.unwrap(),
                v = &mut rx2 => v.unwrap(),
            };
            // The other branch's receiver, awaited alone now.
            let second = if first == 1 { rx2.await } else { rx1.await };
            (first, second.unwrap())
        });
        let id = waiter.id();
        let d = settle_until(&rt, &[id], |_, w| oneshot_objects(w).len() == 2);
        let both = oneshot_objects(d.task(id).unwrap().waits_on());
        assert_ne!(both[0], both[1], "two channels, two objects:\n{d}");
        assert_eq!(d.task(id).unwrap().waits_on().len(), 2, "{d}");

        tx1.send(1).unwrap();
        let d = settle_until(&rt, &[id], |_, w| oneshot_objects(w).len() == 1);
        let left = oneshot_objects(d.task(id).unwrap().waits_on());
        assert_eq!(d.task(id).unwrap().waits_on().len(), 1, "{d}");
        assert!(
            both.contains(&left[0]),
            "{left:?} not one of {both:?}:\n{d}"
        );

        tx2.send(2).unwrap();
        assert_eq!(rt.block_on(waiter).unwrap(), (1, 2));
    });
}

#[test]
fn a_receiver_served_or_closed_while_kept_unpolled_is_not_shown() {
    watchdog("receivers kept unpolled while their wait ends", || {
        let rt = support::current_thread();
        let notify = Arc::new(Notify::new());
        let (tx_served, mut rx_served) = oneshot::channel::<u8>();
        let (_tx_closed, mut rx_closed) = oneshot::channel::<u8>();
        let (close_tx, close_rx) = oneshot::channel::<()>();
        let n = notify.clone();
        let served = rt.spawn(async move {
            poll_once(&mut rx_served).await;
            n.notified().await;
            rx_served.try_recv()
        });
        let n = notify.clone();
        let closed = rt.spawn(async move {
            poll_once(&mut rx_closed).await;
            // Closes its receiver once told, then waits on the Notify with it kept.
            close_rx.await.unwrap();
            rx_closed.close();
            n.notified().await;
            drop(rx_closed);
        });
        let ids = [served.id(), closed.id()];
        let d = settle_until(&rt, &ids, |id, w| {
            if id == ids[0] {
                w.len() == 2 && oneshot_objects(w).len() == 1
            } else {
                oneshot_objects(w).len() == 2
            }
        });
        drop(d);
        // Served while its receiver sits unpolled: the sender's completion ends the wait.
        tx_served.send(5).unwrap();
        close_tx.send(()).unwrap();
        let d = settle_until(&rt, &ids, |_, w| only_notify(w));
        for id in ids {
            assert!(only_notify(d.task(id).unwrap().waits_on()), "{d}");
        }
        notify.notify_waiters();
        assert_eq!(rt.block_on(served).unwrap(), Ok(5));
        rt.block_on(closed).unwrap();
    });
}

#[test]
fn a_receiver_dropped_on_another_thread_leaves_the_task_that_polled_it() {
    watchdog("a polled receiver dropped on a plain thread", || {
        let rt = support::current_thread();
        let notify = Arc::new(Notify::new());
        let (tx, mut rx) = oneshot::channel::<u8>();
        let (hand_tx, hand_rx) = std::sync::mpsc::channel();
        let n = notify.clone();
        let first = rt.spawn(async move {
            poll_once(&mut rx).await;
            hand_tx.send(rx).unwrap();
            n.notified().await;
        });
        let id = first.id();
        let rx = loop {
            rt.block_on(runtime::task::yield_now());
            if let Ok(rx) = hand_rx.try_recv() {
                break rx;
            }
        };
        let d = settle_until(&rt, &[id], |_, w| w.len() == 2);
        assert_eq!(
            oneshot_objects(d.task(id).unwrap().waits_on()).len(),
            1,
            "{d}"
        );
        std::thread::spawn(move || drop(rx)).join().unwrap();
        let d = settle_until(&rt, &[id], |_, w| only_notify(w));
        assert!(only_notify(d.task(id).unwrap().waits_on()), "{d}");
        assert!(tx.is_closed());
        notify.notify_waiters();
        rt.block_on(first).unwrap();
    });
}

#[test]
fn more_waits_than_a_task_has_slots_are_all_shown_and_all_leave() {
    watchdog("one task awaiting many receivers and join handles", || {
        let rt = support::current_thread();
        const RECEIVERS: usize = task::waits::inline::SLOTS + 2;
        const JOINS: usize = 2;
        let (txs, rxs): (Vec<_>, Vec<_>) = (0..RECEIVERS).map(|_| oneshot::channel::<u8>()).unzip();
        let (release_tx, release_rx) = oneshot::channel::<()>();
        let shared = futures::FutureExt::shared(async move {
            let _ = release_rx.await;
        });
        let handles: Vec<_> = (0..JOINS).map(|_| rt.spawn(shared.clone())).collect();
        let awaited: Vec<Id> = handles.iter().map(|h| h.id()).collect();
        let waiter = rt.spawn(async move {
            let mut rxs = rxs;
            let mut handles = handles;
            std::future::poll_fn(|cx| {
                let mut pending = 0;
                for rx in rxs.iter_mut().filter(|rx| !rx.is_terminated()) {
                    pending += usize::from(Pin::new(rx).poll(cx).is_pending());
                }
                handles.retain_mut(|h| Pin::new(h).poll(cx).is_pending());
                if pending == 0 && handles.is_empty() {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            })
            .await
        });
        let id = waiter.id();
        let d = settle_until(&rt, &[id], |_, w| w.len() == RECEIVERS + JOINS);
        let waits = d.task(id).unwrap().waits_on();
        assert_eq!(oneshot_objects(waits).len(), RECEIVERS, "{d}");
        for target in &awaited {
            assert!(waits.contains(&WaitsOn::Join { task: *target }), "{d}");
        }
        for tx in txs {
            tx.send(0).unwrap();
        }
        release_tx.send(()).unwrap();
        rt.block_on(waiter).unwrap();
        let left: Vec<_> = task::waits::snapshot()
            .into_iter()
            .filter(|r| r.waiter == Some(id))
            .collect();
        assert!(left.is_empty(), "served waits still in the map: {left:?}");
    });
}

#[test]
fn a_join_handle_that_moves_to_another_task_is_shown_under_the_new_one() {
    watchdog("a join handle awaited by two tasks in turn", || {
        let rt = support::current_thread();
        let (release_tx, release_rx) = oneshot::channel::<()>();
        let awaited = rt.spawn(async move {
            let _ = release_rx.await;
            7u8
        });
        let target = awaited.id();
        let (hand_tx, hand_rx) = oneshot::channel();
        let first = rt.spawn(async move {
            let mut h = awaited;
            poll_once(&mut h).await;
            assert!(hand_tx.send(h).is_ok(), "the second task is gone");
            runtime::time::sleep(Duration::from_secs(3600)).await;
        });
        let second = rt.spawn(async move { hand_rx.await.unwrap().await });
        let ids = [first.id(), second.id()];
        let d = settle_until(&rt, &ids, |id, w| {
            id == ids[0] || w == [WaitsOn::Join { task: target }]
        });
        assert!(
            matches!(d.task(ids[0]).unwrap().waits_on(), [WaitsOn::Sleep { .. }]),
            "the first task no longer waits on the join:\n{d}"
        );
        release_tx.send(()).unwrap();
        assert_eq!(rt.block_on(second).unwrap().unwrap(), 7);
        first.abort();
    });
}
