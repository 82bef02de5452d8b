//! The borrowed guards of [`RwLock`](super::RwLock): read, write and mapped write. A guard
//! holds the permits it was granted (one for a reader, all of them for a writer) and a
//! pointer to what it derefs to (the value, or a part of it after `map`), and gives the
//! permits back on drop. `downgrade` (and `downgrade_map`) gives back all permits but one:
//! no writer can enter between the write and the read that follows, since the one permit
//! kept excludes every writer. The pointer may be unsized (`RwLock<[T]>`, `dyn Trait`).

use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};

use super::super::batch_semaphore::Sem;

/// Shared access to an [`RwLock`](super::RwLock)'s value (or a part of it, after
/// [`map`](RwLockReadGuard::map)); releases the read lock when dropped.
#[must_use = "dropping the guard unlocks at once"]
pub struct RwLockReadGuard<'a, T: ?Sized> {
    pub(super) s: &'a Sem,
    pub(super) data: *const T,
    pub(super) marker: PhantomData<&'a T>,
}

/// Exclusive access to an [`RwLock`](super::RwLock)'s value; releases the write lock when
/// dropped.
#[must_use = "dropping the guard unlocks at once"]
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    pub(super) s: &'a Sem,
    pub(super) permits: u32,
    pub(super) data: *mut T,
    pub(super) marker: PhantomData<&'a mut T>,
}

/// A write guard narrowed by [`RwLockWriteGuard::map`].
#[must_use = "dropping the guard unlocks at once"]
pub struct RwLockMappedWriteGuard<'a, T: ?Sized> {
    pub(super) s: &'a Sem,
    pub(super) permits: u32,
    pub(super) data: *mut T,
    pub(super) marker: PhantomData<&'a mut T>,
}

// SAFETY: a read guard is a `&T`.
unsafe impl<T: ?Sized + Sync> Send for RwLockReadGuard<'_, T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Sync> Sync for RwLockReadGuard<'_, T> {}
// SAFETY: a write guard is a `&mut T`.
unsafe impl<T: ?Sized + Send + Sync> Send for RwLockWriteGuard<'_, T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLockWriteGuard<'_, T> {}
// SAFETY: as for the write guard.
unsafe impl<T: ?Sized + Send + Sync> Send for RwLockMappedWriteGuard<'_, T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLockMappedWriteGuard<'_, T> {}

impl<'a, T: ?Sized> RwLockReadGuard<'a, T> {
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
    pub fn map<U: ?Sized, F: FnOnce(&T) -> &U>(this: Self, f: F) -> RwLockReadGuard<'a, U> {
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
    pub fn try_map<U: ?Sized, F: FnOnce(&T) -> Option<&U>>(
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

impl<'a, T: ?Sized> RwLockWriteGuard<'a, T> {
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
    pub fn map<U: ?Sized, F: FnOnce(&mut T) -> &mut U>(
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
    pub fn try_map<U: ?Sized, F: FnOnce(&mut T) -> Option<&mut U>>(
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

    /// The guard as a mapped guard of the whole value (what [`map`](RwLockWriteGuard::map)
    /// with the identity gives), for code that takes a `RwLockMappedWriteGuard`.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{RwLock, RwLockWriteGuard};
    /// let l = RwLock::new(1);
    /// let mut g = RwLockWriteGuard::into_mapped(l.write().await);
    /// *g = 2;
    /// drop(g);
    /// assert_eq!(*l.read().await, 2);
    /// # });
    /// ```
    pub fn into_mapped(this: Self) -> RwLockMappedWriteGuard<'a, T> {
        RwLockWriteGuard::map(this, |v| v)
    }

    /// Downgrades to a read lock narrowed to a part of the value, without letting a
    /// writer in between (as [`downgrade`](RwLockWriteGuard::downgrade), then
    /// [`RwLockReadGuard::map`]).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{RwLock, RwLockWriteGuard};
    /// let l = RwLock::new((1, 2));
    /// let mut w = l.write().await;
    /// w.1 = 5;
    /// let r = RwLockWriteGuard::downgrade_map(w, |v| &v.1);
    /// assert_eq!(*r, 5);
    /// assert!(l.try_read().is_ok() && l.try_write().is_err());
    /// # });
    /// ```
    pub fn downgrade_map<U: ?Sized, F: FnOnce(&T) -> &U>(
        this: Self,
        f: F,
    ) -> RwLockReadGuard<'a, U> {
        let data = f(&*this) as *const U;
        let this = ManuallyDrop::new(this);
        this.s.release(this.permits as usize - 1);
        RwLockReadGuard {
            s: this.s,
            data,
            marker: PhantomData,
        }
    }

    /// Like [`downgrade_map`](RwLockWriteGuard::downgrade_map), but `f` may decline
    /// (giving the write guard back, still writing).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{RwLock, RwLockWriteGuard};
    /// let l = RwLock::new(vec![1]);
    /// let w = RwLockWriteGuard::try_downgrade_map(l.write().await, |v| v.get(4)).unwrap_err();
    /// let r = RwLockWriteGuard::try_downgrade_map(w, |v| v.first()).unwrap();
    /// assert_eq!(*r, 1);
    /// # });
    /// ```
    pub fn try_downgrade_map<U: ?Sized, F: FnOnce(&T) -> Option<&U>>(
        this: Self,
        f: F,
    ) -> Result<RwLockReadGuard<'a, U>, Self> {
        let data = match f(&*this) {
            Some(d) => d as *const U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        this.s.release(this.permits as usize - 1);
        Ok(RwLockReadGuard {
            s: this.s,
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
        RwLockWriteGuard::downgrade_map(self, |v| v)
    }
}

impl<'a, T: ?Sized> RwLockMappedWriteGuard<'a, T> {
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
    pub fn map<U: ?Sized, F: FnOnce(&mut T) -> &mut U>(
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

    /// Like [`map`](RwLockMappedWriteGuard::map), but `f` may decline.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{RwLock, RwLockMappedWriteGuard, RwLockWriteGuard};
    /// let l = RwLock::new((vec![1], 0));
    /// let g = RwLockWriteGuard::map(l.write().await, |v| &mut v.0);
    /// assert!(RwLockMappedWriteGuard::try_map(g, |v| v.get_mut(7)).is_err());
    /// # });
    /// ```
    pub fn try_map<U: ?Sized, F: FnOnce(&mut T) -> Option<&mut U>>(
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
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: we hold a read permit: no writer exists while we live.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: we hold every permit: nobody else touches the value.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, unique through `&mut self`.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized> Deref for RwLockMappedWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: we hold every permit.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> DerefMut for RwLockMappedWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, unique through `&mut self`.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        self.s.release(1);
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.s.release(self.permits as usize);
    }
}

impl<T: ?Sized> Drop for RwLockMappedWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.s.release(self.permits as usize);
    }
}

/// `Debug` and `Display` through `Deref`, for guards with one type parameter.
macro_rules! fmt_via_deref {
    ($($t:ty),*) => {$(
        impl<T: ?Sized + fmt::Debug> fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&**self, f)
            }
        }

        impl<T: ?Sized + fmt::Display> fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&**self, f)
            }
        }
    )*};
}

pub(super) use fmt_via_deref;

fmt_via_deref!(
    RwLockReadGuard<'_, T>,
    RwLockWriteGuard<'_, T>,
    RwLockMappedWriteGuard<'_, T>
);
