//! `IoSource<S>`: a mio socket registered with the runtime's I/O driver.
//!
//! Every socket type in `runtime::net` is one of these plus its API. The driver is edge
//! triggered: readiness is set by the driver when an event arrives and stays set until we
//! clear it. An operation therefore (1) spends one unit of the task's cooperative budget,
//! (2) waits until the registration reports readiness in its direction, (3) tries the
//! syscall, and (4) on `WouldBlock` clears exactly the readiness it observed (the clear is
//! tick-checked by the driver, so an event that arrived in between survives) and waits
//! again. A short read or write (fewer bytes than asked) proves the kernel buffer was
//! drained/filled, so that readiness is cleared too: the next operation waits for an edge
//! instead of paying for a syscall that would only say `WouldBlock`.
//!
//! `try_read`/`try_write` (and `try_io`) have no `Context` to poll with: each reads the
//! readiness for its direction just before its syscall and, on `WouldBlock`, clears that
//! (tick-checked), whoever set it; the event last seen by `poll_ready_recorded`
//! (`readable()`/`writable()`) is the fallback when the word held none.
//!
//! Invariants: the mio socket is `Some` for the whole life of the value except inside
//! `into_inner`/`drop`; on drop it is first removed from epoll (`deregister`), then closed,
//! then the registration frees its slab entry (bumping the generation, so a late event for
//! this token can never reach a future occupant).
//!
//! Any number of tasks may wait on one direction of one socket (accept loops sharing an
//! `Arc<TcpListener>`, receivers sharing a UDP socket, several `readable()` callers): the
//! driver keeps every waiter and an event wakes them all (see `io_driver`'s readiness
//! docs). The woken race for the resource; each that loses meets `WouldBlock`, clears
//! exactly the readiness it observed (tick-checked, so it cannot erase a newer event that
//! another waiter has not seen) and waits again. The readiness `recorded` for `try_io` is
//! shared by the waiters of a direction: any of them may clear it, which only ever makes
//! another waiter's next `readable()` wait for an event that the kernel has not yet
//! reported, never miss one.
//!
//! An `IoSource` is `UnwindSafe` and `RefUnwindSafe`, as tokio's `PollEvented`.

use std::fmt;
use std::io::{self, IoSlice, IoSliceMut, Read, Write};
use std::task::{ready, Context, Poll};

use io_driver::{Direction, ReadyEvent, Registration};
use mio::event::Source;
use mio::Interest;
use shim::sync::{Arc, Mutex};

use crate::coop;

pub(crate) struct IoSource<S: Source> {
    io: Option<S>,
    registration: Registration,
    /// Readiness last returned by `poll_ready_recorded`, per direction (read, write).
    recorded: Mutex<[Option<ReadyEvent>; 2]>,
}

// As tokio's `PollEvented`: the shared state (the readiness words, the recorded events,
// the driver's slab) is only ever changed under its own locks or atomics and stays
// consistent when a panic unwinds through an operation, so every socket built on this is
// unwind safe.
impl<S: Source> std::panic::UnwindSafe for IoSource<S> {}
impl<S: Source> std::panic::RefUnwindSafe for IoSource<S> {}

fn slot(dir: Direction) -> usize {
    match dir {
        Direction::Read => 0,
        Direction::Write => 1,
    }
}

impl<S: Source> IoSource<S> {
    /// Registers `io` with the current runtime's I/O driver.
    ///
    /// # Panics
    /// Outside a runtime, or on a runtime without `Builder::enable_io()`.
    #[track_caller]
    pub(crate) fn new(io: S, interest: Interest) -> io::Result<Self>
    where
        S: std::os::fd::AsRawFd,
    {
        let handle = crate::scheduler::Handle::current_io();
        Self::with_handle(&handle, io, interest)
    }

    /// Registers `io` with the given driver (e.g. an accepted socket, with its listener's).
    pub(crate) fn with_handle(
        handle: &Arc<io_driver::Handle>,
        mut io: S,
        interest: Interest,
    ) -> io::Result<Self>
    where
        S: std::os::fd::AsRawFd,
    {
        let registration = handle.register(&mut io, interest)?;
        // The descriptor labels this socket's waiters in task dumps.
        registration.set_fd(io.as_raw_fd());
        Ok(IoSource {
            io: Some(io),
            registration,
            recorded: Mutex::new([None, None]),
        })
    }

