//! A single waker slot shared by one registering side and any number of waking sides
//! (the receiver of an `mpsc` channel and its senders).
//!
//! Algorithm: one state word with three bits, `REGISTERING`, `WAKING` and `ARMED` (the slot
//! holds a waker), guards the slot.
//! - `register` sets `REGISTERING` (CAS from a state with neither `REGISTERING` nor
//!   `WAKING`), writes the slot, and releases the bit with a CAS to `ARMED`. If a waker set
//!   `WAKING` meanwhile, that CAS fails: the registrant takes its own waker back out and
//!   wakes it itself, so no wake-up is lost. Then a `SeqCst` fence.
//! - `wake` first issues a `SeqCst` fence and loads the state: `IDLE` means no waker is
//!   stored and none is being stored, so there is nobody to wake and it returns having
//!   written nothing. Otherwise `take` sets `WAKING` with one RMW; if the state was exactly
//!   `ARMED` it owns the slot, takes the waker and clears both bits. If a registration was in
//!   progress the registrant sees `WAKING` and wakes itself (above); if another wake was in
//!   progress, that one takes the waker.
//!
//! Why the fast path loses nothing: the waking side publishes its event (a message), then
//! fences, then loads the state; the registering side stores `ARMED`, then fences, then
//! checks for the event. The two `SeqCst` fences are ordered one way or the other: if the
//! waker's comes first, the registrant's check sees the event; if the registrant's comes
//! first, the waker's load sees `ARMED` (or a later state: another waker already took the
//! waker and woke it, or a new registration) and wakes. This is the store-buffering pattern
//! that plain Release/Acquire would not order. What it buys: a sender to a receiver that is
//! busy (not registered) writes nothing to this word, so under contention the word is not
//! bounced between the senders' cores on every message (an RMW per wake would bounce it).
//!
//! Invariants: the slot is written only by the holder of `REGISTERING` (with `WAKING` clear
//! when it started) and read only by the holder of `WAKING` with `REGISTERING` clear, so it
//! is never accessed by two sides at once. `ARMED` is set only with a waker in the slot and
//! the slot is emptied only with `ARMED` cleared in the same step. A waker is woken and
//! dropped outside any lock (there is none). Every access goes through `shim`, so loom
//! checks it (loom models `SeqCst` fences, not `SeqCst` accesses, hence fences here).

use std::task::Waker;

use shim::cell::UnsafeCell;
use shim::sync::atomic::{
    fence, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release, SeqCst},
};

const IDLE: usize = 0;
const REGISTERING: usize = 0b001;
const WAKING: usize = 0b010;
/// The slot holds a waker.
const ARMED: usize = 0b100;

pub(crate) struct AtomicWaker {
    state: AtomicUsize,
    waker: UnsafeCell<Option<Waker>>,
}

// SAFETY: the slot is accessed only as the module doc says, serialised by the state word.
unsafe impl Send for AtomicWaker {}
// SAFETY: as above.
unsafe impl Sync for AtomicWaker {}

/// A receiver recorded with its waker slot as its test waits while a waker is stored.
impl task::waits::StillWaiting for AtomicWaker {
    fn still_waiting(&self, _: task::waits::WaitKind) -> bool {
        self.is_armed()
    }
}

impl AtomicWaker {
    /// True while a waker is stored (task dumps: the receiver waits). A snapshot.
    pub(crate) fn is_armed(&self) -> bool {
        // Relaxed: a label for dumps; it orders nothing.
        self.state.load(Relaxed) & ARMED != 0
    }

    pub(crate) fn new() -> AtomicWaker {
        AtomicWaker {
            state: AtomicUsize::new(IDLE),
            waker: UnsafeCell::new(None),
        }
    }

