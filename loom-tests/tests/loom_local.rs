//! loom suites for the `Local` ring and its `Steal` handle (CAPACITY is 4 under loom, so
//! overflow and index wrap are a few pushes away).
//!
//! Every suite checks the core invariant: an item pushed is popped, stolen or moved to the
//! inject queue exactly once -- counted across the owner, the thieves and the inject queue
//! after all threads are joined -- and loom checks every slot access for data races.
//!
//! They also check progress, not only safety (see the contract in queue's `local.rs`):
//! `assert_quiescent` runs after every concurrent phase, with all threads joined and the
//! owner idle, and asserts that the ring is not left mid-steal: a fresh steal of the items
//! left takes `ceil(n / 2)`, and the owner can then fill all `CAPACITY` slots without
//! overflowing (and the next push overflows by half, as it should). `steal_racing_pop_gets_some`
//! asserts that a steal racing only the owner's pop of a ring holding several items gets
//! some, and `fresh_steal_takes_half_rounded_up` the amount a lone steal takes.
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

/// Progress after the concurrent phase (every other thread joined, the owner idle): moves
/// every item left in `q` into `got`, asserting on the way that the ring is not mid-steal.
/// A fresh steal of the `n` items left takes exactly `ceil(n / 2)`; then, emptied, the owner
/// fills all `CAPACITY` slots with no overflow, and the next push overflows by half.
fn assert_quiescent(steal: &Steal<Item>, q: &mut Local<Item>, got: &mut Vec<usize>) {
    let n = q.len();
    assert_eq!(
        steal.len(),
        n,
        "owner and thief disagree on the length of an idle ring"
    );
    if n > 0 {
        let (_, mut fresh) = local::<Item>();
        let first = steal.steal_into(&mut fresh).unwrap_or_else(|| {
            panic!(
                "a lone steal of an idle ring holding {n} items returned nothing (left mid-steal?)"
            )
        });
        got.push(first.id());
        assert_eq!(
            1 + fresh.len(),
            n.div_ceil(2),
            "a lone steal of {n} items must take ceil(n/2)"
        );
        drain(&mut fresh, got);
    }
    drain(q, got);
    // Empty now: every slot must be usable again (a stuck steal range would eat some).
    let spare = Inject::new();
    for _ in 0..CAPACITY {
        assert!(
            q.has_room(),
            "an empty idle ring has fewer than CAPACITY free slots"
        );
        assert_eq!(
            q.push_back(Item::new(0), &spare),
            0,
            "overflow before the ring was full"
        );
    }
    assert!(!q.has_room());
    assert_eq!(
        q.push_back(Item::new(0), &spare),
        CAPACITY / 2 + 1,
        "a full idle ring must overflow by half"
    );
    assert_eq!(spare.pop_n(usize::MAX).count(), CAPACITY / 2 + 1);
    let mut rest = Vec::new();
    drain(q, &mut rest);
    assert_eq!(rest.len(), CAPACITY / 2);
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
        let thief = spawn_thief(steal.clone(), 2);
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
        assert_quiescent(&steal, &mut q, &mut got);
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
        let thief = spawn_thief(steal.clone(), 1);
        let mut moved = 0;
        for id in 0..N {
            moved += q.push_back(Item::new(id), &inject);
        }
        let mut got = thief.join().unwrap();
        // What push_back reported moved is exactly what the inject queue holds.
        assert_eq!(inject.len(), moved);
        got.extend(inject.pop_n(usize::MAX).map(|i| i.id()));
        assert_quiescent(&steal, &mut q, &mut got);
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
        let b = spawn_thief(steal.clone(), 1);
        let mut got = Vec::new();
        if let Some(item) = q.pop() {
            got.push(item.id());
        }
        got.extend(a.join().unwrap());
        got.extend(b.join().unwrap());
        assert_quiescent(&steal, &mut q, &mut got);
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
            let thief = spawn_thief(steal.clone(), 1);
            let mut got = Vec::new();
            drain(&mut q, &mut got);
            got.extend(thief.join().unwrap());
            assert_quiescent(&steal, &mut q, &mut got);
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
        let victim = steal.clone();
        let a = thread::spawn(move || {
            let mut got = Vec::new();
            if let Some(item) = victim.steal_into(&mut a_ring) {
                got.push(item.id());
            }
            (got, a_ring)
        });
        let b = spawn_thief(a_steal.clone(), 1);
        let mut got = Vec::new();
        let (a_got, mut a_ring) = a.join().unwrap();
        got.extend(a_got);
        got.extend(b.join().unwrap());
        assert_quiescent(&a_steal, &mut a_ring, &mut got);
        assert_quiescent(&steal, &mut q, &mut got);
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
        let b = spawn_thief(a_steal.clone(), 1);
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
        assert_quiescent(&a_steal, &mut a, &mut got);
        assert_quiescent(&q_steal, &mut q, &mut got);
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
        let thief = spawn_thief(steal.clone(), 1);
        let mut got = Vec::new();
        if let Some(item) = q.pop() {
            got.push(item.id());
        }
        for id in 3..5 {
            q.push_back(Item::new(id), &inject);
        }
        got.extend(thief.join().unwrap());
        got.extend(inject.pop_n(usize::MAX).map(|i| i.id()));
        assert_quiescent(&steal, &mut q, &mut got);
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
        let thief = spawn_thief(steal.clone(), 1);
        let mut moved = 0;
        for id in 0..N {
            moved += q.push_back(Item::counted(id, &drops), &inject);
        }
        closer.join().unwrap();
        let mut got = thief.join().unwrap();
        let from_inject: Vec<usize> = inject.pop_n(usize::MAX).map(|i| i.id()).collect();
        assert_eq!(from_inject.len(), moved);
        got.extend(from_inject);
        assert_quiescent(&steal, &mut q, &mut got);
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
        let b = spawn_thief(steal.clone(), 1);
        let mut moved = 0;
        for id in 0..N {
            moved += q.push_back(Item::new(id), &inject);
        }
        let mut got = a.join().unwrap();
        got.extend(b.join().unwrap());
        assert_eq!(inject.len(), moved);
        got.extend(inject.pop_n(usize::MAX).map(|i| i.id()));
        assert_quiescent(&steal, &mut q, &mut got);
        assert_exactly_once(&got, N);
    });
}

