#![cfg(loom)]
//! loom suite for `queue::claim_and_requeue`, the function a task dump calls (through
//! `runtime`'s `scheduler/multi_thread/claim.rs`) to take the never-polled tasks of a
//! worker's ring and LIFO slot and requeue them on the global queue: here on test items,
//! with the ring, the slot and the inject queue the worker uses (CAPACITY 4 under loom).
//!
//! What the models assert:
//! - every item is run exactly once, none lost, none duplicated, whoever takes it: the
//!   owner (LIFO take, ring pop), a sibling's steal, or a consumer of the inject queue,
//!   while the claim races them;
//! - an item the claim showed its caller is the claim's until the requeue, and is then in
//!   the inject queue, where a consumer runs it (not the owner, not the thief);
//! - on a closed inject queue (shutdown) the claim hands every item it took back, and
//!   nothing is lost between the claim, the close and the drain.
//!
//! Planted bug (for the record): the batch pushed without its first item (`skip(1)`: the
//! claim drops one): both models fail ("item 0, claimed, was not run from the inject
//! queue (from there: [1, 2], elsewhere: [3])"; "item 0 ran 0 times (ran: [1, 2, 3])"),
//! and so does `runtime/tests/rt_dump_queues.rs` ("timed out after 10 s waiting for every
//! queued task to run").

use loom::thread;
use loom_tests::{model, Item};
use queue::{claim_and_requeue, local, Inject, LifoSlot, Local};
use shim::sync::Arc;

/// The CI bound when `LOOM_MAX_PREEMPTIONS` is unset.
const DEFAULT_PREEMPTION_BOUND: usize = 2;

/// Items of the worker's queues at the start: three in the ring, one in the LIFO slot.
const ITEMS: usize = 4;

/// A worker's queues holding items `0..ITEMS`: the ring's owner, the slot, the inject
/// queue it spills to.
fn worker() -> (
    queue::Steal<Item>,
    Local<Item>,
    Arc<LifoSlot<Item>>,
    Arc<Inject<Item>>,
) {
    let (steal, mut ring) = local::<Item>();
    let inject = Arc::new(Inject::new());
    for id in 0..ITEMS - 1 {
        assert_eq!(ring.push_back(Item::new(id), &inject), 0);
    }
    let lifo = Arc::new(LifoSlot::new());
    assert!(lifo.push(Item::new(ITEMS - 1)).is_none());
    (steal, ring, lifo, inject)
}

/// Asserts that ids `0..n` each ran exactly once.
fn assert_ran_once(ran: &[usize], n: usize) {
    let mut times = vec![0; n];
    for &id in ran {
        times[id] += 1;
    }
    for (id, &n) in times.iter().enumerate() {
        assert_eq!(n, 1, "item {id} ran {n} times (ran: {ran:?})");
    }
}

/// The claim (a dump), the owner pushing one more item and popping, and a sibling
/// stealing, then a consumer of the inject queue: every item runs once, and those the
/// claim saw run from the inject queue.
#[test]
fn claim_racing_the_owner_and_a_thief_runs_every_item_once() {
    model(
        || {
            let (steal, mut ring, lifo, inject) = worker();
            let dump = {
                let (steal, lifo, inject) = (steal.clone(), lifo.clone(), inject.clone());
                thread::spawn(move || {
                    let mut seen = Vec::new();
                    let moved =
                        claim_and_requeue(&steal, &lifo, &inject, |item| seen.push(item.id()));
                    let moved = moved.unwrap_or_else(|_| panic!("the inject queue is open"));
                    assert_eq!(moved, seen.len());
                    seen
                })
            };
            let thief = thread::spawn(move || {
                let (_, mut mine) = local::<Item>();
                let mut ran = Vec::new();
                ran.extend(steal.steal_into(&mut mine).map(|item| item.id()));
                while let Some(item) = mine.pop() {
                    ran.push(item.id());
                }
                ran
            });
            // The owner spawns into its ring (it fills it: no overflow), then runs its next
            // task as a worker does: the LIFO slot, then the ring, then (both empty) the
            // global queue.
            assert_eq!(ring.push_back(Item::new(ITEMS), &inject), 0);
            let mut ran = Vec::new();
            let mut global = Vec::new();
            match lifo.take().or_else(|| ring.pop()) {
                Some(item) => ran.push(item.id()),
                None => global.extend(inject.pop().map(|item| item.id())),
            }
            let seen = dump.join().unwrap();
            ran.extend(thief.join().unwrap());
            // After the requeue a consumer of the inject queue runs the rest of it.
            global.extend(inject.pop_n(usize::MAX).map(|item| item.id()));
            for id in &seen {
                assert!(
                    global.contains(id),
                    "item {id}, claimed, was not run from the inject queue \
                     (from there: {global:?}, elsewhere: {ran:?})"
                );
            }
            ran.extend(global);
            ran.extend(lifo.take().map(|item| item.id()));
            while let Some(item) = ring.pop() {
                ran.push(item.id());
            }
            assert_ran_once(&ran, ITEMS + 1);
        },
        DEFAULT_PREEMPTION_BOUND,
    );
}

/// Shutdown: the inject queue closes (and is drained) while the claim runs. The claim's
/// items come back to it when refused; every item is disposed of exactly once (drained,
/// handed back, or left in the worker's queues for its own drain).
#[test]
fn claim_refused_by_a_closed_queue_hands_every_item_back() {
    model(
        || {
            let (steal, mut ring, lifo, inject) = worker();
            let dump = {
                let (lifo, inject) = (lifo.clone(), inject.clone());
                thread::spawn(move || {
                    match claim_and_requeue(&steal, &lifo, &inject, |_| ()) {
                        Ok(_) => Vec::new(),
                        // Refused: the caller disposes of them (the dump cancels them).
                        Err(back) => back.map(|item| item.id()).collect(),
                    }
                })
            };
            inject.close();
            let mut ran: Vec<usize> = Vec::new();
            ran.extend(inject.pop_n(usize::MAX).map(|item| item.id()));
            // A batch the queue accepted was accepted before the close, so the drain
            // above took it; one refused comes back.
            ran.extend(dump.join().unwrap());
            // The worker's own shutdown drain.
            ran.extend(lifo.take().map(|item| item.id()));
            while let Some(item) = ring.pop() {
                ran.push(item.id());
            }
            assert_ran_once(&ran, ITEMS);
        },
        DEFAULT_PREEMPTION_BOUND,
    );
}
