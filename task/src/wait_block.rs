//! A task's own wait slots, for task dumps: where the waiters that keep their "recorded"
//! state in a bit of their own (a `oneshot` side, a `JoinHandle`) write what their task
//! waits on, so a wait costs a few stores and a dump reads it from the task it walks.
//!
//! **Where.** A [`WaitBlock`] hangs off the waiting task's identity word (`meta.rs`: the
//! word's `0b11` tag points to a `Cold` block holding the identity and this block). It is
//! allocated by the task's first inline record and freed with the task, so a task that
//! never waits on these costs no byte; a record and a forget reach it from a waker of the
//! task (the waker's reference keeps the task, hence the block, alive), a dump from the
//! owned list's reference it walks under.
//!
//! **A slot** is two words: `word`, the record's address with a kind code in its low
//! three bits (an address here is 8-aligned: a task header, a channel's `Arc` allocation,
//! a waiter's atomic), 0 when free, [`BUSY`] while a recorder fills it; and `aux`, the
//! awaited task's id for a join, the object's address for a kind keyed by its waiter (a
//! `Notify` wait: the word holds the waiter's handoff word, unique to the waiter, so the
//! notifier that serves it forgets exactly its record; [`keyed_by_waiter`]), 0 otherwise. [`SLOTS`] of them: a task awaiting more of these at once (a
//! `join_all` over many handles) records the rest in the wait registry's map (`waits.rs`),
//! which its waiter then knows from its own state.
//!
//! **Protocol.** A recorder claims a free slot with a CAS from 0 to `BUSY`, stores `aux`
//! (Release), then `word` (Release). A forget clears a slot only by a CAS from the exact
//! word it recorded to 0, so any thread may forget (a receiver dropped on another thread,
//! a sender that completes), and a forget never clears another's record. A reader loads
//! `word` (Acquire), then `aux` (Acquire), then `word` again, and keeps the slot only when
//! both loads of `word` agree: a slot cleared and refilled meanwhile (its `BUSY` claim
//! happens-before the `aux` store the reader may have seen, hence before its second load)
//! is skipped, so a reader never pairs one record's object with another's target. Nothing
//! here is ever dereferenced: the words are labels, and the dump never follows an object
//! address, so a record read just as its wait ends, or the object freed, is harmless.
//!
//! **Staleness.** Each waiter forgets its record wherever its wait ends (served, closed,
//! dropped, moved to another task: the waiter then forgets the record in the task of the
//! waker it replaces, which that waker keeps alive), so a record stands only while its
//! wait does; the dump shows the records of idle tasks only.
//!
//! Under loom the block's atomics are loom's (`loom_wait_block.rs` checks this protocol)
//! but no task records into it: like the map, the task-level record compiles to nothing.

use shim::sync::atomic::{
    AtomicU64, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};

use crate::waits::WaitKind;

/// Inline slots per task.
pub const SLOTS: usize = 4;

/// A slot's word while its recorder fills it (no object is at address 0).
const BUSY: usize = 0b111;

const CODE_MASK: usize = 0b111;

/// The kind code of the kinds that record inline; `None` for the rest.
#[inline(always)]
const fn code(kind: WaitKind) -> Option<usize> {
    match kind {
        WaitKind::OneshotRecv => Some(1),
        WaitKind::OneshotClosed => Some(2),
        WaitKind::JoinHandle => Some(3),
        WaitKind::Notify => Some(4),
        _ => None,
    }
}

/// Whether a record of `kind` names its waiter in `word` and its object in `aux`.
#[inline(always)]
const fn keyed_by_waiter(kind: WaitKind) -> bool {
    matches!(kind, WaitKind::Notify)
}

fn kind_of(code: usize) -> Option<WaitKind> {
    match code {
        1 => Some(WaitKind::OneshotRecv),
        2 => Some(WaitKind::OneshotClosed),
        3 => Some(WaitKind::JoinHandle),
        4 => Some(WaitKind::Notify),
        _ => None,
    }
}

/// The word a record of `kind` on `object` stores.
#[inline(always)]
fn word_of(kind: WaitKind, object: usize) -> usize {
    let code = code(kind).expect("a kind that records inline");
    debug_assert!(
        object & CODE_MASK == 0 && object != 0,
        "an inline wait's object is 8-aligned"
    );
    object | code
}

