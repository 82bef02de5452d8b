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
use std::future::Future;
use std::marker::PhantomData;
use std::panic::Location;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use shim::cell::UnsafeCell;

use super::batch_semaphore::{AcquireFut, Kind, Sem};
use super::not_unpin::NotUnpin;
use super::TryLockError;

mod guards;
mod owned_guards;

pub use guards::{RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard};
pub use owned_guards::{OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard};

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
pub struct RwLock<T: ?Sized> {
    mr: u32,
    s: Sem,
    c: UnsafeCell<T>,
}

// SAFETY: the value moves between threads with the write lock (`Send`) and is shared by
// readers on several threads at once (`Sync`).
unsafe impl<T: ?Sized + Send> Send for RwLock<T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLock<T> {}
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
    #[track_caller]
    pub fn with_max_readers(value: T, max_reads: u32) -> RwLock<T> {
        assert_ne!(
            max_reads, 0,
            "a RwLock may not be created with 0 readers (max_reads must be in 1..={MAX_READS})"
        );
        assert!(
            max_reads <= MAX_READS,
            "a RwLock may not be created with more than {MAX_READS} readers \
             (max_reads must be in 1..={MAX_READS}, got {max_reads})"
        );
        RwLock {
            mr: max_reads,
            s: Sem::new(max_reads as usize).with_kind(Kind::RwLock),
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
            s: Sem::const_new(MAX_READS as usize).with_kind(Kind::RwLock),
            c: UnsafeCell::new(value),
        }
    }

    /// [`with_max_readers`](RwLock::with_max_readers), usable in a `static`.
    ///
    /// ```
    /// use runtime::sync::RwLock;
    /// static L: RwLock<u8> = RwLock::const_with_max_readers(3, 1);
    /// let _a = L.try_read().unwrap();
    /// assert!(L.try_read().is_err());
    /// ```
    ///
    /// # Panics
    ///
    /// When `max_reads` is 0 or more than `u32::MAX >> 3` (at compile time in a `static`).
    #[cfg(not(loom))]
    pub const fn const_with_max_readers(value: T, max_reads: u32) -> RwLock<T> {
        assert!(
            max_reads != 0,
            "a RwLock may not be created with 0 readers (max_reads must be in 1..=u32::MAX >> 3)"
        );
        assert!(
            max_reads <= MAX_READS,
            "a RwLock may not be created with more than u32::MAX >> 3 readers \
             (max_reads must be in 1..=u32::MAX >> 3)"
        );
        RwLock {
            mr: max_reads,
            s: Sem::const_new(max_reads as usize).with_kind(Kind::RwLock),
            c: UnsafeCell::new(value),
        }
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

/// The future of [`RwLock::read`]: the semaphore's acquire (which holds the caller's
/// location), then the guard. Written out rather than `async`, as `Mutex::lock`'s.
struct Read<'a, T: ?Sized> {
    acquire: AcquireFut<'a>,
    lock: &'a RwLock<T>,
}

impl<'a, T: ?Sized> Future for Read<'a, T> {
    type Output = RwLockReadGuard<'a, T>;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if std::task::ready!(Pin::new(&mut self.acquire).poll(cx)).is_err() {
            unreachable!("an RwLock's semaphore is never closed");
        }
        let lock = self.lock;
        Poll::Ready(RwLockReadGuard {
            s: &lock.s,
            data: lock.ptr(),
            marker: PhantomData,
        })
    }
}

/// The future of [`RwLock::write`]: as [`Read`], then the holder word.
struct Write<'a, T: ?Sized> {
    acquire: AcquireFut<'a>,
    lock: &'a RwLock<T>,
}

impl<'a, T: ?Sized> Future for Write<'a, T> {
    type Output = RwLockWriteGuard<'a, T>;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if std::task::ready!(Pin::new(&mut self.acquire).poll(cx)).is_err() {
            unreachable!("an RwLock's semaphore is never closed");
        }
        let lock = self.lock;
        lock.s.note_holder();
        Poll::Ready(RwLockWriteGuard {
            s: &lock.s,
            permits: lock.mr,
            data: lock.ptr(),
            marker: PhantomData,
        })
    }
}

impl<T: ?Sized> RwLock<T> {
    fn ptr(&self) -> *mut T {
        self.c.with_mut(|p| p)
    }

    async fn acquire(&self, n: u32, at: &'static Location<'static>) {
        if self.s.acquire_at(n as usize, at).await.is_err() {
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
    ///
    /// A task dump shows a task queued here as waiting at the caller's location.
    #[track_caller]
    pub fn read(&self) -> impl Future<Output = RwLockReadGuard<'_, T>> {
        NotUnpin::new(Read {
            acquire: self.s.acquire_at(1, Location::caller()),
            lock: self,
        })
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
    ///
    /// A task dump shows a task queued here as waiting at the caller's location.
    #[track_caller]
    pub fn write(&self) -> impl Future<Output = RwLockWriteGuard<'_, T>> {
        NotUnpin::new(Write {
            acquire: self.s.acquire_at(self.mr as usize, Location::caller()),
            lock: self,
        })
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
    #[track_caller]
    pub fn read_owned(self: Arc<Self>) -> impl Future<Output = OwnedRwLockReadGuard<T>> {
        let at = Location::caller();
        async move {
            self.acquire(1, at).await;
            let data = self.ptr();
            OwnedRwLockReadGuard { lock: self, data }
        }
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
    #[track_caller]
    pub fn write_owned(self: Arc<Self>) -> impl Future<Output = OwnedRwLockWriteGuard<T>> {
        let at = Location::caller();
        async move {
            self.acquire(self.mr, at).await;
            self.s.note_holder();
            OwnedRwLockWriteGuard { lock: self }
        }
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
        self.s.note_holder();
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
        self.s.note_holder();
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
    #[track_caller]
    pub fn blocking_read(&self) -> RwLockReadGuard<'_, T> {
        crate::context::assert_not_in_runtime(crate::misuse::RWLOCK_BLOCKING_READ);
        futures_executor::block_on(self.read())
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
    #[track_caller]
    pub fn blocking_write(&self) -> RwLockWriteGuard<'_, T> {
        crate::context::assert_not_in_runtime(crate::misuse::RWLOCK_BLOCKING_WRITE);
        futures_executor::block_on(self.write())
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

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("RwLock");
        match self.try_read() {
            Ok(g) => d.field("data", &&*g),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}
