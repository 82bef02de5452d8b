//! The readiness guards of [`AsyncFd`](super::AsyncFd) and [`TryIoError`].
//!
//! A guard carries the readiness event a wait returned (its bits and driver tick). It is
//! how a user says what the attempt that followed found: `clear_ready` after a
//! `WouldBlock` clears exactly that readiness (tick-checked, so an event dispatched since
//! survives) and the next wait waits for a new edge; dropping the guard, or
//! `retain_ready`, keeps it, and the next wait returns at once. `try_io` runs the attempt
//! and clears on `WouldBlock` itself. A guard clears at most once: a cleared guard's
//! `ready()` is empty.

use std::fmt;
use std::io;
use std::os::fd::AsRawFd;

use io_driver::ReadyEvent;

use super::AsyncFd;
use crate::io::Ready;

/// The error of a guard's `try_io` when the operation said `WouldBlock` (the readiness
/// was cleared; wait again).
pub struct TryIoError(());

impl fmt::Debug for TryIoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TryIoError(WouldBlock)")
    }
}

/// Readiness of an [`AsyncFd`], from `readable`/`writable`/`ready`/`poll_*_ready`.
#[must_use = "clear the readiness after a WouldBlock (clear_ready or try_io), or retain it"]
pub struct AsyncFdReadyGuard<'a, T: AsRawFd> {
    async_fd: &'a AsyncFd<T>,
    event: Option<ReadyEvent>,
}

/// [`AsyncFdReadyGuard`] from the `_mut` waits: lends the `AsyncFd` mutably.
#[must_use = "clear the readiness after a WouldBlock (clear_ready or try_io), or retain it"]
pub struct AsyncFdReadyMutGuard<'a, T: AsRawFd> {
    async_fd: &'a mut AsyncFd<T>,
    event: Option<ReadyEvent>,
}

/// Clears `ready`'s bits of `event` (all of them for `None`), keeping the rest in it.
fn clear_in<T: AsRawFd>(fd: &AsyncFd<T>, event: &mut Option<ReadyEvent>, ready: Option<Ready>) {
    let Some(ev) = *event else { return };
    match ready {
        None => {
            fd.clear(ev);
            *event = None;
        }
        Some(r) => {
            let mask = r.to_driver();
            fd.clear(ev.with_ready(mask));
            let left = Ready::from_driver(ev.ready()) - r;
            *event = (!left.is_empty()).then(|| ev.with_ready(left.to_driver()));
        }
    }
}

fn ready_of(event: Option<ReadyEvent>) -> Ready {
    event.map_or(Ready::EMPTY, |ev| Ready::from_driver(ev.ready()))
}

impl<'a, T: AsRawFd> AsyncFdReadyGuard<'a, T> {
    pub(super) fn new(async_fd: &'a AsyncFd<T>, event: ReadyEvent) -> Self {
        AsyncFdReadyGuard {
            async_fd,
            event: Some(event),
        }
    }

    /// Clears the readiness this guard holds (call it after a `WouldBlock`): the next wait
    /// waits for a new event. An event that arrived since the wait is kept.
    pub fn clear_ready(&mut self) {
        clear_in(self.async_fd, &mut self.event, None);
    }

    /// Clears only the bits of `ready` (say, `Ready::READABLE` after draining, keeping
    /// `WRITABLE`). Read-closed and write-closed are never cleared: no new edge follows
    /// them.
    pub fn clear_ready_matching(&mut self, ready: Ready) {
        clear_in(self.async_fd, &mut self.event, Some(ready));
    }

    /// Keeps the readiness (what dropping the guard does): the next wait returns at once.
    pub fn retain_ready(&mut self) {}

    /// The readiness this guard holds (empty once cleared).
    pub fn ready(&self) -> Ready {
        ready_of(self.event)
    }

    /// Runs `f`; on `WouldBlock` clears the readiness and returns `Err(TryIoError)`, else
    /// `Ok` with `f`'s result.
    ///
    /// # Errors
    /// `TryIoError` when `f` said `WouldBlock`.
    pub fn try_io<R>(
        &mut self,
        f: impl FnOnce(&'a AsyncFd<T>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        match f(self.async_fd) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.clear_ready();
                Err(TryIoError(()))
            }
            res => Ok(res),
        }
    }

    /// The `AsyncFd` this guard is for.
    pub fn get_ref(&self) -> &'a AsyncFd<T> {
        self.async_fd
    }

    /// The value inside the `AsyncFd`.
    pub fn get_inner(&self) -> &'a T {
        self.async_fd.get_ref()
    }
}

impl<T: AsRawFd> AsyncFdReadyMutGuard<'_, T> {
    pub(super) fn new(async_fd: &mut AsyncFd<T>, event: ReadyEvent) -> AsyncFdReadyMutGuard<'_, T> {
        AsyncFdReadyMutGuard {
            async_fd,
            event: Some(event),
        }
    }

    /// See [`AsyncFdReadyGuard::clear_ready`].
    pub fn clear_ready(&mut self) {
        clear_in(self.async_fd, &mut self.event, None);
    }

    /// See [`AsyncFdReadyGuard::clear_ready_matching`].
    pub fn clear_ready_matching(&mut self, ready: Ready) {
        clear_in(self.async_fd, &mut self.event, Some(ready));
    }

    /// See [`AsyncFdReadyGuard::retain_ready`].
    pub fn retain_ready(&mut self) {}

    /// See [`AsyncFdReadyGuard::ready`].
    pub fn ready(&self) -> Ready {
        ready_of(self.event)
    }

    /// [`AsyncFdReadyGuard::try_io`] lending the `AsyncFd` mutably.
    ///
    /// # Errors
    /// `TryIoError` when `f` said `WouldBlock`.
    pub fn try_io<R>(
        &mut self,
        f: impl FnOnce(&mut AsyncFd<T>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        match f(self.async_fd) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.clear_ready();
                Err(TryIoError(()))
            }
            res => Ok(res),
        }
    }

    /// The `AsyncFd` this guard is for.
    pub fn get_ref(&self) -> &AsyncFd<T> {
        self.async_fd
    }

    /// The `AsyncFd` this guard is for, mutably.
    pub fn get_mut(&mut self) -> &mut AsyncFd<T> {
        self.async_fd
    }

    /// The value inside the `AsyncFd`.
    pub fn get_inner(&self) -> &T {
        self.async_fd.get_ref()
    }

    /// The value inside the `AsyncFd`, mutably.
    pub fn get_inner_mut(&mut self) -> &mut T {
        self.async_fd.get_mut()
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFdReadyGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadyGuard")
            .field("async_fd", &self.async_fd)
            .field("ready", &self.ready())
            .finish()
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFdReadyMutGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MutReadyGuard")
            .field("async_fd", &self.async_fd)
            .field("ready", &self.ready())
            .finish()
    }
}
