//! loom suite for a task's own wait slots (`task::waits::inline::WaitBlock`, the shipping
//! block on the shim's atomics): what a task dump reads from a task while the task's
//! waiters record and forget there, from the task's thread and from others (a `oneshot`
//! sender completing, a receiver dropped elsewhere, a `JoinHandle` moved).
//!
//! What the models assert:
//! - a reader never pairs one record's object with another's target: a slot forgotten and
//!   refilled while a dump reads it is either skipped or read whole;
//! - a forget clears only its own record, from any thread, and two forgets of one record
//!   (the waiter's and the other side's) clear it once; a record made meanwhile stands;
//! - two records made at once from two threads (a task's waker is anyone's to poll with)
//!   take two slots, and both stand;
//! - a reader that finds a record reads its target (the word's Release / Acquire pair);
//! - a wait forgotten before the dump starts (ordered by the caller's own hand-off) is not
//!   shown, and one recorded before is.
//!
//! Planted bugs (for the record): the reader's second load of the slot's word removed
//! (`for_each` keeps whatever it read): `a_reader_never_pairs_a_record_with_another_s_target`
//! fails ("read a torn record: InlineWait { kind: JoinHandle, object: 64, aux: 2 }"), and
//! so it does with the second load kept but the `aux` store and load weakened to Relaxed;
//! the forget's CAS replaced by a plain store of 0 after its load:
//! `forgets_from_two_threads_clear_only_their_own_record` fails ("both forgets cleared the
//! record, or neither did"); the record's claim CAS replaced by a plain store of `BUSY`
//! after its load: `records_from_two_threads_take_two_slots` fails ("a record was lost").
//! The word's store weakened to Relaxed, or the reader's first load of it:
//! `a_reader_that_sees_a_record_sees_its_target` fails ("read a record without its
//! target: [InlineWait { kind: JoinHandle, object: 128, aux: 0 }]"); no other model
//! reaches that read (see the model's doc). The sweep (`sweep/manual.toml`,
//! `plant:wait-block-*`, and the automatic rows of `wait_block.rs`) runs all of these.

use loom::thread;
use loom_tests::model;
use shim::sync::atomic::{AtomicBool, Ordering::Acquire, Ordering::Release};
use shim::sync::Arc;
use task::waits::inline::{InlineWait, WaitBlock};
use task::waits::WaitKind;

/// The CI bound when `LOOM_MAX_PREEMPTIONS` is unset.
const BOUND: usize = 2;

/// Two objects a test records on (8-aligned, nonzero, never dereferenced).
const OBJ_A: usize = 64;
const OBJ_B: usize = 128;

fn all(block: &WaitBlock) -> Vec<InlineWait> {
    let mut out = Vec::new();
    block.for_each(|w| out.push(w));
    out
}

#[test]
fn a_reader_never_pairs_a_record_with_another_s_target() {
    model(
        || {
            let block = Arc::new(WaitBlock::new());
            assert!(block.record(WaitKind::JoinHandle, OBJ_A, 1));
            let waiter = {
                let block = block.clone();
                thread::spawn(move || {
                    // The wait on A ends; one on B takes the freed slot.
                    assert!(block.forget(WaitKind::JoinHandle, OBJ_A));
                    assert!(block.record(WaitKind::JoinHandle, OBJ_B, 2));
                })
            };
            for w in all(&block) {
                let whole = (w.object == OBJ_A && w.aux == 1) || (w.object == OBJ_B && w.aux == 2);
                assert!(whole, "read a torn record: {w:?}");
            }
            waiter.join().unwrap();
            let after = all(&block);
            assert_eq!(after.len(), 1, "{after:?}");
            assert_eq!((after[0].object, after[0].aux), (OBJ_B, 2));
        },
        BOUND,
    );
}