    pub(crate) fn get_ref(&self) -> &S {
        self.io.as_ref().expect("socket present until dropped")
    }

    pub(crate) fn driver(&self) -> &Arc<io_driver::Handle> {
        self.registration.handle()
    }

    /// Marks the socket ready in `ready` before any event (`Registration::assume_ready`).
    pub(crate) fn assume_ready(&self, ready: io_driver::Ready) {
        self.registration.assume_ready(ready);
    }

    /// Removes the socket from the driver and hands it back.
    pub(crate) fn into_inner(mut self) -> io::Result<S> {
        let mut io = self.io.take().expect("socket present until dropped");
        self.registration.deregister(&mut io)?;
        Ok(io)
    }

    /// Waits for readiness in `dir` (spending budget), without any syscall, and remembers
    /// the event for a following `try_io`: the public `poll_*_ready` methods, which spend
    /// budget as tokio's do.
    pub(crate) fn poll_ready_recorded(
        &self,
        cx: &mut Context<'_>,
        dir: Direction,
    ) -> Poll<io::Result<()>> {
        ready!(coop::poll_proceed(cx));
        self.poll_ready_unbudgeted(cx, dir)
    }

    /// [`poll_ready_recorded`](Self::poll_ready_recorded) without the budget: the
    /// `readable()`/`writable()` futures, which, as tokio's, spend none (they do no I/O;
    /// the `try_*` call that follows is the work). So a loop of `writable()` and a
    /// successful `try_write` finds `writable()` ready at once every time, until a
    /// `WouldBlock` clears the readiness.
    pub(crate) fn poll_ready_unbudgeted(
        &self,
        cx: &mut Context<'_>,
        dir: Direction,
    ) -> Poll<io::Result<()>> {
        let ev = ready!(self.registration.poll_ready(cx, dir))?;
        self.recorded.lock()[slot(dir)] = Some(ev);
        Poll::Ready(Ok(()))
    }

    /// Waits until the driver holds any readiness `interest` covers and says which
    /// (tokio's `ready(Interest)`: closed and error states show as such), and remembers it
    /// per direction for a following `try_io`. Spends no budget, as tokio's `ready()`.
    pub(crate) fn poll_ready_interest(
        &self,
        cx: &mut Context<'_>,
        interest: crate::io::Interest,
    ) -> Poll<io::Result<crate::io::Ready>> {
        let ev = ready!(self.registration.poll_ready_mask(cx, interest.mask()))?;
        let mut recorded = self.recorded.lock();
        for dir in [Direction::Read, Direction::Write] {
            let part = ev.with_ready(dir.mask());
            if !part.ready().is_empty() {
                recorded[slot(dir)] = Some(part);
            }
        }
        Poll::Ready(Ok(crate::io::Ready::from_driver(ev.ready())))
    }

    /// tokio's public `try_io(interest, f)`: `WouldBlock` at once, without calling `f`,
    /// when the driver holds no readiness `interest` covers; else runs `f`, and on
    /// `WouldBlock` clears the readiness seen (tick-checked) and the recorded events.
    pub(crate) fn try_io_interest<R>(
        &self,
        interest: crate::io::Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        let Some(ev) = self.registration.ready_event_mask(interest.mask()) else {
            return Err(io::ErrorKind::WouldBlock.into());
        };
        let res = f();
        if matches!(&res, Err(e) if e.kind() == io::ErrorKind::WouldBlock) {
            self.registration.clear_readiness(ev);
            let mut recorded = self.recorded.lock();
            for dir in [Direction::Read, Direction::Write] {
                if ev.ready().intersects(dir.mask()) {
                    recorded[slot(dir)] = None;
                }
            }
        }
        res
    }

