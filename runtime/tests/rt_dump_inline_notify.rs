//! `Notify` waits as `Handle::dump` shows them from the waiting task's own slots
//! (`task::waits::inline`, the map past them): one wait shown under its `Notify`, a waiter
//! served while its task no longer polls it not shown, more waits than the slots hold all
//! shown and all gone once served, a waiter moved to another task shown under the new one
//! only, and a dropped waiter gone.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

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

/// The objects of a task's "Notify" waits, sorted.
fn notify_objects(waits: &[WaitsOn]) -> Vec<usize> {
    let mut v: Vec<usize> = waits
        .iter()
        .filter_map(|w| match w {
            WaitsOn::Sync {
                kind: "Notify",
                object,
                ..
            } => Some(*object),
            _ => None,
        })
        .collect();
    v.sort();
    v
}

fn addr(n: &Arc<Notify>) -> usize {
    Arc::as_ptr(n) as usize
}

/// Polls `f` once (it starts waiting), keeping it.
async fn poll_once<F: Future + ?Sized>(f: Pin<&mut F>) {
    let mut f = Some(f);
    std::future::poll_fn(move |cx| {
        let _ = f.take().unwrap().poll(cx);
        Poll::Ready(())
    })
    .await
}

#[test]
fn a_task_waiting_on_a_notify_is_shown_under_it_and_leaves_when_served() {
    watchdog("a task waiting on a Notify", || {
        let rt = support::current_thread();
        let notify = Arc::new(Notify::new());
        let (done_tx, done_rx) = oneshot::channel::<()>();
        let n = notify.clone();
        let waiter = rt.spawn(async move {
            n.notified().await;
            done_rx.await.unwrap();
        });
        let ids = [waiter.id()];
        let d = settle_until(&rt, &ids, |_, w| w.len() == 1);
        assert_eq!(
            notify_objects(d.task(ids[0]).unwrap().waits_on()),
            vec![addr(&notify)],
            "{d}"
        );
        notify.notify_one();
        let d = settle_until(&rt, &ids, |_, w| {
            matches!(
                w,
                [WaitsOn::Sync {
                    kind: "oneshot recv",
                    ..
                }]
            )
        });
        assert!(
            notify_objects(d.task(ids[0]).unwrap().waits_on()).is_empty(),
            "{d}"
        );
        done_tx.send(()).unwrap();
        rt.block_on(waiter).unwrap();
    });
}

#[test]
fn a_waiter_served_while_its_task_no_longer_polls_it_is_not_shown() {
    watchdog("a Notify waiter served and kept unpolled", || {
        let rt = support::current_thread();
        let kept = Arc::new(Notify::new());
        let other = Arc::new(Notify::new());
        let (k, o) = (kept.clone(), other.clone());
        let waiter = rt.spawn(async move {
            let mut fifo = Box::pin(k.clone().notified_owned());
            let mut all = Box::pin(k.notified_owned());
            poll_once(fifo.as_mut()).await;
            poll_once(all.as_mut()).await;
            // Waits on `other` with both kept, unpolled, then returns them.
            o.notified().await;
            (fifo, all)
        });
        let ids = [waiter.id()];
        let d = settle_until(&rt, &ids, |_, w| w.len() == 3);
        let mut want = vec![addr(&kept), addr(&kept), addr(&other)];
        want.sort();
        assert_eq!(
            notify_objects(d.task(ids[0]).unwrap().waits_on()),
            want,
            "{d}"
        );
        // One served by `notify_one`, then the other by `notify_waiters`: the task is woken
        // and polled, but polls neither again.
        kept.notify_one();
        let d = settle_until(&rt, &ids, |_, w| w.len() == 2);
        let mut want = vec![addr(&kept), addr(&other)];
        want.sort();
        assert_eq!(
            notify_objects(d.task(ids[0]).unwrap().waits_on()),
            want,
            "{d}"
        );
        kept.notify_waiters();
        let d = settle_until(&rt, &ids, |_, w| w.len() == 1);
        assert_eq!(
            notify_objects(d.task(ids[0]).unwrap().waits_on()),
            vec![addr(&other)],
            "{d}"
        );
        other.notify_one();
        let (fifo, all) = rt.block_on(waiter).unwrap();
        // Both were served: they are ready at once.
        rt.block_on(async move {
            fifo.await;
            all.await;
        });
    });
}

