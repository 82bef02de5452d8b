//! `OnceCell<T>`: a cell written once, possibly by an async initializer.
//!
//! The value lives in a `MaybeUninit` cell; `value_set` (Release on write, Acquire on read)
//! says it is there. Initializers are serialised by a one-permit [`Semaphore`]: whoever
//! holds the permit may write. After writing, the writer sets `value_set`, *closes* the
//! semaphore and forgets its permit, so every queued initializer wakes with an error that
//! means "already set" and returns the value. An initializer that fails or is cancelled
//! drops its permit, and the next queued one runs (as in tokio).
//!
//! Invariant: the cell is written only by the permit's holder while `value_set` is false,
//! and read only after `value_set` was seen true; it is never written again (except through
//! `&mut self`).

use std::fmt;
use std::future::Future;
use std::mem::MaybeUninit;

use shim::cell::UnsafeCell;
use shim::sync::atomic::{
    AtomicBool,
    Ordering::{Acquire, Relaxed, Release},
};

use super::{Semaphore, SemaphorePermit, TryAcquireError};

/// A thread-safe cell that is written at most once, with async initialization.
///
/// ```
/// use runtime::sync::OnceCell;
///
/// static CONFIG: OnceCell<String> = OnceCell::const_new();
///
/// # runtime::Runtime::new().unwrap().block_on(async {
/// let v = CONFIG.get_or_init(|| async { String::from("loaded") }).await;
/// assert_eq!(v, "loaded");
/// // Later callers get the same value; the initializer does not run again.
/// let v = CONFIG.get_or_init(|| async { unreachable!() }).await;
/// assert_eq!(v, "loaded");
/// # });
/// ```
pub struct OnceCell<T> {
    value_set: AtomicBool,
    value: UnsafeCell<MaybeUninit<T>>,
    semaphore: Semaphore,
}

/// Why [`OnceCell::set`] refused a value (which it gives back).
#[derive(Debug, PartialEq, Eq)]
pub enum SetError<T> {
    /// The cell already holds a value.
    AlreadyInitializedError(T),
    /// Another task is initializing the cell right now.
    InitializingError(T),
}

impl<T> fmt::Display for SetError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetError::AlreadyInitializedError(_) => f.write_str("AlreadyInitializedError"),
            SetError::InitializingError(_) => f.write_str("InitializingError"),
        }
    }
}

impl<T: fmt::Debug> std::error::Error for SetError<T> {}

impl<T> SetError<T> {
    /// True for [`SetError::AlreadyInitializedError`].
    pub fn is_already_init_err(&self) -> bool {
        matches!(self, SetError::AlreadyInitializedError(_))
    }

    /// True for [`SetError::InitializingError`].
    pub fn is_initializing_err(&self) -> bool {
        matches!(self, SetError::InitializingError(_))
    }
}

// SAFETY: the value is written by one thread and then shared by reference (`Sync` needs
// `T: Sync`), and moves with the cell (`Send` needs `T: Send`).
unsafe impl<T: Send + Sync> Sync for OnceCell<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for OnceCell<T> {}

impl<T> OnceCell<T> {
    /// An empty cell.
    ///
    /// ```
    /// let c = runtime::sync::OnceCell::<u8>::new();
    /// assert!(c.get().is_none());
    /// ```
    pub fn new() -> OnceCell<T> {
        OnceCell {
            value_set: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            semaphore: Semaphore::new(1),
        }
    }

    /// A cell holding `value` if it is `Some`.
    ///
    /// ```
    /// let c = runtime::sync::OnceCell::new_with(Some(1));
    /// assert_eq!(c.get(), Some(&1));
    /// ```
    pub fn new_with(value: Option<T>) -> OnceCell<T> {
        match value {
            None => OnceCell::new(),
            Some(v) => OnceCell {
                value_set: AtomicBool::new(true),
                value: UnsafeCell::new(MaybeUninit::new(v)),
                semaphore: Semaphore::new(0),
            },
        }
    }

