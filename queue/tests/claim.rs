//! Single-threaded tests of `claim_and_requeue`: a full ring and the LIFO slot move to the
//! inject queue in one batch, in ring order then the slot's, each shown to the caller
//! first; a closed inject queue hands every item back.

#![cfg(not(loom))]

mod common;

use common::{Item, Tracker};
use queue::{claim_and_requeue, local, Inject, LifoSlot, CAPACITY};

#[test]
fn a_full_ring_and_the_lifo_slot_move_to_the_inject_queue_in_order() {
    let (steal, mut ring) = local::<Item>();
    let inject = Inject::new();
    for id in 0..CAPACITY {
        assert_eq!(ring.push_back(Item::new(id), &inject), 0);
    }
    let lifo = LifoSlot::new();
    assert!(lifo.push(Item::new(CAPACITY)).is_none());
    let mut seen = Vec::new();
    let moved = claim_and_requeue(&steal, &lifo, &inject, |item| seen.push(item.id()));
    assert_eq!(moved.ok(), Some(CAPACITY + 1));
    let want: Vec<usize> = (0..=CAPACITY).collect();
    assert_eq!(seen, want);
    assert!(ring.pop().is_none() && lifo.take().is_none());
    let requeued: Vec<usize> = inject.pop_n(usize::MAX).map(|item| item.id()).collect();
    assert_eq!(requeued, want);
    // Nothing queued: nothing pushed.
    assert_eq!(
        claim_and_requeue(&steal, &lifo, &inject, |_| ()).ok(),
        Some(0)
    );
    assert!(inject.is_empty());
}

#[test]
fn a_closed_inject_queue_hands_every_claimed_item_back() {
    let tracker = Tracker::new(4);
    let (steal, mut ring) = local::<Item>();
    let inject = Inject::new();
    for id in 0..3 {
        assert_eq!(ring.push_back(tracker.item(id), &inject), 0);
    }
    let lifo = LifoSlot::new();
    assert!(lifo.push(tracker.item(3)).is_none());
    inject.close();
    let back = claim_and_requeue(&steal, &lifo, &inject, |_| ()).unwrap_err();
    let ids: Vec<usize> = back.map(|item| item.id()).collect();
    assert_eq!(ids, [0, 1, 2, 3]);
    tracker.assert_each_dropped_once(0..4);
}
