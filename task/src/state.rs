//! The task's state word: lifecycle bits and a reference count in one `AtomicUsize`.
//!
//! Bits (low to high): RUNNING, COMPLETE, NOTIFIED, CANCELLED, JOIN_INTEREST, JOIN_WAKER,
//! then the reference count from bit 6. Every transition is a single atomic operation
//! (one CAS loop, or one `fetch_*`), so a wake, a poll, an abort and a JoinHandle drop
//! racing each other always see a consistent word.
//!
//! A CAS transition edits a copy of the word, a `Snapshot`, through named transformers
//! (`set_notified`, `ref_inc`, `unset_running`, ...) and stores it in one
//! `compare_exchange` (`State::update`). It returns a `#[must_use]` enum that tells its
//! caller what is left to do; the types keep impossible outcomes out: a wake by value
//! gives up the waker's reference and may have to free the task (`ToNotifiedByVal`), a
//! wake by reference keeps it and never can (`ToNotifiedByRef` has no `Dealloc`).
//!
//! Invariants:
//! - RUNNING is the lock on the future: whoever set it owns `Core::stage` until it clears it.
//! - A `Notified` exists only while NOTIFIED is set, and it owns one reference.
//! - COMPLETE is never cleared; once set the future is gone and the output (if any) belongs
//!   to the JoinHandle when JOIN_INTEREST was set at that moment, else it was dropped.
//! - JOIN_WAKER set means the trailer's waker belongs to the runtime side (read at completion);
//!   unset means it belongs to the JoinHandle, which may write it.

use shim::sync::atomic::AtomicUsize;
use shim::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};

const RUNNING: usize = 1 << 0;
const COMPLETE: usize = 1 << 1;
const NOTIFIED: usize = 1 << 2;
const CANCELLED: usize = 1 << 3;
const JOIN_INTEREST: usize = 1 << 4;
const JOIN_WAKER: usize = 1 << 5;
const REF_SHIFT: usize = 6;
const REF_ONE: usize = 1 << REF_SHIFT;

/// A new task: three references (the owned list's `Task`, the first `Notified`, the
/// `JoinHandle`), join interest, and notified (it is about to be scheduled).
const INITIAL: usize = (3 * REF_ONE) | JOIN_INTEREST | NOTIFIED;

/// `INITIAL` after the JoinHandle was dropped at once (`drop_join_handle_fast`): its
/// reference and its join interest gone.
const DETACHED_INITIAL: usize = (INITIAL - REF_ONE) & !JOIN_INTEREST;

/// The atomic state word.
pub(crate) struct State {
    val: AtomicUsize,
}

/// A copy of the state word at one instant.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Snapshot(usize);

impl Snapshot {
    pub(crate) fn is_running(self) -> bool {
        self.0 & RUNNING != 0
    }
    pub(crate) fn is_complete(self) -> bool {
        self.0 & COMPLETE != 0
    }
    pub(crate) fn is_notified(self) -> bool {
        self.0 & NOTIFIED != 0
    }
    pub(crate) fn is_cancelled(self) -> bool {
        self.0 & CANCELLED != 0
    }
    pub(crate) fn is_join_interested(self) -> bool {
        self.0 & JOIN_INTEREST != 0
    }
    pub(crate) fn has_join_waker(self) -> bool {
        self.0 & JOIN_WAKER != 0
    }
    pub(crate) fn ref_count(self) -> usize {
        self.0 >> REF_SHIFT
    }
    fn is_idle(self) -> bool {
        self.0 & (RUNNING | COMPLETE) == 0
    }

    // The transformers below edit this copy only; a transition stores the result with its
    // one CAS (`State::update`).

    fn set_running(&mut self) {
        self.0 |= RUNNING;
    }
    fn unset_running(&mut self) {
        self.0 &= !RUNNING;
    }
    fn set_notified(&mut self) {
        self.0 |= NOTIFIED;
    }
    fn unset_notified(&mut self) {
        self.0 &= !NOTIFIED;
    }
    fn set_cancelled(&mut self) {
        self.0 |= CANCELLED;
    }
    fn set_join_waker(&mut self) {
        self.0 |= JOIN_WAKER;
    }
    fn unset_join_waker(&mut self) {
        self.0 &= !JOIN_WAKER;
    }
    /// Gives up join interest, and with it the join waker.
    fn unset_join_interested(&mut self) {
        self.0 &= !(JOIN_INTEREST | JOIN_WAKER);
    }
    /// One more reference; aborts the process rather than let the count overflow into
    /// the sign bit (as `Arc::clone` does; only leaked references can get that far).
    fn ref_inc(&mut self) {
        if self.0 > isize::MAX as usize {
            std::process::abort();
        }
        self.0 += REF_ONE;
    }
    /// One reference less. The caller holds the reference it drops.
    fn ref_dec(&mut self) {
        debug_assert!(self.ref_count() >= 1, "{self:?}");
        self.0 -= REF_ONE;
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("running", &self.is_running())
            .field("complete", &self.is_complete())
            .field("notified", &self.is_notified())
            .field("cancelled", &self.is_cancelled())
            .field("join_interest", &self.is_join_interested())
            .field("join_waker", &self.has_join_waker())
            .field("refs", &self.ref_count())
            .finish()
    }
}

