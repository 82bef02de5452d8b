//! The generic half of the task: what the vtable entries do for one `<T, S>`.
//!
//! `poll` runs a `Notified`: take RUNNING, poll the future under `catch_unwind` with a
//! waker borrowed from the run's own reference (no refcount traffic), then either
//! complete, go idle (dropping the run's reference in the same CAS) or, when woken during
//! the poll, hand the same reference back to the poller's scheduler as a yield
//! (`poll_inner` does the run and says which, as a `PollFuture`; `poll` acts on it in one
//! `match`, so each ending, cancel-then-complete included, is written once). Before an
//! unbound task goes idle, its poller binds it to the owned list (`Schedule::bind`, see
//! list.rs) and stores a clone of its scheduler in the task, for the wakers to come; a
//! closed list makes the poller cancel it instead.
//!
//! `complete` stores the output, flips RUNNING to COMPLETE, drops the output at once when
//! nobody holds a JoinHandle, wakes the join waker otherwise, removes a bound task from its
//! owned list and drops the run's (and the list's) reference in one `fetch_sub`. An
//! unbound task's list reference rode with the run, so it is dropped there too.
//! A panic, in the future's poll or in its drop, becomes a `JoinError`; it never unwinds
//! into the worker.

use std::future::Future;
use std::mem::{self, ManuallyDrop};
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};

use crate::core::{Cell, Header, Stage};
use crate::join::JoinError;
use crate::state::{Snapshot, ToIdle, ToNotifiedByRef, ToNotifiedByVal, ToRunning};
use crate::{Notified, Schedule, Task};

/// Borrows the typed cell.
///
/// # Safety
/// `ptr` must be the header of a live `Cell<T, S>`.
unsafe fn cell<'a, T: Future, S>(ptr: NonNull<Header>) -> &'a Cell<T, S> {
    // SAFETY: the header is the first field of the `#[repr(C)]` cell (caller).
    unsafe { ptr.cast::<Cell<T, S>>().as_ref() }
}

/// What `poll_inner` leaves for `poll` to do. Each variant is one way a run ends, so the
/// follow-up of each (complete, cancel then complete, re-schedule, free) is written once.
#[must_use = "the run must be finished: complete, cancel, re-schedule or free the task"]
enum PollFuture {
    /// The result is stored and RUNNING is ours: complete the task.
    Complete,
    /// The task was cancelled (aborted, or its first park refused by a closed list) and
    /// RUNNING is ours: drop the future, then complete with the cancellation.
    Cancel,
    /// Woken during the poll: the run's reference is a `Notified` now; yield it.
    Notified,
    /// Nothing more to do: idle (the run's reference dropped), or run elsewhere.
    Done,
    /// Ours was the last reference: free the task.
    Dealloc,
}

/// Runs a `Notified` task; consumes the notified reference. True when this run completed
/// the task.
///
/// # Safety
/// `ptr` is a live `Cell<T, S>`, the caller gives up one notified reference, and
/// `scheduler` points to an `S` (the poller's) that outlives the call.
pub(crate) unsafe fn poll<T: Future, S: Schedule>(
    ptr: NonNull<Header>,
    scheduler: NonNull<()>,
) -> bool {
    // SAFETY: an `&S` erased by `Notified::run` (caller).
    let scheduler = unsafe { scheduler.cast::<S>().as_ref() };
    // SAFETY: forwarded from the caller.
    match unsafe { poll_inner::<T, S>(ptr, scheduler) } {
        PollFuture::Complete => {
            // SAFETY: RUNNING is ours, the result is stored, and we hold the run's
            // reference (with the list's riding along, for an unbound task).
            unsafe { complete::<T, S>(ptr) };
            true
        }
        PollFuture::Cancel => {
            // SAFETY: RUNNING is ours, and we hold the run's reference (with the list's
            // riding along, for an unbound task).
            unsafe { cancel_and_complete::<T, S>(ptr) };
            true
        }
        PollFuture::Notified => {
            // SAFETY: the run's reference was kept and NOTIFIED is set: it is a Notified now.
            let task = unsafe { Notified::<S>::from_raw(ptr) };
            scheduler.yield_now(task);
            false
        }
        PollFuture::Done => false,
        PollFuture::Dealloc => {
            // SAFETY: the last reference was ours.
            unsafe { dealloc::<T, S>(ptr) };
            false
        }
    }
}