#[test]
fn forgets_from_two_threads_clear_only_their_own_record() {
    model(
        || {
            let block = Arc::new(WaitBlock::new());
            assert!(block.record(WaitKind::OneshotRecv, OBJ_A, 0));
            // The other side's forget (a sender completing), on another thread.
            let other = {
                let block = block.clone();
                thread::spawn(move || block.forget(WaitKind::OneshotRecv, OBJ_A))
            };
            // The waiter's own forget (it received), then its next wait.
            let own = block.forget(WaitKind::OneshotRecv, OBJ_A);
            assert!(block.record(WaitKind::OneshotRecv, OBJ_B, 0));
            let other = other.join().unwrap();
            assert!(
                own ^ other,
                "both forgets cleared the record, or neither did"
            );
            let after = all(&block);
            assert_eq!(after.len(), 1, "the record made meanwhile: {after:?}");
            assert_eq!(after[0].object, OBJ_B);
            assert!(!block.contains(WaitKind::OneshotRecv, OBJ_A));
        },
        BOUND,
    );
}

#[test]
fn a_wait_ended_before_the_dump_is_not_shown_and_one_begun_before_is() {
    model(
        || {
            let block = Arc::new(WaitBlock::new());
            assert!(block.record(WaitKind::OneshotRecv, OBJ_A, 0));
            let handed = Arc::new(AtomicBool::new(false));
            let waiter = {
                let (block, handed) = (block.clone(), handed.clone());
                thread::spawn(move || {
                    assert!(block.forget(WaitKind::OneshotRecv, OBJ_A));
                    assert!(block.record(WaitKind::OneshotClosed, OBJ_B, 0));
                    // Release: the caller's own hand-off (a wake, a lock) after both.
                    handed.store(true, Release);
                })
            };
            // Acquire: the dump starts after the hand-off, when it saw it.
            let after_hand_off = handed.load(Acquire);
            let seen = all(&block);
            if after_hand_off {
                assert_eq!(seen.len(), 1, "{seen:?}");
                assert_eq!(
                    (seen[0].kind, seen[0].object),
                    (WaitKind::OneshotClosed, OBJ_B)
                );
            }
            waiter.join().unwrap();
        },
        BOUND,
    );
}

#[test]
fn records_from_two_threads_take_two_slots() {
    model(
        || {
            let block = Arc::new(WaitBlock::new());
            let other = {
                let block = block.clone();
                thread::spawn(move || block.record(WaitKind::OneshotRecv, OBJ_A, 0))
            };
            assert!(block.record(WaitKind::JoinHandle, OBJ_B, 2));
            assert!(other.join().unwrap(), "a free slot was refused");
            let after = all(&block);
            assert_eq!(after.len(), 2, "a record was lost: {after:?}");
            assert!(block.contains(WaitKind::OneshotRecv, OBJ_A), "{after:?}");
            assert!(block.contains(WaitKind::JoinHandle, OBJ_B), "{after:?}");
            let join = after.iter().find(|w| w.object == OBJ_B).unwrap();
            assert_eq!(join.aux, 2, "{after:?}");
        },
        BOUND,
    );
}

/// A reader that finds a record reads its target: the recorder's Release of the word
/// pairs with the reader's first Acquire load (`aux` is stored before the word).
///
/// The shape is loom's, not the runtime's: the block is made on another thread, and the
/// reader polls until it finds the record. loom reorders a thread's load before another
/// thread's later store only when the load spins (a yield), and after a yield it no
/// longer returns a store this thread saw before it; a block made by the reader itself
/// would hide the stale `aux` (its initial 0) from every read after the first yield.
#[test]
fn a_reader_that_sees_a_record_sees_its_target() {
    model(
        || {
            let block = thread::spawn(|| Arc::new(WaitBlock::new())).join().unwrap();
            let waiter = {
                let block = block.clone();
                thread::spawn(move || assert!(block.record(WaitKind::JoinHandle, OBJ_B, 2)))
            };
            let seen = loop {
                let seen = all(&block);
                if !seen.is_empty() {
                    break seen;
                }
                thread::yield_now();
            };
            assert_eq!(seen.len(), 1, "{seen:?}");
            assert_eq!(
                (seen[0].object, seen[0].aux),
                (OBJ_B, 2),
                "read a record without its target: {seen:?}"
            );
            waiter.join().unwrap();
        },
        BOUND,
    );
}
