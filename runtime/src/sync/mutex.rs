//! `Mutex<T>`: an asynchronous, fair (FIFO) mutual-exclusion lock.
//!
//! A batch semaphore with one permit (`batch_semaphore`) plus the value in a cell. Holding
//! the permit is holding the lock: a guard owns it and gives it back on drop. The value is
//! touched only through a guard (or `&mut self` / `self`), so only by the permit's holder;
//! the semaphore orders one holder's writes before the next holder's reads (Release on
//! give-back, Acquire on take, or the waiters' mutex on a hand-over).
//!
//! Uncontended, `lock` and the guard's drop are one CAS each.

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use shim::cell::UnsafeCell;

use super::batch_semaphore::{AcquireFut, Kind, Sem, TryAcquire};
use super::not_unpin::NotUnpin;

mod mapped;

pub use mapped::{MappedMutexGuard, OwnedMappedMutexGuard};

/// An asynchronous mutex: `lock().await` waits (without blocking the thread) until the
/// value is free, and the guard gives it back when dropped. Waiters get the lock in the
/// order they asked (fair).
///
/// Unlike `std::sync::Mutex`, a guard may be held across `.await`. There is no poisoning.
///
/// ```
/// use std::sync::Arc;
/// use runtime::sync::Mutex;
///
/// # runtime::Runtime::new().unwrap().block_on(async {
/// let count = Arc::new(Mutex::new(0));
/// let mut tasks = Vec::new();
/// for _ in 0..10 {
///     let count = count.clone();
///     tasks.push(runtime::spawn(async move { *count.lock().await += 1 }));
/// }
/// for t in tasks {
///     t.await.unwrap();
/// }
/// assert_eq!(*count.lock().await, 10);
/// # });
/// ```
pub struct Mutex<T: ?Sized> {
    s: Sem,
    c: UnsafeCell<T>,
}

/// Exclusive access to a [`Mutex`]'s value, borrowed; unlocks when dropped.
#[must_use = "dropping the guard unlocks the mutex at once"]
pub struct MutexGuard<'a, T: ?Sized> {
    lock: &'a Mutex<T>,
}

/// Exclusive access to a [`Mutex`] held through an `Arc`; unlocks when dropped.
#[must_use = "dropping the guard unlocks the mutex at once"]
pub struct OwnedMutexGuard<T: ?Sized> {
    lock: Arc<Mutex<T>>,
}

/// The mutex was locked ([`Mutex::try_lock`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TryLockError(());

impl fmt::Display for TryLockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("operation would block")
    }
}

impl std::error::Error for TryLockError {}

impl TryLockError {
    pub(crate) fn new() -> TryLockError {
        TryLockError(())
    }
}

// SAFETY: the value moves between threads with the lock (so `T: Send`), and only the
// permit's holder touches it, so sharing `&Mutex` needs no `T: Sync`.
unsafe impl<T: ?Sized + Send> Send for Mutex<T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send> Sync for Mutex<T> {}
// SAFETY: a shared guard gives `&T` to several threads.
unsafe impl<T: ?Sized + Send + Sync> Sync for MutexGuard<'_, T> {}
// SAFETY: as for `MutexGuard`.
unsafe impl<T: ?Sized + Send + Sync> Sync for OwnedMutexGuard<T> {}
impl<T> Mutex<T> {
    /// A new, unlocked mutex holding `value`.
    ///
    /// ```
    /// let m = runtime::sync::Mutex::new(5);
    /// assert_eq!(m.into_inner(), 5);
    /// ```
    pub fn new(value: T) -> Mutex<T> {
        Mutex {
            s: Sem::new(1).with_kind(Kind::Mutex),
            c: UnsafeCell::new(value),
        }
    }

    /// A new mutex usable in a `static`.
    ///
    /// ```
    /// use runtime::sync::Mutex;
    /// static M: Mutex<u32> = Mutex::const_new(0);
    /// assert_eq!(*M.try_lock().unwrap(), 0);
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new(value: T) -> Mutex<T> {
        Mutex {
            s: Sem::const_new(1).with_kind(Kind::Mutex),
            c: UnsafeCell::new(value),
        }
    }

    /// Consumes the mutex, returning the value.
    ///
    /// ```
    /// assert_eq!(runtime::sync::Mutex::new("v").into_inner(), "v");
    /// ```
    pub fn into_inner(self) -> T {
        self.c.into_inner()
    }
}

/// The future of [`Mutex::lock`]: the semaphore's acquire (which holds the caller's
/// location), then the holder word. Written out rather than `async`: one future, not two
/// nested state machines, so the location costs its one store and nothing more.
struct Lock<'a, T: ?Sized> {
    acquire: AcquireFut<'a>,
    lock: &'a Mutex<T>,
}

