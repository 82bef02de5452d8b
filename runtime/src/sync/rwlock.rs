//! `RwLock<T>`: an asynchronous, fair reader-writer lock.
//!
//! A batch semaphore (`batch_semaphore`) with `max_readers` permits: a reader takes one, a
//! writer takes all of them. The semaphore serves waiters in order and lets a queued
//! acquire keep the permits it has gathered, so a writer that waits behind readers collects
//! their permits as they leave while every later reader queues behind it: writers cannot
//! be starved (write-preferring in effect, FIFO in fact). Downgrading a write guard gives
//! back all permits but one.
//!
//! The value is read only by holders of at least one permit and written only by the holder
//! of all of them; the semaphore orders their accesses (see `mutex`).

use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use shim::cell::UnsafeCell;

use super::batch_semaphore::Sem;
use super::TryLockError;

/// The most readers a lock admits at once (`u32::MAX >> 3`).
const MAX_READS: u32 = u32::MAX >> 3;

/// An asynchronous reader-writer lock: many readers or one writer. Fair: waiters are
/// served in order, so a waiting writer holds back later readers and is never starved.
///
/// ```
/// use runtime::sync::RwLock;
///
/// # runtime::Runtime::new().unwrap().block_on(async {
/// let lock = RwLock::new(5);
/// {
///     let r1 = lock.read().await;
///     let r2 = lock.read().await;
///     assert_eq!(*r1 + *r2, 10);
/// }
/// *lock.write().await += 1;
/// assert_eq!(*lock.read().await, 6);
/// # });
/// ```
pub struct RwLock<T> {
    mr: u32,
    s: Sem,
    c: UnsafeCell<T>,
}

/// Shared access to an [`RwLock`]'s value (or a part of it, after
/// [`map`](RwLockReadGuard::map)); releases the read lock when dropped.
#[must_use = "dropping the guard unlocks at once"]
pub struct RwLockReadGuard<'a, T> {
    s: &'a Sem,
    data: *const T,
    marker: PhantomData<&'a T>,
}

/// Exclusive access to an [`RwLock`]'s value; releases the write lock when dropped.
#[must_use = "dropping the guard unlocks at once"]
pub struct RwLockWriteGuard<'a, T> {
    s: &'a Sem,
    permits: u32,
    data: *mut T,
    marker: PhantomData<&'a mut T>,
}

/// A write guard narrowed by [`RwLockWriteGuard::map`].
#[must_use = "dropping the guard unlocks at once"]
pub struct RwLockMappedWriteGuard<'a, T> {
    s: &'a Sem,
    permits: u32,
    data: *mut T,
    marker: PhantomData<&'a mut T>,
}

/// Shared access through an `Arc<RwLock<T>>` (to a `U` inside the `T` after
/// [`map`](OwnedRwLockReadGuard::map)).
#[must_use = "dropping the guard unlocks at once"]
pub struct OwnedRwLockReadGuard<T, U = T> {
    lock: Arc<RwLock<T>>,
    data: *const U,
}

/// Exclusive access through an `Arc<RwLock<T>>`.
#[must_use = "dropping the guard unlocks at once"]
pub struct OwnedRwLockWriteGuard<T> {
    lock: Arc<RwLock<T>>,
}

// SAFETY: the value moves between threads with the write lock (`Send`) and is shared by
// readers on several threads at once (`Sync`).
unsafe impl<T: Send> Send for RwLock<T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for RwLock<T> {}
// SAFETY: a read guard is a `&T`.
unsafe impl<T: Sync> Send for RwLockReadGuard<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for RwLockReadGuard<'_, T> {}
// SAFETY: a write guard is a `&mut T`.
unsafe impl<T: Send + Sync> Send for RwLockWriteGuard<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for RwLockWriteGuard<'_, T> {}
// SAFETY: as for the write guard.
unsafe impl<T: Send + Sync> Send for RwLockMappedWriteGuard<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for RwLockMappedWriteGuard<'_, T> {}
// SAFETY: a read guard is a `&U` plus an `Arc` of the lock.
unsafe impl<T: Send + Sync, U: Sync> Send for OwnedRwLockReadGuard<T, U> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync, U: Sync> Sync for OwnedRwLockReadGuard<T, U> {}

impl<T> RwLock<T> {
    /// A new, unlocked lock holding `value`.
    ///
    /// ```
    /// let l = runtime::sync::RwLock::new(1);
    /// assert_eq!(l.into_inner(), 1);
    /// ```
    pub fn new(value: T) -> RwLock<T> {
        RwLock::with_max_readers(value, MAX_READS)
    }

