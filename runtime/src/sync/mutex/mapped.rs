//! The mapped guards of [`Mutex`](super::Mutex): a guard narrowed to a part of the value
//! (`MutexGuard::map`, `OwnedMutexGuard::map`). It keeps the lock's permit and a pointer to
//! the part; dropping it gives the permit back.

use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use super::super::batch_semaphore::Sem;
use super::Mutex;

/// A [`MutexGuard`](super::MutexGuard) narrowed by
/// [`MutexGuard::map`](super::MutexGuard::map) to part of the value.
#[must_use = "dropping the guard unlocks the mutex at once"]
pub struct MappedMutexGuard<'a, T: ?Sized> {
    pub(super) s: &'a Sem,
    pub(super) data: *mut T,
    pub(super) marker: PhantomData<&'a mut T>,
}

// SAFETY: a mapped guard is a `&mut T` with an unlock attached.
unsafe impl<T: ?Sized + Send + Sync> Sync for MappedMutexGuard<'_, T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send> Send for MappedMutexGuard<'_, T> {}

impl<'a, T: ?Sized> MappedMutexGuard<'a, T> {
    /// Narrows the guard further.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{MappedMutexGuard, Mutex, MutexGuard};
    /// let m = Mutex::new(((1, 2), 3));
    /// let g = MutexGuard::map(m.lock().await, |v| &mut v.0);
    /// let g = MappedMutexGuard::map(g, |v| &mut v.1);
    /// assert_eq!(*g, 2);
    /// # });
    /// ```
    pub fn map<U: ?Sized, F: FnOnce(&mut T) -> &mut U>(
        mut this: Self,
        f: F,
    ) -> MappedMutexGuard<'a, U> {
        let data = f(&mut *this) as *mut U;
        let this = ManuallyDrop::new(this);
        MappedMutexGuard {
            s: this.s,
            data,
            marker: PhantomData,
        }
    }

    /// Like [`map`](MappedMutexGuard::map), but `f` may decline.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{MappedMutexGuard, Mutex, MutexGuard};
    /// let m = Mutex::new((vec![1], 0));
    /// let g = MutexGuard::map(m.lock().await, |v| &mut v.0);
    /// assert!(MappedMutexGuard::try_map(g, |v| v.get_mut(0)).is_ok());
    /// # });
    /// ```
    pub fn try_map<U: ?Sized, F: FnOnce(&mut T) -> Option<&mut U>>(
        mut this: Self,
        f: F,
    ) -> Result<MappedMutexGuard<'a, U>, Self> {
        let data = match f(&mut *this) {
            Some(d) => d as *mut U,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        Ok(MappedMutexGuard {
            s: this.s,
            data,
            marker: PhantomData,
        })
    }
}

impl<T: ?Sized> Deref for MappedMutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: `data` points into the value whose lock we hold.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> DerefMut for MappedMutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, unique through `&mut self`.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized> Drop for MappedMutexGuard<'_, T> {
    fn drop(&mut self) {
        self.s.release(1);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MappedMutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// An [`OwnedMutexGuard`](super::OwnedMutexGuard) narrowed by
/// [`OwnedMutexGuard::map`](super::OwnedMutexGuard::map) to a `U` inside the `T`.
#[must_use = "dropping the guard unlocks the mutex at once"]
pub struct OwnedMappedMutexGuard<T: ?Sized, U: ?Sized = T> {
    pub(super) data: *mut U,
    pub(super) lock: Arc<Mutex<T>>,
}

// SAFETY: an owned mapped guard is a `&mut U` plus an `Arc` of the mutex.
unsafe impl<T: ?Sized + Send, U: ?Sized + Send> Send for OwnedMappedMutexGuard<T, U> {}
// SAFETY: as above; sharing it shares `&U`.
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Send + Sync> Sync for OwnedMappedMutexGuard<T, U> {}

impl<T: ?Sized, U: ?Sized> OwnedMappedMutexGuard<T, U> {
    /// Narrows the guard further.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{Mutex, OwnedMappedMutexGuard, OwnedMutexGuard};
    /// let m = std::sync::Arc::new(Mutex::new(((1, 2), 3)));
    /// let g = OwnedMutexGuard::map(m.lock_owned().await, |v| &mut v.0);
    /// assert_eq!(*OwnedMappedMutexGuard::map(g, |v| &mut v.1), 2);
    /// # });
    /// ```
    pub fn map<V: ?Sized, F: FnOnce(&mut U) -> &mut V>(
        mut this: Self,
        f: F,
    ) -> OwnedMappedMutexGuard<T, V> {
        let data = f(&mut *this) as *mut V;
        let this = ManuallyDrop::new(this);
        // SAFETY: `this` is never dropped, so its `Arc` is moved out exactly once.
        let lock = unsafe { std::ptr::read(&this.lock) };
        OwnedMappedMutexGuard { data, lock }
    }

    /// Like [`map`](OwnedMappedMutexGuard::map), but `f` may decline.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{Mutex, OwnedMappedMutexGuard, OwnedMutexGuard};
    /// let m = std::sync::Arc::new(Mutex::new((vec![1], 0)));
    /// let g = OwnedMutexGuard::map(m.lock_owned().await, |v| &mut v.0);
    /// assert!(OwnedMappedMutexGuard::try_map(g, |v| v.get_mut(3)).is_err());
    /// # });
    /// ```
    pub fn try_map<V: ?Sized, F: FnOnce(&mut U) -> Option<&mut V>>(
        mut this: Self,
        f: F,
    ) -> Result<OwnedMappedMutexGuard<T, V>, Self> {
        let data = match f(&mut *this) {
            Some(d) => d as *mut V,
            None => return Err(this),
        };
        let this = ManuallyDrop::new(this);
        // SAFETY: `this` is never dropped, so its `Arc` is moved out exactly once.
        let lock = unsafe { std::ptr::read(&this.lock) };
        Ok(OwnedMappedMutexGuard { data, lock })
    }

    /// The mutex this guard locks.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{Mutex, OwnedMappedMutexGuard, OwnedMutexGuard};
    /// let m = std::sync::Arc::new(Mutex::new((1, 2)));
    /// let g = OwnedMutexGuard::map(m.clone().lock_owned().await, |v| &mut v.1);
    /// assert!(std::sync::Arc::ptr_eq(OwnedMappedMutexGuard::mutex(&g), &m));
    /// # });
    /// ```
    pub fn mutex(this: &Self) -> &Arc<Mutex<T>> {
        &this.lock
    }
}

impl<T: ?Sized, U: ?Sized> Deref for OwnedMappedMutexGuard<T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: `data` points into the value whose lock we hold (the `Arc` keeps it).
        unsafe { &*self.data }
    }
}

impl<T: ?Sized, U: ?Sized> DerefMut for OwnedMappedMutexGuard<T, U> {
    fn deref_mut(&mut self) -> &mut U {
        // SAFETY: as in `deref`, unique through `&mut self`.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedMappedMutexGuard<T, U> {
    fn drop(&mut self) {
        self.lock.s.release(1);
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Debug> fmt::Debug for OwnedMappedMutexGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for MappedMutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Display> fmt::Display for OwnedMappedMutexGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}
