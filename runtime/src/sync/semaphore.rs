//! `Semaphore`: a fair counting semaphore, and its permits.
//!
//! A thin public face over the crate's batch semaphore (`batch_semaphore`, whose module
//! doc gives the algorithm): permits are counted in one atomic word, waiters queue FIFO,
//! and a permit is a guard that gives its permits back when dropped.

use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::batch_semaphore::{AcquireFut, Sem, TryAcquire};
use super::not_unpin::NotUnpin;

/// A counting semaphore: a pool of permits that tasks acquire (waiting when there are too
/// few) and give back by dropping the permit.
///
/// Fair: waiters are served in the order they asked, so a large
/// [`acquire_many`](Semaphore::acquire_many) is not starved by a stream of small ones
/// (while it waits, later acquires queue behind it, even ones that would fit).
///
/// ```
/// use std::sync::Arc;
/// use runtime::sync::Semaphore;
///
/// # runtime::Runtime::new().unwrap().block_on(async {
/// let limit = Arc::new(Semaphore::new(2));
/// let mut tasks = Vec::new();
/// for i in 0..5 {
///     let permit = limit.clone().acquire_owned().await.unwrap();
///     tasks.push(runtime::spawn(async move {
///         let _permit = permit; // at most two of these run at once
///         i * 2
///     }));
/// }
/// for t in tasks {
///     t.await.unwrap();
/// }
/// assert_eq!(limit.available_permits(), 2);
/// # });
/// ```
pub struct Semaphore {
    ll: Sem,
}

/// A permit from a [`Semaphore`], borrowed; its permits go back when it is dropped.
#[must_use = "dropping the permit gives it back at once"]
pub struct SemaphorePermit<'a> {
    sem: &'a Semaphore,
    permits: usize,
}

/// A permit from an `Arc<Semaphore>`, owned (`'static`, can move into a task); its permits
/// go back when it is dropped.
#[must_use = "dropping the permit gives it back at once"]
pub struct OwnedSemaphorePermit {
    sem: Arc<Semaphore>,
    permits: usize,
}

/// The semaphore was closed: no permit will come.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcquireError(());

/// Why a `try_acquire*` call got no permit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TryAcquireError {
    /// The semaphore was closed.
    Closed,
    /// There are not enough permits now (or others are queued for them first).
    NoPermits,
}

impl fmt::Display for AcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("semaphore closed")
    }
}

impl std::error::Error for AcquireError {}

impl fmt::Display for TryAcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryAcquireError::Closed => f.write_str("semaphore closed"),
            TryAcquireError::NoPermits => f.write_str("no permits available"),
        }
    }
}

impl std::error::Error for TryAcquireError {}

impl TryAcquireError {
    /// True for [`TryAcquireError::Closed`].
    pub fn is_closed(&self) -> bool {
        matches!(self, TryAcquireError::Closed)
    }

    /// True for [`TryAcquireError::NoPermits`].
    pub fn is_no_permits(&self) -> bool {
        matches!(self, TryAcquireError::NoPermits)
    }
}

fn try_err(e: TryAcquire) -> TryAcquireError {
    match e {
        TryAcquire::Closed => TryAcquireError::Closed,
        TryAcquire::NoPermits => TryAcquireError::NoPermits,
    }
}

/// The future of [`Semaphore::acquire`] and [`Semaphore::acquire_many`]: the batch
/// semaphore's acquire (which holds the caller's location, if any), then the permit.
/// Written out rather than `async`, as `Mutex::lock`'s.
pub(crate) struct Acquire<'a> {
    acquire: AcquireFut<'a>,
    sem: &'a Semaphore,
}

impl<'a> Future for Acquire<'a> {
    type Output = Result<SemaphorePermit<'a>, AcquireError>;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let out = std::task::ready!(Pin::new(&mut self.acquire).poll(cx));
        Poll::Ready(match out {
            Ok(()) => Ok(SemaphorePermit {
                sem: self.sem,
                permits: self.acquire.needed(),
            }),
            Err(_) => Err(AcquireError(())),
        })
    }
}

impl Semaphore {
    /// The most permits a semaphore can hold (`usize::MAX >> 3`).
    pub const MAX_PERMITS: usize = super::batch_semaphore::MAX_PERMITS;