/// A steal racing only the owner's pop of a ring holding several items: the ring is never
/// empty and no other thief runs, so the steal must get some (a claim CAS that lost to the
/// pop is retried, not given up), and so must the pop (a pop CAS that lost to the claim is
/// retried too); afterwards the ring is not left mid-steal (a commit CAS that lost to the
/// pop is retried).
#[test]
fn steal_racing_pop_gets_some() {
    model(|| {
        const N: usize = 3;
        let (steal, mut q) = local::<Item>();
        let inject = Inject::new();
        for id in 0..N {
            q.push_back(Item::new(id), &inject);
        }
        let victim = steal.clone();
        let thief = thread::spawn(move || {
            let (_, mut mine) = local::<Item>();
            let first = victim
                .steal_into(&mut mine)
                .expect("a steal racing only the owner's pop of a 3-item ring got nothing");
            let mut got = vec![first.id()];
            drain(&mut mine, &mut got);
            got
        });
        // The thief takes at most ceil(3/2) = 2, so the ring is never empty for the owner
        // either: its pop must not give up when the thief's claim raced it.
        let mut got = vec![q
            .pop()
            .expect("the owner's pop racing one steal of a 3-item ring got nothing")
            .id()];
        got.extend(thief.join().unwrap());
        assert_quiescent(&steal, &mut q, &mut got);
        assert!(inject.is_empty());
        assert_exactly_once(&got, N);
    });
}

/// A lone steal (no race) of a ring holding `n` items takes `ceil(n / 2)`, for every `n`
/// up to `CAPACITY`: a ring holding one task is stolen by an idle sibling.
#[test]
fn fresh_steal_takes_half_rounded_up() {
    model(|| {
        for n in 1..=CAPACITY {
            let (steal, mut q) = local::<Item>();
            let inject = Inject::new();
            for id in 0..n {
                q.push_back(Item::new(id), &inject);
            }
            let mut got = Vec::new();
            assert_quiescent(&steal, &mut q, &mut got);
            assert_exactly_once(&got, n);
        }
    });
}
