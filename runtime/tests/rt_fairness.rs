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
#![cfg(not(loom))]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::time::Duration;

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