    /// A semaphore with `permits` permits.
    ///
    /// ```
    /// let s = runtime::sync::Semaphore::new(3);
    /// assert_eq!(s.available_permits(), 3);
    /// ```
    ///
    /// # Panics
    ///
    /// When `permits` exceeds [`Semaphore::MAX_PERMITS`].
    pub fn new(permits: usize) -> Semaphore {
        Semaphore {
            ll: Sem::new(permits),
        }
    }

    /// A semaphore usable in a `static`.
    ///
    /// ```
    /// use runtime::sync::Semaphore;
    /// static LIMIT: Semaphore = Semaphore::const_new(10);
    /// assert_eq!(LIMIT.available_permits(), 10);
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new(permits: usize) -> Semaphore {
        Semaphore {
            ll: Sem::const_new(permits),
        }
    }

    /// The permits available now (0 while anyone waits: waiting acquires are served first).
    ///
    /// ```
    /// let s = runtime::sync::Semaphore::new(2);
    /// let _p = s.try_acquire().unwrap();
    /// assert_eq!(s.available_permits(), 1);
    /// ```
    pub fn available_permits(&self) -> usize {
        self.ll.available_permits()
    }

    /// Adds `n` permits, serving queued acquires first (in order).
    ///
    /// ```
    /// let s = runtime::sync::Semaphore::new(0);
    /// s.add_permits(2);
    /// assert_eq!(s.available_permits(), 2);
    /// ```
    ///
    /// # Panics
    ///
    /// When the total would exceed [`Semaphore::MAX_PERMITS`].
    pub fn add_permits(&self, n: usize) {
        self.ll.release(n);
    }

    /// Removes up to `n` of the available permits for good; returns how many it removed.
    ///
    /// ```
    /// let s = runtime::sync::Semaphore::new(3);
    /// assert_eq!(s.forget_permits(5), 3);
    /// assert_eq!(s.available_permits(), 0);
    /// ```
    pub fn forget_permits(&self, n: usize) -> usize {
        self.ll.forget(n)
    }

