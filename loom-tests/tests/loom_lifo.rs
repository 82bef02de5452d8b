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
//! Planted bugs (for the record):
//! - the owner's `take` as a load followed by a plain `store(null)` instead of the swap:
//!   owner and thief both take the item; all three models fail (`owner_take_races_a_thief`:
//!   "ids taken [1, 1], expected [1]"; `two_thieves_and_the_owner`: "ids taken [7, 7]").
//! - the displacing `push` as a load then a plain store instead of the swap: a thief takes
//!   the old item between the two, and the owner gets it back as displaced too;
//!   `push_and_displace_race_a_thief` fails ("ids taken [1, 1], expected [1, 2]").

use loom::thread;
use loom_tests::Item;
use queue::LifoSlot;
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
