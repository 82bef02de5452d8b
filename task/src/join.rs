//! `JoinHandle`, `AbortHandle` and `JoinError`.
//!
//! A `JoinHandle` owns one task reference and the JOIN_INTEREST bit. Polling it reads the
//! output once the task is COMPLETE, otherwise it parks its waker in the task trailer under
//! the JOIN_WAKER protocol (state.rs). Dropping it detaches the task: the output, when it
//! comes, is dropped by the task itself. `abort()` cancels from any thread.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::num::NonZeroUsize;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll};

use crate::core::Header;
use crate::harness;
use crate::id::Id;
use crate::meta::TaskMeta;

/// An owned permission to await a spawned task's output.
///
/// Awaiting it yields `Ok(output)`, or a [`JoinError`] when the task panicked or was
/// cancelled (aborted, or its runtime shut down). Dropping it detaches the task.
///
/// Like tokio's, it is not `#[must_use]`: a detached `spawn(...)` is the common case
/// (tokio #2762), and a `#![deny(warnings)]` crate ported from tokio must still build.
pub struct JoinHandle<T> {
    /// The task's header, its two lowest bits (free: a header is 8-aligned) saying where
    /// this handle's wait is recorded for task dumps, from a poll that returned `Pending`
    /// until the output is taken or the handle dropped: `RECORDED`, in the waiting task's
    /// own slots (`waits::inline`; that task is the one of the join waker in the awaited
    /// task's trailer, which keeps it alive), or `MAPPED`, in the registry's map (the
    /// waiting task's slots were full). One word, as a bare pointer: a handle moves as
    /// cheaply as tokio's.
    tagged: NonNull<Header>,
    _p: PhantomData<T>,
}

/// `JoinHandle::tagged`'s bit: the wait is in the waiting task's own slots.
const RECORDED: usize = 0b01;
/// `JoinHandle::tagged`'s bit: the wait is in the registry's map.
const MAPPED: usize = 0b10;
const TAGS: usize = RECORDED | MAPPED;

// SAFETY: the handle only moves `T` (the output) across threads; `T: Send` is required.
unsafe impl<T: Send> Send for JoinHandle<T> {}
// SAFETY: `&JoinHandle` allows only `abort`/`is_finished`, which are thread-safe.
unsafe impl<T: Send> Sync for JoinHandle<T> {}

impl<T> Unpin for JoinHandle<T> {}

// A panic while a handle is borrowed leaves nothing half-updated that the handle exposes:
// its operations are atomic state changes (as tokio's impls say).
impl<T> std::panic::UnwindSafe for JoinHandle<T> {}
impl<T> std::panic::RefUnwindSafe for JoinHandle<T> {}

impl<T> JoinHandle<T> {
    /// # Safety
    /// `raw` is a task whose output type is `T`, and the caller hands over the join reference.
    pub(crate) unsafe fn from_raw(raw: NonNull<Header>) -> Self {
        JoinHandle {
            tagged: raw,
            _p: PhantomData,
        }
    }

    /// The task's header.
    #[inline(always)]
    fn raw(&self) -> NonNull<Header> {
        self.tagged.map_addr(|a| {
            // A header's address with its low bits cleared is the same nonzero address.
            NonZeroUsize::new(a.get() & !TAGS).expect("a task's header is never null")
        })
    }

    /// Where this handle's wait is recorded: `RECORDED`, `MAPPED` or neither (`tagged`).
    #[inline(always)]
    fn tags(&self) -> usize {
        self.tagged.addr().get() & TAGS
    }

    fn set_tags(&mut self, tags: usize) {
        self.tagged = self.raw().map_addr(|a| a | tags);
    }

    fn header(&self) -> &Header {
        // SAFETY: the handle's reference keeps the task live.
        unsafe { self.raw().as_ref() }
    }

