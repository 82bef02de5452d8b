//! The guards of [`RwLock`](super::RwLock): read, write, mapped write, and their owned
//! (`Arc`) forms. A guard holds the permits it was granted (one for a reader, all of them
//! for a writer) and gives them back on drop; `map` narrows the pointer it derefs to,
//! `downgrade` gives back all permits but one.

use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use super::super::batch_semaphore::Sem;
use super::RwLock;

/// Shared access to an [`RwLock`]'s value (or a part of it, after
/// [`map`](RwLockReadGuard::map)); releases the read lock when dropped.
#[must_use = "dropping the guard unlocks at once"]
pub struct RwLockReadGuard<'a, T> {
    pub(super) s: &'a Sem,
    pub(super) data: *const T,
    pub(super) marker: PhantomData<&'a T>,
}

/// Exclusive access to an [`RwLock`]'s value; releases the write lock when dropped.
#[must_use = "dropping the guard unlocks at once"]
pub struct RwLockWriteGuard<'a, T> {
    pub(super) s: &'a Sem,
    pub(super) permits: u32,
    pub(super) data: *mut T,
    pub(super) marker: PhantomData<&'a mut T>,
}

/// A write guard narrowed by [`RwLockWriteGuard::map`].
#[must_use = "dropping the guard unlocks at once"]
pub struct RwLockMappedWriteGuard<'a, T> {
    pub(super) s: &'a Sem,
    pub(super) permits: u32,
    pub(super) data: *mut T,
    pub(super) marker: PhantomData<&'a mut T>,
}

/// Shared access through an `Arc<RwLock<T>>` (to a `U` inside the `T` after
/// [`map`](OwnedRwLockReadGuard::map)).
#[must_use = "dropping the guard unlocks at once"]
pub struct OwnedRwLockReadGuard<T, U = T> {
    pub(super) lock: Arc<RwLock<T>>,
    pub(super) data: *const U,
}

/// Exclusive access through an `Arc<RwLock<T>>`.
#[must_use = "dropping the guard unlocks at once"]
pub struct OwnedRwLockWriteGuard<T> {
    pub(super) lock: Arc<RwLock<T>>,
}

/// An [`OwnedRwLockWriteGuard`] narrowed by [`OwnedRwLockWriteGuard::map`] to a `U`
/// inside the `T`.
#[must_use = "dropping the guard unlocks at once"]
pub struct OwnedRwLockMappedWriteGuard<T, U = T> {
    pub(super) lock: Arc<RwLock<T>>,
    pub(super) data: *mut U,
}

// SAFETY: a mapped write guard is a `&mut U` plus an `Arc` of the lock.
unsafe impl<T: Send + Sync, U: Send + Sync> Send for OwnedRwLockMappedWriteGuard<T, U> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync, U: Send + Sync> Sync for OwnedRwLockMappedWriteGuard<T, U> {}

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

    /// Like [`map`](OwnedRwLockReadGuard::map), but `f` may decline.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{OwnedRwLockReadGuard, RwLock};
    /// let l = std::sync::Arc::new(RwLock::new(vec![1]));
    /// assert!(OwnedRwLockReadGuard::try_map(l.read_owned().await, |v| v.get(2)).is_err());
    /// # });
    /// ```
    pub fn try_map<V, F: FnOnce(&U) -> Option<&V>>(
        this: Self,
        f: F,
    ) -> Result<OwnedRwLockReadGuard<T, V>, Self> {
        let data = match f(&*this) {
            Some(d) => d as *const V,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        // SAFETY: `this` is never dropped, so its `Arc` is moved out exactly once.
        let lock = unsafe { std::ptr::read(&this.lock) };
        Ok(OwnedRwLockReadGuard { lock, data })
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

    /// Narrows the guard to a part of the value (the write lock stays held).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{OwnedRwLockWriteGuard, RwLock};
    /// let l = std::sync::Arc::new(RwLock::new((1, 2)));
    /// *OwnedRwLockWriteGuard::map(l.clone().write_owned().await, |v| &mut v.1) = 5;
    /// assert_eq!(*l.read().await, (1, 5));
    /// # });
    /// ```
    pub fn map<U, F: FnOnce(&mut T) -> &mut U>(
        mut this: Self,
        f: F,
    ) -> OwnedRwLockMappedWriteGuard<T, U> {
        let data = f(&mut *this) as *mut U;
        let this = ManuallyDrop::new(this);
        // SAFETY: `this` is never dropped, so its `Arc` is moved out exactly once.
        let lock = unsafe { std::ptr::read(&this.lock) };
        OwnedRwLockMappedWriteGuard { lock, data }
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

impl<T, U> OwnedRwLockMappedWriteGuard<T, U> {
    /// Narrows the guard further.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{OwnedRwLockMappedWriteGuard, OwnedRwLockWriteGuard, RwLock};
    /// let l = std::sync::Arc::new(RwLock::new(((1, 2), 3)));
    /// let g = OwnedRwLockWriteGuard::map(l.write_owned().await, |v| &mut v.0);
    /// assert_eq!(*OwnedRwLockMappedWriteGuard::map(g, |v| &mut v.1), 2);
    /// # });
    /// ```
    pub fn map<V, F: FnOnce(&mut U) -> &mut V>(
        mut this: Self,
        f: F,
    ) -> OwnedRwLockMappedWriteGuard<T, V> {
        let data = f(&mut *this) as *mut V;
        let this = ManuallyDrop::new(this);
        // SAFETY: `this` is never dropped, so its `Arc` is moved out exactly once.
        let lock = unsafe { std::ptr::read(&this.lock) };
        OwnedRwLockMappedWriteGuard { lock, data }
    }
}

impl<T, U> Deref for OwnedRwLockMappedWriteGuard<T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: we hold every permit, and the `Arc` keeps the value alive.
        unsafe { &*self.data }
    }
}

impl<T, U> DerefMut for OwnedRwLockMappedWriteGuard<T, U> {
    fn deref_mut(&mut self) -> &mut U {
        // SAFETY: as in `deref`, unique through `&mut self`.
        unsafe { &mut *self.data }
    }
}

impl<T, U> Drop for OwnedRwLockMappedWriteGuard<T, U> {
    fn drop(&mut self) {
        self.lock.s.release(self.lock.mr as usize);
    }
}

impl<T, U: fmt::Debug> fmt::Debug for OwnedRwLockMappedWriteGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
