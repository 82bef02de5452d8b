//! The owned guards of [`RwLock`]: read, write and mapped write through an
//! `Arc<RwLock<T>>` (`'static`, so they can move into a task). Each keeps a clone of the
//! `Arc` (which keeps the value alive) and the permits it was granted: one for a reader,
//! `max_readers` (the lock's `mr`) for a writer, given back on drop. A mapped guard keeps
//! a pointer to the part of the value it derefs to (`U`, possibly unsized). Downgrading
//! gives back all permits but one, so no writer can enter in between.

use std::fmt;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use super::RwLock;

/// Shared access through an `Arc<RwLock<T>>` (to a `U` inside the `T` after
/// [`map`](OwnedRwLockReadGuard::map)).
#[must_use = "dropping the guard unlocks at once"]
pub struct OwnedRwLockReadGuard<T: ?Sized, U: ?Sized = T> {
    pub(super) lock: Arc<RwLock<T>>,
    pub(super) data: *const U,
}

/// Exclusive access through an `Arc<RwLock<T>>`.
#[must_use = "dropping the guard unlocks at once"]
pub struct OwnedRwLockWriteGuard<T: ?Sized> {
    pub(super) lock: Arc<RwLock<T>>,
}

/// An [`OwnedRwLockWriteGuard`] narrowed by [`OwnedRwLockWriteGuard::map`] to a `U`
/// inside the `T`.
#[must_use = "dropping the guard unlocks at once"]
pub struct OwnedRwLockMappedWriteGuard<T: ?Sized, U: ?Sized = T> {
    pub(super) lock: Arc<RwLock<T>>,
    pub(super) data: *mut U,
}

// SAFETY: a mapped write guard is a `&mut U` plus an `Arc` of the lock.
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Send + Sync> Send
    for OwnedRwLockMappedWriteGuard<T, U>
{
}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Send + Sync> Sync
    for OwnedRwLockMappedWriteGuard<T, U>
{
}
// SAFETY: a read guard is a `&U` plus an `Arc` of the lock.
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Sync> Send for OwnedRwLockReadGuard<T, U> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Sync> Sync for OwnedRwLockReadGuard<T, U> {}

/// Moves the `Arc` out of a guard whose `Drop` must not run.
fn take_lock<T: ?Sized>(lock: &ManuallyDrop<impl HasLock<T>>) -> Arc<RwLock<T>> {
    // SAFETY: the guard is in a `ManuallyDrop` its caller never drops or touches again,
    // so its `Arc` is moved out exactly once.
    unsafe { std::ptr::read(lock.lock()) }
}

/// The guards' common field, for [`take_lock`].
trait HasLock<T: ?Sized> {
    fn lock(&self) -> &Arc<RwLock<T>>;
}

impl<T: ?Sized, U: ?Sized> HasLock<T> for OwnedRwLockReadGuard<T, U> {
    fn lock(&self) -> &Arc<RwLock<T>> {
        &self.lock
    }
}

impl<T: ?Sized> HasLock<T> for OwnedRwLockWriteGuard<T> {
    fn lock(&self) -> &Arc<RwLock<T>> {
        &self.lock
    }
}

impl<T: ?Sized, U: ?Sized> HasLock<T> for OwnedRwLockMappedWriteGuard<T, U> {
    fn lock(&self) -> &Arc<RwLock<T>> {
        &self.lock
    }
}