    /// A new lock that admits at most `max_reads` readers at once.
    ///
    /// ```
    /// let l = runtime::sync::RwLock::with_max_readers(0, 2);
    /// let _a = l.try_read().unwrap();
    /// let _b = l.try_read().unwrap();
    /// assert!(l.try_read().is_err());
    /// ```
    ///
    /// # Panics
    ///
    /// When `max_reads` is 0 or more than `u32::MAX >> 3`.
    pub fn with_max_readers(value: T, max_reads: u32) -> RwLock<T> {
        assert!(
            max_reads > 0 && max_reads <= MAX_READS,
            "max_reads must be in 1..={MAX_READS}, got {max_reads}"
        );
        RwLock {
            mr: max_reads,
            s: Sem::new(max_reads as usize),
            c: UnsafeCell::new(value),
        }
    }

    /// A new lock usable in a `static`.
    ///
    /// ```
    /// use runtime::sync::RwLock;
    /// static L: RwLock<u8> = RwLock::const_new(3);
    /// assert_eq!(*L.try_read().unwrap(), 3);
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new(value: T) -> RwLock<T> {
        RwLock {
            mr: MAX_READS,
            s: Sem::const_new(MAX_READS as usize),
            c: UnsafeCell::new(value),
        }
    }

    fn ptr(&self) -> *mut T {
        self.c.with_mut(|p| p)
    }

    async fn acquire(&self, n: u32) {
        if self.s.acquire(n as usize).await.is_err() {
            unreachable!("an RwLock's semaphore is never closed");
        }
    }