/// The body of `poll`: takes RUNNING, polls the future, binds an unbound task about to go
/// idle, and lets it go idle; says what is left to do.
///
/// # Safety
/// As `poll`.
#[inline(always)]
unsafe fn poll_inner<T: Future, S: Schedule>(ptr: NonNull<Header>, scheduler: &S) -> PollFuture {
    // SAFETY: caller holds a reference, so the cell is live for this call.
    let cell = unsafe { cell::<T, S>(ptr) };
    match cell.header.state.transition_to_running() {
        ToRunning::Success => {}
        ToRunning::Cancelled => return PollFuture::Cancel,
        ToRunning::Failed => return PollFuture::Done,
        ToRunning::Dealloc => return PollFuture::Dealloc,
    }

    // SAFETY: we hold the run's reference for the whole poll, so a waker made from it
    // without an increment stays valid; ManuallyDrop keeps its drop from decrementing.
    let waker = ManuallyDrop::new(unsafe { crate::waker::borrowed(ptr) });
    let mut cx = Context::from_waker(&waker);
    let current = crate::id::enter(ptr);
    // SAFETY: RUNNING is ours.
    let ready = unsafe { poll_future(cell, &mut cx) };
    drop(current);
    // Taken on both outcomes, so no record outlives the poll that made it.
    let woke_self = crate::waker::take_self_wake(ptr);
    if ready {
        return PollFuture::Complete;
    }
    if !cell.header.is_bound() && !woke_self && {
        // Woken (by itself, or a waker) or cancelled during the poll: it will not go idle
        // now (both bits stay set while we hold RUNNING), so it stays unbound, back in a
        // queue or completing.
        let now = cell.header.state.load();
        !now.is_notified() && !now.is_cancelled()
    } {
        // About to go idle, where only wakers could reach it: into the owned list first,
        // while RUNNING still keeps every waker from scheduling it.
        // SAFETY: an unbound task's list reference rides with its run, which is ours.
        let owned = unsafe { Task::<S>::from_raw(ptr) };
        if let Err(owned) = scheduler.bind(owned) {
            // Closed: the runtime is shutting down. The list's reference rejoins the run's.
            mem::forget(owned);
            return PollFuture::Cancel;
        }
        // Bound: from now on a waker may find it idle and schedule it through its own
        // scheduler, which it reads after the CAS below (Release) that lets it go idle.
        // SAFETY: RUNNING is ours, and nobody reads the slot of an unbound task.
        cell.core
            .scheduler
            .with_mut(|s| unsafe { *s = Some(scheduler.clone()) });
    }
    match cell.header.state.transition_to_idle(woke_self) {
        ToIdle::Ok => PollFuture::Done,
        ToIdle::OkNotified => PollFuture::Notified,
        ToIdle::OkDealloc => PollFuture::Dealloc,
        ToIdle::Cancelled => PollFuture::Cancel,
    }
}

