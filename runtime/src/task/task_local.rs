//! Task-local storage: `task_local!` declares a key; `LocalKey::scope` runs a future with
//! a value bound to that key, `sync_scope` a closure.
//!
//! A key is a thread-local slot (`RefCell<Option<T>>`). The scoped future
//! (`TaskLocalFuture`) owns its value between polls; each poll swaps the value into the
//! slot, polls the inner future and swaps it back out, even when the poll unwinds. So the
//! value is visible exactly while the scoped future (or its destructor) runs, on whatever
//! thread polls it, and never leaks to other tasks on that thread. Scopes nest: an inner
//! scope saves the outer value in its own swap and restores it afterwards. A scope whose
//! value was taken (`take_value`) swaps in `None`: its future runs with the key unset.
//!
//! Invariant: outside a swap the slot holds what it held before the swap; a swap fails
//! (with a panic naming the cause) only when the slot is borrowed by a `with` of the same
//! key that encloses the scope, or the thread is exiting.

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Declares task-local keys: `static NAME: Type;` items, each becoming a
/// [`LocalKey`](crate::task::LocalKey).
///
/// ```
/// runtime::task_local! {
///     pub static REQUEST_ID: u32;
///     static USER: String;
/// }
///
/// # let rt = runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// REQUEST_ID
///     .scope(7, async {
///         runtime::task::yield_now().await;
///         assert_eq!(REQUEST_ID.get(), 7);
///     })
///     .await;
/// assert!(REQUEST_ID.try_with(|_| ()).is_err());
/// # });
/// ```
#[macro_export]
macro_rules! task_local {
    () => {};
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty; $($rest:tt)*) => {
        $crate::__task_local_inner!($(#[$attr])* $vis $name, $t);
        $crate::task_local!($($rest)*);
    };
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty) => {
        $crate::__task_local_inner!($(#[$attr])* $vis $name, $t);
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __task_local_inner {
    ($(#[$attr:meta])* $vis:vis $name:ident, $t:ty) => {
        $(#[$attr])*
        $vis static $name: $crate::task::LocalKey<$t> = {
            ::std::thread_local! {
                static __KEY: ::std::cell::RefCell<::std::option::Option<$t>> =
                    const { ::std::cell::RefCell::new(::std::option::Option::None) };
            }
            $crate::task::LocalKey { inner: __KEY }
        };
    };
}

/// A key for task-local data, declared with [`task_local!`](crate::task_local).
///
/// ```
/// runtime::task_local! {
///     static DEPTH: usize;
/// }
///
/// let v = DEPTH.sync_scope(1, || DEPTH.sync_scope(2, || DEPTH.get()) + DEPTH.get());
/// assert_eq!(v, 3);
/// ```
pub struct LocalKey<T: 'static> {
    // Not API: `task_local!` expands, in the user's crate, to a struct literal naming it.
    #[doc(hidden)]
    pub inner: std::thread::LocalKey<RefCell<Option<T>>>,
}

/// The value of a task-local key was read outside any scope of that key.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct AccessError {
    _p: (),
}

impl fmt::Debug for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccessError").finish()
    }
}

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("task-local value not set")
    }
}

impl std::error::Error for AccessError {}

impl<T: 'static> LocalKey<T> {
    /// Runs `future` with the key set to `value` while it is polled (and dropped).
    ///
    /// ```
    /// runtime::task_local! {
    ///     static NUMBER: u32;
    /// }
    /// # let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// NUMBER.scope(1, async { assert_eq!(NUMBER.get(), 1) }).await;
    /// # });
    /// ```
    pub fn scope<F: Future>(&'static self, value: T, future: F) -> TaskLocalFuture<T, F> {
        TaskLocalFuture {
            local: self,
            slot: Some(value),
            future: Some(future),
            _pinned: PhantomPinned,
        }
    }

    /// Runs `f` with the key set to `value`.
    ///
    /// ```
    /// runtime::task_local! {
    ///     static NUMBER: u32;
    /// }
    /// assert_eq!(NUMBER.sync_scope(5, || NUMBER.get() * 2), 10);
    /// ```
    ///
    /// # Panics
    /// Inside a [`with`](LocalKey::with) of the same key.
    #[track_caller]
    pub fn sync_scope<F: FnOnce() -> R, R>(&'static self, value: T, f: F) -> R {
        let mut slot = Some(value);
        self.scope_inner(&mut slot, f)
    }

    /// Swaps `slot` into the key for the duration of `f`, and back out afterwards.
    #[track_caller]
    fn scope_inner<F: FnOnce() -> R, R>(&'static self, slot: &mut Option<T>, f: F) -> R {
        struct Guard<'a, T: 'static> {
            local: &'static LocalKey<T>,
            slot: &'a mut Option<T>,
        }
        impl<T: 'static> Drop for Guard<'_, T> {
            fn drop(&mut self) {
                // The swap in succeeded, so nothing borrows the cell now: a `with` inside
                // the scope has returned (or unwound) before we get here.
                self.local
                    .inner
                    .with(|c| std::mem::swap(self.slot, &mut *c.borrow_mut()));
            }
        }
        let swapped = self.inner.try_with(|c| match c.try_borrow_mut() {
            Ok(mut v) => {
                std::mem::swap(slot, &mut *v);
                true
            }
            Err(_) => false,
        });
        match swapped {
            Ok(true) => {}
            Ok(false) => panic!("{}", crate::misuse::TASK_LOCAL_BORROWED),
            Err(_) => panic!("{}", crate::misuse::TASK_LOCAL_DESTROYED),
        }
        let _guard = Guard { local: self, slot };
        f()
    }

    /// Runs `f` with a reference to the key's value.
    ///
    /// ```
    /// runtime::task_local! {
    ///     static NAME: String;
    /// }
    /// NAME.sync_scope("ada".to_string(), || {
    ///     assert_eq!(NAME.with(|n| n.len()), 3);
    /// });
    /// ```
    ///
    /// # Panics
    /// Outside a scope of this key; use [`try_with`](LocalKey::try_with) to test instead.
    #[track_caller]
    pub fn with<F: FnOnce(&T) -> R, R>(&'static self, f: F) -> R {
        match self.try_with(f) {
            Ok(r) => r,
            Err(_) => panic!("{}", crate::misuse::TASK_LOCAL_NOT_SET),
        }
    }

    /// Runs `f` with a reference to the key's value, or returns an error outside any scope
    /// of this key.
    ///
    /// ```
    /// runtime::task_local! {
    ///     static NAME: String;
    /// }
    /// assert!(NAME.try_with(|n| n.clone()).is_err());
    /// ```
    pub fn try_with<F: FnOnce(&T) -> R, R>(&'static self, f: F) -> Result<R, AccessError> {
        let mut f = Some(f);
        let res = self.inner.try_with(|c| {
            let v = c.borrow();
            v.as_ref().map(|v| (f.take().expect("called once"))(v))
        });
        match res {
            Ok(Some(r)) => Ok(r),
            _ => Err(AccessError { _p: () }),
        }
    }
}

