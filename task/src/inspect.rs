//! Looking at live tasks from outside, for task dumps: a task's state as one snapshot of
//! its state word, and the task behind a runtime waker.
//!
//! Nothing here polls a task, takes its RUNNING bit or touches its future: every answer is
//! one Acquire load of the state word, or a read of the task's identity slot (`meta.rs`,
//! which may assign the id on that first read).
//!
//! **Unwakeable.** An idle bound task holds exactly these references (state.rs): the owned
//! list's, the `JoinHandle`'s (while JOIN_INTEREST is set), one per `AbortHandle`, and one
//! per waker clone, wherever it is stored (a timer wheel, a readiness entry, a sync wait
//! list, a user's data structure). No `Notified` exists (NOTIFIED is clear) and no poller
//! borrows a waker (RUNNING is clear). So when one snapshot shows an idle, un-notified task
//! whose count is the list's plus the JoinHandle's, no waker of it exists anywhere at that
//! instant, and none can be made later: a waker is only made from another waker or by a
//! poll. Such a task can end only by `abort` or shutdown. The check never reports a task
//! that something can wake; it misses (says "wakeable") a task whose only extra references
//! are `AbortHandle`s, or one caught between a `JoinHandle` clearing its interest and
//! dropping its reference (two steps on the slow drop path). It says nothing of whether a
//! stored waker will ever be used (a waker parked on a channel whose senders all leaked).

use std::ptr::NonNull;
use std::task::Waker;

use crate::core::Header;
use crate::id::Id;
use crate::state::Snapshot;

/// Where a task stands, from one load of its state word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskState {
    /// Not running, not queued: only a waker (or abort, or shutdown) makes it run again.
    Idle,
    /// Woken and in a run queue (or about to be), not running.
    Scheduled,
    /// Being polled by some thread (or having its future dropped).
    Running,
    /// Finished; about to leave the owned list.
    Complete,
}

impl std::fmt::Display for TaskState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TaskState::Idle => "idle",
            TaskState::Scheduled => "scheduled",
            TaskState::Running => "running",
            TaskState::Complete => "complete",
        })
    }
}

/// One bound task as an owned-list walk sees it ([`crate::OwnedTasks::for_each_task`]):
/// valid only inside that walk's callback, under the shard's lock, where the list's
/// reference keeps the task alive.
pub struct TaskView<'a> {
    pub(crate) header: NonNull<Header>,
    pub(crate) snapshot: Snapshot,
    pub(crate) _list: std::marker::PhantomData<&'a ()>,
}

impl TaskView<'_> {
    /// A task a run queue holds, as a walk of that queue under its lock sees it (or as a
    /// claimer that took the queue's reference off the queue sees it).
    ///
    /// # Safety
    /// `header` is a task whose queue reference the caller's lock keeps alive (or the
    /// caller holds) for as long as the view is used.
    pub unsafe fn queued(header: NonNull<Header>) -> Self {
        TaskView {
            header,
            // SAFETY: the caller's queue keeps the task live.
            snapshot: unsafe { header.as_ref() }.state.load(),
            _list: std::marker::PhantomData,
        }
    }

    /// True once the task joined an owned list: it parked at least once. A queued task
    /// that is not bound has never parked: spawned and not yet polled (or polled, and
    /// requeued before it ever went idle).
    pub fn is_bound(&self) -> bool {
        // SAFETY: the view's holder keeps the task live (see the type).
        unsafe { self.header.as_ref() }.is_bound()
    }

    /// The task's id (assigned now if nobody asked for it before).
    pub fn id(&self) -> Id {
        // SAFETY: the list's reference keeps the task live for the walk (see the type).
        unsafe { Header::trailer(self.header) }.meta.id()
    }

    /// The task's identity: id, name, spawn location.
    pub fn meta(&self) -> crate::meta::TaskMeta {
        // SAFETY: the list's reference keeps the task live for the walk (see the type).
        unsafe { crate::meta::meta_of(self.header) }
    }

    /// The task's header, for identity (and for `meta_of` while the walk holds the task).
    pub fn header(&self) -> NonNull<Header> {
        self.header
    }

    /// The task's state at the walk's load of its state word.
    pub fn state(&self) -> TaskState {
        state_of(self.snapshot)
    }

    /// The references the task holds besides the owned list's and its `JoinHandle`'s:
    /// wakers, `AbortHandle`s, and (while scheduled or running) its run.
    pub fn other_refs(&self) -> usize {
        let base = 1 + usize::from(self.snapshot.is_join_interested());
        self.snapshot.ref_count().saturating_sub(base)
    }

    /// True when the task is idle and no waker of it exists (see the module doc).
    pub fn is_unwakeable(&self) -> bool {
        self.state() == TaskState::Idle && self.other_refs() == 0
    }

    /// Calls `f` with every wait recorded in the task's own slots (`waits::inline`): kind,
    /// object and, for a join, the awaited task's raw id. Labels only (see there).
    pub fn for_each_inline_wait(&self, f: impl FnMut(crate::waits::inline::InlineWait)) {
        // SAFETY: the view's holder keeps the task live (see the type).
        let meta = &unsafe { Header::trailer(self.header) }.meta;
        if let Some(block) = meta.wait_block_if_any() {
            block.for_each(f);
        }
    }

    /// True once the task was aborted (it may still be running its last poll).
    pub fn is_cancelled(&self) -> bool {
        self.snapshot.is_cancelled()
    }
}

fn state_of(s: Snapshot) -> TaskState {
    if s.is_complete() {
        TaskState::Complete
    } else if s.is_running() {
        TaskState::Running
    } else if s.is_notified() {
        TaskState::Scheduled
    } else {
        TaskState::Idle
    }
}

/// The id of the task `waker` wakes, when it is a runtime task's waker (not a `block_on`
/// parker's or a foreign executor's).
///
/// Safe: a task waker, owned or borrowed, keeps its task alive for as long as the caller
/// can hold `&Waker` (an owned one holds a reference; a borrowed one exists only inside a
/// poll, whose run holds one).
pub fn waker_task_id(waker: &Waker) -> Option<Id> {
    let header = waker_task(waker)?;
    // SAFETY: as the function doc says: the waker keeps the task live while borrowed.
    Some(unsafe { Header::trailer(header) }.meta.id())
}

/// The header of the task `waker` wakes, when it is a runtime task's waker.
pub fn waker_task(waker: &Waker) -> Option<NonNull<Header>> {
    if !std::ptr::eq(waker.vtable(), &crate::waker::VTABLE) {
        return None;
    }
    NonNull::new(waker.data() as *mut Header)
}