/// What `transition_to_running` tells the poller to do.
#[must_use = "the poller must act on the transition: poll, cancel, or free the task"]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ToRunning {
    /// RUNNING is ours: poll the future.
    Success,
    /// RUNNING is ours but the task was cancelled: drop the future, complete with an error.
    Cancelled,
    /// Already running or complete: our reference was dropped, nothing else to do.
    Failed,
    /// As `Failed`, and ours was the last reference: free the task.
    Dealloc,
}

/// What `transition_to_idle` tells the poller to do after a `Pending` poll.
#[must_use = "the poller must act on the transition: re-schedule, cancel, or free the task"]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ToIdle {
    /// Idle again; the run's reference was dropped.
    Ok,
    /// Woken during the poll: the run's reference becomes a new `Notified`; re-schedule it.
    OkNotified,
    /// Idle again and ours was the last reference: free the task.
    OkDealloc,
    /// Cancelled during the poll: RUNNING is still ours; cancel and complete.
    Cancelled,
}

/// What a wake by value (`Waker::wake`) tells the waker to do. The waker gave up its
/// reference, so it may have been the last one.
#[must_use = "the waker must act on the transition: schedule, or free the task"]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ToNotifiedByVal {
    /// Schedule the task: the CAS took a new reference for the `Notified`, and the
    /// waker's own is still held, to be dropped after the schedule returned.
    Submit,
    /// Nothing to schedule; the waker's reference was dropped.
    DoNothing,
    /// Nothing to schedule, and the waker's reference was the last one: free the task.
    Dealloc,
}

/// What a wake by reference (`Waker::wake_by_ref`, `abort`) tells the caller to do. The
/// caller keeps its reference, so the task cannot be freed here: there is no `Dealloc`.
#[must_use = "the waker must act on the transition: schedule the task on `Submit`"]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ToNotifiedByRef {
    /// Schedule the task: the CAS took a new reference, owned by the caller as a `Notified`.
    Submit,
    /// Nothing to schedule.
    DoNothing,
}

impl State {
    pub(crate) fn new() -> State {
        State {
            val: AtomicUsize::new(INITIAL),
        }
    }

    /// Acquire: a reader of COMPLETE must see the output written before it.
    pub(crate) fn load(&self) -> Snapshot {
        Snapshot(self.val.load(Acquire))
    }

    /// One CAS loop; `f` edits a copy of the word and returns it (or None to leave the word
    /// as it is) and a result.
    /// AcqRel on success: every transition hands the future, the output or the join waker
    /// from one thread to another, so it both publishes and observes. The success's
    /// Acquire is not covered by the load's: the CAS may succeed on a word equal to the
    /// one loaded but written since by another thread (a wake, a run and a park restore
    /// it exactly), whose writes the caller must then see (loom:
    /// `shutdown_racing_wake_and_poll_restoring_the_word`).
    #[inline]
    fn update<R>(&self, mut f: impl FnMut(Snapshot) -> (Option<Snapshot>, R)) -> R {
        let mut cur = self.val.load(Acquire);
        loop {
            let (next, res) = f(Snapshot(cur));
            let Some(next) = next else { return res };
            match self.val.compare_exchange_weak(cur, next.0, AcqRel, Acquire) {
                Ok(_) => return res,
                Err(actual) => cur = actual,
            }
        }
    }

    /// A `Notified` is being run. Clears NOTIFIED and sets RUNNING, or (running/complete
    /// already) drops the notified reference.
    pub(crate) fn transition_to_running(&self) -> ToRunning {
        self.update(|mut s| {
            debug_assert!(
                s.is_notified() || s.is_running() || s.is_complete(),
                "{s:?}"
            );
            if !s.is_idle() {
                s.ref_dec();
                let action = if s.ref_count() == 0 {
                    ToRunning::Dealloc
                } else {
                    ToRunning::Failed
                };
                return (Some(s), action);
            }
            s.set_running();
            s.unset_notified();
            let action = if s.is_cancelled() {
                ToRunning::Cancelled
            } else {
                ToRunning::Success
            };
            (Some(s), action)
        })
    }