/// Polls the future once; on `Ready` (or a panic) stores the result. True when done.
///
/// A future whose poll panics is dropped during the unwind, before it is caught (as tokio
/// does): its `Drop` sees `std::thread::panicking()`, which guards and poisoning rely on.
/// (A drop that panics too then aborts the process, as any panic during an unwind does.)
///
/// # Safety
/// The caller holds RUNNING.
unsafe fn poll_future<T: Future, S>(cell: &Cell<T, S>, cx: &mut Context<'_>) -> bool {
    /// Drops the future if the poll unwinds; forgotten when it returns.
    struct DropOnUnwind<'a, T: Future, S>(&'a Cell<T, S>);
    impl<T: Future, S> Drop for DropOnUnwind<'_, T, S> {
        fn drop(&mut self) {
            // SAFETY: RUNNING is ours (the caller's), and the poll's borrow of the stage
            // ended with the unwind out of it.
            self.0
                .core
                .stage
                .with_mut(|stage| unsafe { *stage = Stage::Consumed });
        }
    }
    let res = panic::catch_unwind(AssertUnwindSafe(|| {
        let guard = DropOnUnwind(cell);
        let res = cell.core.stage.with_mut(|stage| {
            // SAFETY: RUNNING gives us the stage; the future never moves out of the cell.
            let stage = unsafe { &mut *stage };
            let Stage::Running(fut) = stage else {
                unreachable!("polled a task that is not running")
            };
            // SAFETY: the future is pinned in the heap cell until dropped in place.
            let fut = unsafe { std::pin::Pin::new_unchecked(fut) };
            fut.poll(cx)
        });
        mem::forget(guard);
        res
    }));
    let output = match res {
        Ok(Poll::Pending) => return false,
        Ok(Poll::Ready(out)) => Ok(out),
        Err(payload) => Err(JoinError::panic(cell.trailer.meta.meta(), payload)),
    };
    // Drop the future first (it may panic too; after a panicking poll it is gone
    // already), then store the result.
    // SAFETY: RUNNING is ours.
    let dropped = unsafe { drop_stage(cell) };
    let output = match (output, dropped) {
        (Ok(_), Err(payload)) => Err(JoinError::panic(cell.trailer.meta.meta(), payload)),
        (output, _) => output,
    };
    // SAFETY: RUNNING is ours; the stage is `Consumed`, nothing is overwritten but a unit.
    cell.core
        .stage
        .with_mut(|stage| unsafe { stage.write(Stage::Finished(output)) });
    true
}

/// Sets the stage to `Consumed`, dropping what was there; a panic in that drop is caught.
///
/// # Safety
/// The caller owns the stage (RUNNING, or the JoinHandle after completion).
unsafe fn drop_stage<T: Future, S>(cell: &Cell<T, S>) -> std::thread::Result<()> {
    panic::catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the stage is ours (caller).
        cell.core
            .stage
            .with_mut(|stage| unsafe { *stage = Stage::Consumed })
    }))
}

/// [`drop_stage`] with the task current on this thread, so the destructor of its future or
/// output sees its own task (`task::id()`), as tokio's. A stage whose drop runs no code of
/// the user's (a `()` output, a future or output type without drop glue, a cancellation
/// error) is dropped without entering the task: that is the common case (a finished
/// `spawn` of an `async` block whose output is `()`), and it costs nothing then. One match
/// on the stage decides and drops: an arm whose type has no drop glue compiles to nothing,
/// and `Consumed` is then written without running the stage's drop glue a second time.
///
/// # Safety
/// As `drop_stage`; the caller holds a reference to the task.
#[inline(always)]
unsafe fn drop_stage_as_current<T: Future, S>(cell: &Cell<T, S>) -> std::thread::Result<()> {
    let entered = cell.core.stage.with_mut(|stage| {
        // SAFETY: the stage is ours (caller).
        let stage = unsafe { &mut *stage };
        match stage {
            Stage::Running(_) if mem::needs_drop::<T>() => return true,
            Stage::Finished(Ok(_)) if mem::needs_drop::<T::Output>() => return true,
            // A panic's payload is the user's value; a cancellation holds none.
            Stage::Finished(Err(e)) if e.is_panic() => return true,
            // SAFETY: a cancellation's error, dropped once here; `Consumed` overwrites it
            // below without dropping it again. Its drop (the identity's release) runs no
            // user code and cannot panic.
            Stage::Finished(Err(e)) => unsafe { std::ptr::drop_in_place(e) },
            // Nothing with drop glue: nothing to drop.
            Stage::Running(_) | Stage::Finished(Ok(_)) | Stage::Consumed => {}
        }
        // SAFETY: what the stage held needed no drop or was dropped just above.
        unsafe { std::ptr::write(stage, Stage::Consumed) };
        false
    });
    if !entered {
        return Ok(());
    }
    // SAFETY: as this function's.
    unsafe { drop_stage_entered(cell) }
}