    /// Cancels the task.
    ///
    /// ```ignore
    /// use std::time::Duration;
    ///
    /// let rt = runtime::Builder::new_multi_thread().enable_time().build().unwrap();
    /// rt.block_on(async {
    ///     let ticker = runtime::spawn(async {
    ///         loop {
    ///             runtime::time::sleep(Duration::from_millis(1)).await;
    ///         }
    ///     });
    ///     ticker.abort();
    ///     let err = ticker.await.unwrap_err();
    ///     assert!(err.is_cancelled());
    /// });
    /// ```
    ///
    /// (Tested as the `runtime::task` module's cancellation example: this crate cannot
    /// depend on the runtime that runs its tasks.)
    ///
    /// A task can only stop at an `.await`: cancelling drops its future there, which runs
    /// the destructors of everything it held (a lock guard, a socket), so cleanup happens
    /// as for any dropped value. If the task is idle it is scheduled once more, to drop its
    /// future on a runtime thread; if it is being polled right now, it is dropped when
    /// that poll returns. `abort` does not wait for either: awaiting the handle afterwards
    /// yields a `JoinError` for which `is_cancelled()` is true, unless the task completed
    /// first (then its output, as if `abort` had not been called). Aborting a completed
    /// task, or aborting twice, does nothing. A `spawn_blocking` closure that already runs
    /// cannot be stopped.
    pub fn abort(&self) {
        // SAFETY: we hold a reference.
        unsafe { harness::remote_abort(self.raw()) }
    }

    /// True once the task has completed (with output, panic or cancellation).
    pub fn is_finished(&self) -> bool {
        self.header().state.load().is_complete()
    }

    /// The task's id (see [`Id`]).
    pub fn id(&self) -> Id {
        // SAFETY: the handle's reference keeps the task live.
        unsafe { Header::trailer(self.raw()) }.meta.id()
    }

    /// The task's identity: id, name and spawn location (see [`TaskMeta`]).
    pub fn meta(&self) -> TaskMeta {
        // SAFETY: the handle's reference keeps the task live.
        unsafe { Header::trailer(self.raw()) }.meta.meta()
    }

    /// A handle that can abort the task but not await it.
    #[must_use = "abort handles do nothing unless `.abort` is called"]
    pub fn abort_handle(&self) -> AbortHandle {
        self.header().state.ref_inc();
        AbortHandle { raw: self.raw() }
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let me = self.get_mut();
        let mut out: Poll<Result<T, JoinError>> = Poll::Pending;
        // SAFETY: we hold the join reference and `out` has the task's output type.
        unsafe {
            (me.header().vtable.try_read_output)(
                me.raw(),
                &mut out as *mut Poll<Result<T, JoinError>> as *mut (),
                cx.waker(),
            )
        };
        match out {
            // The slow path: the waker now sits in the task's trailer; tell dumps who
            // waits (a waker it replaced took its task's record along: harness.rs).
            Poll::Pending => me.record_wait(cx.waker()),
            Poll::Ready(_) if me.tags() != 0 => me.forget_wait(),
            _ => {}
        }
        out
    }
}

impl<T> JoinHandle<T> {
    fn wait_key(&self) -> (usize, usize) {
        (self.raw().as_ptr() as usize, crate::waits::JOIN_KEY)
    }

    /// Calls `f` with the join waker in the awaited task's trailer, if one is there.
    fn with_join_waker(&self, f: impl FnOnce(&std::task::Waker)) {
        // SAFETY: the handle's reference keeps the task live.
        let trailer = unsafe { Header::trailer(self.raw()) };
        trailer.waker.with(|w| {
            // SAFETY: only this handle writes the slot (while JOIN_WAKER is clear, in its
            // own poll); the completer only reads it, and nothing else touches it while
            // the handle's reference stands (state.rs), so a shared read races with no
            // write.
            if let Some(w) = unsafe { &*w } {
                f(w)
            }
        });
    }

