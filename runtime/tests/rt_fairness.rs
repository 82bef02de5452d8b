//! Remote spawns get a turn on a worker kept busy by a chain of long polls, each spawning
//! the next into the LIFO slot; a task that yields in a loop waits behind the remote work
//! queued before it instead of running once per batch of it.
//!
//! The multi-thread worker cuts a LIFO streak once remote work has waited its latency
//! target since the worker last served the remote queue, so a remote task runs within a
//! link or two of its spawn: not after the LIFO cap (16 links) or the tuned fairness
//! interval (61 polls before any measurement). Deferred (yielded) tasks are released to
//! the back of the remote queue while it holds work, so a yielder runs about once per
//! pass over that queue, not once per batch taken from it. The tests count links and
//! polls; they measure no speed, and every wait is bounded.
//!
//! Remote spawns are served while self-respawning chains keep every worker busy; a spawn
//! chain alone keeps its LIFO streak, while two tasks ping-ponging through the LIFO slot
//! let a task waiting in the ring run.
#![cfg(not(loom))]

#[macro_use]
mod support;

use runtime::Builder;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::time::Duration;
use support::*;

const PATIENCE: Duration = Duration::from_secs(20);

/// How long each link blocks its worker: far beyond the latency target, so the first
/// check after it must cut the streak.
const LINK_POLL: Duration = Duration::from_millis(1);

/// The chain ends by itself after this many links, so a starved remote task makes the
/// test fail with a count rather than hang.
const MAX_LINKS: usize = 400;

struct Chain {
    links: AtomicUsize,
    stop: AtomicBool,
}

fn link(chain: Arc<Chain>, started: Option<mpsc::Sender<()>>) {
    runtime::spawn(async move {
        std::thread::sleep(LINK_POLL);
        let done = chain.links.fetch_add(1, SeqCst) + 1;
        if let Some(tx) = started {
            tx.send(()).unwrap();
        }
        if !chain.stop.load(SeqCst) && done < MAX_LINKS {
            link(chain, None);
        }
    });
}

#[test]
fn a_remote_spawn_cuts_a_lifo_chain_of_long_polls() {
    for workers in [1, 2] {
        let rt = runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .build()
            .unwrap();
        let chain = Arc::new(Chain {
            links: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        });
        let (started_tx, started_rx) = mpsc::channel();
        let c = chain.clone();
        rt.spawn(async move { link(c, Some(started_tx)) });
        started_rx
            .recv_timeout(PATIENCE)
            .expect("the chain's first link never ran");
        let at_spawn = chain.links.load(SeqCst);
        let (ran_tx, ran_rx) = mpsc::channel();
        let c = chain.clone();
        rt.spawn(async move {
            c.stop.store(true, SeqCst);
            ran_tx.send(c.links.load(SeqCst)).unwrap();
        });
        let ran_at = ran_rx
            .recv_timeout(PATIENCE)
            .expect("the remote task never ran");
        // The link running at the spawn, and at most one more before the cut.
        assert!(
            ran_at - at_spawn <= 2,
            "{workers} worker(s): the remote task waited {} links of a LIFO chain \
             (spawned after link {at_spawn}, ran after link {ran_at})",
            ran_at - at_spawn
        );
    }
}

/// Remote tasks queued behind a yielding task in one go: many batches' worth (a ring
/// batch is at most 224 tasks, a current-thread batch 128).
const REMOTE: usize = 2_000;

/// A task that yields until told to stop, counting the polls it got while remote work was
/// still pending.
struct Yielder {
    remaining: AtomicUsize,
    polls_while_pending: AtomicUsize,
    stop: AtomicBool,
}

fn spawn_yielder(rt: &runtime::Runtime, y: &Arc<Yielder>, first_poll: mpsc::Sender<()>) {
    let y = y.clone();
    rt.spawn(async move {
        let _ = first_poll.send(());
        while !y.stop.load(SeqCst) {
            if y.remaining.load(SeqCst) > 0 {
                y.polls_while_pending.fetch_add(1, SeqCst);
            }
            runtime::task::yield_now().await;
        }
    });
}

