//! `SetOnce<T>`: a cell written at most once, by a plain `set`, that tasks can wait on.
//!
//! The value lives in a `MaybeUninit` cell; `value_set` (Release on write, Acquire on
//! read) says it is there. Setters are serialised by a spin lock held only for the write:
//! under it a setter checks `value_set`, writes the cell and sets the flag, so exactly
//! one `set` succeeds, and a `set` that fails returns only after the value is readable.
//! After the write the setter calls `Notify::notify_waiters`, which wakes every waiter
//! registered by then. `wait` registers (enables its `Notified`) *before* it looks at
//! `value_set` again, so a set that lands between its first look and its registration is
//! seen by the second look, and one that lands after the registration wakes it: no wake-up
//! is lost.
//!
//! Invariant: the cell is written only under the lock while `value_set` is false, read
//! only after `value_set` was seen true, and never written again while shared.

use std::fmt;
use std::mem::MaybeUninit;
use std::pin::pin;

use shim::cell::UnsafeCell;
use shim::sync::atomic::{
    AtomicBool,
    Ordering::{Acquire, Relaxed, Release},
};
use shim::sync::SpinMutex;

use super::Notify;

/// A thread-safe cell that can be set once, and awaited until it is.
///
/// Unlike [`OnceCell`](super::OnceCell) it has no async initializer: one party
/// [`set`](SetOnce::set)s the value, any number [`wait`](SetOnce::wait) for it.
///
/// ```
/// use std::sync::Arc;
/// use runtime::sync::SetOnce;
///
/// # runtime::Runtime::new().unwrap().block_on(async {
/// let cell = Arc::new(SetOnce::new());
/// let waiter = runtime::spawn({
///     let cell = cell.clone();
///     async move { *cell.wait().await * 2 }
/// });
/// cell.set(21).unwrap();
/// assert_eq!(waiter.await.unwrap(), 42);
/// # });
/// ```
pub struct SetOnce<T> {
    value_set: AtomicBool,
    value: UnsafeCell<MaybeUninit<T>>,
    setter: SpinMutex<()>,
    notify: Notify,
}

// SAFETY: the value is shared by reference between threads once set (T: Sync) and moves
// in from the setter's thread (T: Send); the cell is accessed as the module doc says.
unsafe impl<T: Send + Sync> Sync for SetOnce<T> {}
// SAFETY: sending the cell sends the value it may hold.
unsafe impl<T: Send> Send for SetOnce<T> {}

/// [`SetOnce::set`] found the cell already set; the value offered is given back.
#[derive(Debug, PartialEq, Eq)]
pub struct SetOnceError<T>(pub T);

impl<T> fmt::Display for SetOnceError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SetOnceError")
    }
}

impl<T: fmt::Debug> std::error::Error for SetOnceError<T> {}

impl<T> SetOnce<T> {
    /// An empty cell.
    ///
    /// ```
    /// let c = runtime::sync::SetOnce::<u8>::new();
    /// assert!(c.get().is_none());
    /// ```
    pub fn new() -> SetOnce<T> {
        SetOnce {
            value_set: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            setter: SpinMutex::new(()),
            notify: Notify::new(),
        }
    }

    /// A cell holding `value` if it is `Some`.
    ///
    /// ```
    /// let c = runtime::sync::SetOnce::new_with(Some(1));
    /// assert_eq!(c.get(), Some(&1));
    /// ```
    pub fn new_with(value: Option<T>) -> SetOnce<T> {
        match value {
            None => SetOnce::new(),
            Some(v) => SetOnce {
                value_set: AtomicBool::new(true),
                value: UnsafeCell::new(MaybeUninit::new(v)),
                setter: SpinMutex::new(()),
                notify: Notify::new(),
            },
        }
    }

    /// An empty cell usable in a `static`.
    ///
    /// ```
    /// static C: runtime::sync::SetOnce<u8> = runtime::sync::SetOnce::const_new();
    /// assert!(!C.initialized());
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new() -> SetOnce<T> {
        SetOnce {
            value_set: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            setter: SpinMutex::new(()),
            notify: Notify::const_new(),
        }
    }

    /// A cell holding `value`, usable in a `static`.
    ///
    /// ```
    /// static C: runtime::sync::SetOnce<u8> = runtime::sync::SetOnce::const_new_with(3);
    /// assert_eq!(C.get(), Some(&3));
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new_with(value: T) -> SetOnce<T> {
        SetOnce {
            value_set: AtomicBool::new(true),
            value: UnsafeCell::new(MaybeUninit::new(value)),
            setter: SpinMutex::new(()),
            notify: Notify::const_new(),
        }
    }

