//! loom suites for the `Local` ring and its `Steal` handle (CAPACITY is 4 under loom, so
//! overflow and index wrap are a few pushes away).
//!
//! Every suite checks the core invariant: an item pushed is popped, stolen or moved to the
//! inject queue exactly once -- counted across the owner, the thieves and the inject queue
//! after all threads are joined -- and loom checks every slot access for data races.
//! Preemption bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 3 when
//! unset.

#![cfg(loom)]

use loom::thread;
use loom_tests::Item;
use queue::{local, local_with_start, Inject, Local, Steal, CAPACITY};
use shim::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use shim::sync::Arc;

/// The bound used when LOOM_MAX_PREEMPTIONS is unset: the suites here are sized for it
/// (each finishes in seconds at 3; the heaviest, two_thieves_vs_overflow, in minutes at 4).
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

/// Pops everything left in `q` into `got`.
fn drain(q: &mut Local<Item>, got: &mut Vec<usize>) {
    while let Some(item) = q.pop() {
        got.push(item.id());
    }
}

/// Asserts that ids `0..n` each appear exactly once in `got`.
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

/// A thief with its own ring: steals `times` times from `victim`, popping what it gets.
fn spawn_thief(victim: Steal<Item>, times: usize) -> thread::JoinHandle<Vec<usize>> {
    thread::spawn(move || {
        let (_, mut mine) = local::<Item>();
        let mut got = Vec::new();
        for _ in 0..times {
            if let Some(item) = victim.steal_into(&mut mine) {
                got.push(item.id());
            }
            drain(&mut mine, &mut got);
        }
        got
    })
}

#[test]
fn push_pop_vs_thief() {
    model(|| {
        let (steal, mut q) = local::<Item>();
        let inject = Inject::new();
        let thief = spawn_thief(steal, 2);
        let mut got = Vec::new();
        let mut id = 0;
        for _ in 0..2 {
            for _ in 0..2 {
                assert_eq!(q.push_back(Item::new(id), &inject), 0);
                id += 1;
            }
            if let Some(item) = q.pop() {
                got.push(item.id());
            }
        }
        got.extend(thief.join().unwrap());
        drain(&mut q, &mut got);
        assert!(inject.is_empty());
        assert_exactly_once(&got, id);
    });
}

#[test]
fn overflow_vs_thief() {
    model(|| {
        const N: usize = CAPACITY + 2;
        let (steal, mut q) = local::<Item>();
        let inject = Inject::new();
        let thief = spawn_thief(steal, 1);
        let mut moved = 0;
        for id in 0..N {
            moved += q.push_back(Item::new(id), &inject);
        }
        let mut got = thief.join().unwrap();
        // What push_back reported moved is exactly what the inject queue holds.
        assert_eq!(inject.len(), moved);
        got.extend(inject.pop_n(usize::MAX).map(|i| i.id()));
        drain(&mut q, &mut got);
        assert_exactly_once(&got, N);
    });
}

#[test]
fn two_thieves_and_owner_pop() {
    model(|| {
        let (steal, mut q) = local::<Item>();
        let inject = Inject::new();
        for id in 0..CAPACITY {
            q.push_back(Item::new(id), &inject);
        }
        let a = spawn_thief(steal.clone(), 1);
        let b = spawn_thief(steal, 1);
        let mut got = Vec::new();
        if let Some(item) = q.pop() {
            got.push(item.id());
        }
        got.extend(a.join().unwrap());
        got.extend(b.join().unwrap());
        drain(&mut q, &mut got);
        assert!(inject.is_empty());
        assert_exactly_once(&got, CAPACITY);
    });
}

#[test]
fn steal_vs_pop_nearly_empty() {
    for n in 1..=2 {
        model(move || {
            let (steal, mut q) = local::<Item>();
            let inject = Inject::new();
            for id in 0..n {
                q.push_back(Item::new(id), &inject);
            }
            let thief = spawn_thief(steal, 1);
            let mut got = Vec::new();
            drain(&mut q, &mut got);
            got.extend(thief.join().unwrap());
            assert_exactly_once(&got, n);
        });
    }
}