fn spawn_remote_work(rt: &runtime::Runtime, y: &Arc<Yielder>, done: &mpsc::Sender<()>) {
    // From here on the yielder counts its polls.
    y.remaining.store(REMOTE, SeqCst);
    for _ in 0..REMOTE {
        let (y, done) = (y.clone(), done.clone());
        rt.spawn(async move {
            if y.remaining.fetch_sub(1, SeqCst) == 1 {
                let _ = done.send(());
            }
        });
    }
}

fn check_yielder(flavor: &str, y: &Yielder) {
    y.stop.store(true, SeqCst);
    let polls = y.polls_while_pending.load(SeqCst);
    // Once if it was already queued ahead of the remote work, once more at most if the
    // remote queue was taken whole into the local queue just before its release; never
    // once per batch (a yielder released to the local queue ran 3 times here on the
    // current-thread flavor and 6-7 times on one worker).
    assert!(
        polls <= 2,
        "{flavor}: a yielding task ran {polls} times while {REMOTE} remote tasks queued \
         behind it were pending (it should wait behind them)"
    );
}

#[test]
fn a_yielder_waits_behind_remote_work_current_thread() {
    let rt = runtime::Builder::new_current_thread().build().unwrap();
    let y = Arc::new(Yielder {
        remaining: AtomicUsize::new(0),
        polls_while_pending: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
    });
    // Both the yielder and the remote work wait in the inject queue until `block_on`
    // drives the core: the yielder first.
    let (first_tx, _first_rx) = mpsc::channel();
    spawn_yielder(&rt, &y, first_tx);
    let (done_tx, done_rx) = mpsc::channel();
    spawn_remote_work(&rt, &y, &done_tx);
    rt.block_on(async {
        let deadline = std::time::Instant::now() + PATIENCE;
        while done_rx.try_recv().is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "the remote tasks never all ran"
            );
            runtime::task::yield_now().await;
        }
    });
    check_yielder("current-thread", &y);
}

#[test]
fn a_yielder_waits_behind_remote_work_multi_thread() {
    let rt = runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let y = Arc::new(Yielder {
        remaining: AtomicUsize::new(0),
        polls_while_pending: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
    });
    let (first_tx, first_rx) = mpsc::channel();
    spawn_yielder(&rt, &y, first_tx);
    first_rx
        .recv_timeout(PATIENCE)
        .expect("the yielder never ran");
    // Hold the one worker inside a poll while the remote work is queued, so that all of
    // it waits in the remote queue when the yielder is next released.
    let (holding_tx, holding_rx) = mpsc::channel();
    let release = Arc::new(AtomicBool::new(false));
    let r = release.clone();
    rt.spawn(async move {
        holding_tx.send(()).unwrap();
        let deadline = std::time::Instant::now() + PATIENCE;
        while !r.load(SeqCst) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    });
    holding_rx
        .recv_timeout(PATIENCE)
        .expect("the holding task never ran");
    let (done_tx, done_rx) = mpsc::channel();
    spawn_remote_work(&rt, &y, &done_tx);
    release.store(true, SeqCst);
    done_rx
        .recv_timeout(PATIENCE)
        .expect("the remote tasks never all ran");
    check_yielder("multi-thread, 1 worker", &y);
}

#[test]
fn remote_spawns_are_served_while_workers_are_busy() {
    watchdog("the remote spawns behind busy workers", || {
        // Workers stay busy with self-respawning chains; spawns from outside must still run
        // (the global queue is visited every `global_queue_interval` ticks).
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        fn busy(stop: Arc<std::sync::atomic::AtomicBool>) {
            if !stop.load(SeqCst) {
                drop(runtime::spawn(async move { busy(stop) }));
            }
        }
        for _ in 0..4 {
            let s = stop.clone();
            drop(rt.spawn(async move { busy(s) }));
        }
        let (tx, rx) = mpsc::channel();
        for i in 0..100 {
            let tx = tx.clone();
            drop(rt.spawn(async move { tx.send(i).unwrap() }));
        }
        let mut got: Vec<i32> = (0..100)
            .map(|_| {
                rx.recv_timeout(Duration::from_secs(30))
                    .expect("remote task starved")
            })
            .collect();
        got.sort();
        assert_eq!(got, (0..100).collect::<Vec<_>>());
        stop.store(true, SeqCst);
    })
}