    /// The poll returned `Pending`. Clears RUNNING; keeps the run's reference as a new
    /// `Notified` when woken meanwhile (by a waker, or by the poll itself: `woke_self`,
    /// which sets NOTIFIED here as a `wake_by_ref` during the poll would have), else drops
    /// it, all in the same CAS.
    pub(crate) fn transition_to_idle(&self, woke_self: bool) -> ToIdle {
        self.update(|mut s| {
            debug_assert!(s.is_running());
            if s.is_cancelled() {
                return (None, ToIdle::Cancelled);
            }
            s.unset_running();
            if woke_self {
                s.set_notified();
            }
            if s.is_notified() {
                return (Some(s), ToIdle::OkNotified);
            }
            s.ref_dec();
            let action = if s.ref_count() == 0 {
                ToIdle::OkDealloc
            } else {
                ToIdle::Ok
            };
            (Some(s), action)
        })
    }

    /// The future finished (or was cancelled): RUNNING -> COMPLETE in one xor.
    /// Returns the word as it was just before.
    #[must_use = "the previous word says whether to drop the output or wake the JoinHandle"]
    pub(crate) fn transition_to_complete(&self) -> Snapshot {
        // AcqRel: publishes the output to the JoinHandle; acquires its join waker.
        let prev = Snapshot(self.val.fetch_xor(RUNNING | COMPLETE, AcqRel));
        debug_assert!(prev.is_running() && !prev.is_complete(), "{prev:?}");
        prev
    }

    /// Drops `count` references at once; true when they were the last.
    #[must_use = "true means the caller must free the task"]
    pub(crate) fn transition_to_terminal(&self, count: usize) -> bool {
        let prev = Snapshot(self.val.fetch_sub(count * REF_ONE, AcqRel));
        debug_assert!(prev.ref_count() >= count, "{prev:?} - {count}");
        prev.ref_count() == count
    }

    /// `wake_by_ref`: on an idle task set NOTIFIED and take the queue's reference in the
    /// same CAS; on a running one only mark it (its poller re-schedules it).
    pub(crate) fn transition_to_notified_by_ref(&self) -> ToNotifiedByRef {
        self.update(|mut s| {
            if s.is_complete() || s.is_notified() {
                (None, ToNotifiedByRef::DoNothing)
            } else if s.is_running() {
                s.set_notified();
                (Some(s), ToNotifiedByRef::DoNothing)
            } else {
                s.set_notified();
                s.ref_inc();
                (Some(s), ToNotifiedByRef::Submit)
            }
        })
    }

    /// `wake` by value: when the task is idle, a new reference is taken for the `Notified`
    /// and the waker keeps its own until the schedule returned (the caller then drops it):
    /// the scheduler handle the schedule reads lives in the task, which another thread may
    /// run and free as soon as it is queued. Otherwise the waker's reference is dropped in
    /// the same CAS.
    pub(crate) fn transition_to_notified_by_val(&self) -> ToNotifiedByVal {
        self.update(|mut s| {
            if s.is_running() {
                // The poller holds a reference, so ours cannot be the last.
                s.set_notified();
                s.ref_dec();
                (Some(s), ToNotifiedByVal::DoNothing)
            } else if s.is_complete() || s.is_notified() {
                s.ref_dec();
                let action = if s.ref_count() == 0 {
                    ToNotifiedByVal::Dealloc
                } else {
                    ToNotifiedByVal::DoNothing
                };
                (Some(s), action)
            } else {
                s.set_notified();
                s.ref_inc();
                (Some(s), ToNotifiedByVal::Submit)
            }
        })
    }

    /// `abort()`: mark CANCELLED; an idle task is also notified (with a new reference) so a
    /// worker runs it and sees the cancellation; a running one is re-run after its poll.
    /// The caller keeps its own reference, as for a wake by reference.
    pub(crate) fn transition_to_notified_and_cancel(&self) -> ToNotifiedByRef {
        self.update(|mut s| {
            if s.is_cancelled() || s.is_complete() {
                (None, ToNotifiedByRef::DoNothing)
            } else if s.is_running() || s.is_notified() {
                s.set_notified();
                s.set_cancelled();
                (Some(s), ToNotifiedByRef::DoNothing)
            } else {
                s.set_notified();
                s.set_cancelled();
                s.ref_inc();
                (Some(s), ToNotifiedByRef::Submit)
            }
        })
    }

