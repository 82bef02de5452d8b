//! loom suites for the `Inject` queue: concurrent push / pop / push_batch / pop_n, FIFO
//! order while pushes (onto the lock-free stack) race consumers (moving it to the list),
//! and close racing pushes (a push that saw the close, or came after it, is refused; a
//! drain after `is_closed()` finds every push accepted before the close). Each checks that
//! every item comes out exactly once (or comes back refused), that batches keep their
//! order, and that the lock-free length agrees with the contents once the threads are
//! joined; loom checks the item links for data races.
//! Preemption bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 3 when
//! unset.

#![cfg(loom)]

use loom::thread;
use loom_tests::Item;
use queue::Inject;
use shim::sync::atomic::{
    AtomicBool, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};
use shim::sync::Arc;

/// The bound used when LOOM_MAX_PREEMPTIONS is unset: the suites here are sized for it
/// (each finishes in under a second at 3, and unbounded).
const DEFAULT_PREEMPTION_BOUND: usize = 3;

fn model(f: impl Fn() + Sync + Send + 'static) {
    use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering::Relaxed as StdRelaxed};
    // Counts the explored executions, for `--nocapture` runs. A std atomic on purpose: it
    // lives outside the model and must not be one of loom's.
    let executions = std::sync::Arc::new(StdAtomicUsize::new(0));
    let counter = executions.clone();
    // `Builder::new` reads LOOM_MAX_PREEMPTIONS (and the other LOOM_* variables). Unset,
    // loom would explore without a bound, which some suites cannot finish: default to
    // DEFAULT_PREEMPTION_BOUND instead (a large value such as 100 is, in effect, unbounded).
    let mut builder = loom::model::Builder::new();
    let bound = *builder
        .preemption_bound
        .get_or_insert(DEFAULT_PREEMPTION_BOUND);
    builder.check(move || {
        counter.fetch_add(1, StdRelaxed);
        f()
    });
    eprintln!(
        "{}: {} executions (preemption bound {bound})",
        std::thread::current().name().unwrap_or("?"),
        executions.load(StdRelaxed)
    );
}

fn assert_exactly_once(got: &[usize], n: usize) {
    let mut seen = vec![0; n];
    for &id in got {
        seen[id] += 1;
    }
    assert!(
        seen.iter().all(|&k| k == 1),
        "ids seen {seen:?} (got {got:?})"
    );
}

/// Pops everything left, checking the lock-free length first.
fn drain(q: &Inject<Item>) -> Vec<usize> {
    let len = q.len();
    let got: Vec<usize> = q.pop_n(usize::MAX).map(|i| i.id()).collect();
    assert_eq!(got.len(), len);
    assert!(q.is_empty());
    got
}

#[test]
fn push_vs_pop() {
    model(|| {
        let q = Arc::new(Inject::new());
        let pushers: Vec<_> = (0..2)
            .map(|id| {
                let q = q.clone();
                thread::spawn(move || q.push(Item::new(id)).ok().unwrap())
            })
            .collect();
        let mut got = Vec::new();
        for _ in 0..2 {
            if let Some(item) = q.pop() {
                got.push(item.id());
            }
        }
        for p in pushers {
            p.join().unwrap();
        }
        got.extend(drain(&q));
        assert_exactly_once(&got, 2);
    });
}

#[test]
fn push_batch_vs_push_vs_pop_n() {
    model(|| {
        let q = Arc::new(Inject::new());
        let batch = {
            let q = q.clone();
            thread::spawn(move || q.push_batch((0..3).map(Item::new)).ok().unwrap())
        };
        let single = {
            let q = q.clone();
            thread::spawn(move || q.push(Item::new(3)).ok().unwrap())
        };
        // Consume concurrently, in two detached chains.
        let mut got: Vec<usize> = q.pop_n(2).map(|i| i.id()).collect();
        got.extend(q.pop_n(2).map(|i| i.id()));
        batch.join().unwrap();
        single.join().unwrap();
        got.extend(drain(&q));
        assert_exactly_once(&got, 4);
        // The batch keeps its order (FIFO, and it went in as one splice).
        let batch_order: Vec<usize> = got.iter().copied().filter(|&id| id < 3).collect();
        assert_eq!(batch_order, vec![0, 1, 2]);
    });
}

/// One producer pushing one at a time while two consumers pop: whatever the interleaving
/// of pushes onto the stack and consumers moving it to the list, each consumer sees the
/// producer's items in push order, and every item comes out once.
#[test]
fn single_producer_order_under_concurrent_pops() {
    model(|| {
        let q = Arc::new(Inject::new());
        let pusher = {
            let q = q.clone();
            thread::spawn(move || {
                for id in 0..3 {
                    q.push(Item::new(id)).ok().unwrap();
                }
            })
        };
        let popper = {
            let q = q.clone();
            thread::spawn(move || q.pop_n(2).map(|i| i.id()).collect::<Vec<_>>())
        };
        let mut mine: Vec<usize> = q.pop().map(|i| i.id()).into_iter().collect();
        mine.extend(q.pop().map(|i| i.id()));
        pusher.join().unwrap();
        let theirs = popper.join().unwrap();
        assert!(mine.windows(2).all(|w| w[0] < w[1]), "{mine:?}");
        assert!(theirs.windows(2).all(|w| w[0] < w[1]), "{theirs:?}");
        let rest = drain(&q);
        // What is left is younger than anything either consumer took.
        let taken_max = mine.iter().chain(&theirs).max().copied();
        assert!(
            rest.iter().all(|&id| taken_max.is_none_or(|m| id > m)),
            "{rest:?}"
        );
        let mut got = mine;
        got.extend(theirs);
        got.extend(rest);
        assert_exactly_once(&got, 3);
    });
}

