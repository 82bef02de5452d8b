//! The floor executor: outputs reach join handles, yields go to the back of the queue,
//! it refuses foreign-thread wakes and reports a root future nobody can wake.

use std::sync::{Arc, Mutex};
use std::task::Waker;

use benches::adapters::floor::{Floor, FloorSpawner};
use benches::{AsyncSignal, Notify, Signal, Spawner};

#[test]
fn join_handles_carry_outputs() {
    let floor = Floor::new();
    let sp = FloorSpawner;
    let total = floor.run(async move {
        let handles: Vec<_> = (0..100u64)
            .map(|i| sp.spawn(async move { i * 2 }))
            .collect();
        let mut total = 0;
        for h in handles {
            total += h.await;
        }
        total
    });
    assert_eq!(total, 2 * (0..100u64).sum::<u64>());
}

#[test]
fn a_handle_awaited_after_its_task_finished_still_yields_the_output() {
    let floor = Floor::new();
    let sp = FloorSpawner;
    let v = floor.run(async move {
        let h = sp.spawn(async { 7 });
        // Let the task run to completion before the handle is first polled.
        sp.yield_now().await;
        sp.yield_now().await;
        h.await + 1
    });
    assert_eq!(v, 8);
}

#[test]
fn yield_puts_the_task_behind_the_others() {
    let floor = Floor::new();
    let sp = FloorSpawner;
    let log = Arc::new(Mutex::new(Vec::new()));
    let (tx, mut rx) = AsyncSignal::channel();
    for id in 0..3 {
        let (log, tx) = (log.clone(), tx.clone());
        sp.spawn_detached(async move {
            for round in 0..2 {
                log.lock().unwrap().push((round, id));
                sp.yield_now().await;
            }
            tx.notify();
        });
    }
    floor.run(async {
        for _ in 0..3 {
            rx.recv().await;
        }
    });
    let log = log.lock().unwrap().clone();
    assert_eq!(log, vec![(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]);
}

#[test]
fn a_task_woken_twice_runs_once_per_wake_batch() {
    let floor = Floor::new();
    let sp = FloorSpawner;
    let polls = Arc::new(Mutex::new(0));
    let p = polls.clone();
    floor.run(async move {
        let mut first = true;
        let h = sp.spawn(std::future::poll_fn(move |cx| {
            *p.lock().unwrap() += 1;
            if first {
                first = false;
                cx.waker().wake_by_ref();
                cx.waker().wake_by_ref();
                std::task::Poll::Pending
            } else {
                std::task::Poll::Ready(())
            }
        }));
        h.await;
    });
    assert_eq!(*polls.lock().unwrap(), 2);
}

#[test]
fn a_wake_from_another_thread_panics_there() {
    let floor = Floor::new();
    let sp = FloorSpawner;
    let stash: Arc<Mutex<Option<Waker>>> = Arc::new(Mutex::new(None));
    let s = stash.clone();
    floor.run(async move {
        let mut stored = false;
        sp.spawn_detached(std::future::poll_fn(move |cx| {
            if !stored {
                stored = true;
                *s.lock().unwrap() = Some(cx.waker().clone());
            }
            std::task::Poll::<()>::Pending
        }));
        sp.yield_now().await;
    });
    let waker = stash.lock().unwrap().take().expect("the task ran");
    let r = std::thread::spawn(move || waker.wake()).join();
    assert!(r.is_err(), "a foreign wake must panic, not touch the queue");
}

#[test]
#[should_panic(expected = "deadlocked")]
fn a_root_nobody_can_wake_is_reported() {
    let floor = Floor::new();
    floor.run(std::future::pending::<()>());
}