/// One record as a reader sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlineWait {
    /// The primitive and the side.
    pub kind: WaitKind,
    /// The object's address (for a join: the awaited task's header; for a `Notify`: the
    /// `Notify`, recorded in `aux`).
    pub object: usize,
    /// The awaited task's raw id for a join; the waiter's address for a kind keyed by its
    /// waiter (`Notify`); 0 otherwise.
    pub aux: u64,
}

impl InlineWait {
    /// The awaited task of a join.
    pub fn target(&self) -> Option<crate::id::Id> {
        if self.kind != WaitKind::JoinHandle {
            return None;
        }
        std::num::NonZeroU64::new(self.aux).map(crate::id::Id::from_raw)
    }
}

struct Slot {
    word: AtomicUsize,
    aux: AtomicU64,
}

/// A task's inline wait slots (module doc).
pub struct WaitBlock {
    slots: [Slot; SLOTS],
}

impl Default for WaitBlock {
    fn default() -> Self {
        WaitBlock::new()
    }
}

impl std::fmt::Debug for WaitBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut l = f.debug_list();
        self.for_each(|w| {
            l.entry(&w);
        });
        l.finish()
    }
}

impl WaitBlock {
    /// A block with every slot free.
    pub fn new() -> WaitBlock {
        WaitBlock {
            slots: std::array::from_fn(|_| Slot {
                word: AtomicUsize::new(0),
                aux: AtomicU64::new(0),
            }),
        }
    }

    /// Records a wait of `kind` (one of the inline kinds) on `object` (8-aligned, nonzero)
    /// with `aux`; false when every slot is taken.
    #[inline]
    pub fn record(&self, kind: WaitKind, object: usize, aux: u64) -> bool {
        let word = word_of(kind, object);
        for s in &self.slots {
            // Relaxed: a hint; the CAS decides. Relaxed CAS: the claim publishes nothing
            // (the stores below do); what orders it before them is program order, and
            // before a reader's second load the Release of `aux`.
            if s.word.load(Relaxed) == 0
                && s.word.compare_exchange(0, BUSY, Relaxed, Relaxed).is_ok()
            {
                // Release: a reader that sees this `aux` sees the claim too (module doc).
                s.aux.store(aux, Release);
                // Release: a reader that sees the word sees its `aux`.
                s.word.store(word, Release);
                return true;
            }
        }
        false
    }

    /// Whether a record of `kind` on `object` stands.
    #[inline]
    pub fn contains(&self, kind: WaitKind, object: usize) -> bool {
        let word = word_of(kind, object);
        // Relaxed: a label, read by a recorder that made it (or by a test).
        self.slots.iter().any(|s| s.word.load(Relaxed) == word)
    }

    /// Forgets the record of `kind` on `object`, if it stands; true when it did.
    #[inline]
    pub fn forget(&self, kind: WaitKind, object: usize) -> bool {
        let word = word_of(kind, object);
        self.slots.iter().any(|s| {
            // Relaxed: a label; clearing it orders nothing (a reader that still sees it
            // read it before the wait ended).
            s.word.load(Relaxed) == word
                && s.word.compare_exchange(word, 0, Relaxed, Relaxed).is_ok()
        })
    }

    /// Calls `f` with every record standing (module doc: a slot refilled during the read
    /// is skipped).
    pub fn for_each(&self, mut f: impl FnMut(InlineWait)) {
        for s in &self.slots {
            // Acquire: pairs with the recorder's Release of `word` (its `aux`).
            let word = s.word.load(Acquire);
            if word == 0 || word == BUSY {
                continue;
            }
            // Acquire: orders the second load of `word` after this one, and pairs with
            // the Release of a refill's `aux` (its claim, then seen by that load).
            let aux = s.aux.load(Acquire);
            // Relaxed: ordered after the `aux` load by its Acquire.
            if s.word.load(Relaxed) != word {
                continue;
            }
            if let Some(kind) = kind_of(word & CODE_MASK) {
                let (object, aux) = if keyed_by_waiter(kind) {
                    (aux as usize, (word & !CODE_MASK) as u64)
                } else {
                    (word & !CODE_MASK, aux)
                };
                f(InlineWait { kind, object, aux });
            }
        }
    }
}

/// Where [`record`] put a wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// In the task's own block.
    Inline,
    /// Nowhere: the waker is no runtime task's (a `block_on`, a `JoinSet` entry, a
    /// foreign executor).
    NotATask,
    /// Nowhere: the task's slots are all taken; the caller records in the map.
    Full,
}