impl<'a, T: ?Sized> Future for Lock<'a, T> {
    type Output = MutexGuard<'a, T>;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<MutexGuard<'a, T>> {
        if std::task::ready!(Pin::new(&mut self.acquire).poll(cx)).is_err() {
            unreachable!("a mutex's semaphore is never closed");
        }
        self.lock.s.note_holder();
        Poll::Ready(MutexGuard { lock: self.lock })
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Waits for the lock and returns its guard.
    ///
    /// # Cancel safety
    ///
    /// Fair (FIFO), so dropping the future gives up its place in the queue; if the lock was
    /// handed to it meanwhile, it passes on to the next waiter (it is never lost).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let m = runtime::sync::Mutex::new(1);
    /// *m.lock().await += 1;
    /// assert_eq!(*m.lock().await, 2);
    /// # });
    /// ```
    ///
    /// A task dump shows a task queued here as waiting at the caller's location.
    #[track_caller]
    pub fn lock(&self) -> impl Future<Output = MutexGuard<'_, T>> {
        NotUnpin::new(Lock {
            acquire: self.s.acquire_at(1, Location::caller()),
            lock: self,
        })
    }

    async fn acquire(&self, at: &'static Location<'static>) {
        if self.s.acquire_at(1, at).await.is_err() {
            unreachable!("a mutex's semaphore is never closed");
        }
        self.s.note_holder();
    }

    /// Locks from synchronous code (a plain thread, outside any runtime), blocking it.
    ///
    /// ```
    /// let m = std::sync::Arc::new(runtime::sync::Mutex::new(1));
    /// let m2 = m.clone();
    /// std::thread::spawn(move || *m2.blocking_lock() += 1).join().unwrap();
    /// assert_eq!(*m.blocking_lock(), 2);
    /// ```
    ///
    /// # Panics
    ///
    /// Inside a runtime (it would block a worker): `.await` [`lock`](Mutex::lock) instead.
    #[track_caller]
    pub fn blocking_lock(&self) -> MutexGuard<'_, T> {
        crate::context::assert_not_in_runtime(crate::misuse::MUTEX_BLOCKING_LOCK);
        futures_executor::block_on(self.lock())
    }

    /// [`blocking_lock`](Mutex::blocking_lock) for an `Arc<Mutex<T>>`.
    ///
    /// ```
    /// let m = std::sync::Arc::new(runtime::sync::Mutex::new(1));
    /// assert_eq!(*m.blocking_lock_owned(), 1);
    /// ```
    ///
    /// # Panics
    ///
    /// Inside a runtime: `.await` [`lock_owned`](Mutex::lock_owned) instead.
    #[track_caller]
    pub fn blocking_lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        crate::context::assert_not_in_runtime(crate::misuse::MUTEX_BLOCKING_LOCK_OWNED);
        futures_executor::block_on(self.lock_owned())
    }

    /// [`lock`](Mutex::lock) for an `Arc<Mutex<T>>`: the guard owns a clone of the `Arc`
    /// (it is `'static`, and can move into a task).
    ///
    /// # Cancel safety
    ///
    /// As [`lock`](Mutex::lock).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let m = std::sync::Arc::new(runtime::sync::Mutex::new(1));
    /// let mut g = m.clone().lock_owned().await;
    /// runtime::spawn(async move { *g += 1 }).await.unwrap();
    /// assert_eq!(*m.lock().await, 2);
    /// # });
    /// ```
    #[track_caller]
    pub fn lock_owned(self: Arc<Self>) -> impl Future<Output = OwnedMutexGuard<T>> {
        let at = Location::caller();
        async move {
            self.acquire(at).await;
            OwnedMutexGuard { lock: self }
        }
    }

    /// Takes the lock if it is free now (and nobody is queued for it).
    ///
    /// ```
    /// let m = runtime::sync::Mutex::new(1);
    /// let g = m.try_lock().unwrap();
    /// assert!(m.try_lock().is_err());
    /// drop(g);
    /// assert!(m.try_lock().is_ok());
    /// ```
    pub fn try_lock(&self) -> Result<MutexGuard<'_, T>, TryLockError> {
        match self.s.try_acquire(1) {
            Ok(()) => {
                self.s.note_holder();
                Ok(MutexGuard { lock: self })
            }
            Err(TryAcquire::NoPermits | TryAcquire::Closed) => Err(TryLockError(())),
        }
    }

    /// [`try_lock`](Mutex::try_lock) for an `Arc<Mutex<T>>`.
    ///
    /// ```
    /// let m = std::sync::Arc::new(runtime::sync::Mutex::new(1));
    /// let g = m.clone().try_lock_owned().unwrap();
    /// assert!(m.clone().try_lock_owned().is_err());
    /// ```
    pub fn try_lock_owned(self: Arc<Self>) -> Result<OwnedMutexGuard<T>, TryLockError> {
        match self.s.try_acquire(1) {
            Ok(()) => {
                self.s.note_holder();
                Ok(OwnedMutexGuard { lock: self })
            }
            Err(_) => Err(TryLockError(())),
        }
    }

    /// The value, through `&mut self` (no locking needed: nobody else can hold it).
    ///
    /// ```
    /// let mut m = runtime::sync::Mutex::new(1);
    /// *m.get_mut() = 2;
    /// assert_eq!(m.into_inner(), 2);
    /// ```
    pub fn get_mut(&mut self) -> &mut T {
        // SAFETY: `&mut self` excludes every guard.
        self.c.with_mut(|p| unsafe { &mut *p })
    }

    fn data(&self) -> *mut T {
        self.c.with_mut(|p| p)
    }
}