    /// Stores `waker` to be woken by the next [`wake`](Self::wake). Callers register from one
    /// side only (never two registrations at once), then check for the event they wait for;
    /// a wake racing the registration wakes `waker` right here.
    pub(crate) fn register(&self, waker: &Waker) {
        // The state is IDLE or ARMED unless a wake is in progress; try IDLE first.
        let mut cur = IDLE;
        loop {
            // Acquire: the slot's last writer (a previous registration or take) is before
            // us. Failure Relaxed: the retry's CAS acquires; the wake branch touches no slot
            // and reads nothing (it wakes our own waker, and the re-poll that causes gets the
            // waking side's data through a later registration, whose success acquires the
            // take's release of WAKING).
            match self
                .state
                .compare_exchange(cur, cur | REGISTERING, Acquire, Relaxed)
            {
                Ok(_) => break,
                Err(actual) if actual & (REGISTERING | WAKING) == 0 => cur = actual,
                Err(_) => {
                    // A wake is in progress (it will take the previous waker): the event it
                    // signals may be ours, so wake the new waker now (the caller re-polls),
                    // and give the waking thread a moment to finish (under loom: let it run).
                    waker.wake_by_ref();
                    shim::hint::spin_loop();
                    return;
                }
            }
        }
        // SAFETY: we hold REGISTERING and WAKING was clear: the slot is ours.
        let old = self.waker.with_mut(|w| unsafe {
            match &*w {
                Some(c) if c.will_wake(waker) => None,
                _ => (*w).replace(waker.clone()),
            }
        });
        // Release: publishes the slot to the next take. No Acquire on success: nothing is
        // read after it. Failure Relaxed: a take that set WAKING meanwhile left the slot
        // alone (it saw REGISTERING), so the slot needs no edge from it, and what that waker
        // sent before waking reaches our self-wake's re-poll through its next registration
        // (see the swap below).
        match self
            .state
            .compare_exchange(cur | REGISTERING, ARMED, Release, Relaxed)
        {
            Ok(_) => {
                drop(old);
                // SeqCst: the registrant's half of the fence pair (module doc): the caller's
                // check for the event comes after this, and a waker that missed ARMED
                // published its event before its own fence.
                fence(SeqCst);
            }
            Err(_) => {
                // A wake came in while we registered (state is REGISTERING|WAKING, ARMED
                // maybe): it left the slot to us. Take the waker back and wake it ourselves.
                // SAFETY: REGISTERING is still ours; the waker side does not read.
                let w = self.waker.with_mut(|w| unsafe { (*w).take() });
                // Relaxed. No Release: a take touches the slot only after reading exactly
                // ARMED, and from the IDLE written here ARMED comes back only through our
                // own next registration's Release CAS, which follows this take-back in
                // program order and so publishes it (a take reading IDLE returns early or
                // goes to its IDLE branch, neither touching the slot; survived the sweep,
                // see loom-tests/README.md). No Acquire: what the waking side did before
                // setting WAKING need not reach this poll (it may miss the message; the wake
                // below makes the task poll again). Every write to `state` is an RMW, so
                // the take's `fetch_or` (released by the fence before it) heads a release
                // sequence running through all later writes: the re-poll's registration
                // CAS (Acquire) synchronizes with that take's fence and sees the message.
                self.state.swap(IDLE, Relaxed);
                drop(old);
                if let Some(w) = w {
                    w.wake();
                }
            }
        }
    }

    /// Takes the registered waker, if any (and no registration is in progress).
    pub(crate) fn take(&self) -> Option<Waker> {
        // SeqCst: the waking side's half of the fence pair (module doc): the caller's event
        // was published before this, and the load below sees ARMED unless the registrant's
        // check will see the event.
        fence(SeqCst);
        // Relaxed: the fence orders it; IDLE means nothing to take and writes nothing.
        if self.state.load(Relaxed) == IDLE {
            return None;
        }
        // Acquire: sees the registrant's slot write. No Release: the fence above is
        // sequenced before this RMW, so it is the release: a registrant whose CAS reads
        // WAKING (or a later value of the word's release sequence) synchronizes with the
        // fence and sees the caller's earlier writes (the message). Survived the sweep as
        // Acquire; without the fence it would need AcqRel (loom-tests/README.md).
        match self.state.fetch_or(WAKING, Acquire) {
            ARMED => {
                // SAFETY: we set WAKING while nobody else held the slot: it is ours.
                let w = self.waker.with_mut(|w| unsafe { (*w).take() });
                // Release: our slot access is before the next registration (Acquire).
                self.state.fetch_and(!(WAKING | ARMED), Release);
                w
            }
            // Nothing stored after all (a racing take emptied it and was done).
            IDLE => {
                // Relaxed: we touched no slot, so there is nothing to publish to the next
                // registration (the take that emptied the slot released it, and our two
                // RMWs continue that release sequence), and our caller's message was
                // released by the fence before the `fetch_or` (survived the sweep as
                // Relaxed, loom-tests/README.md).
                self.state.fetch_and(!WAKING, Relaxed);
                None
            }
            // A registration is in progress (it will see WAKING and wake itself), or another
            // wake is (it takes the waker).
            _ => None,
        }
    }

    /// Wakes the registered waker, if any.
    pub(crate) fn wake(&self) {
        if let Some(w) = self.take() {
            w.wake();
        }
    }
}
