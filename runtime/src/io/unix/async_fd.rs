//! `AsyncFd<T>`: an owned value holding a file descriptor, registered with the I/O driver.
//!
//! Mechanism: the descriptor (read once, at creation) is registered through mio's
//! `SourceFd` with the interest given (readable and writable by default; an interest in
//! errors alone registers for readable, see `Interest::to_mio`). The driver records
//! readiness in the registration's word; a `poll_*_ready`/`readable`/`writable`/`ready`
//! call spends one unit of the task's cooperative budget and waits until the word holds
//! readiness the call covers, then hands out a guard carrying that readiness and the
//! driver tick it was set at. Nothing is cleared by waiting: the user tries the operation
//! and, on `WouldBlock`, clears the guard's readiness (`clear_ready`, or `try_io` does it),
//! a tick-checked clear that keeps an event dispatched in between.
//!
//! Invariants: `inner` is `Some` from creation until `into_inner` or drop; the descriptor
//! is removed from epoll before `inner` is handed back or dropped (so it is never closed
//! while registered), and the registration's slab slot is freed after that (its
//! generation bump makes a late event for the old token land nowhere).

use std::error::Error;
use std::fmt;
use std::future::poll_fn;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::task::{ready, Context, Poll};

use io_driver::{Direction, Ready as DriverReady, ReadyEvent, Registration};
use mio::unix::SourceFd;

use super::guard::{AsyncFdReadyGuard, AsyncFdReadyMutGuard};
use crate::coop;
use crate::io::Interest;

/// A file descriptor (owned through `T`) registered with the runtime's I/O driver, as
/// tokio's `AsyncFd`.
///
/// Creating one makes the descriptor's readiness observable from tasks; it does not make
/// the descriptor non-blocking: set `O_NONBLOCK` yourself (a read on a blocking descriptor
/// that reported readiness spuriously would block the worker).
///
/// ```
/// use std::os::fd::{FromRawFd, OwnedFd};
/// use runtime::io::unix::AsyncFd;
///
/// # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
/// // SAFETY: eventfd returns a fresh descriptor we own (checked below).
/// let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
/// assert!(fd >= 0);
/// // SAFETY: `fd` is open and owned by nobody else.
/// let efd = AsyncFd::new(unsafe { OwnedFd::from_raw_fd(fd) })?;
/// let one = 1u64.to_ne_bytes();
/// // SAFETY: writes 8 bytes from a live buffer to the open eventfd.
/// assert_eq!(unsafe { libc::write(fd, one.as_ptr().cast(), 8) }, 8);
/// let mut guard = efd.readable().await?;
/// let value = guard.try_io(|inner| {
///     let mut buf = [0u8; 8];
///     // SAFETY: reads 8 bytes into a live buffer from the open eventfd.
///     let n = unsafe { libc::read(inner.as_raw_fd(), buf.as_mut_ptr().cast(), 8) };
///     if n < 0 { Err(std::io::Error::last_os_error()) } else { Ok(u64::from_ne_bytes(buf)) }
/// });
/// assert_eq!(value.unwrap()?, 1);
/// # use std::os::fd::AsRawFd;
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub struct AsyncFd<T: AsRawFd> {
    registration: Registration,
    fd: RawFd,
    inner: Option<T>,
}

/// The error of [`AsyncFd::register`] / [`AsyncFd::try_new`] and their `_with_interest`
/// forms: why the descriptor could not be registered, and the value, handed back.
pub struct AsyncFdRegisterError<T> {
    inner: T,
    cause: io::Error,
}

impl<T> AsyncFdRegisterError<T> {
    /// The value that was to be registered, and the registration's error.
    pub fn into_parts(self) -> (T, io::Error) {
        (self.inner, self.cause)
    }
}

impl<T> fmt::Display for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.cause, f)
    }
}

impl<T> fmt::Debug for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.cause, f)
    }
}

impl<T> Error for AsyncFdRegisterError<T> {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.cause)
    }
}

/// The older name of [`AsyncFdRegisterError`] (tokio keeps both).
pub type AsyncFdTryNewError<T> = AsyncFdRegisterError<T>;

impl<T> From<AsyncFdRegisterError<T>> for io::Error {
    fn from(e: AsyncFdRegisterError<T>) -> io::Error {
        e.cause
    }
}