#[test]
fn more_notify_waits_than_a_task_has_slots_are_all_shown_and_all_leave() {
    watchdog("more Notify waits than slots", || {
        let rt = support::current_thread();
        const N: usize = task::waits::inline::SLOTS + 3;
        let notifies: Vec<Arc<Notify>> = (0..N).map(|_| Arc::new(Notify::new())).collect();
        let gate = Arc::new(Notify::new());
        let (ns, g) = (notifies.clone(), gate.clone());
        let waiter = rt.spawn(async move {
            let mut kept: Vec<_> = ns
                .iter()
                .map(|n| Box::pin(n.clone().notified_owned()))
                .collect();
            for f in &mut kept {
                poll_once(f.as_mut()).await;
            }
            g.notified().await;
            // The first half served one by one, the rest dropped.
            for f in kept.drain(..N / 2) {
                f.await;
            }
            g.notified().await;
            drop(kept);
            g.notified().await;
        });
        let ids = [waiter.id()];
        let d = settle_until(&rt, &ids, |_, w| w.len() == N + 1);
        let mut want: Vec<usize> = notifies.iter().map(addr).chain([addr(&gate)]).collect();
        want.sort();
        assert_eq!(
            notify_objects(d.task(ids[0]).unwrap().waits_on()),
            want,
            "{d}"
        );
        for n in &notifies[..N / 2] {
            n.notify_one();
        }
        // Served while still in the queue-less `gate` wait: gone before the task polls them.
        let d = settle_until(&rt, &ids, |_, w| w.len() == N + 1 - N / 2);
        let mut want: Vec<usize> = notifies[N / 2..]
            .iter()
            .map(addr)
            .chain([addr(&gate)])
            .collect();
        want.sort();
        assert_eq!(
            notify_objects(d.task(ids[0]).unwrap().waits_on()),
            want,
            "{d}"
        );
        gate.notify_one();
        let d = settle_until(&rt, &ids, |_, w| w.len() == N + 1 - N / 2);
        assert_eq!(
            notify_objects(d.task(ids[0]).unwrap().waits_on()),
            want,
            "{d}"
        );
        gate.notify_one();
        let d = settle_until(&rt, &ids, |_, w| w.len() == 1);
        assert_eq!(
            notify_objects(d.task(ids[0]).unwrap().waits_on()),
            vec![addr(&gate)],
            "{d}"
        );
        gate.notify_one();
        rt.block_on(waiter).unwrap();
    });
}

#[test]
fn a_waiter_moved_to_another_task_is_shown_under_the_new_one_only() {
    watchdog("a Notify waiter moved between tasks", || {
        let rt = support::current_thread();
        let notify = Arc::new(Notify::new());
        let (move_tx, move_rx) = oneshot::channel();
        let (back_tx, back_rx) = oneshot::channel::<()>();
        let n = notify.clone();
        let first = rt.spawn(async move {
            let mut f = Box::pin(n.notified_owned());
            poll_once(f.as_mut()).await;
            back_rx.await.unwrap();
            move_tx.send(f).ok().unwrap();
            std::future::pending::<()>().await;
        });
        let ids = [first.id()];
        let d = settle_until(&rt, &ids, |_, w| w.len() == 2);
        assert_eq!(
            notify_objects(d.task(ids[0]).unwrap().waits_on()),
            vec![addr(&notify)],
            "{d}"
        );
        let second = rt.spawn(async move { move_rx.await.unwrap().await });
        back_tx.send(()).unwrap();
        let ids = [first.id(), second.id()];
        let d = settle_until(&rt, &ids, |id, w| {
            if id == ids[0] {
                w.is_empty()
            } else {
                w.len() == 1
            }
        });
        assert_eq!(
            notify_objects(d.task(ids[1]).unwrap().waits_on()),
            vec![addr(&notify)],
            "{d}"
        );
        notify.notify_one();
        rt.block_on(second).unwrap();
        first.abort();
    });
}
