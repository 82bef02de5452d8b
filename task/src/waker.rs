//! `std::task::Waker` for tasks: the waker's data pointer is the task header.
//!
//! One static `RawWakerVTable` serves every task type (the typed work goes through the
//! header's vtable). A clone takes a reference; `wake` hands its reference to the queue
//! when the task is idle; `wake_by_ref` takes the queue's reference in the same CAS that
//! sets NOTIFIED, so waking by reference costs no more atomics than waking by value.

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

unsafe fn drop_waker(data: *const ()) {
    // SAFETY: an owned waker gives up its reference.
    unsafe { harness::drop_reference(header(data)) }
}