const ALL: Interest = Interest::READABLE.add(Interest::WRITABLE);

impl<T: AsRawFd> AsyncFd<T> {
    /// Registers `inner`'s descriptor for readable and writable readiness.
    ///
    /// # Errors
    /// When epoll refuses the descriptor (`EPERM` for a regular file, `EEXIST` if it is
    /// registered already); `inner` is dropped then (see [`Self::try_new`]).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn new(inner: T) -> io::Result<Self> {
        Self::with_interest(inner, ALL)
    }

    /// [`Self::new`] with the given interest.
    ///
    /// # Errors
    /// As [`Self::new`].
    ///
    /// # Panics
    /// As [`Self::new`].
    #[track_caller]
    pub fn with_interest(inner: T, interest: Interest) -> io::Result<Self> {
        Self::try_with_interest(inner, interest).map_err(Into::into)
    }

    /// [`Self::new`], handing `inner` back on error.
    ///
    /// # Errors
    /// As [`Self::new`], with the value.
    ///
    /// # Panics
    /// As [`Self::new`].
    #[track_caller]
    pub fn try_new(inner: T) -> Result<Self, AsyncFdRegisterError<T>> {
        Self::try_with_interest(inner, ALL)
    }

    /// [`Self::try_new`] under tokio 1.54's name, which makes the caller promise what
    /// [`AsRawFd`] cannot: tokio deprecates `new`/`try_new` for it. This `AsyncFd` stays
    /// sound either way (it never hands out the descriptor as a `BorrowedFd` on the
    /// strength of the cached number), so the promise only keeps epoll watching the
    /// right file.
    ///
    /// # Safety
    /// `inner.as_raw_fd()` must be an open descriptor that stays open, naming the same
    /// open file description, until the `AsyncFd` is dropped or `into_inner` is called.
    ///
    /// # Errors
    /// As [`Self::new`], with the value.
    ///
    /// # Panics
    /// As [`Self::new`].
    #[track_caller]
    pub unsafe fn register(inner: T) -> Result<Self, AsyncFdRegisterError<T>> {
        Self::try_with_interest(inner, ALL)
    }

    /// [`Self::register`] with the given interest.
    ///
    /// # Safety
    /// As [`Self::register`].
    ///
    /// # Errors
    /// As [`Self::new`], with the value.
    ///
    /// # Panics
    /// As [`Self::new`].
    #[track_caller]
    pub unsafe fn register_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<Self, AsyncFdRegisterError<T>> {
        Self::try_with_interest(inner, interest)
    }

    /// [`Self::with_interest`], handing `inner` back on error.
    ///
    /// # Errors
    /// As [`Self::new`], with the value.
    ///
    /// # Panics
    /// As [`Self::new`].
    #[track_caller]
    pub fn try_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<Self, AsyncFdRegisterError<T>> {
        #[cfg(all(feature = "deterministic", not(loom)))]
        crate::sim::net::forbid_real(
            "AsyncFd::new",
            "Use the runtime's in-memory sockets (`runtime::net`), channels or \
             `runtime::io::duplex` in a deterministic test instead of a descriptor.",
        );
        let handle = crate::scheduler::Handle::current_io();
        let fd = inner.as_raw_fd();
        match handle.register(&mut SourceFd(&fd), interest.to_mio()) {
            Ok(registration) => Ok(AsyncFd {
                // The descriptor labels this resource's waiters in task dumps.
                registration: {
                    registration.set_fd(fd);
                    registration
                },
                fd,
                inner: Some(inner),
            }),
            Err(cause) => Err(AsyncFdRegisterError { inner, cause }),
        }
    }

    /// The value inside.
    pub fn get_ref(&self) -> &T {
        self.inner
            .as_ref()
            .expect("present until into_inner or drop")
    }

    /// The value inside, mutably.
    pub fn get_mut(&mut self) -> &mut T {
        self.inner
            .as_mut()
            .expect("present until into_inner or drop")
    }

    /// Removes the descriptor from the driver and hands the value back.
    pub fn into_inner(mut self) -> T {
        self.take_inner().expect("present until into_inner or drop")
    }

    fn take_inner(&mut self) -> Option<T> {
        let inner = self.inner.take()?;
        // Fails only if the descriptor left the epoll set already (the user closed or
        // replaced it behind our back): nothing to undo.
        let _ = self.registration.deregister(&mut SourceFd(&self.fd));
        Some(inner)
    }

    /// Spends budget and waits for readiness among `mask`.
    pub(super) fn poll_event(
        &self,
        cx: &mut Context<'_>,
        mask: DriverReady,
    ) -> Poll<io::Result<ReadyEvent>> {
        poll_registration(&self.registration, cx, mask)
    }

    /// Spends budget and waits for readiness in `dir` through `dir`'s single
    /// `poll_*_ready` slot (only the last task to poll is woken, as tokio's).
    fn poll_event_last(
        &self,
        cx: &mut Context<'_>,
        dir: Direction,
    ) -> Poll<io::Result<ReadyEvent>> {
        ready!(coop::poll_proceed(cx));
        self.registration.poll_ready_last(cx, dir)
    }

    pub(super) fn clear(&self, ev: ReadyEvent) {
        self.registration.clear_readiness(ev);
    }

    /// Polls for read readiness (readable, read-closed or an error): the guard holds it
    /// until cleared. As tokio's, only the waker of the last call is kept: a task that
    /// polls it replaces the one that polled before, which then gets no wake-up (several
    /// tasks waiting at once use [`readable`](Self::readable), where an event wakes all).
    pub fn poll_read_ready<'a>(
        &'a self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        let ev = ready!(self.poll_event_last(cx, Direction::Read))?;
        Poll::Ready(Ok(AsyncFdReadyGuard::new(self, ev)))
    }

    /// [`Self::poll_read_ready`] with a guard that lends the value mutably.
    pub fn poll_read_ready_mut<'a>(
        &'a mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, T>>> {
        let ev = ready!(self.poll_event_last(cx, Direction::Read))?;
        Poll::Ready(Ok(AsyncFdReadyMutGuard::new(self, ev)))
    }

    /// Polls for write readiness (writable, write-closed or an error). Only the waker of
    /// the last call is kept, as in [`poll_read_ready`](Self::poll_read_ready).
    pub fn poll_write_ready<'a>(
        &'a self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        let ev = ready!(self.poll_event_last(cx, Direction::Write))?;
        Poll::Ready(Ok(AsyncFdReadyGuard::new(self, ev)))
    }

    /// [`Self::poll_write_ready`] with a guard that lends the value mutably.
    pub fn poll_write_ready_mut<'a>(
        &'a mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, T>>> {
        let ev = ready!(self.poll_event_last(cx, Direction::Write))?;
        Poll::Ready(Ok(AsyncFdReadyMutGuard::new(self, ev)))
    }

    /// Waits until the descriptor is ready for any of `interest` (readable covers
    /// read-closed, writable write-closed, priority read-closed) and returns a guard
    /// holding what is set. An interest the descriptor was not registered for waits for
    /// nothing epoll will report.
    ///
    /// # Errors
    /// Once the runtime's driver has shut down.
    pub async fn ready(&self, interest: Interest) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        let ev = poll_fn(|cx| self.poll_event(cx, interest.mask())).await?;
        Ok(AsyncFdReadyGuard::new(self, ev))
    }

    /// [`Self::ready`] with a guard that lends the value mutably.
    ///
    /// # Errors
    /// As [`Self::ready`].
    pub async fn ready_mut(
        &mut self,
        interest: Interest,
    ) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        let ev = poll_fn(|cx| self.poll_event(cx, interest.mask())).await?;
        Ok(AsyncFdReadyMutGuard::new(self, ev))
    }

    /// Waits for read readiness ([`Self::ready`] with `Interest::READABLE`, errors
    /// included). Any number of tasks may wait.
    ///
    /// # Errors
    /// As [`Self::ready`].
    pub async fn readable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        let ev = poll_fn(|cx| self.poll_event(cx, Direction::Read.mask())).await?;
        Ok(AsyncFdReadyGuard::new(self, ev))
    }

    /// [`Self::readable`] with a guard that lends the value mutably.
    ///
    /// # Errors
    /// As [`Self::ready`].
    pub async fn readable_mut(&mut self) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        // The wait borrows only the registration, so the future is `Send` when `T` is
        // (tokio's), without asking `T: Sync` as a borrow of the whole `AsyncFd` would.
        let reg = &self.registration;
        let ev = poll_fn(|cx| poll_registration(reg, cx, Direction::Read.mask())).await?;
        Ok(AsyncFdReadyMutGuard::new(self, ev))
    }

    /// Waits for write readiness (errors included).
    ///
    /// # Errors
    /// As [`Self::ready`].
    pub async fn writable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        let ev = poll_fn(|cx| self.poll_event(cx, Direction::Write.mask())).await?;
        Ok(AsyncFdReadyGuard::new(self, ev))
    }

    /// [`Self::writable`] with a guard that lends the value mutably.
    ///
    /// # Errors
    /// As [`Self::ready`].
    pub async fn writable_mut(&mut self) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        // The wait borrows only the registration, so the future is `Send` when `T` is
        // (tokio's), without asking `T: Sync` as a borrow of the whole `AsyncFd` would.
        let reg = &self.registration;
        let ev = poll_fn(|cx| poll_registration(reg, cx, Direction::Write.mask())).await?;
        Ok(AsyncFdReadyMutGuard::new(self, ev))
    }

    /// Waits for `interest`, runs `f`, and on `WouldBlock` clears that readiness and waits
    /// again; any other result is returned.
    ///
    /// # Errors
    /// What `f` returns, or the driver's shutdown.
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        mut f: impl FnMut(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        loop {
            let mut guard = self.ready(interest).await?;
            if let Ok(res) = guard.try_io(|fd| f(fd.get_ref())) {
                return res;
            }
        }
    }

    /// [`Self::async_io`] lending the value mutably.
    ///
    /// # Errors
    /// As [`Self::async_io`].
    pub async fn async_io_mut<R>(
        &mut self,
        interest: Interest,
        mut f: impl FnMut(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        loop {
            let mut guard = self.ready_mut(interest).await?;
            if let Ok(res) = guard.try_io(|fd| f(fd.get_mut())) {
                return res;
            }
        }
    }

    /// Runs `f` once without waiting, as tokio's: `WouldBlock` at once, without calling
    /// `f`, when the driver holds no readiness `interest` covers; a `WouldBlock` from `f`
    /// clears that readiness, so the next wait waits for a new event. Use one direction
    /// per call.
    ///
    /// # Errors
    /// What `f` returns, or `WouldBlock`.
    pub fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        let Some(ev) = self.registration.ready_event_mask(interest.mask()) else {
            return Err(io::ErrorKind::WouldBlock.into());
        };
        let res = f(self.get_ref());
        if matches!(&res, Err(e) if e.kind() == io::ErrorKind::WouldBlock) {
            self.clear(ev);
        }
        res
    }

    /// [`Self::try_io`] lending the value mutably.
    ///
    /// # Errors
    /// What `f` returns, or `WouldBlock`.
    pub fn try_io_mut<R>(
        &mut self,
        interest: Interest,
        f: impl FnOnce(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        let Some(ev) = self.registration.ready_event_mask(interest.mask()) else {
            return Err(io::ErrorKind::WouldBlock.into());
        };
        let res = f(self.get_mut());
        if matches!(&res, Err(e) if e.kind() == io::ErrorKind::WouldBlock) {
            self.clear(ev);
        }
        res
    }
}

impl<T: AsRawFd> AsRawFd for AsyncFd<T> {
    fn as_raw_fd(&self) -> RawFd {
        self.fd
    }
}

/// The inner value's own `as_fd` (so no descriptor number is trusted without its owner).
impl<T: AsRawFd + AsFd> AsFd for AsyncFd<T> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.get_ref().as_fd()
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFd<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFd")
            .field("inner", &self.inner)
            .finish()
    }
}

impl<T: AsRawFd> Drop for AsyncFd<T> {
    fn drop(&mut self) {
        // Out of epoll first, then closed (by dropping `inner`); the registration's slot is
        // freed after this body.
        drop(self.take_inner());
    }
}

/// Spends budget and waits for readiness in `mask` on `reg`: `AsyncFd`'s waits, as a free
/// function so a future can borrow the registration alone.
fn poll_registration(
    reg: &Registration,
    cx: &mut Context<'_>,
    mask: DriverReady,
) -> Poll<io::Result<ReadyEvent>> {
    ready!(coop::poll_proceed(cx));
    reg.poll_ready_mask(cx, mask)
}