/// A chain of spawns (each task spawns the next, nothing else queued) stays in the LIFO slot
/// 16 polls at a time, not 3: with no other task waiting on the worker, ending the streak
/// would only hand the chain to the ring. One worker, so no sibling can steal.
#[test]
fn spawn_chain_stays_in_the_lifo_slot_when_nothing_else_waits() {
    watchdog("the spawn chain through the LIFO slot", || {
        fn link(n: usize, done: mpsc::Sender<()>) {
            if n == 0 {
                done.send(()).unwrap();
            } else {
                drop(runtime::spawn(async move { link(n - 1, done) }));
            }
        }
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let (tx, rx) = mpsc::channel();
        let n = 1_000;
        drop(rt.spawn(async move { link(n, tx) }));
        rx.recv_timeout(Duration::from_secs(10))
            .expect("chain finished");
        let m = metrics_when(rt.handle(), |m| m.workers()[0].polls() > n as u64);
        let w = &m.workers()[0];
        assert_eq!(w.polls(), n as u64 + 1, "{m:?}");
        // The root runs from the global queue; each of the 1,000 links is a LIFO candidate, and
        // at most one in 17 goes through the ring (one in 4 with a cap of 3).
        assert!(w.lifo_hits() >= 900, "{m:?}");
    })
}

/// Two tasks ping-ponging through the LIFO slot do not starve a task waiting in the ring:
/// the streak is capped at 3 while the ring holds a task. The ping-pong would otherwise
/// run all its 10,000 exchanges before the waiting task.
#[test]
fn lifo_ping_pong_lets_a_ring_task_run() {
    watchdog("the ring task behind a LIFO ping-pong", || {
        use futures::channel::mpsc as fmpsc;
        use futures::StreamExt;
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let exchanges = Arc::new(AtomicUsize::new(0));
        let seen_by_ring_task = Arc::new(AtomicUsize::new(usize::MAX));
        let (to_a, mut rx_a) = fmpsc::unbounded::<()>();
        let (to_b, mut rx_b) = fmpsc::unbounded::<()>();
        let (done_tx, done_rx) = mpsc::channel();
        // Both tasks report in before the first message, so A's first send finds B waiting.
        let (ready_tx, ready_rx) = mpsc::channel();
        let total = 10_000;
        {
            let (ex, seen, to_b) = (exchanges.clone(), seen_by_ring_task.clone(), to_b.clone());
            let (done_tx, ready_tx) = (done_tx.clone(), ready_tx.clone());
            drop(rt.spawn(async move {
                ready_tx.send(()).unwrap();
                let mut first = true;
                while rx_a.next().await.is_some() {
                    if first {
                        first = false;
                        // Lands in the LIFO slot, then is displaced into the ring by the wake
                        // of B just below: it waits there while A and B ping-pong.
                        let (ex, seen) = (ex.clone(), seen.clone());
                        drop(runtime::spawn(async move {
                            seen.store(ex.load(SeqCst), SeqCst)
                        }));
                    }
                    if ex.fetch_add(1, SeqCst) + 1 >= total {
                        done_tx.send(()).unwrap();
                        return;
                    }
                    to_b.unbounded_send(()).unwrap();
                }
            }));
        }
        {
            let (ex, to_a) = (exchanges.clone(), to_a.clone());
            drop(rt.spawn(async move {
                ready_tx.send(()).unwrap();
                while rx_b.next().await.is_some() {
                    if ex.fetch_add(1, SeqCst) + 1 >= total {
                        done_tx.send(()).unwrap();
                        return;
                    }
                    to_a.unbounded_send(()).unwrap();
                }
            }));
        }
        for _ in 0..2 {
            ready_rx
                .recv_timeout(Duration::from_secs(10))
                .expect("task started");
        }
        to_a.unbounded_send(()).unwrap();
        done_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("ping-pong finished");
        let seen = seen_by_ring_task.load(SeqCst);
        assert!(seen <= 8, "the ring task ran only after {seen} exchanges");
        drop(to_b);
    })
}