/// [`drop_stage_as_current`] for a task that completed (`complete`, and a `JoinHandle`
/// dropped after completion): the stage holds the output or its error, or nothing once
/// the output was taken, never the future, so only the output's drop glue and the error's
/// kind are looked at; a panic in the output's drop is caught and dropped (the task has
/// completed: nobody is left to tell).
///
/// # Safety
/// As `drop_stage`, and the task is COMPLETE; the caller holds a reference to the task.
#[inline(always)]
unsafe fn drop_output_as_current<T: Future, S>(cell: &Cell<T, S>) {
    let entered = cell.core.stage.with_mut(|stage| {
        // SAFETY: the stage is ours (caller).
        let stage = unsafe { &mut *stage };
        debug_assert!(
            !matches!(stage, Stage::Running(_)),
            "a complete task holds its future"
        );
        match stage {
            Stage::Finished(Ok(_)) if mem::needs_drop::<T::Output>() => return true,
            // A panic's payload is the user's value; a cancellation holds none.
            Stage::Finished(Err(e)) if e.is_panic() => return true,
            // SAFETY: a cancellation's error, dropped once here; `Consumed` overwrites it
            // below without dropping it again. Its drop (the identity's release) runs no
            // user code and cannot panic.
            Stage::Finished(Err(e)) => unsafe { std::ptr::drop_in_place(e) },
            // An output without drop glue, or none (taken): nothing to drop. (Never the
            // future: COMPLETE comes after it is dropped.)
            _ => {}
        }
        // SAFETY: what the stage held needed no drop or was dropped just above.
        unsafe { std::ptr::write(stage, Stage::Consumed) };
        false
    });
    if entered {
        // SAFETY: as this function's.
        unsafe { drop_stage_entered_discard(cell) }
    }
}

/// `drop_stage_entered`, dropping the payload of a panic it caught: the path out of line
/// of a caller that has nobody to tell.
///
/// # Safety
/// As `drop_stage_entered`.
#[inline(never)]
unsafe fn drop_stage_entered_discard<T: Future, S>(cell: &Cell<T, S>) {
    // SAFETY: as this function's.
    let _ = unsafe { drop_stage_entered(cell) };
}

/// `drop_stage_as_current`'s path for a stage whose drop runs the user's code.
///
/// # Safety
/// As `drop_stage_as_current`.
#[inline(never)]
unsafe fn drop_stage_entered<T: Future, S>(cell: &Cell<T, S>) -> std::thread::Result<()> {
    let current = crate::id::enter(NonNull::from(&cell.header));
    // SAFETY: the stage is ours (caller).
    let dropped = unsafe { drop_stage(cell) };
    drop(current);
    // A destructor that woke its own task left a record nobody will apply (the task is
    // completing or complete): clear it, so it neither outlives this task nor blocks the
    // thread's next self-wake.
    let _ = crate::waker::take_self_wake(NonNull::from(&cell.header));
    dropped
}

/// Drops the future of a cancelled task and stores the cancellation error.
///
/// # Safety
/// The caller holds RUNNING.
unsafe fn cancel_future<T: Future, S>(cell: &Cell<T, S>) {
    // SAFETY: RUNNING is ours.
    let dropped = unsafe { drop_stage_as_current(cell) };
    let meta = cell.trailer.meta.meta();
    let err = match dropped {
        Ok(()) => JoinError::cancelled(meta),
        Err(payload) => JoinError::panic(meta, payload),
    };
    // SAFETY: RUNNING is ours.
    cell.core
        .stage
        .with_mut(|stage| unsafe { *stage = Stage::Finished(Err(err)) });
}

/// Drops the future of a cancelled task, stores the cancellation error and completes the
/// task: the end of every cancellation (an abort seen by a poller, a first park refused by
/// a closed list, a runtime shutdown).
///
/// # Safety
/// As `complete`, except that the result is not stored yet (this stores it).
unsafe fn cancel_and_complete<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: we hold a reference.
    let cell = unsafe { cell::<T, S>(ptr) };
    // SAFETY: RUNNING is ours (caller).
    unsafe { cancel_future(cell) };
    // SAFETY: RUNNING is ours, the result is stored now, and the caller gives up its
    // reference(s).
    unsafe { complete::<T, S>(ptr) };
}

