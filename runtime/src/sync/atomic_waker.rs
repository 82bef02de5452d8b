//! A single waker slot shared by one registering side and any number of waking sides
//! (the receiver of an `mpsc` channel and its senders).
//!
//! Algorithm: one state word with two bits, `REGISTERING` and `WAKING`, guards the slot.
//! - `register` takes `REGISTERING` (CAS from idle), writes the slot, and releases the bit
//!   with a CAS back to idle. If a waker set `WAKING` meanwhile, that CAS fails: the
//!   registrant takes its own waker back out and wakes it itself, so no wake-up is lost.
//! - `take` (what `wake` uses) sets `WAKING` with one RMW; if nothing else was going on it
//!   owns the slot, takes the waker and clears the bit. If a registration was in progress the
//!   registrant sees `WAKING` and wakes itself (above); if another wake was in progress, that
//!   one takes the waker.
//!
//! Invariants: the slot is written only by the holder of `REGISTERING` (with `WAKING` clear
//! when it started) and read only by the holder of `WAKING` with `REGISTERING` clear, so it
//! is never accessed by two sides at once. A waker is woken and dropped outside any lock
//! (there is none). Every access goes through `shim`, so loom checks it.

use std::task::Waker;

use shim::cell::UnsafeCell;
use shim::sync::atomic::{
    AtomicUsize,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};

const IDLE: usize = 0;
const REGISTERING: usize = 0b01;
const WAKING: usize = 0b10;

pub(crate) struct AtomicWaker {
    state: AtomicUsize,
    waker: UnsafeCell<Option<Waker>>,
}

// SAFETY: the slot is accessed only as the module doc says, serialised by the state word.
unsafe impl Send for AtomicWaker {}
// SAFETY: as above.
unsafe impl Sync for AtomicWaker {}

impl AtomicWaker {
    pub(crate) fn new() -> AtomicWaker {
        AtomicWaker {
            state: AtomicUsize::new(IDLE),
            waker: UnsafeCell::new(None),
        }
    }

    /// Stores `waker` to be woken by the next [`wake`](Self::wake). Callers register from one
    /// side only (never two registrations at once); a wake racing the registration wakes
    /// `waker` right here.
    pub(crate) fn register(&self, waker: &Waker) {
        // Acquire: the slot's last writer (a previous registration or take) is before us.
        // Failure Relaxed: that branch touches no slot and reads nothing; it wakes our own
        // waker, and the re-poll that causes gets the waking side's data through a later
        // registration, whose success acquires the take's release of WAKING.
        match self
            .state
            .compare_exchange(IDLE, REGISTERING, Acquire, Relaxed)
        {
            Ok(_) => {
                // SAFETY: we hold REGISTERING and WAKING was clear: the slot is ours.
                let old = self.waker.with_mut(|w| unsafe {
                    match &*w {
                        Some(cur) if cur.will_wake(waker) => None,
                        _ => (*w).replace(waker.clone()),
                    }
                });
                // Release: publishes the slot to the next take. No Acquire on success:
                // nothing is read after it. Failure Relaxed: a take that set WAKING
                // meanwhile left the slot alone (it saw REGISTERING), so the slot needs no
                // edge from it, and what that waker sent before waking reaches our
                // self-wake's re-poll through its next registration (see the swap below).
                match self
                    .state
                    .compare_exchange(REGISTERING, IDLE, Release, Relaxed)
                {
                    Ok(_) => drop(old),
                    Err(_) => {
                        // A wake came in while we registered (state is REGISTERING|WAKING):
                        // it left the slot to us. Take the waker back and wake it ourselves.
                        // SAFETY: REGISTERING is still ours; the waker side does not read.
                        let w = self.waker.with_mut(|w| unsafe { (*w).take() });
                        // Release: publishes our slot access to the next take. No
                        // Acquire: what the waking side did before setting WAKING need not
                        // reach this poll (it may miss the message; the wake below makes
                        // the task poll again). Every write to `state` is an RMW, so each
                        // Release on it heads a release sequence running through all later
                        // writes: the re-poll's registration CAS (Acquire) synchronizes
                        // with that take's `fetch_or` and sees the message.
                        self.state.swap(IDLE, Release);
                        drop(old);
                        if let Some(w) = w {
                            w.wake();
                        }
                    }
                }
            }
            Err(_) => {
                // A wake is in progress (it will take the previous waker): the event it
                // signals may be ours, so wake the new waker now (the caller re-polls), and
                // give the waking thread a moment to finish (under loom: let it run).
                waker.wake_by_ref();
                shim::hint::spin_loop();
            }
        }
    }

    /// Takes the registered waker, if any (and no registration is in progress).
    pub(crate) fn take(&self) -> Option<Waker> {
        // AcqRel: Acquire sees the registrant's slot write; Release orders the caller's
        // earlier writes (the message) before a registrant that sees WAKING.
        match self.state.fetch_or(WAKING, AcqRel) {
            IDLE => {
                // SAFETY: we set WAKING while nobody held the slot: it is ours.
                let w = self.waker.with_mut(|w| unsafe { (*w).take() });
                self.state.fetch_and(!WAKING, Release);
                w
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