    /// tokio's public `async_io(interest, f)`, polled: waits (spending budget) for
    /// readiness `interest` covers, runs `f`, and on `WouldBlock` clears that readiness
    /// and waits again.
    pub(crate) fn poll_io_interest<R>(
        &self,
        cx: &mut Context<'_>,
        interest: crate::io::Interest,
        mut f: impl FnMut() -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        ready!(coop::poll_proceed(cx));
        loop {
            let ev = ready!(self.registration.poll_ready_mask(cx, interest.mask()))?;
            match f() {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.registration.clear_readiness(ev)
                }
                res => return Poll::Ready(res),
            }
        }
    }

    /// Waits for readiness in `dir`, then runs `f` until it does not say `WouldBlock`.
    pub(crate) fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        dir: Direction,
        mut f: impl FnMut(&S) -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        ready!(coop::poll_proceed(cx));
        let io = self.get_ref();
        self.registration.poll_io(cx, dir, || f(io))
    }

    /// Waits for readiness in `dir` and runs `f`, which returns a byte count; a count short
    /// of `want` clears the readiness observed (the kernel buffer is empty/full).
    pub(crate) fn poll_transfer(
        &self,
        cx: &mut Context<'_>,
        dir: Direction,
        want: usize,
        mut f: impl FnMut(&S) -> io::Result<usize>,
    ) -> Poll<io::Result<usize>> {
        ready!(coop::poll_proceed(cx));
        let io = self.get_ref();
        loop {
            let ev = ready!(self.registration.poll_ready(cx, dir))?;
            match f(io) {
                Ok(n) => {
                    if n > 0 && n < want {
                        self.registration.clear_readiness(ev);
                    }
                    return Poll::Ready(Ok(n));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.registration.clear_readiness(ev)
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }

    /// Runs `f` once, without waiting; on `WouldBlock` clears the readiness for `dir` seen
    /// just before the attempt (and forgets the one last recorded), so that the next
    /// `readable()`/`writable()`/`ready()` waits for a new event, however that readiness
    /// was set (a `ready()` call, an earlier transfer, the first event after registration).
    /// An event dispatched during the attempt has a newer tick and is kept.
    pub(crate) fn try_io<R>(
        &self,
        dir: Direction,
        f: impl FnOnce(&S) -> io::Result<R>,
    ) -> io::Result<R> {
        let seen = self.registration.ready_event(dir);
        let res = f(self.get_ref());
        if matches!(&res, Err(e) if e.kind() == io::ErrorKind::WouldBlock) {
            let recorded = self.recorded.lock()[slot(dir)].take();
            if let Some(ev) = seen.or(recorded) {
                self.registration.clear_readiness(ev);
            }
        }
        res
    }
}

impl<S: Source> IoSource<S>
where
    for<'a> &'a S: Read + Write,
{
    pub(crate) fn poll_read(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_transfer(cx, Direction::Read, buf.len(), |mut io| io.read(buf))
    }

    pub(crate) fn poll_read_vectored(
        &self,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        let want = bufs.iter().map(|b| b.len()).sum();
        self.poll_transfer(cx, Direction::Read, want, |mut io| io.read_vectored(bufs))
    }

    pub(crate) fn poll_write(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.poll_transfer(cx, Direction::Write, buf.len(), |mut io| io.write(buf))
    }

    pub(crate) fn poll_write_vectored(
        &self,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let want = bufs.iter().map(|b| b.len()).sum();
        self.poll_transfer(cx, Direction::Write, want, |mut io| io.write_vectored(bufs))
    }
}

impl<S: Source> Drop for IoSource<S> {
    fn drop(&mut self) {
        if let Some(mut io) = self.io.take() {
            // Deregistering only fails if the fd is no longer in the epoll set; closing it
            // right after removes it anyway, so there is nothing to do about an error.
            let _ = self.registration.deregister(&mut io);
            drop(io);
        }
        // `registration` drops after this body: its slab entry is freed once the socket is
        // out of epoll and closed.
    }
}

impl<S: Source + fmt::Debug> fmt::Debug for IoSource<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IoSource")
            .field("io", &self.io)
            .field("registration", &self.registration)
            .finish()
    }
}
