//! `TaskSched`: the scheduler handle a task keeps, in one word.
//!
//! Every task that parks keeps a clone of its scheduler's handle (for its wakers), inside
//! its one allocation. `scheduler::Handle` is an enum of two `Arc`s, two words; a task
//! keeps the same `Arc` as one tagged pointer: the pointer `Arc::into_raw` gives, with the
//! low bit set for the current-thread flavor (both handle types are aligned to at least 8
//! bytes, so that bit is always free). One word less per task keeps a typical small task
//! within the allocator's fast, lock-free size classes (glibc's fast bins: 120 bytes), so
//! a task spawned on one thread and freed on another takes no allocator lock.
//!
//! Invariants: a `TaskSched` owns exactly one strong count of the `Arc` it names (taken in
//! `new`, given back in `drop`); `with` lends a borrowed `Handle` rebuilt from the pointer
//! that is never dropped, so it changes no count. Under loom the handle is kept as is (two
//! words): the model checks the scheduler, not this packing, and loom's `Arc` registers
//! each allocation it hands out.

use task::{Notified, Schedule, Task};

#[cfg(not(loom))]
pub(crate) use packed::TaskSched;

#[cfg(not(loom))]
mod packed {
    use std::mem::ManuallyDrop;
    use std::ptr::NonNull;

    use shim::sync::Arc;

    use crate::scheduler::{current_thread, multi_thread, Handle};

    /// The low bit of the pointer: set for a current-thread handle.
    const CURRENT_THREAD: usize = 1;

    /// A scheduler handle in one word (module docs).
    pub(crate) struct TaskSched {
        tagged: NonNull<()>,
    }

    // SAFETY: it owns a count of an `Arc` of a `Send + Sync` handle, as `Handle` does.
    unsafe impl Send for TaskSched {}
    // SAFETY: as above; `with` only lends `&Handle`.
    unsafe impl Sync for TaskSched {}

    impl TaskSched {
        /// A new word owning one more count of `handle`'s `Arc`.
        pub(crate) fn new(handle: &Handle) -> TaskSched {
            let addr = match handle {
                Handle::MultiThread(h) => Arc::into_raw(h.clone()) as usize,
                Handle::CurrentThread(h) => Arc::into_raw(h.clone()) as usize | CURRENT_THREAD,
            };
            debug_assert_eq!(
                addr & !CURRENT_THREAD & CURRENT_THREAD,
                0,
                "handle pointers are aligned"
            );
            TaskSched {
                // SAFETY: `into_raw` never returns null (and the tag only sets a bit).
                tagged: unsafe { NonNull::new_unchecked(addr as *mut ()) },
            }
        }

        /// Runs `f` with the handle, borrowed (no count changes).
        #[inline]
        pub(crate) fn with<R>(&self, f: impl FnOnce(&Handle) -> R) -> R {
            let addr = self.tagged.as_ptr() as usize;
            let ptr = addr & !CURRENT_THREAD;
            // SAFETY: `ptr` came from `Arc::into_raw` of the flavor the tag names, and this
            // word still owns that count, so the allocation is live while we borrow it; the
            // rebuilt `Arc` is never dropped (ManuallyDrop), so no count changes.
            let handle = ManuallyDrop::new(unsafe {
                if addr & CURRENT_THREAD == 0 {
                    Handle::MultiThread(Arc::from_raw(ptr as *const multi_thread::Handle))
                } else {
                    Handle::CurrentThread(Arc::from_raw(ptr as *const current_thread::Handle))
                }
            });
            f(&handle)
        }
    }

    impl Clone for TaskSched {
        fn clone(&self) -> TaskSched {
            self.with(TaskSched::new)
        }
    }

    impl Drop for TaskSched {
        fn drop(&mut self) {
            let addr = self.tagged.as_ptr() as usize;
            let ptr = addr & !CURRENT_THREAD;
            // SAFETY: this word owns one count of that `Arc` (taken in `new`); giving it
            // back here is the last use of the word.
            unsafe {
                if addr & CURRENT_THREAD == 0 {
                    drop(Arc::from_raw(ptr as *const multi_thread::Handle));
                } else {
                    drop(Arc::from_raw(ptr as *const current_thread::Handle));
                }
            }
        }
    }
}

#[cfg(loom)]
pub(crate) use unpacked::TaskSched;

#[cfg(loom)]
mod unpacked {
    use crate::scheduler::Handle;

    /// Under loom: the handle itself (module docs).
    #[derive(Clone)]
    pub(crate) struct TaskSched(Handle);

    impl TaskSched {
        pub(crate) fn new(handle: &Handle) -> TaskSched {
            TaskSched(handle.clone())
        }

        #[inline]
        pub(crate) fn with<R>(&self, f: impl FnOnce(&Handle) -> R) -> R {
            f(&self.0)
        }
    }
}

impl Schedule for TaskSched {
    fn schedule(&self, task: Notified<Self>) {
        self.with(|h| h.schedule(task))
    }

    fn release(&self, task: &Task<Self>) -> Option<Task<Self>> {
        self.with(|h| h.release(task))
    }

    fn bind(&self, task: Task<Self>) -> Result<(), Task<Self>> {
        self.with(|h| h.bind(task))
    }

    fn yield_now(&self, task: Notified<Self>) {
        self.with(|h| h.yield_now(task))
    }
}
