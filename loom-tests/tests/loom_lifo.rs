#![cfg(loom)]
//! loom suite for `queue::LifoSlot`: the owner (pushes, takes) against thieves (steal),
//! the race a stuck worker's LIFO slot sees when a sibling rescues its task while the
//! worker's poll ends and it takes the slot itself.
//!
//! What the models assert:
//! - every item pushed is taken exactly once, by the owner or by a thief, never both
//!   (items carry a drop counter: a double take would free twice, a lost one would not be
//!   counted, and loom reports leaks);
//! - progress: after the race, whatever nobody took is still in the slot (the owner's
//!   final take finds it), so a rescued-or-not task always runs;
//! - the owner's push into an empty slot is a plain store (no RMW): a thief racing it
//!   either sees the item or an empty slot, never a torn state;
//! - a push over an occupied slot hands the displaced item back to the owner unless a
//!   thief took it first, exactly one of the two.
//!
//! - the owner's writes to an item before it pushes reach whoever takes it (the owner's
//!   Release push, a taker's Acquire swap): a thief that frees the item must have seen
//!   them, or loom reports a causality violation (`owner_writes_reach_the_thief`);
//! - the LIFO rescue of a stuck worker (`runtime`'s `WorkerShared`, worker_shared.rs, exported to
//!   loom builds; its poll stamps are std atomics, so these models check the permission's
//!   logic while the slot's race stays loom's): a sibling takes a worker's LIFO task only
//!   while that worker is inside the poll the monitor found stuck, gets it then, and a
//!   searcher is told of a stealable task only when there is one.
//!
//! Planted bugs (for the record):
//! - the owner's `take` as a load followed by a plain `store(null)` instead of the swap:
//!   owner and thief both take the item; all three models fail (`owner_take_races_a_thief`:
//!   "ids taken [1, 1], expected [1]"; `two_thieves_and_the_owner`: "ids taken [7, 7]").
//! - the displacing `push` as a load then a plain store instead of the swap: a thief takes
//!   the old item between the two, and the owner gets it back as displaced too;
//!   `push_and_displace_race_a_thief` fails ("ids taken [1, 1], expected [1, 2]").

use loom::thread;
use loom_tests::Item;
use queue::{LifoSlot, Link};
use runtime::loom_internals::WorkerShared;
use shim::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use shim::sync::Arc;

const DEFAULT_PREEMPTION_BOUND: usize = 3;

/// Asserts that `taken` holds exactly the ids `want` (in any order). On failure the items
/// are leaked, not dropped: a duplicate would otherwise be freed twice before loom could
/// report the assertion.
fn assert_taken(taken: Vec<Item>, want: &[usize]) {
    let mut ids: Vec<usize> = taken.iter().map(Item::id).collect();
    ids.sort();
    if ids != want {
        std::mem::forget(taken);
        panic!("ids taken {ids:?}, expected {want:?}");
    }
}

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder
        .preemption_bound
        .get_or_insert(DEFAULT_PREEMPTION_BOUND);
    builder.check(f);
}

/// The owner pushes one item and later takes; a thief steals concurrently.
#[test]
fn owner_take_races_a_thief() {
    model(|| {
        let slot = Arc::new(LifoSlot::<Item>::new());
        let drops = Arc::new(AtomicUsize::new(0));
        assert!(slot.push(Item::counted(1, &drops)).is_none());
        let thief = {
            let slot = slot.clone();
            thread::spawn(move || slot.steal())
        };
        let mine = slot.take();
        let theirs = thief.join().unwrap();
        assert_taken(mine.into_iter().chain(theirs).collect(), &[1]);
        assert!(slot.take().is_none());
        assert_eq!(drops.load(SeqCst), 1);
    });
}

/// The owner pushes into an empty slot (a plain store) while a thief looks, then pushes
/// again over it (displacing), then takes: items 1 and 2 each end up with exactly one
/// taker (thief, displacement, owner's take).
#[test]
fn push_and_displace_race_a_thief() {
    model(|| {
        let slot = Arc::new(LifoSlot::<Item>::new());
        let drops = Arc::new(AtomicUsize::new(0));
        let thief = {
            let slot = slot.clone();
            thread::spawn(move || slot.steal())
        };
        let mut taken = Vec::new();
        // Only thieves run beside the owner, and they only empty the slot: it is empty.
        assert!(slot.push(Item::counted(1, &drops)).is_none());
        taken.extend(slot.push(Item::counted(2, &drops)));
        taken.extend(slot.take());
        taken.extend(thief.join().unwrap());
        assert_taken(taken, &[1, 2]);
        assert_eq!(drops.load(SeqCst), 2);
    });
}

/// Two thieves and the owner: one item, one taker; a second item pushed after the race
/// is still found (nothing left mid-way in the slot).
#[test]
fn two_thieves_and_the_owner() {
    model(|| {
        let slot = Arc::new(LifoSlot::<Item>::new());
        assert!(slot.push(Item::new(7)).is_none());
        let thieves: Vec<_> = (0..2)
            .map(|_| {
                let slot = slot.clone();
                thread::spawn(move || slot.steal())
            })
            .collect();
        let mut taken: Vec<Item> = slot.take().into_iter().collect();
        for t in thieves {
            taken.extend(t.join().unwrap());
        }
        assert_taken(taken, &[7]);
        assert!(slot.push(Item::new(8)).is_none());
        assert_eq!(slot.take().map(|i| i.id()), Some(8));
    });
}