#[test]
fn pop_vs_pop_n() {
    model(|| {
        let q = Arc::new(Inject::new());
        q.push_batch((0..3).map(Item::new)).ok().unwrap();
        let popper = {
            let q = q.clone();
            thread::spawn(move || q.pop().map(|i| i.id()))
        };
        let mut got: Vec<usize> = q.pop_n(2).map(|i| i.id()).collect();
        got.extend(popper.join().unwrap());
        got.extend(drain(&q));
        assert_exactly_once(&got, 3);
    });
}

#[test]
fn close_vs_push() {
    model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let q = Arc::new(Inject::new());
        let closer = {
            let q = q.clone();
            thread::spawn(move || assert!(q.close()))
        };
        let pusher = {
            let (q, drops) = (q.clone(), drops.clone());
            thread::spawn(move || {
                let mut refused = Vec::new();
                if let Err(item) = q.push(Item::counted(0, &drops)) {
                    refused.push(item.id());
                }
                if let Err(chain) = q.push_batch((1..3).map(|id| Item::counted(id, &drops))) {
                    assert_eq!(chain.len(), 2);
                    refused.extend(chain.map(|i| i.id()));
                }
                refused
            })
        };
        closer.join().unwrap();
        let refused = pusher.join().unwrap();
        assert!(q.is_closed());
        // A push ordered after the close (here by the joins) is refused, item handed back.
        let late = q
            .push(Item::new(3))
            .expect_err("a push after close() was accepted");
        assert_eq!(late.id(), 3);
        // Closing is final: once a push is refused, later pushes are refused too.
        assert!(
            refused.is_empty() || refused.ends_with(&[1, 2]),
            "{refused:?}"
        );
        let queued = q.len();
        assert_eq!(queued + refused.len(), 3);
        // Pops still drain what went in before the close; the rest is dropped with the queue.
        let mut got = refused;
        if let Some(item) = q.pop() {
            got.push(item.id());
        }
        let left = q.len();
        drop(Arc::try_unwrap(q).expect("last handle"));
        assert_eq!(drops.load(Relaxed), 3);
        assert_eq!(got.len() + left, 3);
        got.sort_unstable();
        got.dedup();
        assert_eq!(got.len() + left, 3);
    });
}

/// The CLOSED bit is honoured by a push racing the close, not only by one ordered after it
/// by a join: the closer announces the close (after `close()` returned) through a flag, and
/// a pusher that saw the flag before pushing must be refused, one item or a batch. With no
/// lock on the push path, the CLOSED bit in the stack's head word is the only thing that
/// can refuse it.
#[test]
fn push_seeing_close_is_refused() {
    model(|| {
        let q = Arc::new(Inject::<Item>::new());
        let announced = Arc::new(AtomicBool::new(false));
        let closer = {
            let (q, announced) = (q.clone(), announced.clone());
            thread::spawn(move || {
                assert!(q.close());
                announced.store(true, Release);
            })
        };
        let mut accepted = 0;
        for id in 0..2 {
            let seen = announced.load(Acquire);
            let ok = if id == 0 {
                q.push(Item::new(id)).is_ok()
            } else {
                q.push_batch([Item::new(id), Item::new(id + 1)]).is_ok()
            };
            assert!(!(seen && ok), "push {id} accepted after close() returned");
            accepted += usize::from(ok) * (id + 1);
        }
        closer.join().unwrap();
        assert_eq!(q.pop_n(usize::MAX).count(), accepted);
    });
}

/// A consumer that learns of the close from `is_closed()` (as the multi-thread runtime's
/// workers do, before the last one drains the queue for good) and then drains must find
/// every push that went in before the close: `true` from `is_closed` happens-after the
/// `close` (its Release store, pairing with the Acquire load), and the close's RMW on the
/// head acquired every push that got in before it, so the drain's length check (a Relaxed
/// load of the counter) cannot read a count from before such a push. Weakening the store,
/// the load, or the close's RMW to Release only lets the drain see an empty queue and
/// leave an accepted push behind (the runtime leaks that task).
#[test]
fn drain_after_is_closed_finds_every_accepted_push() {
    model(|| {
        let q = Arc::new(Inject::<Item>::new());
        let pusher = {
            let q = q.clone();
            thread::spawn(move || q.push(Item::new(0)).is_ok())
        };
        let closer = {
            let q = q.clone();
            thread::spawn(move || {
                q.close();
            })
        };
        let mut drained = 0;
        if q.is_closed() {
            while q.pop().is_some() {
                drained += 1;
            }
            let accepted = pusher.join().unwrap();
            assert_eq!(
                drained,
                usize::from(accepted),
                "a drain after is_closed() missed a push accepted before the close"
            );
        } else {
            pusher.join().unwrap();
        }
        closer.join().unwrap();
    });
}