    /// An empty cell usable in a `static`.
    ///
    /// ```
    /// static C: runtime::sync::OnceCell<u8> = runtime::sync::OnceCell::const_new();
    /// assert!(!C.initialized());
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new() -> OnceCell<T> {
        OnceCell {
            value_set: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            semaphore: Semaphore::const_new(1),
        }
    }

    /// A cell holding `value`, usable in a `static`.
    ///
    /// ```
    /// static C: runtime::sync::OnceCell<u8> = runtime::sync::OnceCell::const_new_with(3);
    /// assert_eq!(C.get(), Some(&3));
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new_with(value: T) -> OnceCell<T> {
        OnceCell {
            value_set: AtomicBool::new(true),
            value: UnsafeCell::new(MaybeUninit::new(value)),
            semaphore: Semaphore::const_new(0),
        }
    }

    /// True once the cell holds a value.
    ///
    /// ```
    /// let c = runtime::sync::OnceCell::new();
    /// c.set(1).unwrap();
    /// assert!(c.initialized());
    /// ```
    pub fn initialized(&self) -> bool {
        // Acquire: the value written before `value_set` is visible to us.
        self.value_set.load(Acquire)
    }

    /// # Safety
    ///
    /// `initialized()` returned true (with Acquire).
    unsafe fn get_unchecked(&self) -> &T {
        // SAFETY: initialized, and never written again while shared (module doc).
        self.value.with(|p| unsafe { (*p).assume_init_ref() })
    }

    /// The value, if set.
    ///
    /// ```
    /// let c = runtime::sync::OnceCell::new();
    /// assert_eq!(c.get(), None);
    /// c.set(2).unwrap();
    /// assert_eq!(c.get(), Some(&2));
    /// ```
    pub fn get(&self) -> Option<&T> {
        if self.initialized() {
            // SAFETY: just checked.
            Some(unsafe { self.get_unchecked() })
        } else {
            None
        }
    }

    /// The value, mutably, if set.
    ///
    /// ```
    /// let mut c = runtime::sync::OnceCell::new_with(Some(1));
    /// *c.get_mut().unwrap() += 1;
    /// assert_eq!(c.get(), Some(&2));
    /// ```
    pub fn get_mut(&mut self) -> Option<&mut T> {
        if self.initialized() {
            // SAFETY: initialized, and `&mut self` is unique.
            Some(self.value.with_mut(|p| unsafe { (*p).assume_init_mut() }))
        } else {
            None
        }
    }

    /// Writes `value`, with the permit held; publishes it and wakes queued initializers.
    fn set_value(&self, value: T, permit: SemaphorePermit<'_>) -> &T {
        // SAFETY: we hold the permit and `value_set` is false: nobody reads or writes the
        // cell.
        self.value.with_mut(|p| unsafe { (*p).write(value) });
        // Release: the value before the flag.
        self.value_set.store(true, Release);
        self.semaphore.close();
        permit.forget();
        // SAFETY: set just above.
        unsafe { self.get_unchecked() }
    }

    /// Sets the value if the cell is empty and nobody is initializing it.
    ///
    /// ```
    /// use runtime::sync::{OnceCell, SetError};
    /// let c = OnceCell::new();
    /// assert!(c.set(1).is_ok());
    /// assert_eq!(c.set(2), Err(SetError::AlreadyInitializedError(2)));
    /// ```
    pub fn set(&self, value: T) -> Result<(), SetError<T>> {
        if self.initialized() {
            return Err(SetError::AlreadyInitializedError(value));
        }
        match self.semaphore.try_acquire() {
            Ok(permit) => {
                self.set_value(value, permit);
                Ok(())
            }
            Err(TryAcquireError::NoPermits) => Err(SetError::InitializingError(value)),
            Err(TryAcquireError::Closed) => Err(SetError::AlreadyInitializedError(value)),
        }
    }

