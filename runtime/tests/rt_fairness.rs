//! Remote spawns get a turn on a worker kept busy by a chain of long polls, each spawning
//! the next into the LIFO slot.
//!
//! The multi-thread worker cuts a LIFO streak once remote work has waited its latency
//! target since the worker last served the remote queue, so a remote task runs within a
//! link or two of its spawn: not after the LIFO cap (16 links) or the tuned fairness
//! interval (61 polls before any measurement). The test counts links; it measures no
//! speed, and every wait is bounded.
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
