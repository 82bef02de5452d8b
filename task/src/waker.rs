//! `std::task::Waker` for tasks: the waker's data pointer is the task header.
//!
//! One static `RawWakerVTable` serves every task type (the typed work goes through the
//! header's vtable). A clone takes a reference; `wake` hands its reference to the queue
//! when the task is idle; `wake_by_ref` takes the queue's reference in the same CAS that
//! sets NOTIFIED, so waking by reference costs no more atomics than waking by value.
//!
//! A task that wakes itself from inside its own poll ([`wake_self_by_ref`], for
//! `yield_now` and a spent coop budget) needs no atomic at all: waking a running task only
//! sets NOTIFIED, and the harness's CAS that ends the poll (`transition_to_idle`) can set
//! it just as well. The wake is recorded in the thread-local `SELF_WOKEN` as the task's
//! header; the harness takes it right after the poll returns (`take_self_wake`) and passes
//! it to that CAS. Any waker that is not the polled task's own (a sub-executor's, another
//! task's), and a second self-wake while one is recorded (a task polled inside another
//! task's poll, as a `LocalSet` does), takes the ordinary `wake_by_ref`. The harness takes
//! the record after every poll and after a cancelled future's drop (the other time a task
//! is current); being keyed by the header, a record left behind could only cause a
//! spurious wake of that same task, never a lost one.

use std::cell::Cell;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;
use std::task::{RawWaker, RawWakerVTable, Waker};

use crate::core::Header;
use crate::harness;

pub(crate) static VTABLE: RawWakerVTable =
    RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

/// A waker over `ptr` that does not own a reference: wrap it in `ManuallyDrop` and keep it
/// only while some other reference (the run's) keeps the task alive.
///
/// # Safety
/// `ptr` is a live task header, and the result is never dropped normally.
pub(crate) unsafe fn borrowed(ptr: NonNull<Header>) -> Waker {
    // SAFETY: VTABLE's functions uphold the RawWaker contract for task headers.
    unsafe { Waker::from_raw(RawWaker::new(ptr.as_ptr() as *const (), &VTABLE)) }
}

fn header(data: *const ()) -> NonNull<Header> {
    // SAFETY (of the cast): wakers are only ever built over non-null task headers.
    NonNull::new(data as *mut Header).expect("task waker over a null pointer")
}

unsafe fn clone(data: *const ()) -> RawWaker {
    let ptr = header(data);
    // SAFETY: the waker being cloned holds (or borrows) a reference, so the task is live.
    unsafe { ptr.as_ref() }.state.ref_inc();
    RawWaker::new(data, &VTABLE)
}

unsafe fn wake(data: *const ()) {
    // SAFETY: an owned waker gives up its reference.
    unsafe { harness::wake_by_val(header(data)) }
}

unsafe fn wake_by_ref(data: *const ()) {
    // SAFETY: the waker holds (or borrows) a reference.
    unsafe { harness::wake_by_ref(header(data)) }
}

#[cfg(not(loom))]
std::thread_local! {
    /// The task whose poll on this thread woke itself (see the module docs), if any.
    static SELF_WOKEN: Cell<Option<NonNull<Header>>> = const { Cell::new(None) };
}

// loom's threads share one OS thread: the record is per loom thread there.
#[cfg(loom)]
shim::thread_local! {
    static SELF_WOKEN: Cell<Option<NonNull<Header>>> = Cell::new(None);
}

/// Wakes `waker` by reference; when it is the waker of the task this thread is polling,
/// only records the wake for the harness to apply when the poll ends (no atomic). For
/// wakes from inside a poll (`yield_now`, a spent budget); anywhere else it is
/// `waker.wake_by_ref()`.
pub fn wake_self_by_ref(waker: &Waker) {
    if let Some(task) = crate::id::current_header() {
        let recorded = SELF_WOKEN.try_with(|w| {
            if w.get().is_some() {
                return false;
            }
            // SAFETY: the current task is live while it is current (`current_header`), and
            // the borrowed waker is only compared, never woken or dropped.
            let own = ManuallyDrop::new(unsafe { borrowed(task) });
            if waker.will_wake(&own) {
                w.set(Some(task));
                true
            } else {
                false
            }
        });
        if matches!(recorded, Ok(true)) {
            return;
        }
    }
    waker.wake_by_ref();
}

/// Whether the poll of `task` that just returned woke the task itself through
/// [`wake_self_by_ref`]; clears the record.
#[inline]
pub(crate) fn take_self_wake(task: NonNull<Header>) -> bool {
    SELF_WOKEN
        .try_with(|w| {
            if w.get() == Some(task) {
                w.set(None);
                true
            } else {
                false
            }
        })
        .unwrap_or(false)
}

unsafe fn drop_waker(data: *const ()) {
    // SAFETY: an owned waker gives up its reference.
    unsafe { harness::drop_reference(header(data)) }
}