    /// The value, running `f` to produce it if the cell is empty. Concurrent callers wait
    /// for the one initializing (only one `f` runs at a time).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if the initializing call is dropped, the next waiting caller runs its
    /// own `f`.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let c = runtime::sync::OnceCell::new();
    /// assert_eq!(*c.get_or_init(|| async { 5 }).await, 5);
    /// # });
    /// ```
    pub async fn get_or_init<F, Fut>(&self, f: F) -> &T
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
    {
        if let Some(v) = self.get() {
            return v;
        }
        match self.semaphore.acquire_at(1, None).await {
            Ok(permit) => {
                debug_assert!(!self.initialized());
                let value = f().await;
                self.set_value(value, permit)
            }
            // Closed: the value is set.
            // SAFETY: the semaphore is closed only after `value_set` was stored; the
            // acquire observed the close through the semaphore (Acquire), hence the flag.
            Err(_) => unsafe { self.get_unchecked() },
        }
    }

    /// Like [`get_or_init`](OnceCell::get_or_init) with a fallible `f`: an error leaves the
    /// cell empty (the next caller tries) and is returned.
    ///
    /// # Cancel safety
    ///
    /// As [`get_or_init`](OnceCell::get_or_init).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let c = runtime::sync::OnceCell::<u8>::new();
    /// assert_eq!(c.get_or_try_init(|| async { Err("no") }).await, Err("no"));
    /// assert_eq!(c.get_or_try_init(|| async { Ok::<_, ()>(1) }).await, Ok(&1));
    /// # });
    /// ```
    pub async fn get_or_try_init<E, F, Fut>(&self, f: F) -> Result<&T, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        if let Some(v) = self.get() {
            return Ok(v);
        }
        match self.semaphore.acquire_at(1, None).await {
            Ok(permit) => {
                debug_assert!(!self.initialized());
                let value = f().await?;
                Ok(self.set_value(value, permit))
            }
            // SAFETY: as in `get_or_init`.
            Err(_) => Ok(unsafe { self.get_unchecked() }),
        }
    }

    /// Consumes the cell, returning its value if set.
    ///
    /// ```
    /// let c = runtime::sync::OnceCell::new_with(Some("v"));
    /// assert_eq!(c.into_inner(), Some("v"));
    /// ```
    pub fn into_inner(mut self) -> Option<T> {
        self.take()
    }

    /// Takes the value out, leaving the cell empty (and settable again).
    ///
    /// ```
    /// let mut c = runtime::sync::OnceCell::new_with(Some(1));
    /// assert_eq!(c.take(), Some(1));
    /// assert!(c.set(2).is_ok());
    /// ```
    pub fn take(&mut self) -> Option<T> {
        if !self.initialized() {
            return None;
        }
        let old = std::mem::take(self);
        // SAFETY: initialized; the flag is cleared right after, so `old`'s drop does not
        // drop the value we read out.
        let value = old.value.with(|p| unsafe { (*p).assume_init_read() });
        old.value_set.store(false, Relaxed);
        Some(value)
    }
}

impl<T> Drop for OnceCell<T> {
    fn drop(&mut self) {
        if self.initialized() {
            // SAFETY: initialized, and `&mut self` in drop is the last use.
            self.value.with_mut(|p| unsafe { (*p).assume_init_drop() });
        }
    }
}

impl<T> Default for OnceCell<T> {
    fn default() -> Self {
        OnceCell::new()
    }
}

impl<T> From<T> for OnceCell<T> {
    fn from(value: T) -> Self {
        OnceCell::new_with(Some(value))
    }
}

impl<T: Clone> Clone for OnceCell<T> {
    fn clone(&self) -> Self {
        OnceCell::new_with(self.get().cloned())
    }
}

impl<T: PartialEq> PartialEq for OnceCell<T> {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq> Eq for OnceCell<T> {}

impl<T: fmt::Debug> fmt::Debug for OnceCell<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OnceCell")
            .field("value", &self.get())
            .finish()
    }
}