    /// Waits for shared access. Queues behind any writer that asked first.
    ///
    /// # Cancel safety
    ///
    /// Fair, so dropping the future gives up its place in the queue; nothing is lost.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let l = runtime::sync::RwLock::new(1);
    /// assert_eq!(*l.read().await, 1);
    /// # });
    /// ```
    pub async fn read(&self) -> RwLockReadGuard<'_, T> {
        self.acquire(1).await;
        RwLockReadGuard {
            s: &self.s,
            data: self.ptr(),
            marker: PhantomData,
        }
    }

    /// Waits for exclusive access.
    ///
    /// # Cancel safety
    ///
    /// Fair, so dropping the future gives up its place; the read permits it had gathered
    /// go on to the next waiters.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let l = runtime::sync::RwLock::new(1);
    /// *l.write().await = 2;
    /// assert_eq!(*l.read().await, 2);
    /// # });
    /// ```
    pub async fn write(&self) -> RwLockWriteGuard<'_, T> {
        self.acquire(self.mr).await;
        RwLockWriteGuard {
            s: &self.s,
            permits: self.mr,
            data: self.ptr(),
            marker: PhantomData,
        }
    }

    /// [`read`](RwLock::read) through an `Arc`, for a guard that is `'static`.
    ///
    /// # Cancel safety
    ///
    /// As [`read`](RwLock::read).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let l = std::sync::Arc::new(runtime::sync::RwLock::new(1));
    /// let g = l.clone().read_owned().await;
    /// assert_eq!(runtime::spawn(async move { *g }).await.unwrap(), 1);
    /// # });
    /// ```
    pub async fn read_owned(self: Arc<Self>) -> OwnedRwLockReadGuard<T> {
        self.acquire(1).await;
        let data = self.ptr();
        OwnedRwLockReadGuard { lock: self, data }
    }

    /// [`write`](RwLock::write) through an `Arc`, for a guard that is `'static`.
    ///
    /// # Cancel safety
    ///
    /// As [`write`](RwLock::write).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let l = std::sync::Arc::new(runtime::sync::RwLock::new(1));
    /// let mut g = l.clone().write_owned().await;
    /// runtime::spawn(async move { *g = 7 }).await.unwrap();
    /// assert_eq!(*l.read().await, 7);
    /// # });
    /// ```
    pub async fn write_owned(self: Arc<Self>) -> OwnedRwLockWriteGuard<T> {
        self.acquire(self.mr).await;
        OwnedRwLockWriteGuard { lock: self }
    }

    /// Shared access if it is free now (no writer holds or waits for the lock).
    ///
    /// ```
    /// let l = runtime::sync::RwLock::new(1);
    /// let w = l.try_write().unwrap();
    /// assert!(l.try_read().is_err());
    /// drop(w);
    /// assert_eq!(*l.try_read().unwrap(), 1);
    /// ```
    pub fn try_read(&self) -> Result<RwLockReadGuard<'_, T>, TryLockError> {
        self.s.try_acquire(1).map_err(|_| TryLockError::new())?;
        Ok(RwLockReadGuard {
            s: &self.s,
            data: self.ptr(),
            marker: PhantomData,
        })
    }

    /// Exclusive access if it is free now.
    ///
    /// ```
    /// let l = runtime::sync::RwLock::new(1);
    /// let r = l.try_read().unwrap();
    /// assert!(l.try_write().is_err());
    /// drop(r);
    /// assert!(l.try_write().is_ok());
    /// ```
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        self.s
            .try_acquire(self.mr as usize)
            .map_err(|_| TryLockError::new())?;
        Ok(RwLockWriteGuard {
            s: &self.s,
            permits: self.mr,
            data: self.ptr(),
            marker: PhantomData,
        })
    }

    /// [`try_read`](RwLock::try_read) through an `Arc`.
    ///
    /// ```
    /// let l = std::sync::Arc::new(runtime::sync::RwLock::new(1));
    /// assert_eq!(*l.try_read_owned().unwrap(), 1);
    /// ```
    pub fn try_read_owned(self: Arc<Self>) -> Result<OwnedRwLockReadGuard<T>, TryLockError> {
        self.s.try_acquire(1).map_err(|_| TryLockError::new())?;
        let data = self.ptr();
        Ok(OwnedRwLockReadGuard { lock: self, data })
    }

    /// [`try_write`](RwLock::try_write) through an `Arc`.
    ///
    /// ```
    /// let l = std::sync::Arc::new(runtime::sync::RwLock::new(1));
    /// *l.clone().try_write_owned().unwrap() = 2;
    /// assert_eq!(*l.try_read().unwrap(), 2);
    /// ```
    pub fn try_write_owned(self: Arc<Self>) -> Result<OwnedRwLockWriteGuard<T>, TryLockError> {
        self.s
            .try_acquire(self.mr as usize)
            .map_err(|_| TryLockError::new())?;
        Ok(OwnedRwLockWriteGuard { lock: self })
    }

    /// Shared access from synchronous code, blocking the thread.
    ///
    /// ```
    /// let l = runtime::sync::RwLock::new(1);
    /// assert_eq!(*l.blocking_read(), 1);
    /// ```
    ///
    /// # Panics
    ///
    /// Inside a runtime: `.await` [`read`](RwLock::read) instead.
    pub fn blocking_read(&self) -> RwLockReadGuard<'_, T> {
        crate::context::assert_not_in_runtime(
            "RwLock::blocking_read called inside a runtime; use `.read().await` instead",
        );
        futures::executor::block_on(self.read())
    }

    /// Exclusive access from synchronous code, blocking the thread.
    ///
    /// ```
    /// let l = runtime::sync::RwLock::new(1);
    /// *l.blocking_write() = 2;
    /// assert_eq!(l.into_inner(), 2);
    /// ```
    ///
    /// # Panics
    ///
    /// Inside a runtime: `.await` [`write`](RwLock::write) instead.
    pub fn blocking_write(&self) -> RwLockWriteGuard<'_, T> {
        crate::context::assert_not_in_runtime(
            "RwLock::blocking_write called inside a runtime; use `.write().await` instead",
        );
        futures::executor::block_on(self.write())
    }

    /// The value, through `&mut self` (no locking needed).
    ///
    /// ```
    /// let mut l = runtime::sync::RwLock::new(1);
    /// *l.get_mut() = 3;
    /// assert_eq!(l.into_inner(), 3);
    /// ```
    pub fn get_mut(&mut self) -> &mut T {
        // SAFETY: `&mut self` excludes every guard.
        self.c.with_mut(|p| unsafe { &mut *p })
    }

    /// Consumes the lock, returning the value.
    ///
    /// ```
    /// assert_eq!(runtime::sync::RwLock::new(9).into_inner(), 9);
    /// ```
    pub fn into_inner(self) -> T {
        self.c.into_inner()
    }
}

impl<T: Default> Default for RwLock<T> {
    fn default() -> Self {
        RwLock::new(T::default())
    }
}

impl<T> From<T> for RwLock<T> {
    fn from(value: T) -> Self {
        RwLock::new(value)
    }
}

