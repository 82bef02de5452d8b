//! Multithreaded stress: an owner pushes (overflowing into the inject queue) and pops while
//! two thieves steal from it and from each other and drain the inject queue; every item
//! must be seen exactly once and dropped exactly once.

#![cfg(not(loom))]

mod common;

use common::{Item, Tracker};
use queue::{local, Inject, Local, Steal};
use shim::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use shim::sync::Arc;

fn drain_local(q: &mut Local<Item>, got: &mut Vec<usize>) {
    while let Some(item) = q.pop() {
        got.push(item.id());
    }
}

fn run(n: usize, start: u32) {
    let tracker = Tracker::new(n);
    let inject = Arc::new(Inject::<Item>::new());
    let done = Arc::new(AtomicBool::new(false));
    let stolen = Arc::new(AtomicUsize::new(0));
    let started = Arc::new(AtomicUsize::new(0));
    let (owner_steal, mut owner) = queue::local_with_start::<Item>(start);
    let thieves: Vec<(Steal<Item>, Local<Item>)> = (0..2).map(|_| local()).collect();
    let thief_steals: Vec<Steal<Item>> = thieves.iter().map(|(s, _)| s.clone()).collect();

    let handles: Vec<_> = thieves
        .into_iter()
        .enumerate()
        .map(|(me, (_, mut mine))| {
            let victims = [owner_steal.clone(), thief_steals[1 - me].clone()];
            let (inject, done, stolen) = (inject.clone(), done.clone(), stolen.clone());
            let started = started.clone();
            std::thread::spawn(move || {
                started.fetch_add(1, SeqCst);
                let mut got = Vec::new();
                loop {
                    let finished = done.load(SeqCst);
                    let mut found = false;
                    for victim in &victims {
                        if let Some(item) = victim.steal_into(&mut mine) {
                            stolen.fetch_add(1, SeqCst);
                            found = true;
                            got.push(item.id());
                            // Keep a few to be stolen by the other thief, pop the rest.
                            // (`len` is a snapshot: the other thief may steal meanwhile.)
                            while mine.len() > 2 {
                                match mine.pop() {
                                    Some(item) => got.push(item.id()),
                                    None => break,
                                }
                            }
                        }
                    }
                    for item in inject.pop_n(3) {
                        found = true;
                        got.push(item.id());
                    }
                    if !found {
                        drain_local(&mut mine, &mut got);
                        if finished {
                            break;
                        }
                        std::thread::yield_now();
                    }
                }
                drain_local(&mut mine, &mut got);
                got
            })
        })
        .collect();

    // Let both thieves get going before the owner starts, so the run actually overlaps.
    while started.load(SeqCst) < 2 {
        std::thread::yield_now();
    }
    let mut got = Vec::new();
    for id in 0..n {
        owner.push_back(tracker.item(id), &inject);
        // Give the thieves CPU time on small machines, so the run interleaves.
        if id % 64 == 0 {
            std::thread::yield_now();
        }
        if id % 3 == 0 {
            if let Some(item) = owner.pop() {
                got.push(item.id());
            }
        }
    }
    // Leave the ring's items to the thieves until one steal has succeeded (a generous
    // bound, not a timing assertion: on a loaded machine the thieves may start late).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while stolen.load(SeqCst) == 0 && std::time::Instant::now() < deadline {
        std::thread::yield_now();
    }
    drain_local(&mut owner, &mut got);
    done.store(true, SeqCst);

    let mut seen = vec![0u8; n];
    for h in handles {
        for id in h.join().unwrap() {
            seen[id] += 1;
        }
    }
    for item in std::iter::from_fn(|| inject.pop()) {
        got.push(item.id());
    }
    for id in got {
        seen[id] += 1;
    }
    for (id, &k) in seen.iter().enumerate() {
        assert_eq!(k, 1, "item {id} seen {k} times");
    }
    assert!(owner.is_empty() && inject.is_empty());
    drop(owner);
    tracker.assert_each_dropped_once(0..n);
    assert!(stolen.load(SeqCst) > 0, "no steal succeeded");
}

#[test]
fn owner_and_two_thieves() {
    run(200_000, 0);
}

#[test]
fn owner_and_two_thieves_across_wrap() {
    run(100_000, u32::MAX - 1000);
}