    /// Waits for one permit.
    ///
    /// Fails only once the semaphore is [closed](Semaphore::close).
    ///
    /// # Cancel safety
    ///
    /// Fair, so not cancel safe in the sense of keeping one's place: dropping the future
    /// gives up its place in the queue. Nothing is lost: a permit it was handed meanwhile
    /// goes on to the next waiter.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let s = runtime::sync::Semaphore::new(1);
    /// let permit = s.acquire().await.unwrap();
    /// assert_eq!(s.available_permits(), 0);
    /// drop(permit);
    /// assert_eq!(s.available_permits(), 1);
    /// # });
    /// ```
    ///
    /// A task dump shows a task queued here as waiting at the caller's location.
    #[track_caller]
    pub fn acquire(&self) -> impl Future<Output = Result<SemaphorePermit<'_>, AcquireError>> {
        NotUnpin::new(self.acquire_at(1, Some(Location::caller())))
    }

    /// `n` permits, awaited at `at` (`None`: the crate's own waits, which would otherwise
    /// name a line of the crate).
    pub(crate) fn acquire_at(&self, n: u32, at: Option<&'static Location<'static>>) -> Acquire<'_> {
        let acquire = match at {
            Some(at) => self.ll.acquire_at(n as usize, at),
            None => self.ll.acquire(n as usize),
        };
        Acquire { acquire, sem: self }
    }

    /// Waits for `n` permits at once. While it waits, it holds those handed to it so far,
    /// and later acquires queue behind it (so it is not starved).
    ///
    /// # Cancel safety
    ///
    /// As [`acquire`](Semaphore::acquire): dropping the future gives up its place and hands
    /// the permits it had been given to the next waiters.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let s = runtime::sync::Semaphore::new(3);
    /// let p = s.acquire_many(3).await.unwrap();
    /// assert_eq!(p.num_permits(), 3);
    /// # });
    /// ```
    #[track_caller]
    pub fn acquire_many(
        &self,
        n: u32,
    ) -> impl Future<Output = Result<SemaphorePermit<'_>, AcquireError>> {
        NotUnpin::new(self.acquire_at(n, Some(Location::caller())))
    }

    /// [`acquire`](Semaphore::acquire) from synchronous code (a plain thread or
    /// `spawn_blocking`), blocking it until a permit comes.
    ///
    /// ```
    /// let s = std::sync::Arc::new(runtime::sync::Semaphore::new(1));
    /// let s2 = s.clone();
    /// let held = std::thread::spawn(move || s2.blocking_acquire().unwrap().num_permits());
    /// assert_eq!(held.join().unwrap(), 1);
    /// assert_eq!(s.available_permits(), 1);
    /// ```
    ///
    /// # Panics
    ///
    /// Inside a runtime (it would block a worker): `.await` [`acquire`](Semaphore::acquire)
    /// instead.
    #[track_caller]
    pub fn blocking_acquire(&self) -> Result<SemaphorePermit<'_>, AcquireError> {
        crate::context::assert_not_in_runtime(crate::misuse::SEMAPHORE_BLOCKING_ACQUIRE);
        futures_executor::block_on(self.acquire())
    }

    /// [`acquire_many`](Semaphore::acquire_many) from synchronous code, blocking it.
    ///
    /// ```
    /// let s = runtime::sync::Semaphore::new(3);
    /// assert_eq!(s.blocking_acquire_many(3).unwrap().num_permits(), 3);
    /// ```
    ///
    /// # Panics
    ///
    /// Inside a runtime: `.await` [`acquire_many`](Semaphore::acquire_many) instead.
    #[track_caller]
    pub fn blocking_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, AcquireError> {
        crate::context::assert_not_in_runtime(crate::misuse::SEMAPHORE_BLOCKING_ACQUIRE);
        futures_executor::block_on(self.acquire_many(n))
    }

    /// [`acquire_owned`](Semaphore::acquire_owned) from synchronous code, blocking it.
    ///
    /// ```
    /// let s = std::sync::Arc::new(runtime::sync::Semaphore::new(1));
    /// let p = s.clone().blocking_acquire_owned().unwrap();
    /// assert_eq!(s.available_permits(), 0);
    /// drop(p);
    /// ```
    ///
    /// # Panics
    ///
    /// Inside a runtime: `.await` [`acquire_owned`](Semaphore::acquire_owned) instead.
    #[track_caller]
    pub fn blocking_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, AcquireError> {
        crate::context::assert_not_in_runtime(crate::misuse::SEMAPHORE_BLOCKING_ACQUIRE);
        futures_executor::block_on(self.acquire_owned())
    }

    /// [`acquire_many_owned`](Semaphore::acquire_many_owned) from synchronous code,
    /// blocking it.
    ///
    /// ```
    /// let s = std::sync::Arc::new(runtime::sync::Semaphore::new(2));
    /// assert_eq!(s.blocking_acquire_many_owned(2).unwrap().num_permits(), 2);
    /// ```
    ///
    /// # Panics
    ///
    /// Inside a runtime: `.await` [`acquire_many_owned`](Semaphore::acquire_many_owned)
    /// instead.
    #[track_caller]
    pub fn blocking_acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, AcquireError> {
        crate::context::assert_not_in_runtime(crate::misuse::SEMAPHORE_BLOCKING_ACQUIRE);
        futures_executor::block_on(self.acquire_many_owned(n))
    }

    /// Takes one permit if one is available now (and nobody is queued before).
    ///
    /// ```
    /// use runtime::sync::{Semaphore, TryAcquireError};
    /// let s = Semaphore::new(1);
    /// let p = s.try_acquire().unwrap();
    /// assert_eq!(s.try_acquire().unwrap_err(), TryAcquireError::NoPermits);
    /// drop(p);
    /// s.close();
    /// assert_eq!(s.try_acquire().unwrap_err(), TryAcquireError::Closed);
    /// ```
    pub fn try_acquire(&self) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.try_acquire_many(1)
    }

    /// Takes `n` permits if they are available now.
    ///
    /// ```
    /// let s = runtime::sync::Semaphore::new(4);
    /// assert_eq!(s.try_acquire_many(3).unwrap().num_permits(), 3);
    /// ```
    pub fn try_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.ll.try_acquire(n as usize).map_err(try_err)?;
        Ok(SemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// [`acquire`](Semaphore::acquire) for an `Arc<Semaphore>`: the permit owns a clone of
    /// the `Arc`, so it can move into a spawned task.
    ///
    /// # Cancel safety
    ///
    /// As [`acquire`](Semaphore::acquire).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let s = std::sync::Arc::new(runtime::sync::Semaphore::new(1));
    /// let p = s.clone().acquire_owned().await.unwrap();
    /// runtime::spawn(async move { drop(p) }).await.unwrap();
    /// assert_eq!(s.available_permits(), 1);
    /// # });
    /// ```
    #[track_caller]
    pub fn acquire_owned(
        self: Arc<Self>,
    ) -> impl Future<Output = Result<OwnedSemaphorePermit, AcquireError>> {
        self.acquire_many_owned(1)
    }

    /// [`acquire_many`](Semaphore::acquire_many) for an `Arc<Semaphore>`.
    ///
    /// # Cancel safety
    ///
    /// As [`acquire`](Semaphore::acquire).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let s = std::sync::Arc::new(runtime::sync::Semaphore::new(2));
    /// let p = s.clone().acquire_many_owned(2).await.unwrap();
    /// assert_eq!(p.num_permits(), 2);
    /// # });
    /// ```
    #[track_caller]
    pub fn acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> impl Future<Output = Result<OwnedSemaphorePermit, AcquireError>> {
        let at = Location::caller();
        async move {
            match self.ll.acquire_at(n as usize, at).await {
                Ok(()) => Ok(OwnedSemaphorePermit {
                    sem: self,
                    permits: n as usize,
                }),
                Err(_) => Err(AcquireError(())),
            }
        }
    }

    /// [`try_acquire`](Semaphore::try_acquire) for an `Arc<Semaphore>`.
    ///
    /// ```
    /// let s = std::sync::Arc::new(runtime::sync::Semaphore::new(1));
    /// let p = s.clone().try_acquire_owned().unwrap();
    /// assert!(s.clone().try_acquire_owned().is_err());
    /// ```
    pub fn try_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        self.try_acquire_many_owned(1)
    }

    /// [`try_acquire_many`](Semaphore::try_acquire_many) for an `Arc<Semaphore>`.
    ///
    /// ```
    /// let s = std::sync::Arc::new(runtime::sync::Semaphore::new(3));
    /// assert_eq!(s.try_acquire_many_owned(2).unwrap().num_permits(), 2);
    /// ```
    pub fn try_acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        self.ll.try_acquire(n as usize).map_err(try_err)?;
        Ok(OwnedSemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// Closes the semaphore: queued and later acquires fail with [`AcquireError`]; permits
    /// already held stay valid (and still come back when dropped). As tokio's, a queued
    /// acquire fails even if the permits were handed to it just before the close, unseen;
    /// what a failed acquire held comes back when it fails (or is dropped).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let s = runtime::sync::Semaphore::new(0);
    /// s.close();
    /// assert!(s.acquire().await.is_err());
    /// assert!(s.is_closed());
    /// # });
    /// ```
    pub fn close(&self) {
        self.ll.close();
    }

    /// True once [`close`](Semaphore::close) was called.
    ///
    /// ```
    /// let s = runtime::sync::Semaphore::new(1);
    /// assert!(!s.is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        self.ll.is_closed()
    }
}