    /// Records the wait of a poll that returned `Pending` with `waker` (now the join
    /// waker), unless it stands already.
    #[cold]
    fn record_wait(&mut self, waker: &std::task::Waker) {
        let object = self.raw().as_ptr() as usize;
        let kind = crate::waits::WaitKind::JoinHandle;
        if self.tags() == RECORDED && crate::waits::inline::is_recorded(waker, kind, object) {
            return;
        }
        // Only a task's wait is recorded. A waiter that is no task (`block_on`, another
        // executor) records nothing, and the awaited task's id, assigned at its first
        // read, is then not read at all.
        let tags = if crate::inspect::waker_task(waker).is_none() {
            0
        } else {
            // SAFETY: the handle's reference keeps the task live.
            let target = unsafe { Header::trailer(self.raw()) }.meta.id();
            match crate::waits::inline::record(waker, kind, object, target.as_u64()) {
                crate::waits::inline::Recorded::Inline => RECORDED,
                crate::waits::inline::Recorded::NotATask => 0,
                crate::waits::inline::Recorded::Full => {
                    let wait = crate::waits::Wait {
                        kind,
                        object,
                        target: Some(target),
                        at: None,
                    };
                    // SAFETY: no holder word, no test.
                    unsafe { crate::waits::record(self.wait_key(), waker, wait, None, None) };
                    MAPPED
                }
            }
        };
        if self.tags() == MAPPED && tags != MAPPED {
            // The old map record is stale (the waiter is no task now, or its new record
            // is inline).
            crate::waits::forget(self.wait_key());
        }
        self.set_tags(tags);
    }

    /// Forgets this handle's record, wherever it is (`tagged`).
    #[cold]
    fn forget_wait(&mut self) {
        match self.tags() {
            RECORDED => {
                let object = self.raw().as_ptr() as usize;
                self.with_join_waker(|w| {
                    crate::waits::inline::forget(w, crate::waits::WaitKind::JoinHandle, object)
                });
            }
            MAPPED => crate::waits::forget(self.wait_key()),
            _ => {}
        }
        self.set_tags(0);
    }
}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        if self.tags() != 0 {
            self.forget_wait();
        }
        if self.header().state.drop_join_handle_fast() {
            return;
        }
        // SAFETY: we give up the join reference.
        unsafe { (self.header().vtable.drop_join_handle_slow)(self.raw()) }
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("finished", &self.is_finished())
            .finish()
    }
}

/// Aborts a task without awaiting it; cheap to clone.
pub struct AbortHandle {
    raw: NonNull<Header>,
}

// SAFETY: only thread-safe operations (abort, state reads, refcount) go through it.
unsafe impl Send for AbortHandle {}
// SAFETY: as above.
unsafe impl Sync for AbortHandle {}

// As for `JoinHandle`.
impl std::panic::UnwindSafe for AbortHandle {}
impl std::panic::RefUnwindSafe for AbortHandle {}

impl AbortHandle {
    /// Cancels the task; see [`JoinHandle::abort`].
    pub fn abort(&self) {
        // SAFETY: we hold a reference.
        unsafe { harness::remote_abort(self.raw) }
    }

    /// True once the task has completed.
    pub fn is_finished(&self) -> bool {
        // SAFETY: we hold a reference.
        unsafe { self.raw.as_ref() }.state.load().is_complete()
    }

    /// The task's id (see [`Id`]).
    pub fn id(&self) -> Id {
        // SAFETY: we hold a reference.
        unsafe { Header::trailer(self.raw) }.meta.id()
    }

    /// The task's identity: id, name and spawn location (see [`TaskMeta`]).
    pub fn meta(&self) -> TaskMeta {
        // SAFETY: we hold a reference.
        unsafe { Header::trailer(self.raw) }.meta.meta()
    }
}

impl Clone for AbortHandle {
    fn clone(&self) -> Self {
        // SAFETY: we hold a reference.
        unsafe { self.raw.as_ref() }.state.ref_inc();
        AbortHandle { raw: self.raw }
    }
}

impl Drop for AbortHandle {
    fn drop(&mut self) {
        // SAFETY: we give up our reference.
        unsafe { harness::drop_reference(self.raw) }
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle")
            .field("finished", &self.is_finished())
            .finish()
    }
}

/// Why a task produced no output.
pub struct JoinError {
    repr: Repr,
    meta: TaskMeta,
}