/// An item the owner has written to (its link, as a scheduler writes a task's state and
/// stage before it queues it): whoever frees it later must happen-after this write.
fn written(id: usize, drops: &Arc<AtomicUsize>) -> Item {
    let ptr = Item::counted(id, drops).into_raw();
    // SAFETY: the node is live (just leaked) and ours alone; the link is ours to write.
    unsafe { Item::set_next(ptr, None) };
    // SAFETY: `ptr` came from `into_raw` above and is taken back once.
    unsafe { Item::from_raw(ptr) }
}

/// The owner pushes a written item into the empty slot (a plain store), then a second one
/// over it (the displacing swap), while a thief steals and frees what it got. The free
/// touches the item's cell, so loom checks that the thief acquired the owner's write of
/// whichever item it took: the first through the store, the second through the swap, and
/// (the thief's pre-check may read the first and its swap the second) on its swap itself.
#[test]
fn owner_writes_reach_the_thief() {
    model(|| {
        let slot = Arc::new(LifoSlot::<Item>::new());
        let drops = Arc::new(AtomicUsize::new(0));
        let thief = {
            let slot = slot.clone();
            thread::spawn(move || slot.steal().map(|item| item.id()))
        };
        let mut mine = Vec::new();
        assert!(slot.push(written(1, &drops)).is_none());
        mine.extend(slot.push(written(2, &drops)).map(|item| item.id()));
        mine.extend(slot.take().map(|item| item.id()));
        mine.extend(thief.join().unwrap());
        mine.sort();
        assert_eq!(mine, [1, 2]);
        assert_eq!(drops.load(SeqCst), 2);
    });
}

/// The rescue permission's contract, step by step through a worker's life: a fresh
/// worker, a poll nobody found stuck, the stuck poll (a sibling thread takes the task),
/// the next poll and the park. Only the permission decides here; the slot's own races
/// are the models above.
#[test]
fn stuck_worker_lifo_rescue() {
    model(|| {
        let w = Arc::new(WorkerShared::<Item>::new());
        let drops = Arc::new(AtomicUsize::new(0));
        // A worker that is not polling (never found stuck): its task is its own.
        assert!(w.lifo.push(Item::counted(1, &drops)).is_none());
        assert!(
            !w.has_stealable_lifo() && w.steal_lifo().is_none(),
            "a sibling may take the LIFO task of a worker that is not polling"
        );
        // Inside a poll the monitor has not found stuck.
        w.begin_poll(1);
        assert!(
            !w.has_stealable_lifo() && w.steal_lifo().is_none(),
            "a sibling may take the LIFO task of a worker whose poll was not found stuck"
        );
        // The monitor finds the poll stuck: a sibling comes and gets the task.
        w.mark_stuck(w.poll_seq());
        assert!(
            w.has_stealable_lifo(),
            "a stuck worker's LIFO task is not offered"
        );
        let thief = {
            let w = w.clone();
            thread::spawn(move || w.steal_lifo())
        };
        let stolen = thief.join().unwrap();
        assert_taken(stolen.into_iter().collect(), &[1]);
        // Still stuck, but nothing left: no searcher must come for an empty slot.
        assert!(
            !w.has_stealable_lifo(),
            "an empty LIFO slot of a stuck worker is offered to searchers"
        );
        // The stuck poll ends: the next poll's task is the owner's again.
        w.end_poll(1);
        assert!(w.lifo.push(Item::counted(2, &drops)).is_none());
        assert!(
            !w.has_stealable_lifo() && w.steal_lifo().is_none(),
            "the rescue permission outlived the stuck poll"
        );
        w.begin_poll(2);
        assert!(
            !w.has_stealable_lifo() && w.steal_lifo().is_none(),
            "the rescue permission carried over to the next poll"
        );
        w.end_poll(2);
        w.idle();
        assert!(
            !w.has_stealable_lifo() && w.steal_lifo().is_none(),
            "a sibling may take the LIFO task of a parked worker"
        );
        assert_taken(w.lifo.take().into_iter().collect(), &[2]);
        assert_eq!(drops.load(SeqCst), 2);
    });
}

/// A stale permission: the stuck poll ends and the owner takes its slot while a sibling,
/// told the worker is stuck, steals. Exactly one of them gets the task, and the slot is
/// left empty.
#[test]
fn rescue_racing_the_end_of_the_stuck_poll() {
    model(|| {
        let w = Arc::new(WorkerShared::<Item>::new());
        let drops = Arc::new(AtomicUsize::new(0));
        w.begin_poll(1);
        assert!(w.lifo.push(Item::counted(1, &drops)).is_none());
        w.mark_stuck(w.poll_seq());
        let thief = {
            let w = w.clone();
            thread::spawn(move || w.steal_lifo())
        };
        // loom switches threads only at its own operations, and the poll stamps are std
        // atomics: without this yield the sibling could never look before the poll ends.
        thread::yield_now();
        w.end_poll(1);
        let mine = w.lifo.take();
        let theirs = thief.join().unwrap();
        assert_taken(mine.into_iter().chain(theirs).collect(), &[1]);
        assert!(w.lifo.take().is_none());
        assert_eq!(drops.load(SeqCst), 1);
    });
}