impl<'a> SemaphorePermit<'a> {
    /// Keeps the permits out of the semaphore for good (dropping the permit gives nothing
    /// back).
    ///
    /// ```
    /// let s = runtime::sync::Semaphore::new(1);
    /// s.try_acquire().unwrap().forget();
    /// assert_eq!(s.available_permits(), 0);
    /// ```
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// Adds `other`'s permits to this one.
    ///
    /// ```
    /// let s = runtime::sync::Semaphore::new(2);
    /// let mut a = s.try_acquire().unwrap();
    /// a.merge(s.try_acquire().unwrap());
    /// assert_eq!(a.num_permits(), 2);
    /// ```
    ///
    /// # Panics
    ///
    /// When `other` is from another semaphore.
    #[track_caller]
    pub fn merge(&mut self, mut other: Self) {
        assert!(
            std::ptr::eq(self.sem, other.sem),
            "merging permits from different semaphore instances"
        );
        self.permits += std::mem::take(&mut other.permits);
    }

    /// Splits `n` permits off into a new permit; `None` (and no change) when this one holds
    /// fewer than `n`.
    ///
    /// ```
    /// let s = runtime::sync::Semaphore::new(3);
    /// let mut a = s.try_acquire_many(3).unwrap();
    /// let b = a.split(1).unwrap();
    /// assert_eq!((a.num_permits(), b.num_permits()), (2, 1));
    /// assert!(a.split(5).is_none());
    /// ```
    pub fn split(&mut self, n: usize) -> Option<Self> {
        if n > self.permits {
            return None;
        }
        self.permits -= n;
        Some(SemaphorePermit {
            sem: self.sem,
            permits: n,
        })
    }