impl<T: Default> Default for Mutex<T> {
    fn default() -> Self {
        Mutex::new(T::default())
    }
}

impl<T> From<T> for Mutex<T> {
    fn from(value: T) -> Self {
        Mutex::new(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Mutex");
        match self.try_lock() {
            Ok(g) => d.field("data", &&*g),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    /// Narrows the guard to a part of the value (the lock stays held).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{Mutex, MutexGuard};
    /// let m = Mutex::new((1, 2));
    /// let mut second = MutexGuard::map(m.lock().await, |v| &mut v.1);
    /// *second = 5;
    /// drop(second);
    /// assert_eq!(*m.lock().await, (1, 5));
    /// # });
    /// ```
    pub fn map<U: ?Sized, F: FnOnce(&mut T) -> &mut U>(
        mut this: Self,
        f: F,
    ) -> MappedMutexGuard<'a, U> {
        let data = f(&mut *this) as *mut U;
        let this = ManuallyDrop::new(this);
        MappedMutexGuard {
            s: &this.lock.s,
            data,
            marker: PhantomData,
        }
    }

    /// Like [`map`](MutexGuard::map), but `f` may decline (giving the guard back).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{Mutex, MutexGuard};
    /// let m = Mutex::new(vec![1]);
    /// let g = MutexGuard::try_map(m.lock().await, |v| v.get_mut(5)).unwrap_err();
    /// assert_eq!(*g, [1]);
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
            s: &this.lock.s,
            data,
            marker: PhantomData,
        })
    }

    /// The mutex this guard locks.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{Mutex, MutexGuard};
    /// let m = Mutex::new(0);
    /// let g = m.lock().await;
    /// assert!(std::ptr::eq(MutexGuard::mutex(&g), &m));
    /// # });
    /// ```
    pub fn mutex(this: &Self) -> &'a Mutex<T> {
        this.lock
    }
}

impl<T: ?Sized> OwnedMutexGuard<T> {
    /// Narrows the guard to a part of the value (the lock stays held).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{Mutex, OwnedMutexGuard};
    /// let m = std::sync::Arc::new(Mutex::new((1, 2)));
    /// let mut g = OwnedMutexGuard::map(m.clone().lock_owned().await, |v| &mut v.0);
    /// *g = 7;
    /// drop(g);
    /// assert_eq!(*m.lock().await, (7, 2));
    /// # });
    /// ```
    pub fn map<U: ?Sized, F: FnOnce(&mut T) -> &mut U>(
        mut this: Self,
        f: F,
    ) -> OwnedMappedMutexGuard<T, U> {
        let data = f(&mut *this) as *mut U;
        let this = ManuallyDrop::new(this);
        // SAFETY: `this` is never dropped, so its `Arc` is moved out exactly once.
        let lock = unsafe { std::ptr::read(&this.lock) };
        OwnedMappedMutexGuard { data, lock }
    }

    /// Like [`map`](OwnedMutexGuard::map), but `f` may decline (giving the guard back).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// use runtime::sync::{Mutex, OwnedMutexGuard};
    /// let m = std::sync::Arc::new(Mutex::new(vec![1]));
    /// let g = OwnedMutexGuard::try_map(m.lock_owned().await, |v| v.get_mut(4)).unwrap_err();
    /// assert_eq!(*g, [1]);
    /// # });
    /// ```
    pub fn try_map<U: ?Sized, F: FnOnce(&mut T) -> Option<&mut U>>(
        mut this: Self,
        f: F,
    ) -> Result<OwnedMappedMutexGuard<T, U>, Self> {
        let data = match f(&mut *this) {
            Some(d) => d as *mut U,
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
    /// let m = std::sync::Arc::new(runtime::sync::Mutex::new(0));
    /// let g = m.clone().try_lock_owned().unwrap();
    /// assert!(std::sync::Arc::ptr_eq(runtime::sync::OwnedMutexGuard::mutex(&g), &m));
    /// ```
    pub fn mutex(this: &Self) -> &Arc<Mutex<T>> {
        &this.lock
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: we hold the lock's permit: nobody else touches the value.
        unsafe { &*self.lock.data() }
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, and `&mut self` makes the access unique.
        unsafe { &mut *self.lock.data() }
    }
}

impl<T: ?Sized> Deref for OwnedMutexGuard<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: we hold the lock's permit.
        unsafe { &*self.lock.data() }
    }
}

impl<T: ?Sized> DerefMut for OwnedMutexGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: we hold the lock's permit, and `&mut self` makes the access unique.
        unsafe { &mut *self.lock.data() }
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.s.release(1);
    }
}

impl<T: ?Sized> Drop for OwnedMutexGuard<T> {
    fn drop(&mut self) {
        self.lock.s.release(1);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for OwnedMutexGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for OwnedMutexGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}