/// Publishes completion, releases the task from its owned list and drops the run's
/// reference (plus the list's, when the list still held it, or when it rode with the run
/// of a task never bound).
///
/// # Safety
/// The caller holds RUNNING, the result is stored, and the caller gives up one reference
/// (two for an unbound task: the run's and the list's riding with it).
unsafe fn complete<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: we hold a reference.
    let cell = unsafe { cell::<T, S>(ptr) };
    let prev = cell.header.state.transition_to_complete();
    if !prev.is_join_interested() {
        // Nobody will read the output: drop it here, on the runtime's thread.
        // SAFETY: COMPLETE without join interest: the stage is ours for good; we hold a
        // reference.
        unsafe { drop_output_as_current(cell) };
    } else if prev.has_join_waker() {
        cell.trailer.waker.with(|w| {
            // SAFETY: JOIN_WAKER was set and COMPLETE now is, so the JoinHandle can no
            // longer take the waker back: it is ours to read (see state.rs).
            if let Some(w) = unsafe { &*w } {
                w.wake_by_ref();
            }
        });
    }

    let count = if !cell.header.is_bound() {
        // Never parked, so never in the list: its reference rode with the run.
        2
    } else {
        // SAFETY: we hold a reference; the borrowed Task must not drop it.
        let me = ManuallyDrop::new(unsafe { Task::<S>::from_raw(ptr) });
        // SAFETY: bound, and we hold RUNNING, taken after the bind.
        match unsafe { bound_scheduler(cell, |s| s.release(&me)) } {
            Some(task) => {
                mem::forget(task);
                2
            }
            None => 1,
        }
    };
    if cell.header.state.transition_to_terminal(count) {
        // SAFETY: those were the last references.
        unsafe { dealloc::<T, S>(ptr) };
    }
}

/// Schedules the task from a waker that just set NOTIFIED.
///
/// # Safety
/// The caller owns a notified reference.
pub(crate) unsafe fn schedule<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: we hold a reference.
    let cell = unsafe { cell::<T, S>(ptr) };
    // SAFETY: the caller's reference is a notified one.
    let task = unsafe { Notified::<S>::from_raw(ptr) };
    // SAFETY: the waker found the task idle, so it is bound (an unbound task never is),
    // and the waker's CAS (Acquire) came after the poller's that let it go idle.
    unsafe { bound_scheduler(cell, |s| s.schedule(task)) };
}

/// Runs `f` with a bound task's scheduler.
///
/// # Safety
/// The task is bound, and the caller acts on it after a state transition that was ordered
/// after the bind (see `Core::scheduler`).
unsafe fn bound_scheduler<T: Future, S, R>(cell: &Cell<T, S>, f: impl FnOnce(&S) -> R) -> R {
    cell.core.scheduler.with(|s| {
        // SAFETY: written once, before the transition the caller's access follows.
        match unsafe { &*s } {
            Some(s) => f(s),
            None => unreachable!("a bound task without its scheduler"),
        }
    })
}

/// Frees the cell, dropping whatever it still holds.
///
/// # Safety
/// No reference to the task remains.
pub(crate) unsafe fn dealloc<T: Future, S>(ptr: NonNull<Header>) {
    // SAFETY: no reference remains (caller), so the cell is live and ours alone.
    observe_exclusive(unsafe { cell::<T, S>(ptr) });
    let cell = ptr.cast::<Cell<T, S>>();
    // A future or output whose drop panics must not unwind into the freeing thread (the
    // rest of the cell is still dropped while that panic unwinds).
    let _ = panic::catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: initialized by `Cell::allocate`, dropped once, here; nobody else can
        // reach it.
        unsafe { std::ptr::drop_in_place(cell.as_ptr()) }
    }));
    // SAFETY: allocated by `cell_cache::alloc::<Cell<T, S>>` (`Cell::allocate`), and
    // its contents are dropped.
    unsafe { crate::cell_cache::free(cell) };
}

/// Touches every `UnsafeCell` of the cell mutably, as the free about to happen does.
///
/// Dropping the cell and freeing its memory is invisible to loom, so without this a freeing thread that did
/// not acquire the other holders' last writes (a last reference decrement weakened to
/// Release) would pass every model. Each `with_mut` is a write access loom checks against
/// every earlier access from other threads: they must happen-before the free. Outside
/// loom these closures are empty and compile to nothing.
///
/// Called only by `dealloc`, with no reference to the task left (nobody else accesses the
/// cells); the closures touch nothing, so the call itself is safe.
fn observe_exclusive<T: Future, S>(cell: &Cell<T, S>) {
    cell.header.queue_next.with_mut(|_| ());
    cell.core.scheduler.with_mut(|_| ());
    cell.core.stage.with_mut(|_| ());
    cell.trailer.waker.with_mut(|_| ());
    cell.trailer.owned_prev.with_mut(|_| ());
    cell.trailer.owned_next.with_mut(|_| ());
}