    /// How many permits this holds.
    ///
    /// ```
    /// let s = runtime::sync::Semaphore::new(2);
    /// assert_eq!(s.try_acquire_many(2).unwrap().num_permits(), 2);
    /// ```
    pub fn num_permits(&self) -> usize {
        self.permits
    }

    /// The semaphore this permit is from.
    ///
    /// ```
    /// let s = runtime::sync::Semaphore::new(1);
    /// let p = s.try_acquire().unwrap();
    /// assert!(std::ptr::eq(p.semaphore(), &s));
    /// ```
    pub fn semaphore(&self) -> &Semaphore {
        self.sem
    }
}

impl OwnedSemaphorePermit {
    /// Keeps the permits out of the semaphore for good.
    ///
    /// ```
    /// let s = std::sync::Arc::new(runtime::sync::Semaphore::new(1));
    /// s.clone().try_acquire_owned().unwrap().forget();
    /// assert_eq!(s.available_permits(), 0);
    /// ```
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// Adds `other`'s permits to this one.
    ///
    /// ```
    /// let s = std::sync::Arc::new(runtime::sync::Semaphore::new(2));
    /// let mut a = s.clone().try_acquire_owned().unwrap();
    /// a.merge(s.clone().try_acquire_owned().unwrap());
    /// assert_eq!(a.num_permits(), 2);
    /// ```
    ///
    /// # Panics
    ///
    /// When `other` is from another semaphore.
    #[track_caller]
    pub fn merge(&mut self, mut other: Self) {
        assert!(
            Arc::ptr_eq(&self.sem, &other.sem),
            "merging permits from different semaphore instances"
        );
        self.permits += std::mem::take(&mut other.permits);
    }

    /// Splits `n` permits off into a new permit; `None` when this one holds fewer.
    ///
    /// ```
    /// let s = std::sync::Arc::new(runtime::sync::Semaphore::new(2));
    /// let mut a = s.try_acquire_many_owned(2).unwrap();
    /// assert_eq!(a.split(1).unwrap().num_permits(), 1);
    /// ```
    pub fn split(&mut self, n: usize) -> Option<Self> {
        if n > self.permits {
            return None;
        }
        self.permits -= n;
        Some(OwnedSemaphorePermit {
            sem: self.sem.clone(),
            permits: n,
        })
    }

    /// How many permits this holds.
    ///
    /// ```
    /// let s = std::sync::Arc::new(runtime::sync::Semaphore::new(1));
    /// assert_eq!(s.try_acquire_owned().unwrap().num_permits(), 1);
    /// ```
    pub fn num_permits(&self) -> usize {
        self.permits
    }

    /// The semaphore this permit is from.
    ///
    /// ```
    /// let s = std::sync::Arc::new(runtime::sync::Semaphore::new(1));
    /// let p = s.clone().try_acquire_owned().unwrap();
    /// assert!(std::sync::Arc::ptr_eq(p.semaphore(), &s));
    /// ```
    pub fn semaphore(&self) -> &Arc<Semaphore> {
        &self.sem
    }
}

impl Drop for SemaphorePermit<'_> {
    fn drop(&mut self) {
        self.sem.ll.release(self.permits);
    }
}

impl Drop for OwnedSemaphorePermit {
    fn drop(&mut self) {
        self.sem.ll.release(self.permits);
    }
}

impl fmt::Debug for Semaphore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Semaphore")
            .field("permits", &self.available_permits())
            .field("closed", &self.is_closed())
            .finish()
    }
}

impl fmt::Debug for SemaphorePermit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SemaphorePermit")
            .field("permits", &self.permits)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for OwnedSemaphorePermit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedSemaphorePermit")
            .field("permits", &self.permits)
            .finish_non_exhaustive()
    }
}