impl<T: ?Sized, U: ?Sized> OwnedRwLockReadGuard<T, U> {
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
    pub fn map<V: ?Sized, F: FnOnce(&U) -> &V>(this: Self, f: F) -> OwnedRwLockReadGuard<T, V> {
        let data = f(&*this) as *const V;
        let this = ManuallyDrop::new(this);
        OwnedRwLockReadGuard {
            lock: take_lock(&this),
            data,
        }
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
    pub fn try_map<V: ?Sized, F: FnOnce(&U) -> Option<&V>>(
        this: Self,
        f: F,
    ) -> Result<OwnedRwLockReadGuard<T, V>, Self> {
        let data = match f(&*this) {
            Some(d) => d as *const V,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        Ok(OwnedRwLockReadGuard {
            lock: take_lock(&this),
            data,
        })
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

impl<T: ?Sized> OwnedRwLockWriteGuard<T> {
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
        OwnedRwLockWriteGuard::downgrade_map(self, |v| v)
    }

    /// Downgrades to a read lock narrowed to a part of the value, without letting a
    /// writer in between.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{OwnedRwLockWriteGuard, RwLock};
    /// let l = std::sync::Arc::new(RwLock::new((1, 2)));
    /// let r = OwnedRwLockWriteGuard::downgrade_map(l.clone().write_owned().await, |v| &v.0);
    /// assert_eq!(*r, 1);
    /// assert!(l.try_read().is_ok() && l.try_write().is_err());
    /// # });
    /// ```
    pub fn downgrade_map<U: ?Sized, F: FnOnce(&T) -> &U>(
        this: Self,
        f: F,
    ) -> OwnedRwLockReadGuard<T, U> {
        let data = f(&*this) as *const U;
        let this = ManuallyDrop::new(this);
        let lock = take_lock(&this);
        lock.s.release(lock.mr as usize - 1);
        OwnedRwLockReadGuard { lock, data }
    }

    /// Like [`downgrade_map`](OwnedRwLockWriteGuard::downgrade_map), but `f` may decline
    /// (giving the write guard back, still writing).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{OwnedRwLockWriteGuard, RwLock};
    /// let l = std::sync::Arc::new(RwLock::new(vec![3]));
    /// let w = l.write_owned().await;
    /// let w = OwnedRwLockWriteGuard::try_downgrade_map(w, |v| v.get(1)).unwrap_err();
    /// assert_eq!(*OwnedRwLockWriteGuard::try_downgrade_map(w, |v| v.first()).unwrap(), 3);
    /// # });
    /// ```
    pub fn try_downgrade_map<U: ?Sized, F: FnOnce(&T) -> Option<&U>>(
        this: Self,
        f: F,
    ) -> Result<OwnedRwLockReadGuard<T, U>, Self> {
        let data = match f(&*this) {
            Some(d) => d as *const U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        let lock = take_lock(&this);
        lock.s.release(lock.mr as usize - 1);
        Ok(OwnedRwLockReadGuard { lock, data })
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
    pub fn map<U: ?Sized, F: FnOnce(&mut T) -> &mut U>(
        mut this: Self,
        f: F,
    ) -> OwnedRwLockMappedWriteGuard<T, U> {
        let data = f(&mut *this) as *mut U;
        let this = ManuallyDrop::new(this);
        OwnedRwLockMappedWriteGuard {
            lock: take_lock(&this),
            data,
        }
    }

    /// Like [`map`](OwnedRwLockWriteGuard::map), but `f` may decline.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{OwnedRwLockWriteGuard, RwLock};
    /// let l = std::sync::Arc::new(RwLock::new(vec![1]));
    /// let w = l.write_owned().await;
    /// assert!(OwnedRwLockWriteGuard::try_map(w, |v| v.get_mut(5)).is_err());
    /// # });
    /// ```
    pub fn try_map<U: ?Sized, F: FnOnce(&mut T) -> Option<&mut U>>(
        mut this: Self,
        f: F,
    ) -> Result<OwnedRwLockMappedWriteGuard<T, U>, Self> {
        let data = match f(&mut *this) {
            Some(d) => d as *mut U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        Ok(OwnedRwLockMappedWriteGuard {
            lock: take_lock(&this),
            data,
        })
    }

    /// The guard as a mapped guard of the whole value.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{OwnedRwLockWriteGuard, RwLock};
    /// let l = std::sync::Arc::new(RwLock::new(1));
    /// *OwnedRwLockWriteGuard::into_mapped(l.clone().write_owned().await) = 4;
    /// assert_eq!(*l.read().await, 4);
    /// # });
    /// ```
    pub fn into_mapped(this: Self) -> OwnedRwLockMappedWriteGuard<T> {
        OwnedRwLockWriteGuard::map(this, |v| v)
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

impl<T: ?Sized, U: ?Sized> OwnedRwLockMappedWriteGuard<T, U> {
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
    pub fn map<V: ?Sized, F: FnOnce(&mut U) -> &mut V>(
        mut this: Self,
        f: F,
    ) -> OwnedRwLockMappedWriteGuard<T, V> {
        let data = f(&mut *this) as *mut V;
        let this = ManuallyDrop::new(this);
        OwnedRwLockMappedWriteGuard {
            lock: take_lock(&this),
            data,
        }
    }

    /// Like [`map`](OwnedRwLockMappedWriteGuard::map), but `f` may decline.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{OwnedRwLockMappedWriteGuard, OwnedRwLockWriteGuard, RwLock};
    /// let l = std::sync::Arc::new(RwLock::new((vec![1], 0)));
    /// let g = OwnedRwLockWriteGuard::map(l.write_owned().await, |v| &mut v.0);
    /// assert!(OwnedRwLockMappedWriteGuard::try_map(g, |v| v.get_mut(0)).is_ok());
    /// # });
    /// ```
    pub fn try_map<V: ?Sized, F: FnOnce(&mut U) -> Option<&mut V>>(
        mut this: Self,
        f: F,
    ) -> Result<OwnedRwLockMappedWriteGuard<T, V>, Self> {
        let data = match f(&mut *this) {
            Some(d) => d as *mut V,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        Ok(OwnedRwLockMappedWriteGuard {
            lock: take_lock(&this),
            data,
        })
    }

    /// The lock this guard writes.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{OwnedRwLockMappedWriteGuard, OwnedRwLockWriteGuard, RwLock};
    /// let l = std::sync::Arc::new(RwLock::new((1, 2)));
    /// let g = OwnedRwLockWriteGuard::map(l.clone().write_owned().await, |v| &mut v.1);
    /// assert!(std::sync::Arc::ptr_eq(OwnedRwLockMappedWriteGuard::rwlock(&g), &l));
    /// # });
    /// ```
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

impl<T: ?Sized, U: ?Sized> Deref for OwnedRwLockReadGuard<T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: we hold a read permit, and the `Arc` keeps the value alive.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> Deref for OwnedRwLockWriteGuard<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: we hold every permit.
        unsafe { &*self.lock.ptr() }
    }
}

impl<T: ?Sized> DerefMut for OwnedRwLockWriteGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: we hold every permit, unique through `&mut self`.
        unsafe { &mut *self.lock.ptr() }
    }
}

impl<T: ?Sized, U: ?Sized> Deref for OwnedRwLockMappedWriteGuard<T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: we hold every permit, and the `Arc` keeps the value alive.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized, U: ?Sized> DerefMut for OwnedRwLockMappedWriteGuard<T, U> {
    fn deref_mut(&mut self) -> &mut U {
        // SAFETY: as in `deref`, unique through `&mut self`.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedRwLockReadGuard<T, U> {
    fn drop(&mut self) {
        self.lock.s.release(1);
    }
}

impl<T: ?Sized> Drop for OwnedRwLockWriteGuard<T> {
    fn drop(&mut self) {
        self.lock.s.release(self.lock.mr as usize);
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedRwLockMappedWriteGuard<T, U> {
    fn drop(&mut self) {
        self.lock.s.release(self.lock.mr as usize);
    }
}

super::guards::fmt_via_deref!(OwnedRwLockWriteGuard<T>);

/// `Debug` and `Display` through `Deref`, for the guards of a `U` inside a `T`.
macro_rules! fmt_mapped_via_deref {
    ($($t:ident),*) => {$(
        impl<T: ?Sized, U: ?Sized + fmt::Debug> fmt::Debug for $t<T, U> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&**self, f)
            }
        }

        impl<T: ?Sized, U: ?Sized + fmt::Display> fmt::Display for $t<T, U> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&**self, f)
            }
        }
    )*};
}

fmt_mapped_via_deref!(OwnedRwLockReadGuard, OwnedRwLockMappedWriteGuard);