/// JoinHandle poll: moves the output to `dst` when complete, else installs `waker`.
///
/// # Safety
/// The caller is the JoinHandle (holding a reference and join interest); `dst` points to a
/// `Poll<Result<T::Output, JoinError>>`.
pub(crate) unsafe fn try_read_output<T: Future, S>(
    ptr: NonNull<Header>,
    dst: *mut (),
    waker: &Waker,
) {
    // SAFETY: the JoinHandle's reference keeps the cell live.
    let cell = unsafe { cell::<T, S>(ptr) };
    if !can_read_output(&cell.header, waker) {
        return;
    }
    // SAFETY: COMPLETE and we have join interest: the output is ours (state.rs).
    let stage = cell
        .core
        .stage
        .with_mut(|stage| unsafe { mem::replace(&mut *stage, Stage::Consumed) });
    let Stage::Finished(output) = stage else {
        panic!("JoinHandle polled after completion");
    };
    let dst = dst.cast::<Poll<Result<T::Output, JoinError>>>();
    // SAFETY: the caller passes a valid, initialized destination of this type.
    unsafe { *dst = Poll::Ready(output) };
}

/// True when the task is complete; otherwise makes sure `waker` will be woken on completion.
fn can_read_output(header: &Header, waker: &Waker) -> bool {
    let snapshot = header.state.load();
    debug_assert!(snapshot.is_join_interested());
    if snapshot.is_complete() {
        return true;
    }
    let ptr = NonNull::from(header);
    // SAFETY: the JoinHandle's reference keeps the task live.
    let trailer = unsafe { Header::trailer(ptr) };
    let res = if snapshot.has_join_waker() {
        // SAFETY: JOIN_WAKER is set, so the completer reads but never writes the waker;
        // a shared read here races with nothing.
        let same = trailer
            .waker
            .with(|w| unsafe { (*w).as_ref() }.is_some_and(|w| w.will_wake(waker)));
        if same {
            return false;
        }
        header.state.unset_join_waker().and_then(|_| {
            forget_join_record(header);
            set_join_waker(header, waker.clone())
        })
    } else {
        set_join_waker(header, waker.clone())
    };
    match res {
        Ok(_) => false,
        Err(s) => {
            debug_assert!(s.is_complete());
            true
        }
    }
}

/// The JoinHandle replaces its join waker: the wait record it made in that waker's task
/// (`waits::inline`, JoinHandle's `tagged`) goes with it; its next `Pending` records in
/// the new waker's task.
#[cold]
fn forget_join_record(header: &Header) {
    // SAFETY: the JoinHandle's reference keeps the task live.
    let trailer = unsafe { Header::trailer(NonNull::from(header)) };
    trailer.waker.with(|w| {
        // SAFETY: JOIN_WAKER is unset, so the waker slot is the JoinHandle's alone.
        if let Some(w) = unsafe { &*w } {
            let object = header as *const Header as usize;
            crate::waits::inline::forget(w, crate::waits::WaitKind::JoinHandle, object);
        }
    });
}

fn set_join_waker(header: &Header, waker: Waker) -> Result<Snapshot, Snapshot> {
    // SAFETY: the JoinHandle's reference keeps the task live.
    let trailer = unsafe { Header::trailer(NonNull::from(header)) };
    // SAFETY: JOIN_WAKER is unset, so the waker slot is the JoinHandle's alone.
    trailer.waker.with_mut(|w| unsafe { *w = Some(waker) });
    let res = header.state.set_join_waker();
    if res.is_err() {
        // Completed meanwhile; JOIN_WAKER stayed unset, so the slot is still ours.
        // SAFETY: as above.
        trailer.waker.with_mut(|w| unsafe { *w = None });
    }
    res
}