impl<T: fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("RwLock");
        match self.try_read() {
            Ok(g) => d.field("data", &&*g),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

impl<'a, T> RwLockReadGuard<'a, T> {
    /// Narrows the guard to a part of the value.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{RwLock, RwLockReadGuard};
    /// let l = RwLock::new((1, 2));
    /// let g = RwLockReadGuard::map(l.read().await, |v| &v.1);
    /// assert_eq!(*g, 2);
    /// # });
    /// ```
    pub fn map<U, F: FnOnce(&T) -> &U>(this: Self, f: F) -> RwLockReadGuard<'a, U> {
        let data = f(&*this) as *const U;
        let this = ManuallyDrop::new(this);
        RwLockReadGuard {
            s: this.s,
            data,
            marker: PhantomData,
        }
    }

    /// Like [`map`](RwLockReadGuard::map), but `f` may decline.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{RwLock, RwLockReadGuard};
    /// let l = RwLock::new(vec![1]);
    /// assert!(RwLockReadGuard::try_map(l.read().await, |v| v.get(3)).is_err());
    /// # });
    /// ```
    pub fn try_map<U, F: FnOnce(&T) -> Option<&U>>(
        this: Self,
        f: F,
    ) -> Result<RwLockReadGuard<'a, U>, Self> {
        let data = match f(&*this) {
            Some(d) => d as *const U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        Ok(RwLockReadGuard {
            s: this.s,
            data,
            marker: PhantomData,
        })
    }
}

impl<'a, T> RwLockWriteGuard<'a, T> {
    /// Narrows the guard to a part of the value (the write lock stays held).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{RwLock, RwLockWriteGuard};
    /// let l = RwLock::new((1, 2));
    /// *RwLockWriteGuard::map(l.write().await, |v| &mut v.0) = 9;
    /// assert_eq!(*l.read().await, (9, 2));
    /// # });
    /// ```
    pub fn map<U, F: FnOnce(&mut T) -> &mut U>(
        mut this: Self,
        f: F,
    ) -> RwLockMappedWriteGuard<'a, U> {
        let data = f(&mut *this) as *mut U;
        let this = ManuallyDrop::new(this);
        RwLockMappedWriteGuard {
            s: this.s,
            permits: this.permits,
            data,
            marker: PhantomData,
        }
    }

    /// Like [`map`](RwLockWriteGuard::map), but `f` may decline.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{RwLock, RwLockWriteGuard};
    /// let l = RwLock::new(vec![1]);
    /// assert!(RwLockWriteGuard::try_map(l.write().await, |v| v.get_mut(0)).is_ok());
    /// # });
    /// ```
    pub fn try_map<U, F: FnOnce(&mut T) -> Option<&mut U>>(
        mut this: Self,
        f: F,
    ) -> Result<RwLockMappedWriteGuard<'a, U>, Self> {
        let data = match f(&mut *this) {
            Some(d) => d as *mut U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        Ok(RwLockMappedWriteGuard {
            s: this.s,
            permits: this.permits,
            data,
            marker: PhantomData,
        })
    }

    /// Turns the write lock into a read lock without letting a writer in between (other
    /// readers, queued first, may now enter).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let l = runtime::sync::RwLock::new(1);
    /// let mut w = l.write().await;
    /// *w = 2;
    /// let r = w.downgrade();
    /// assert_eq!(*r, 2);
    /// assert_eq!(*l.try_read().unwrap(), 2);
    /// # });
    /// ```
    pub fn downgrade(self) -> RwLockReadGuard<'a, T> {
        let this = ManuallyDrop::new(self);
        this.s.release(this.permits as usize - 1);
        RwLockReadGuard {
            s: this.s,
            data: this.data,
            marker: PhantomData,
        }
    }
}

impl<'a, T> RwLockMappedWriteGuard<'a, T> {
    /// Narrows the guard further.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{RwLock, RwLockMappedWriteGuard, RwLockWriteGuard};
    /// let l = RwLock::new(((1, 2), 3));
    /// let g = RwLockWriteGuard::map(l.write().await, |v| &mut v.0);
    /// assert_eq!(*RwLockMappedWriteGuard::map(g, |v| &mut v.1), 2);
    /// # });
    /// ```
    pub fn map<U, F: FnOnce(&mut T) -> &mut U>(
        mut this: Self,
        f: F,
    ) -> RwLockMappedWriteGuard<'a, U> {
        let data = f(&mut *this) as *mut U;
        let this = ManuallyDrop::new(this);
        RwLockMappedWriteGuard {
            s: this.s,
            permits: this.permits,
            data,
            marker: PhantomData,
        }
    }
}

