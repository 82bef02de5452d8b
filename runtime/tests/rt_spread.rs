//! Work made runnable on one worker reaches the idle ones, and a yielded task resumes
//! however busy its worker is.
//!
//! The first two tests build a burst on one worker without any of the pushes that wake a
//! sibling one by one (LIFO pushes, a LIFO streak's end, yields), then release it at once:
//! the worker's backlog check must wake a parked sibling, or the burst, whose tasks wait
//! (yielding, never blocking, so no poll looks stuck to the monitor) until a second thread
//! ran one of them, never finishes. The yield tests keep a worker busy forever with two
//! tasks ping-ponging over channels: a task that yielded meanwhile must still resume.
//!
//! Every wait is bounded (the watchdog, or a receive with a generous timeout): a lost
//! wake-up fails with a message, it never hangs. Nothing here measures speed.
//!
//! An idle runtime's parked workers stay parked: no polls, no wake-ups.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::time::Instant;
use support::*;

use std::collections::HashSet;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::ThreadId;
use std::time::Duration;

use runtime::task::yield_now;
use runtime::Builder;

const PATIENCE: Duration = Duration::from_secs(20);

/// Burst size: enough links that the chain's LIFO streaks end (and push to the ring) many
/// times, few enough to stay quick.
const BURST: usize = 64;

type Seen = Arc<Mutex<HashSet<ThreadId>>>;

/// Records the current thread; true once two threads ran burst tasks.
fn seen_by_two(seen: &Seen) -> bool {
    let mut seen = seen.lock().unwrap();
    seen.insert(std::thread::current().id());
    seen.len() >= 2
}

/// One link of the chain: spawns the next link (into this worker's LIFO slot: no
/// wake-up), yields (into this worker's deferred list: no wake-up), then waits, yielding,
/// until two threads ran links. All links end up in one worker's deferred list, released
/// together.
fn link(
    i: usize,
    seen: Seen,
    done: mpsc::Sender<usize>,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
    Box::pin(async move {
        if i + 1 < BURST {
            drop(runtime::spawn(link(i + 1, seen.clone(), done.clone())));
        }
        yield_now().await;
        while !seen_by_two(&seen) {
            yield_now().await;
        }
        done.send(i).unwrap();
    })
}