/// JoinHandle drop when the fast path failed: give up join interest, dropping the output
/// if the task already completed, then drop the handle's reference.
///
/// # Safety
/// The caller is the JoinHandle, giving up its reference.
pub(crate) unsafe fn drop_join_handle_slow<T: Future, S>(ptr: NonNull<Header>) {
    // SAFETY: the JoinHandle's reference keeps the cell live.
    let cell = unsafe { cell::<T, S>(ptr) };
    if cell.header.state.unset_join_interested().is_err() {
        // SAFETY: COMPLETE with our join interest: the output is ours to drop; the
        // handle's reference is still held.
        unsafe { drop_output_as_current(cell) };
    }
    if cell.header.state.ref_dec() {
        // SAFETY: that was the last reference.
        unsafe { dealloc::<T, S>(ptr) };
    }
}

/// Runtime shutdown of a task taken off its owned list (or of an unbound task's queued
/// `Notified`): cancel it now if nobody runs it. True when it was cancelled here.
///
/// # Safety
/// The caller gives up the owned list's reference, and the task is no longer in the list;
/// or the caller gives up an unbound task's `Notified` (with the list's reference riding
/// along), so the task is idle and NOTIFIED.
pub(crate) unsafe fn shutdown<T: Future, S: Schedule>(ptr: NonNull<Header>) -> bool {
    // SAFETY: we hold the list's reference.
    let cell = unsafe { cell::<T, S>(ptr) };
    if cell.header.state.transition_to_shutdown() {
        // SAFETY: RUNNING is ours now; the list's reference stands in for the run's (for an
        // unbound task the `Notified` is the run's, and `complete` drops both).
        unsafe { cancel_and_complete::<T, S>(ptr) };
        return true;
    }
    // Running elsewhere (its poller will cancel it) or already complete. Not for an
    // unbound task: its `Notified` means idle and NOTIFIED, so the CAS above succeeded.
    debug_assert!(cell.header.is_bound(), "unbound task running at shutdown");
    if cell.header.state.ref_dec() {
        // SAFETY: that was the last reference.
        unsafe { dealloc::<T, S>(ptr) };
    }
    false
}

/// `wake_by_ref` on any task type.
///
/// # Safety
/// The caller holds a reference.
pub(crate) unsafe fn wake_by_ref(ptr: NonNull<Header>) {
    // SAFETY: caller holds a reference.
    let header = unsafe { ptr.as_ref() };
    match header.state.transition_to_notified_by_ref() {
        // SAFETY: the CAS took a notified reference for us.
        ToNotifiedByRef::Submit => unsafe { (header.vtable.schedule)(ptr) },
        ToNotifiedByRef::DoNothing => {}
    }
}

/// `wake` by value on any task type; consumes the caller's reference.
///
/// # Safety
/// The caller gives up one reference.
pub(crate) unsafe fn wake_by_val(ptr: NonNull<Header>) {
    // SAFETY: caller holds a reference.
    let header = unsafe { ptr.as_ref() };
    match header.state.transition_to_notified_by_val() {
        ToNotifiedByVal::Submit => {
            // SAFETY: the CAS took a notified reference for the queue and left ours, which
            // keeps the cell (and the scheduler handle `schedule` reads in it) alive until
            // the push returned: the task may run and complete on another thread at once.
            unsafe { (header.vtable.schedule)(ptr) };
            // SAFETY: ours, given up now.
            unsafe { drop_reference(ptr) };
        }
        ToNotifiedByVal::DoNothing => {}
        // SAFETY: ours was the last reference.
        ToNotifiedByVal::Dealloc => unsafe { (header.vtable.dealloc)(ptr) },
    }
}

/// `abort()` from any thread.
///
/// # Safety
/// The caller holds a reference.
pub(crate) unsafe fn remote_abort(ptr: NonNull<Header>) {
    // SAFETY: caller holds a reference.
    let header = unsafe { ptr.as_ref() };
    match header.state.transition_to_notified_and_cancel() {
        // SAFETY: the CAS took a notified reference for us.
        ToNotifiedByRef::Submit => unsafe { (header.vtable.schedule)(ptr) },
        ToNotifiedByRef::DoNothing => {}
    }
}

/// Drops one reference of any task type.
///
/// # Safety
/// The caller gives up one reference.
pub(crate) unsafe fn drop_reference(ptr: NonNull<Header>) {
    // SAFETY: caller holds a reference.
    let header = unsafe { ptr.as_ref() };
    if header.state.ref_dec() {
        // SAFETY: it was the last.
        unsafe { (header.vtable.dealloc)(ptr) };
    }
}