/// Records that the task of `waker` waits on `object` (`kind` one of the inline kinds:
/// `OneshotRecv`, `OneshotClosed`, `JoinHandle`, `Notify`), with `aux` (a join's awaited
/// task id; for `Notify`, `object` is the waiter's handoff word and `aux` the `Notify`).
/// The caller forgets it with [`forget`] through a waker of the same task wherever the
/// wait ends.
#[inline]
pub fn record(waker: &std::task::Waker, kind: WaitKind, object: usize, aux: u64) -> Recorded {
    imp::record(waker, kind, object, aux)
}

/// Whether the task of `waker` holds a record of `kind` on `object` (a waiter that
/// records again at each pending poll asks first).
#[inline]
pub fn is_recorded(waker: &std::task::Waker, kind: WaitKind, object: usize) -> bool {
    imp::is_recorded(waker, kind, object)
}

/// Forgets a record [`record`] made in the task of `waker` (a waker of the task it was
/// made in); nothing when it is gone already (its other side forgot it first).
#[inline]
pub fn forget(waker: &std::task::Waker, kind: WaitKind, object: usize) {
    imp::forget(waker, kind, object)
}

#[cfg(not(loom))]
mod imp {
    use super::{Recorded, WaitKind};
    use crate::core::Header;
    use std::task::Waker;

    #[inline]
    pub(super) fn record(waker: &Waker, kind: WaitKind, object: usize, aux: u64) -> Recorded {
        let Some(task) = crate::inspect::waker_task(waker) else {
            return Recorded::NotATask;
        };
        // SAFETY: the waker keeps its task live for as long as it is borrowed here.
        let block = unsafe { Header::trailer(task) }.meta.wait_block();
        if block.record(kind, object, aux) {
            Recorded::Inline
        } else {
            Recorded::Full
        }
    }

    #[inline]
    pub(super) fn is_recorded(waker: &Waker, kind: WaitKind, object: usize) -> bool {
        let Some(task) = crate::inspect::waker_task(waker) else {
            return false;
        };
        // SAFETY: as in `record`.
        let meta = &unsafe { Header::trailer(task) }.meta;
        meta.wait_block_if_any()
            .is_some_and(|b| b.contains(kind, object))
    }

    #[inline]
    pub(super) fn forget(waker: &Waker, kind: WaitKind, object: usize) {
        let Some(task) = crate::inspect::waker_task(waker) else {
            return;
        };
        // SAFETY: as in `record`.
        if let Some(block) = unsafe { Header::trailer(task) }.meta.wait_block_if_any() {
            block.forget(kind, object);
        }
    }
}

#[cfg(loom)]
mod imp {
    use super::{Recorded, WaitKind};
    use std::task::Waker;

    pub(super) fn record(_: &Waker, _: WaitKind, _: usize, _: u64) -> Recorded {
        Recorded::NotATask
    }
    pub(super) fn is_recorded(_: &Waker, _: WaitKind, _: usize) -> bool {
        false
    }
    pub(super) fn forget(_: &Waker, _: WaitKind, _: usize) {}
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_full_block_refuses_and_a_forget_frees_a_slot() {
        let block = WaitBlock::new();
        for i in 1..=SLOTS {
            assert!(block.record(WaitKind::OneshotRecv, i * 8, 0));
        }
        assert!(!block.record(WaitKind::JoinHandle, 1024, 7), "full");
        assert!(block.forget(WaitKind::OneshotRecv, 8));
        assert!(!block.forget(WaitKind::OneshotRecv, 8), "forgotten once");
        // Another kind on the same object is another record.
        assert!(!block.forget(WaitKind::OneshotClosed, 16));
        assert!(block.record(WaitKind::JoinHandle, 1024, 7));
        let mut seen = Vec::new();
        block.for_each(|w| seen.push(w));
        assert_eq!(seen.len(), SLOTS);
        let join = seen
            .iter()
            .find(|w| w.kind == WaitKind::JoinHandle)
            .unwrap();
        assert_eq!((join.object, join.aux), (1024, 7));
        assert_eq!(join.target().map(|id| id.as_u64()), Some(7));
        assert!(seen
            .iter()
            .filter(|w| w.kind == WaitKind::OneshotRecv)
            .all(|w| w.target().is_none() && w.object != 8));
    }
}