/// Waits (bounded) until every worker of `rt` has parked once: with no task queued, they
/// then stay parked until work wakes them, so no sibling is searching by chance when a test
/// builds its burst.
fn wait_until_all_parked(rt: &runtime::Runtime) {
    let start = std::time::Instant::now();
    loop {
        let m = rt.metrics();
        if (0..m.num_workers()).all(|w| m.worker_park_count(w) > 0) {
            return;
        }
        assert!(start.elapsed() < PATIENCE, "the idle workers never parked");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn a_burst_released_on_one_worker_reaches_a_parked_sibling() {
    watchdog("a burst released on one worker to reach a sibling", || {
        for workers in [2, 4] {
            let rt = multi_thread(workers);
            let seen: Seen = Arc::default();
            let (tx, rx) = mpsc::channel();
            wait_until_all_parked(&rt);
            drop(rt.spawn(link(0, seen.clone(), tx)));
            for _ in 0..BURST {
                rx.recv_timeout(PATIENCE).unwrap_or_else(|_| {
                    panic!(
                        "{workers} workers: the burst stayed on one worker (threads seen: {})",
                        seen.lock().unwrap().len()
                    )
                });
            }
            assert!(seen.lock().unwrap().len() >= 2);
        }
    })
}

/// The driver's shape of the same: many tasks woken by one timer while a hog keeps a
/// worker busy (so the busy worker's periodic driver turn may be the one that fires it,
/// with every woken task landing in its own queues). More than one worker must run them.
/// At least three workers: a busy worker does not steal, so with two, one busy with the
/// hog, the burst rightly stays with the other.
#[test]
fn a_timer_burst_reaches_more_than_one_worker() {
    watchdog("a timer burst to reach a second worker", || {
        for workers in [3, 4] {
            let rt = multi_thread(workers);
            let seen: Seen = Arc::default();
            let stop = Arc::new(AtomicBool::new(false));
            let hog = {
                let stop = stop.clone();
                rt.spawn(async move {
                    while !stop.load(SeqCst) {
                        yield_now().await;
                    }
                })
            };
            let (tx, rx) = mpsc::channel();
            let deadline = runtime::time::Instant::now() + Duration::from_millis(20);
            for i in 0..BURST {
                let (seen, tx) = (seen.clone(), tx.clone());
                drop(rt.spawn(async move {
                    runtime::time::sleep_until(deadline).await;
                    while !seen_by_two(&seen) {
                        yield_now().await;
                    }
                    tx.send(i).unwrap();
                }));
            }
            for _ in 0..BURST {
                rx.recv_timeout(PATIENCE).unwrap_or_else(|_| {
                    panic!("{workers} workers: the timer burst stayed on one worker")
                });
            }
            stop.store(true, SeqCst);
            rt.block_on(hog).unwrap();
        }
    })
}

/// Two tasks ping-pong over channels without end (each wake lands in the LIFO slot, so the
/// worker never runs dry); a third yields once and must still resume. Driven by
/// `block_on`, which the current-thread flavor needs to run anything.
fn yielder_resumes_under_steady_load(rt: runtime::Runtime) {
    rt.block_on(async {
        let stop = Arc::new(AtomicBool::new(false));
        let (a_tx, mut a_rx) = runtime::sync::mpsc::unbounded_channel::<u32>();
        let (b_tx, mut b_rx) = runtime::sync::mpsc::unbounded_channel::<u32>();
        let ping = {
            let stop = stop.clone();
            runtime::spawn(async move {
                a_tx.send(0).unwrap();
                while let Some(n) = b_rx.recv().await {
                    if stop.load(SeqCst) {
                        break;
                    }
                    a_tx.send(n + 1).unwrap();
                }
            })
        };
        let pong = runtime::spawn(async move {
            while let Some(n) = a_rx.recv().await {
                if b_tx.send(n + 1).is_err() {
                    break;
                }
            }
        });
        let yielder = runtime::spawn(async move {
            yield_now().await;
        });
        // Not `within`: on a wedged current-thread runtime the timer would not fire either;
        // the watchdog around the test bounds it.
        yielder.await.unwrap();
        stop.store(true, SeqCst);
        ping.await.unwrap();
        pong.await.unwrap();
    });
}

#[test]
fn a_yielded_task_resumes_under_steady_load() {
    watchdog(
        "current_thread: a yielded task to resume under load",
        || yielder_resumes_under_steady_load(current_thread()),
    );
    watchdog(
        "multi_thread(1): a yielded task to resume under load",
        || yielder_resumes_under_steady_load(multi_thread(1)),
    );
    watchdog(
        "multi_thread(2): a yielded task to resume under load",
        || yielder_resumes_under_steady_load(multi_thread(2)),
    );
}

/// A current-thread `block_on` future that keeps waking itself (a `yield_now` loop, what a
/// `#[runtime::test]` body waiting on a flag is) still lets the driver run: the timer a
/// spawned task sleeps on fires, and so does one the future polls itself.
#[test]
fn a_self_waking_block_on_still_drives_timers() {
    watchdog("a self-waking block_on to see its timers fire", || {
        let rt = current_thread();
        let fired = Arc::new(AtomicBool::new(false));
        rt.block_on(async {
            let f = fired.clone();
            drop(runtime::spawn(async move {
                runtime::time::sleep(Duration::from_millis(5)).await;
                f.store(true, SeqCst);
            }));
            while !fired.load(SeqCst) {
                yield_now().await;
            }
            let mut sleep = pin!(runtime::time::sleep(Duration::from_millis(5)));
            while futures::poll!(sleep.as_mut()).is_pending() {
                yield_now().await;
            }
        });
    })
}

/// The same with socket readiness: a datagram sent to a socket the self-waking future
/// polls with `try_recv` after `readable()` readiness.
#[test]
fn a_self_waking_block_on_still_drives_io() {
    watchdog("a self-waking block_on to see socket readiness", || {
        let rt = current_thread();
        rt.block_on(async {
            let a = runtime::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let b = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
            b.send_to(b"hi", a.local_addr().unwrap()).unwrap();
            let mut readable = pin!(a.readable());
            while futures::poll!(readable.as_mut()).is_pending() {
                yield_now().await;
            }
            let mut buf = [0; 8];
            assert_eq!(a.try_recv(&mut buf).unwrap(), 2);
        });
    })
}

/// A task woken by another thread while it runs is not a yield: it goes to the back of
/// the run queue, behind what is runnable now, not to the deferred list that waits for the
/// next driver turn. On a current-thread runtime kept busy by a chain of spawns (each link
/// spawns the next), it runs after the links queued before it, long before a batch ends.
#[test]
fn a_task_woken_by_another_thread_while_running_is_requeued() {
    watchdog("the requeued task and the chain to finish", || {
        let rt = current_thread();
        let order = Arc::new(Mutex::new(Vec::new()));
        rt.block_on(async {
            fn chain(i: u32, order: Arc<Mutex<Vec<String>>>) {
                if i < 40 {
                    order.lock().unwrap().push(format!("link{i}"));
                    drop(runtime::spawn(async move { chain(i + 1, order) }));
                }
            }
            let o = order.clone();
            let mut first = true;
            let woken = runtime::spawn(std::future::poll_fn(move |cx| {
                if first {
                    first = false;
                    let waker = cx.waker().clone();
                    // Woken by another thread while this poll runs.
                    std::thread::spawn(move || waker.wake()).join().unwrap();
                    return std::task::Poll::Pending;
                }
                o.lock().unwrap().push("woken".to_string());
                std::task::Poll::Ready(())
            }));
            let o = order.clone();
            drop(runtime::spawn(async move { chain(0, o) }));
            woken.await.unwrap();
            // Let the chain finish.
            while order.lock().unwrap().len() < 41 {
                yield_now().await;
            }
        });
        let order = order.lock().unwrap();
        let at = order.iter().position(|s| s == "woken").unwrap();
        assert!(
            at <= 2,
            "the task woken while running waited behind {at} chain links: {:?}",
            &order[..at + 1]
        );
    })
}

#[test]
fn idle_runtime_does_not_spin() {
    watchdog("the idle runtime", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(rt.spawn(async { yield_now().await })).unwrap();
        // Let both workers reach the parked state (they publish metrics as they park).
        let deadline = Instant::now() + Duration::from_secs(10);
        let before = loop {
            let m = rt.metrics();
            std::thread::sleep(Duration::from_millis(50));
            let m2 = rt.metrics();
            if m.workers() == m2.workers() || Instant::now() > deadline {
                break m2;
            }
        };
        std::thread::sleep(Duration::from_millis(200));
        let after = rt.metrics();
        // Parked workers burn nothing: no polls, no wake-ups while idle.
        for (b, a) in before.workers().iter().zip(after.workers()) {
            assert_eq!(
                b.unparks(),
                a.unparks(),
                "an idle worker woke up: {before:?} -> {after:?}"
            );
            assert_eq!(b.polls(), a.polls());
        }
    })
}