    /// Runtime shutdown: mark CANCELLED, and when nobody is running it take RUNNING so the
    /// caller drops the future right here. True when the caller now owns the future.
    #[must_use = "true means RUNNING is the caller's: it must cancel and complete the task"]
    pub(crate) fn transition_to_shutdown(&self) -> bool {
        self.update(|mut s| {
            let idle = s.is_idle();
            if idle {
                s.set_running();
            }
            s.set_cancelled();
            (Some(s), idle)
        })
    }

    /// The JoinHandle is dropped right after spawn, before anything happened: one CAS.
    #[must_use = "false means the caller must take the slow path"]
    pub(crate) fn drop_join_handle_fast(&self) -> bool {
        // Relaxed: in INITIAL the JoinHandle has registered no waker and read no output, so
        // its thread touched none of the task's cells: it has nothing to publish (Release)
        // to whoever frees the task, and takes nothing (Acquire) from anyone; and the CAS
        // cannot drop the last reference (INITIAL counts the run's too). On failure we fall
        // back to the slow path, which synchronizes. (The weakening sweep found no model
        // that tells AcqRel, Acquire or Release here from Relaxed.)
        self.val
            .compare_exchange(INITIAL, DETACHED_INITIAL, Relaxed, Relaxed)
            .is_ok()
    }

    /// Clears JOIN_INTEREST (and JOIN_WAKER). Err when the task already completed: the
    /// output is then the JoinHandle's to drop.
    pub(crate) fn unset_join_interested(&self) -> Result<(), Snapshot> {
        self.update(|mut s| {
            debug_assert!(s.is_join_interested());
            if s.is_complete() {
                return (None, Err(s));
            }
            s.unset_join_interested();
            (Some(s), Ok(()))
        })
    }

    /// Hands the freshly written join waker to the runtime side. Err when complete.
    pub(crate) fn set_join_waker(&self) -> Result<Snapshot, Snapshot> {
        self.update(|mut s| {
            debug_assert!(s.is_join_interested() && !s.has_join_waker());
            if s.is_complete() {
                return (None, Err(s));
            }
            s.set_join_waker();
            (Some(s), Ok(s))
        })
    }

    /// Takes the join waker back so the JoinHandle may replace it. Err when complete.
    pub(crate) fn unset_join_waker(&self) -> Result<Snapshot, Snapshot> {
        self.update(|mut s| {
            debug_assert!(s.is_join_interested() && s.has_join_waker());
            if s.is_complete() {
                return (None, Err(s));
            }
            s.unset_join_waker();
            (Some(s), Ok(s))
        })
    }

    /// One more reference (a waker clone). Relaxed: a new reference is made from an
    /// existing one, so the task cannot be freed concurrently (as `Arc::clone`).
    pub(crate) fn ref_inc(&self) {
        let prev = self.val.fetch_add(REF_ONE, Relaxed);
        if prev > isize::MAX as usize {
            std::process::abort();
        }
    }

