//! loom suite for `runtime::sync::Barrier` (the shipping code through the shim: its
//! mutex-guarded count and generation, and its `Notify`).
//!
//! A wait returns only once its generation is complete: all `n` of its arrivals were made.
//! The models count arrivals (before each `wait`) and returns (after it), both RMWs on one
//! counter each; the `k`-th return (from 0) needs `n * (k / n + 1)` arrivals before it,
//! since at most `n` waits return per completed generation. A waiter released by the
//! previous generation's `notify_waiters` (it arrived between that leader's unlock and its
//! call) that does not check its own generation returns early, and the count says so.
//! Exactly one leader per generation; progress (every wait returns) is `block_on`'s: a lost
//! wake-up is a reported deadlock.
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 2 when unset.

#![cfg(loom)]

use loom::future::block_on;
use loom::thread;
use runtime::sync::Barrier;
use shim::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use shim::sync::Arc;

/// Runs `f` under loom at `LOOM_MAX_PREEMPTIONS` (2 when unset) and prints how many
/// executions it explored (run with `--nocapture` to see it).
fn model(f: impl Fn() + Sync + Send + 'static) {
    loom_tests::model(f, 2);
}

/// A barrier of `n` with its counters.
struct Counted {
    barrier: Barrier,
    n: usize,
    arrived: AtomicUsize,
    returned: AtomicUsize,
    leaders: AtomicUsize,
}

impl Counted {
    fn new(n: usize) -> Counted {
        Counted {
            barrier: Barrier::new(n),
            n,
            arrived: AtomicUsize::new(0),
            returned: AtomicUsize::new(0),
            leaders: AtomicUsize::new(0),
        }
    }

    /// One `wait`, checked against the arrivals counted before it returned.
    fn wait(&self) {
        self.arrived.fetch_add(1, SeqCst);
        let leader = block_on(self.barrier.wait()).is_leader();
        self.returned(leader);
    }

    /// Counts a return (and a leader), asserting that its generation was complete.
    fn returned(&self, leader: bool) {
        if leader {
            self.leaders.fetch_add(1, SeqCst);
        }
        let k = self.returned.fetch_add(1, SeqCst);
        let arrived = self.arrived.load(SeqCst);
        assert!(
            arrived >= self.n * (k / self.n + 1),
            "return {k} with only {arrived} arrivals: a wait returned before its generation \
             was complete"
        );
    }
}

/// A barrier of 2 through two generations, three parties, four waits. Main arrives first
/// (its wait polled once: the first of generation 0), A and B arrive on their threads,
/// and main arrives again only once its first wait returned. B may arrive for generation
/// 1 between A's (the leader's) unlock and its `notify_waiters`, which then wakes B too:
/// B must wait on until main's second arrival. Every wait returns, one leader per
/// generation.
#[test]
fn barrier_waiter_of_the_next_generation_waits_for_it() {
    model(|| {
        let b = Arc::new(Counted::new(2));
        b.arrived.fetch_add(1, SeqCst);
        let mut first = Box::pin(b.barrier.wait());
        assert!(
            loom_tests::poll_noop(first.as_mut()).is_pending(),
            "the first arrival"
        );
        let spawn_waiter = |b: &Arc<Counted>| {
            let b = b.clone();
            thread::spawn(move || b.wait())
        };
        let a = spawn_waiter(&b);
        let c = spawn_waiter(&b);
        let leader = block_on(first).is_leader();
        b.returned(leader);
        b.wait();
        a.join().unwrap();
        c.join().unwrap();
        assert_eq!(b.returned.load(SeqCst), 4);
        assert_eq!(b.leaders.load(SeqCst), 2, "one leader per generation");
    });
}
