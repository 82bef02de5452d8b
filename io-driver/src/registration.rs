//! `Registration`: a registered I/O resource's claim on one slab entry.
//!
//! It holds the driver handle, the entry's index and generation, and the slab page that
//! holds the entry with the entry's offset in it (taken once, at registration: pages never
//! move or shrink, so each operation indexes the page instead of looking the index up in
//! the slab). Readiness is read and
//! cleared through the entry's atomic word (see `readiness.rs`); the usual socket operation
//! is `poll_io`: wait for readiness, try the syscall, and on `WouldBlock` clear exactly the
//! readiness that was observed (tick-checked) and wait again.
//!
//! The registration does not own the source, so it cannot deregister it from epoll on drop;
//! the owner calls `deregister` (or simply closes the fd, which removes it from epoll). Drop
//! frees the slab entry, bumping its generation: any event still in flight for the old token
//! is ignored by the driver, and can never reach the entry's next occupant.

use std::fmt;
use std::io;
use std::sync::Arc;
use std::task::{Context, Poll};

use mio::event::Source;
use mio::Token;

use crate::driver::Handle;
use crate::readiness::{Direction, Ready, ReadyEvent, ScheduledIo};
use crate::slab::token_for;

/// One registered I/O resource. See the module docs.
pub struct Registration {
    handle: Arc<Handle>,
    index: usize,
    gen: usize,
    /// The slab page holding entry `index`, and the entry's offset in it.
    page: Arc<[ScheduledIo]>,
    offset: usize,
}

impl Registration {
    pub(crate) fn new(handle: Arc<Handle>, index: usize, gen: usize) -> Registration {
        // The slab just handed out `index`, so its page exists.
        let (page, offset) = handle
            .slab
            .entry(index)
            .expect("registration's slab entry exists");
        Registration {
            handle,
            index,
            gen,
            page,
            offset,
        }
    }

    #[inline]
    fn io(&self) -> &ScheduledIo {
        &self.page[self.offset]
    }

    /// `Ready(Ok(ev))` when the resource is ready in `dir` (readiness stays set until
    /// [`Registration::clear_readiness`]); `Ready(Err)` once the driver shut down; else adds
    /// the waker to the direction's waiters and returns `Pending`. Any number of tasks may
    /// wait on one direction; the next event in it wakes them all (a task polling again is
    /// not added twice).
    pub fn poll_ready(&self, cx: &mut Context<'_>, dir: Direction) -> Poll<io::Result<ReadyEvent>> {
        self.io().poll_ready(cx, dir)
    }

    /// [`Registration::poll_ready`] for a `poll_*_ready` API, as tokio's: only the last
    /// task to poll `dir` this way is woken (its waker replaces the previous task's), beside
    /// every task waiting through the other methods.
    pub fn poll_ready_last(
        &self,
        cx: &mut Context<'_>,
        dir: Direction,
    ) -> Poll<io::Result<ReadyEvent>> {
        self.io().poll_ready_last(cx, dir)
    }

    /// `Ready(Ok(ev))` when the resource holds any readiness bit of `mask` (`ev.ready()` is
    /// that intersection: tokio's `ready(Interest)`, where a hang-up or an error shows as
    /// such); `Ready(Err)` once the driver shut down; else the waker joins the waiters of
    /// each direction `mask` touches (error and priority count as the read side) and
    /// `Pending`.
    pub fn poll_ready_mask(
        &self,
        cx: &mut Context<'_>,
        mask: Ready,
    ) -> Poll<io::Result<ReadyEvent>> {
        self.io().poll_ready_mask(cx, mask)
    }

    /// The readiness among `mask` now, if any, without waiting or registering a waker.
    pub fn ready_event_mask(&self, mask: Ready) -> Option<ReadyEvent> {
        self.io().ready_event_mask(mask)
    }

    /// The readiness for `dir` now, if any, without waiting or registering a waker.
    pub fn ready_event(&self, dir: Direction) -> Option<ReadyEvent> {
        self.io().ready_event(dir)
    }

    /// Clear the readiness in `ev`, unless an event was dispatched after it was observed.
    /// Read-closed and write-closed are never cleared.
    pub fn clear_readiness(&self, ev: ReadyEvent) {
        self.io().clear_readiness(ev)
    }

    /// Wait for readiness in `dir` and run `f`; on `WouldBlock` clear that readiness and wait
    /// again. Any other result (success or error) is returned.
    pub fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        dir: Direction,
        f: impl FnMut() -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        self.io().poll_io(cx, dir, f)
    }

    /// Marks the resource ready in `ready` without waiting for the driver's first event
    /// (an accepted socket: readable and writable; a fresh pair: writable). A wrong guess
    /// costs one `WouldBlock`, which clears the readiness again.
    pub fn assume_ready(&self, ready: Ready) {
        self.io().assume_ready(ready)
    }

    /// Remove `source` from the epoll set. The slab entry is freed when `self` is dropped.
    pub fn deregister(&self, source: &mut impl Source) -> io::Result<()> {
        self.handle.registry().deregister(source)
    }

    /// Tells the driver the resource's file descriptor, which task dumps show beside the
    /// tasks waiting on it.
    pub fn set_fd(&self, fd: i32) {
        self.io().set_fd(fd);
    }

    /// The driver this resource is registered with.
    pub fn handle(&self) -> &Arc<Handle> {
        &self.handle
    }

    /// The mio token the resource was registered under (test hook).
    #[doc(hidden)]
    pub fn token(&self) -> Token {
        token_for(self.index, self.gen)
    }

    /// The readiness bits currently set (test hook).
    #[doc(hidden)]
    pub fn readiness(&self) -> Ready {
        self.io().readiness()
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.handle.slab.free(self.index);
    }
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registration")
            .field("token", &self.token())
            .field("readiness", &self.readiness())
            .finish()
    }
}