    /// One reference less; true when it was the last (the caller frees the task).
    /// AcqRel: the freeing thread must see every other holder's accesses (as `Arc::drop`).
    #[must_use = "true means the caller must free the task"]
    pub(crate) fn ref_dec(&self) -> bool {
        let prev = Snapshot(self.val.fetch_sub(REF_ONE, AcqRel));
        debug_assert!(prev.ref_count() >= 1);
        prev.ref_count() == 1
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn initial_state() {
        let s = State::new().load();
        assert!(s.is_notified() && s.is_join_interested());
        assert!(!s.is_running() && !s.is_complete() && !s.is_cancelled());
        assert_eq!(s.ref_count(), 3);
    }

    #[test]
    fn run_idle_wake_cycle() {
        let st = State::new();
        assert_eq!(st.transition_to_running(), ToRunning::Success);
        // The run holds the notified reference; a wake while running only marks it.
        assert_eq!(
            st.transition_to_notified_by_ref(),
            ToNotifiedByRef::DoNothing
        );
        assert!(st.load().is_notified());
        assert_eq!(st.transition_to_idle(false), ToIdle::OkNotified);
        assert_eq!(st.load().ref_count(), 3);
        assert_eq!(st.transition_to_running(), ToRunning::Success);
        assert_eq!(st.transition_to_idle(false), ToIdle::Ok);
        assert_eq!(st.load().ref_count(), 2);
        // Idle: wake_by_ref takes a reference in the same CAS.
        assert_eq!(st.transition_to_notified_by_ref(), ToNotifiedByRef::Submit);
        assert_eq!(st.load().ref_count(), 3);
        // Second wake while notified: nothing.
        assert_eq!(
            st.transition_to_notified_by_ref(),
            ToNotifiedByRef::DoNothing
        );
        assert_eq!(st.load().ref_count(), 3);
    }

    #[test]
    fn complete_and_terminal() {
        let st = State::new();
        assert_eq!(st.transition_to_running(), ToRunning::Success);
        let prev = st.transition_to_complete();
        assert!(prev.is_join_interested());
        let s = st.load();
        assert!(s.is_complete() && !s.is_running());
        // Wakes after completion do nothing.
        assert_eq!(
            st.transition_to_notified_by_ref(),
            ToNotifiedByRef::DoNothing
        );
        assert!(!st.transition_to_terminal(2));
        assert!(st.transition_to_terminal(1));
    }

    #[test]
    fn wake_by_val_paths() {
        let st = State::new();
        // Already notified: the waker's reference is dropped, nothing scheduled.
        st.ref_inc();
        assert_eq!(
            st.transition_to_notified_by_val(),
            ToNotifiedByVal::DoNothing
        );
        assert_eq!(st.load().ref_count(), 3);
        // Running: marked, and the waker's reference dropped in the same CAS.
        assert_eq!(st.transition_to_running(), ToRunning::Success);
        st.ref_inc();
        assert_eq!(
            st.transition_to_notified_by_val(),
            ToNotifiedByVal::DoNothing
        );
        assert!(st.load().is_notified());
        assert_eq!(st.load().ref_count(), 3);
        assert_eq!(st.transition_to_idle(false), ToIdle::OkNotified);
        assert_eq!(st.transition_to_running(), ToRunning::Success);
        assert_eq!(st.transition_to_idle(false), ToIdle::Ok);
        // Idle: a new reference for the `Notified`; the waker keeps its own.
        st.ref_inc();
        assert_eq!(st.transition_to_notified_by_val(), ToNotifiedByVal::Submit);
        assert_eq!(st.load().ref_count(), 4);
        // Complete, with the waker's the last reference: it frees the task.
        assert_eq!(st.transition_to_running(), ToRunning::Success);
        assert!(st.transition_to_complete().is_running());
        assert!(!st.transition_to_terminal(3));
        assert_eq!(st.transition_to_notified_by_val(), ToNotifiedByVal::Dealloc);
        assert_eq!(st.load().ref_count(), 0);
    }

    #[test]
    fn abort_idle_and_running() {
        let st = State::new();
        assert_eq!(st.transition_to_running(), ToRunning::Success);
        assert_eq!(st.transition_to_idle(false), ToIdle::Ok);
        assert_eq!(
            st.transition_to_notified_and_cancel(),
            ToNotifiedByRef::Submit
        );
        assert_eq!(st.transition_to_running(), ToRunning::Cancelled);
        // A second abort is a no-op.
        assert_eq!(
            st.transition_to_notified_and_cancel(),
            ToNotifiedByRef::DoNothing
        );
        let st = State::new();
        assert_eq!(st.transition_to_running(), ToRunning::Success);
        assert_eq!(
            st.transition_to_notified_and_cancel(),
            ToNotifiedByRef::DoNothing
        );
        assert_eq!(st.transition_to_idle(false), ToIdle::Cancelled);
    }

    #[test]
    fn join_handle_paths() {
        let st = State::new();
        assert!(st.drop_join_handle_fast());
        assert!(!st.load().is_join_interested());
        let st = State::new();
        assert_eq!(st.transition_to_running(), ToRunning::Success);
        assert!(!st.drop_join_handle_fast());
        st.set_join_waker().unwrap();
        st.unset_join_waker().unwrap();
        st.set_join_waker().unwrap();
        assert!(st.transition_to_complete().is_running());
        assert!(st.unset_join_waker().is_err());
        assert!(st.unset_join_interested().is_err());
    }

    #[test]
    fn shutdown_takes_idle_task() {
        let st = State::new();
        assert!(st.transition_to_shutdown());
        assert!(st.load().is_running() && st.load().is_cancelled());
        let st = State::new();
        assert_eq!(st.transition_to_running(), ToRunning::Success);
        assert!(!st.transition_to_shutdown());
        assert_eq!(st.transition_to_idle(false), ToIdle::Cancelled);
    }
}