impl<T, U> OwnedRwLockReadGuard<T, U> {
    /// Narrows the guard to a part of the value.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{OwnedRwLockReadGuard, RwLock};
    /// let l = std::sync::Arc::new(RwLock::new((1, 2)));
    /// let g = OwnedRwLockReadGuard::map(l.read_owned().await, |v| &v.1);
    /// assert_eq!(*g, 2);
    /// # });
    /// ```
    pub fn map<V, F: FnOnce(&U) -> &V>(this: Self, f: F) -> OwnedRwLockReadGuard<T, V> {
        let data = f(&*this) as *const V;
        let this = ManuallyDrop::new(this);
        // SAFETY: `this` is never dropped, so its `Arc` is moved out exactly once.
        let lock = unsafe { std::ptr::read(&this.lock) };
        OwnedRwLockReadGuard { lock, data }
    }

    /// The lock this guard reads.
    ///
    /// ```
    /// let l = std::sync::Arc::new(runtime::sync::RwLock::new(0));
    /// let g = l.clone().try_read_owned().unwrap();
    /// assert!(std::sync::Arc::ptr_eq(runtime::sync::OwnedRwLockReadGuard::rwlock(&g), &l));
    /// ```
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

impl<T> OwnedRwLockWriteGuard<T> {
    /// Turns the write lock into a read lock without letting a writer in between.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let l = std::sync::Arc::new(runtime::sync::RwLock::new(1));
    /// let r = l.clone().write_owned().await.downgrade();
    /// assert_eq!(*r, 1);
    /// assert!(l.try_read().is_ok());
    /// # });
    /// ```
    pub fn downgrade(self) -> OwnedRwLockReadGuard<T> {
        let this = ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped, so its `Arc` is moved out exactly once.
        let lock = unsafe { std::ptr::read(&this.lock) };
        lock.s.release(lock.mr as usize - 1);
        let data = lock.ptr();
        OwnedRwLockReadGuard { lock, data }
    }

    /// The lock this guard writes.
    ///
    /// ```
    /// let l = std::sync::Arc::new(runtime::sync::RwLock::new(0));
    /// let g = l.clone().try_write_owned().unwrap();
    /// assert!(std::sync::Arc::ptr_eq(runtime::sync::OwnedRwLockWriteGuard::rwlock(&g), &l));
    /// ```
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

impl<T> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: we hold a read permit: no writer exists while we live.
        unsafe { &*self.data }
    }
}

impl<T> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: we hold every permit: nobody else touches the value.
        unsafe { &*self.data }
    }
}

impl<T> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, unique through `&mut self`.
        unsafe { &mut *self.data }
    }
}

impl<T> Deref for RwLockMappedWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: we hold every permit.
        unsafe { &*self.data }
    }
}

impl<T> DerefMut for RwLockMappedWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, unique through `&mut self`.
        unsafe { &mut *self.data }
    }
}

impl<T, U> Deref for OwnedRwLockReadGuard<T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: we hold a read permit, and the `Arc` keeps the value alive.
        unsafe { &*self.data }
    }
}

impl<T> Deref for OwnedRwLockWriteGuard<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: we hold every permit.
        unsafe { &*self.lock.ptr() }
    }
}

impl<T> DerefMut for OwnedRwLockWriteGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: we hold every permit, unique through `&mut self`.
        unsafe { &mut *self.lock.ptr() }
    }
}

impl<T> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        self.s.release(1);
    }
}

impl<T> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.s.release(self.permits as usize);
    }
}

impl<T> Drop for RwLockMappedWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.s.release(self.permits as usize);
    }
}

impl<T, U> Drop for OwnedRwLockReadGuard<T, U> {
    fn drop(&mut self) {
        self.lock.s.release(1);
    }
}

impl<T> Drop for OwnedRwLockWriteGuard<T> {
    fn drop(&mut self) {
        self.lock.s.release(self.lock.mr as usize);
    }
}

macro_rules! debug_via_deref {
    ($($t:ty),*) => {$(
        impl<T: fmt::Debug> fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&**self, f)
            }
        }
    )*};
}

debug_via_deref!(
    RwLockReadGuard<'_, T>,
    RwLockWriteGuard<'_, T>,
    RwLockMappedWriteGuard<'_, T>,
    OwnedRwLockWriteGuard<T>
);

impl<T, U: fmt::Debug> fmt::Debug for OwnedRwLockReadGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