impl<T: Clone + 'static> LocalKey<T> {
    /// A clone of the key's value.
    ///
    /// ```
    /// runtime::task_local! {
    ///     static N: u8;
    /// }
    /// assert_eq!(N.sync_scope(3, || N.get()), 3);
    /// ```
    ///
    /// # Panics
    /// Outside a scope of this key.
    #[track_caller]
    pub fn get(&'static self) -> T {
        self.with(T::clone)
    }

    /// A clone of the key's value, or an [`AccessError`] outside any scope of this key.
    ///
    /// ```
    /// runtime::task_local! {
    ///     static N: u8;
    /// }
    /// assert!(N.try_get().is_err());
    /// assert_eq!(N.sync_scope(4, || N.try_get()), Ok(4));
    /// ```
    pub fn try_get(&'static self) -> Result<T, AccessError> {
        self.try_with(T::clone)
    }
}

impl<T: 'static> fmt::Debug for LocalKey<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("LocalKey { .. }")
    }
}

/// A future with a task-local value set while it runs; made by [`LocalKey::scope`].
///
/// ```
/// runtime::task_local! {
///     static N: u8;
/// }
/// # let rt = runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let fut: runtime::task::futures::TaskLocalFuture<u8, _> = N.scope(1, async { N.get() });
/// assert_eq!(fut.await, 1);
/// # });
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct TaskLocalFuture<T: 'static, F> {
    local: &'static LocalKey<T>,
    slot: Option<T>,
    // `None` once the future completed (it is dropped at once, inside the scope).
    future: Option<F>,
    // `!Unpin` whatever `F`, as tokio's: the future is structurally pinned, and a caller
    // must not come to rely on an `Unpin` that a tokio build would not give it.
    _pinned: PhantomPinned,
}

impl<T: 'static, F> TaskLocalFuture<T, F> {
    /// Takes the value out of the scope, leaving the future without it: a later poll runs
    /// the future with the key unset (as tokio's), so inside it `try_with`/`try_get` fail.
    /// `None` when it was taken already.
    pub fn take_value(self: Pin<&mut Self>) -> Option<T> {
        // SAFETY: `slot` is not structurally pinned; we never move `future`.
        unsafe { self.get_unchecked_mut() }.slot.take()
    }
}

impl<T: 'static, F: Future> Future for TaskLocalFuture<T, F> {
    type Output = F::Output;

    #[track_caller]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `future` is structurally pinned: it is only polled through a `Pin` made
        // here and dropped in place (never moved); `slot` and `local` are not pinned.
        let this = unsafe { self.get_unchecked_mut() };
        let local = this.local;
        let future = &mut this.future;
        let out = local.scope_inner(&mut this.slot, || {
            let Some(fut) = future.as_mut() else {
                panic!("`TaskLocalFuture` polled after completion");
            };
            // SAFETY: see above; the future lives in the pinned `self`.
            let res = unsafe { Pin::new_unchecked(fut) }.poll(cx);
            if res.is_ready() {
                // Drop it in place, inside the scope, as its destructor may read the key.
                *future = None;
            }
            res
        });
        out
    }
}

impl<T: 'static, F> Drop for TaskLocalFuture<T, F> {
    fn drop(&mut self) {
        if self.future.is_none() {
            return;
        }
        let future = &mut self.future;
        // Drop the future inside its scope (its destructor may read the key); when the
        // scope cannot be entered (borrowed, or thread exiting) drop it outside.
        let local = self.local;
        let entered = local
            .inner
            .try_with(|c| c.try_borrow_mut().is_ok())
            .unwrap_or(false);
        if entered {
            local.scope_inner(&mut self.slot, || *future = None);
        }
    }
}

impl<T: fmt::Debug + 'static, F> fmt::Debug for TaskLocalFuture<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskLocalFuture")
            .field("value", &self.slot)
            .finish()
    }
}
