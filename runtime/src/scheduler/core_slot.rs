//! The core slot: where a scheduler thread keeps its core (run queue, parker, counters)
//! while user code runs.
//!
//! Each scheduler thread's `Context` holds a `RefCell<Option<Box<Core>>>`. The core is
//! taken out while the scheduler itself works on it, and put back in the slot before any
//! code that may wake a task runs (a task's poll, the driver dispatching events, a park):
//! a wake on this thread then finds the core there and queues locally with no
//! synchronization. Two helpers keep that dance in one place:
//! - `with_core_slot`: a wake borrows the core if it is in the slot (`None` when it is
//!   taken or already borrowed: the waker then takes the remote path);
//! - `park_reachable`: takes the parker out of the core, parks with the core in the slot,
//!   and puts both back.

use std::cell::RefCell;

use crate::park::Parker;

/// A core that owns a parker while it is not parked.
pub(crate) trait HoldsParker {
    fn parker(&mut self) -> &mut Option<Parker>;
}

/// Runs `f` with the core parked in `slot` (a scheduler context's), or with `None` when
/// the slot is empty or already borrowed (a wake from code that holds the core, e.g. a
/// task dropped at shutdown whose future wakes another, must not panic). `f(None)` runs
/// with no borrow held.
#[inline]
pub(crate) fn with_core_slot<C, R>(
    slot: &RefCell<Option<Box<C>>>,
    f: impl FnOnce(Option<&mut C>) -> R,
) -> R {
    let Ok(mut borrowed) = slot.try_borrow_mut() else {
        return f(None);
    };
    match borrowed.as_deref_mut() {
        Some(core) => f(Some(core)),
        None => {
            drop(borrowed);
            f(None)
        }
    }
}

/// Runs `park` (a sleep, or a non-blocking turn of the driver) with the core in `slot`,
/// so tasks woken meanwhile on this thread land in its queue; returns the core.
pub(crate) fn park_reachable<C: HoldsParker>(
    slot: &RefCell<Option<Box<C>>>,
    mut core: Box<C>,
    park: impl FnOnce(&mut Parker),
) -> Box<C> {
    let mut parker = core.parker().take().expect("parker present");
    *slot.borrow_mut() = Some(core);
    park(&mut parker);
    let mut core = slot.borrow_mut().take().expect("core present");
    *core.parker() = Some(parker);
    core
}