enum Repr {
    Cancelled,
    Panic(Box<dyn Any + Send + 'static>),
}

// SAFETY: the panic payload is only reachable through `&mut self`/`self`
// (`into_panic`, `try_into_panic`), never through `&self`, so sharing `&JoinError`
// across threads exposes no `!Sync` data.
unsafe impl Sync for JoinError {}

impl JoinError {
    pub(crate) fn cancelled(meta: TaskMeta) -> JoinError {
        JoinError {
            repr: Repr::Cancelled,
            meta,
        }
    }

    pub(crate) fn panic(meta: TaskMeta, payload: Box<dyn Any + Send + 'static>) -> JoinError {
        JoinError {
            repr: Repr::Panic(payload),
            meta,
        }
    }

    /// The id of the task that produced no output.
    pub fn id(&self) -> Id {
        self.meta.id()
    }

    /// The identity of the task that produced no output: id, name and spawn location.
    pub fn meta(&self) -> &TaskMeta {
        &self.meta
    }

    /// True when the task was cancelled (aborted or shut down with its runtime).
    pub fn is_cancelled(&self) -> bool {
        matches!(self.repr, Repr::Cancelled)
    }

    /// True when the task panicked.
    pub fn is_panic(&self) -> bool {
        matches!(self.repr, Repr::Panic(_))
    }

    /// The panic payload; panics if the task was cancelled instead.
    /// Resume it with `std::panic::resume_unwind`.
    #[track_caller]
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        self.try_into_panic().expect(
            "`JoinError` reason is not a panic. (`JoinError::into_panic` on a cancelled task; \
                 check `is_panic()` first)",
        )
    }

    /// The panic payload, or the error back when the task was cancelled.
    pub fn try_into_panic(self) -> Result<Box<dyn Any + Send + 'static>, JoinError> {
        match self.repr {
            Repr::Panic(p) => Ok(p),
            Repr::Cancelled => Err(self),
        }
    }

    fn panic_message(&self) -> Option<&str> {
        match &self.repr {
            Repr::Panic(p) => p
                .downcast_ref::<&'static str>()
                .copied()
                .or_else(|| p.downcast_ref::<String>().map(String::as_str)),
            Repr::Cancelled => None,
        }
    }
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.repr, self.panic_message()) {
            (Repr::Cancelled, _) => write!(f, "{} was cancelled", self.meta),
            (Repr::Panic(_), Some(msg)) => {
                write!(f, "{} panicked with message {msg:?}", self.meta)
            }
            (Repr::Panic(_), None) => write!(f, "{} panicked", self.meta),
        }
    }
}

impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.meta.name().is_some() {
            // A named task: say which (tokio's form below has only the id).
            return match (&self.repr, self.panic_message()) {
                (Repr::Cancelled, _) => write!(f, "JoinError::Cancelled({})", self.meta),
                (Repr::Panic(_), Some(msg)) => {
                    write!(f, "JoinError::Panic({}, {msg:?}, ...)", self.meta)
                }
                (Repr::Panic(_), None) => write!(f, "JoinError::Panic({}, ...)", self.meta),
            };
        }
        match (&self.repr, self.panic_message()) {
            (Repr::Cancelled, _) => write!(f, "JoinError::Cancelled({:?})", self.id()),
            (Repr::Panic(_), Some(msg)) => {
                write!(f, "JoinError::Panic({:?}, {msg:?}, ...)", self.id())
            }
            (Repr::Panic(_), None) => write!(f, "JoinError::Panic({:?}, ...)", self.id()),
        }
    }
}

impl std::error::Error for JoinError {}

impl From<JoinError> for std::io::Error {
    fn from(e: JoinError) -> std::io::Error {
        std::io::Error::other(e.to_string())
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_join_handle_is_one_word() {
        let word = std::mem::size_of::<usize>();
        assert_eq!(std::mem::size_of::<JoinHandle<[u64; 4]>>(), word);
        // The tag keeps the pointer nonzero: `Option` still costs nothing.
        assert_eq!(std::mem::size_of::<Option<JoinHandle<()>>>(), word);
        // The tag bits are free: a header is at least 4-aligned.
        assert!(std::mem::align_of::<Header>() > TAGS);
    }
}