#[test]
fn thief_robbed_while_it_refills() {
    // A steals from the owner into its ring while B steals from A's ring: A's writes into
    // its own ring must be published to B by A's tail store.
    model(|| {
        let (steal, mut q) = local::<Item>();
        let inject = Inject::new();
        for id in 0..CAPACITY {
            q.push_back(Item::new(id), &inject);
        }
        let (a_steal, mut a_ring) = local::<Item>();
        let a = thread::spawn(move || {
            let mut got = Vec::new();
            if let Some(item) = steal.steal_into(&mut a_ring) {
                got.push(item.id());
            }
            (got, a_ring)
        });
        let b = spawn_thief(a_steal, 1);
        let mut got = Vec::new();
        let (a_got, mut a_ring) = a.join().unwrap();
        got.extend(a_got);
        got.extend(b.join().unwrap());
        drain(&mut a_ring, &mut got);
        drain(&mut q, &mut got);
        assert_exactly_once(&got, CAPACITY);
    });
}

#[test]
fn refill_after_being_robbed() {
    // B robs ring A while A's owner pops and then refills A by stealing from Q: the refill
    // reuses the slots B read, so B's commit must happen-before those writes.
    model(|| {
        let inject = Inject::new();
        let (a_steal, mut a) = local::<Item>();
        let (q_steal, mut q) = local::<Item>();
        for id in 0..CAPACITY {
            a.push_back(Item::new(id), &inject);
            q.push_back(Item::new(CAPACITY + id), &inject);
        }
        let b = spawn_thief(a_steal, 1);
        let mut got = Vec::new();
        for _ in 0..2 {
            if let Some(item) = a.pop() {
                got.push(item.id());
            }
        }
        if let Some(item) = q_steal.steal_into(&mut a) {
            got.push(item.id());
        }
        got.extend(b.join().unwrap());
        drain(&mut a, &mut got);
        drain(&mut q, &mut got);
        assert_exactly_once(&got, 2 * CAPACITY);
    });
}

#[test]
fn wrap_around_vs_thief() {
    model(|| {
        let (steal, mut q) = local_with_start::<Item>(u32::MAX - 1);
        let inject = Inject::new();
        for id in 0..3 {
            q.push_back(Item::new(id), &inject);
        }
        let thief = spawn_thief(steal, 1);
        let mut got = Vec::new();
        if let Some(item) = q.pop() {
            got.push(item.id());
        }
        for id in 3..5 {
            q.push_back(Item::new(id), &inject);
        }
        got.extend(thief.join().unwrap());
        got.extend(inject.pop_n(usize::MAX).map(|i| i.id()));
        drain(&mut q, &mut got);
        assert_exactly_once(&got, 5);
    });
}

#[test]
fn overflow_vs_thief_vs_close() {
    // The inject queue closes while the ring overflows into it and a thief steals: items
    // refused by the closed queue are dropped by push_back, none is lost or dropped twice.
    model(|| {
        const N: usize = CAPACITY + 1;
        let drops = Arc::new(AtomicUsize::new(0));
        let (steal, mut q) = local::<Item>();
        let inject = Arc::new(Inject::new());
        let closer = {
            let inject = inject.clone();
            thread::spawn(move || assert!(inject.close()))
        };
        let thief = spawn_thief(steal, 1);
        let mut moved = 0;
        for id in 0..N {
            moved += q.push_back(Item::counted(id, &drops), &inject);
        }
        closer.join().unwrap();
        let mut got = thief.join().unwrap();
        let from_inject: Vec<usize> = inject.pop_n(usize::MAX).map(|i| i.id()).collect();
        assert_eq!(from_inject.len(), moved);
        got.extend(from_inject);
        drain(&mut q, &mut got);
        // Every item was either seen (and dropped once counted) or refused and dropped by
        // push_back: a whole overflow batch, or the one item pushed alone mid-steal.
        assert_eq!(drops.load(Relaxed), N);
        let refused = N - got.len();
        assert!(
            [0, 1, CAPACITY / 2 + 1].contains(&refused),
            "refused {refused}"
        );
        got.sort_unstable();
        got.dedup();
        assert_eq!(got.len(), N - refused);
    });
}

#[test]
fn two_thieves_vs_overflow() {
    model(|| {
        const N: usize = CAPACITY + 2;
        let (steal, mut q) = local::<Item>();
        let inject = Inject::new();
        let a = spawn_thief(steal.clone(), 1);
        let b = spawn_thief(steal, 1);
        let mut moved = 0;
        for id in 0..N {
            moved += q.push_back(Item::new(id), &inject);
        }
        let mut got = a.join().unwrap();
        got.extend(b.join().unwrap());
        assert_eq!(inject.len(), moved);
        got.extend(inject.pop_n(usize::MAX).map(|i| i.id()));
        drain(&mut q, &mut got);
        assert_exactly_once(&got, N);
    });
}