    /// True once the cell holds a value.
    ///
    /// ```
    /// let c = runtime::sync::SetOnce::new();
    /// c.set(1).unwrap();
    /// assert!(c.initialized());
    /// ```
    pub fn initialized(&self) -> bool {
        // Acquire: the value written before `value_set` is visible to us.
        self.value_set.load(Acquire)
    }

    /// The value, if set.
    ///
    /// ```
    /// let c = runtime::sync::SetOnce::new();
    /// assert_eq!(c.get(), None);
    /// c.set(2).unwrap();
    /// assert_eq!(c.get(), Some(&2));
    /// ```
    pub fn get(&self) -> Option<&T> {
        if self.initialized() {
            // SAFETY: `value_set` was seen true (Acquire): the value is written, visible,
            // and never written again while shared (module doc).
            Some(self.value.with(|p| unsafe { (*p).assume_init_ref() }))
        } else {
            None
        }
    }

    /// Sets the value if the cell is empty, waking every task in [`wait`](SetOnce::wait);
    /// otherwise gives `value` back. When it fails, the value already set is readable.
    ///
    /// ```
    /// use runtime::sync::{SetOnce, SetOnceError};
    /// let c = SetOnce::new();
    /// assert!(c.set(1).is_ok());
    /// assert_eq!(c.set(2), Err(SetOnceError(2)));
    /// assert_eq!(c.get(), Some(&1));
    /// ```
    pub fn set(&self, value: T) -> Result<(), SetOnceError<T>> {
        if self.initialized() {
            return Err(SetOnceError(value));
        }
        let guard = self.setter.lock();
        // Relaxed: every write of `value_set` happens under this lock, whose acquisition
        // orders us after it.
        if self.value_set.load(Relaxed) {
            return Err(SetOnceError(value));
        }
        // SAFETY: we hold the setter lock and `value_set` is false: nobody reads or writes
        // the cell.
        self.value.with_mut(|p| unsafe { (*p).write(value) });
        // Release: the value before the flag.
        self.value_set.store(true, Release);
        drop(guard);
        self.notify.notify_waiters();
        Ok(())
    }

    /// Waits until the cell holds a value, and returns it (at once if it is set).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: dropping the future loses nothing.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let c = runtime::sync::SetOnce::new_with(Some("ready"));
    /// assert_eq!(*c.wait().await, "ready");
    /// # });
    /// ```
    pub async fn wait(&self) -> &T {
        loop {
            if let Some(v) = self.get() {
                return v;
            }
            let mut notified = pin!(self.notify.notified());
            // Registered before the second look: a `set` after it wakes us.
            notified.as_mut().enable();
            if let Some(v) = self.get() {
                return v;
            }
            notified.await;
        }
    }

    /// Consumes the cell, returning its value if it was set.
    ///
    /// ```
    /// let c = runtime::sync::SetOnce::new();
    /// c.set(5).unwrap();
    /// assert_eq!(c.into_inner(), Some(5));
    /// ```
    pub fn into_inner(mut self) -> Option<T> {
        self.take()
    }

    /// Moves the value out through `&mut self`, leaving the cell empty.
    fn take(&mut self) -> Option<T> {
        if self.value_set.load(Acquire) {
            self.value_set.store(false, Relaxed);
            // SAFETY: it was set, `&mut self` is unique, and the flag now says empty, so
            // the value is read out exactly once.
            Some(self.value.with_mut(|p| unsafe { (*p).assume_init_read() }))
        } else {
            None
        }
    }
}

impl<T> Drop for SetOnce<T> {
    fn drop(&mut self) {
        drop(self.take());
    }
}

impl<T> Default for SetOnce<T> {
    fn default() -> Self {
        SetOnce::new()
    }
}

impl<T> From<T> for SetOnce<T> {
    fn from(value: T) -> Self {
        SetOnce::new_with(Some(value))
    }
}

impl<T: Clone> Clone for SetOnce<T> {
    fn clone(&self) -> Self {
        SetOnce::new_with(self.get().cloned())
    }
}

impl<T: PartialEq> PartialEq for SetOnce<T> {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq> Eq for SetOnce<T> {}

impl<T: fmt::Debug> fmt::Debug for SetOnce<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SetOnce")
            .field("value", &self.get())
            .finish()
    }
}
