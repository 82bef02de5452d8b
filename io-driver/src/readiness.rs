//! Per-resource readiness state (`ScheduledIo`): one atomic word plus the tasks waiting.
//!
//! The word packs, from the low bits up: the readiness bits ([`Ready`]; the bit-set types,
//! [`Direction`] and [`ReadyEvent`] are `ready.rs`'s), the SHUTDOWN bit, the driver tick of
//! the last dispatch that touched the entry, and the entry's generation (bumped every time
//! the slab slot is freed). Invariants:
//! - The driver sets readiness with a CAS that fails when the generation differs, so an event
//!   carrying the token of a previous occupant can never mark the current one ready.
//! - `clear_readiness` is a CAS that only succeeds if the tick is still the one the caller
//!   observed: an event dispatched in between bumps the tick and survives the clear.
//! - Read-closed / write-closed are never cleared (no further edge will come for them).
//! - A waker is registered under the entry's mutex and the word is re-read under it; the
//!   driver updates the word before taking that mutex. So either the poller sees the new
//!   readiness, or the driver finds the waker: a wakeup cannot fall in between.
//! - Generation bumps (`reset`) happen under the same mutex, and the driver re-checks the
//!   generation under it before taking wakers, so a stale dispatch cannot wake a new occupant.
//!
//! Orderings: the word publishes no other memory but the shutdown. A poller reads only the
//! word (bits and tick) and then makes a syscall, so the driver's readiness CAS, a clear
//! and a generation bump are Relaxed (coherence on the one word, and the entry's mutex
//! and the slab's allocation mutex, order everything else). The one pair is SHUTDOWN:
//! `shutdown`'s Release `fetch_or` and `poll_ready`'s Acquire loads, so a poll that fails
//! with the shutdown error happens-after the driver's shutdown began (and
//! `Handle::is_shutdown` asked after it answers true), the contract the runtime's other
//! "closed" answers keep. `loom-tests`' `loom_readiness` models the word and the mutex
//! (this file's only shim types): an event racing a clear, and the SHUTDOWN pair.
//!
//! The tasks waiting on each direction are kept by `Waiters` (see `waiters.rs`): any
//! number of them; an event wakes them all. A wait on any set of bits (`poll_ready_mask`,
//! tokio's `ready(Interest)`) joins the waiters of each side its bits select, and an event
//! wakes those of each side its bits touch (`READ_WAIT`/`WRITE_WAIT` and
//! `READ_SIDE`/`WRITE_SIDE`, whose rule is in `ready.rs`), so every such wait is woken by
//! the event it waits for.

use std::io;
use std::task::{Context, Poll, Waker};

// Through the shim (std / parking_lot normally, loom under `--cfg loom`): the word and the
// entry's mutex are what `loom-tests`' `loom_readiness` models. Nothing else in this crate
// goes through the shim; the driver's mio parts are never built into a model.
use shim::sync::atomic::{AtomicUsize, Ordering};
use shim::sync::Mutex;

use crate::ready::{READ_SIDE, READ_WAIT, WRITE_SIDE, WRITE_WAIT};
use crate::waiters::Waiters;

// The bit-set types, re-exported for the crate root and the driver's other modules.
pub use crate::ready::{Direction, Ready, ReadyEvent};

// ---- word layout -------------------------------------------------------------------------

const READY_MASK: usize = Ready::ALL.0 as usize;
const SHUTDOWN: usize = 1 << 6;
const _: () = assert!(READY_MASK & SHUTDOWN == 0);
const TICK_SHIFT: u32 = 8;
/// Width of the dispatch tick in the word (24 bits on 64-bit targets).
pub(crate) const TICK_BITS: u32 = if usize::BITS >= 64 { 24 } else { 8 };
/// Mask for a tick value (unshifted).
pub(crate) const TICK_MASK: usize = (1 << TICK_BITS) - 1;
const GEN_SHIFT: u32 = TICK_SHIFT + TICK_BITS;
/// Width of the slab generation (32 bits on 64-bit targets); also its width in the token.
pub(crate) const GEN_BITS: u32 = if usize::BITS >= 64 { 32 } else { 8 };
/// Mask for a generation value (unshifted).
pub(crate) const GEN_MASK: usize = (1 << GEN_BITS) - 1;
const _: () = assert!(GEN_SHIFT + GEN_BITS <= usize::BITS);

fn gen_of(word: usize) -> usize {
    (word >> GEN_SHIFT) & GEN_MASK
}
fn tick_of(word: usize) -> u32 {
    ((word >> TICK_SHIFT) & TICK_MASK) as u32
}

/// The message of the error every poll on a resource returns once the driver shut down.
/// It opens with tokio's text for the same condition.
pub const SHUTDOWN_ERROR: &str =
    "A Tokio 1.x context was found, but it is being shutdown. The runtime is shutting down: \
     the I/O driver is gone";

/// The error every poll on a resource returns once the driver shut down.
pub(crate) fn shutdown_error() -> io::Error {
    io::Error::other(SHUTDOWN_ERROR)
}

/// True when `err` is the error a resource returns once its driver shut down (an
/// `ErrorKind::Other` error whose message is [`SHUTDOWN_ERROR`] and that has no source).
pub fn is_shutdown_error(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::Other
        && err
            .get_ref()
            .is_some_and(|e| e.source().is_none() && e.to_string() == SHUTDOWN_ERROR)
}

/// The state of one slab entry. Aligned to a cache line: entries of different sockets are
/// hammered by different workers and by the driver.
#[repr(align(64))]
pub(crate) struct ScheduledIo {
    state: AtomicUsize,
    waiters: Mutex<Waiters>,
    /// The occupant's file descriptor, for task dumps (-1: not told). Set once after
    /// registration (`Registration::set_fd`), cleared by `reset`. A std atomic even under
    /// loom: a label, read Relaxed, ordering nothing.
    fd: std::sync::atomic::AtomicI32,
}

impl Default for ScheduledIo {
    fn default() -> Self {
        ScheduledIo {
            state: AtomicUsize::new(0),
            waiters: Mutex::new(Waiters::default()),
            fd: std::sync::atomic::AtomicI32::new(-1),
        }
    }
}

impl ScheduledIo {
    /// Labels the entry with its occupant's file descriptor (task dumps).
    pub(crate) fn set_fd(&self, fd: i32) {
        // Relaxed: a label (see the field).
        self.fd.store(fd, std::sync::atomic::Ordering::Relaxed);
    }

    /// Calls `f` with the occupant's descriptor (-1 if not told) and each waker waiting on
    /// it, under the entry's mutex (task dumps; nothing changes). `f` must take no lock.
    pub(crate) fn for_each_waiter(&self, mut f: impl FnMut(i32, Direction, &Waker)) {
        let waiters = self.waiters.lock();
        // Relaxed: a label (see the field).
        let fd = self.fd.load(std::sync::atomic::Ordering::Relaxed);
        waiters.for_each(|dir, w| f(fd, dir, w));
    }

    /// The generation of the current occupant.
    pub(crate) fn generation(&self) -> usize {
        // Relaxed: the one caller (`Slab::alloc`) popped the index from the free list under
        // the allocation mutex, which `Slab::free` pushed it onto after `reset`: the mutex
        // orders the bump before this load, so coherence gives the new generation (and a
        // fresh page's zeroed word comes through its `OnceLock`). Nothing else is read on
        // the strength of this load.
        gen_of(self.state.load(Ordering::Relaxed))
    }

    /// The readiness bits currently set (test/diagnostic use).
    pub(crate) fn readiness(&self) -> Ready {
        // Relaxed: a snapshot for diagnostics, orders nothing.
        Ready((self.state.load(Ordering::Relaxed) & READY_MASK) as u8)
    }

    /// Driver side: OR `ready` into the word and stamp `tick`, unless `gen` is stale.
    /// Returns false when the token belonged to an earlier occupant.
    pub(crate) fn set_readiness(&self, gen: usize, tick: usize, ready: Ready) -> bool {
        // Relaxed, load and CAS: they publish and acquire no other memory. A poller that
        // sees the bits reads nothing the driver wrote before them: it makes a syscall (the
        // kernel orders the data), and the tick it hands back to `clear_readiness` is in
        // the word. The driver reads nothing on their strength either: the generation test
        // is on this word (coherence) and is repeated under the entry's mutex in
        // `take_wakers`, which is also what orders this CAS against a poller registering its
        // waker (the driver updates the word before taking that mutex, see the module doc).
        // The RMW keeps `shutdown`'s release sequence going (any RMW does).
        let mut cur = self.state.load(Ordering::Relaxed);
        loop {
            if gen_of(cur) != gen {
                return false;
            }
            let new = (cur & !(TICK_MASK << TICK_SHIFT))
                | (ready.0 as usize)
                | ((tick & TICK_MASK) << TICK_SHIFT);
            match self
                .state
                .compare_exchange_weak(cur, new, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(actual) => cur = actual,
            }
        }
    }

    /// Driver side, after `set_readiness`: move the wakers interested in `ready` to `out`.
    pub(crate) fn take_wakers(&self, gen: usize, ready: Ready, out: &mut Vec<Waker>) {
        let mut waiters = self.waiters.lock();
        // Relaxed is enough: generation changes happen under this mutex, which we hold.
        if gen_of(self.state.load(Ordering::Relaxed)) != gen {
            return;
        }
        if ready.intersects(READ_SIDE) {
            waiters.take(Direction::Read, out);
        }
        if ready.intersects(WRITE_SIDE) {
            waiters.take(Direction::Write, out);
        }
    }

    /// Ready if the word already has readiness for `dir` (or shutdown); otherwise add the
    /// waker to `dir`'s waiters (if its task is not there yet) and re-check under the lock.
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        dir: Direction,
    ) -> Poll<io::Result<ReadyEvent>> {
        self.poll_ready_mask(cx, dir.mask())
    }

    /// Ready if the word holds any bit of `mask` (or shutdown); otherwise add the waker to
    /// the waiters of each side `mask` touches (see the module doc) and re-check under the
    /// lock. An empty `mask` waits for the shutdown only.
    pub(crate) fn poll_ready_mask(
        &self,
        cx: &mut Context<'_>,
        mask: Ready,
    ) -> Poll<io::Result<ReadyEvent>> {
        // Acquire: pairs with `shutdown`'s Release `fetch_or` (through the RMWs after it):
        // a poll that fails with the shutdown error happens-after the driver's shutdown
        // began, so `Handle::is_shutdown` asked after it answers true. The readiness bits
        // themselves would do with Relaxed (see `set_readiness`).
        if let Some(r) = Self::check(self.state.load(Ordering::Acquire), mask) {
            return Poll::Ready(r);
        }
        let mut waiters = self.waiters.lock();
        // A wait on error alone (or on nothing: the shutdown) joins the read waiters; an
        // error event wakes both sides.
        let mut stale = Vec::new();
        if mask.intersects(READ_WAIT) || !mask.intersects(WRITE_WAIT) {
            stale = waiters.register(Direction::Read, cx.waker());
        }
        if mask.intersects(WRITE_WAIT) {
            let more = waiters.register(Direction::Write, cx.waker());
            if !more.is_empty() {
                stale.extend(more);
            }
        }
        // Re-read under the lock: the driver stores the word before taking this lock, so if
        // it took the lock before us we see its store here; otherwise it will see our waker.
        // Acquire: as above.
        let res = Self::check(self.state.load(Ordering::Acquire), mask);
        drop(waiters);
        // Wakers run arbitrary code when woken or dropped: never under our lock. (Usually
        // none: a compaction's, `Waiters::register`.)
        if !stale.is_empty() {
            stale.into_iter().for_each(Waker::wake);
        }
        match res {
            Some(r) => Poll::Ready(r),
            None => Poll::Pending,
        }
    }

    /// [`poll_ready`](Self::poll_ready) for the `poll_*_ready` APIs, as tokio's: the waker
    /// takes `dir`'s single slot, replacing another task's (only the last task to poll is
    /// woken; `Waiters::register_last`).
    pub(crate) fn poll_ready_last(
        &self,
        cx: &mut Context<'_>,
        dir: Direction,
    ) -> Poll<io::Result<ReadyEvent>> {
        let mask = dir.mask();
        // Acquire, and the re-check under the lock: as `poll_ready_mask`.
        if let Some(r) = Self::check(self.state.load(Ordering::Acquire), mask) {
            return Poll::Ready(r);
        }
        let mut waiters = self.waiters.lock();
        let replaced = waiters.register_last(dir, cx.waker());
        let res = Self::check(self.state.load(Ordering::Acquire), mask);
        drop(waiters);
        // Never dropped under our lock (a waker's drop may run arbitrary code).
        drop(replaced);
        match res {
            Some(r) => Poll::Ready(r),
            None => Poll::Pending,
        }
    }

    /// Waits for readiness in `dir` and runs `f` (the non-blocking syscall); on
    /// `WouldBlock` clears exactly the readiness it saw (tick-checked) and polls again, so
    /// the loop ends only with `f`'s result, an error, or `Pending` from a poll that
    /// registered the waker after the clear (`Registration::poll_io`).
    pub(crate) fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        dir: Direction,
        mut f: impl FnMut() -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        loop {
            let ev = match self.poll_ready(cx, dir) {
                Poll::Ready(Ok(ev)) => ev,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            };
            match f() {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.clear_readiness(ev),
                res => return Poll::Ready(res),
            }
        }
    }

    /// The readiness for `dir` the word holds now, with its tick (None: not ready, or shut
    /// down); registers nothing. Read before a non-waiting attempt, so that a `WouldBlock`
    /// clears exactly what was seen (`clear_readiness`).
    pub(crate) fn ready_event(&self, dir: Direction) -> Option<ReadyEvent> {
        // Relaxed: only the readiness bits and their tick are used, to be cleared by a
        // tick-checked CAS on this same word (see `clear_readiness`).
        self.ready_event_mask(dir.mask())
    }

    /// [`Self::ready_event`] for any set of bits.
    pub(crate) fn ready_event_mask(&self, mask: Ready) -> Option<ReadyEvent> {
        // Relaxed: as `ready_event`.
        Self::check(self.state.load(Ordering::Relaxed), mask).and_then(Result::ok)
    }

    fn check(word: usize, mask: Ready) -> Option<io::Result<ReadyEvent>> {
        if word & SHUTDOWN != 0 {
            return Some(Err(shutdown_error()));
        }
        let ready = Ready((word & READY_MASK) as u8).intersection(mask);
        if ready.is_empty() {
            None
        } else {
            Some(Ok(ReadyEvent {
                ready,
                tick: tick_of(word),
            }))
        }
    }

    /// Clear `ev.ready` (minus the sticky closed bits) if no dispatch happened since.
    pub(crate) fn clear_readiness(&self, ev: ReadyEvent) {
        let clear = (ev.ready.0 & !Ready::CLOSED.0) as usize;
        // Relaxed: the tick check is on this same location, whose modification order is
        // total; no other memory is published by clearing.
        let mut cur = self.state.load(Ordering::Relaxed);
        loop {
            if tick_of(cur) != ev.tick {
                // A newer event arrived after `ev` was observed: keep it.
                return;
            }
            let new = cur & !clear;
            if new == cur {
                return;
            }
            match self
                .state
                .compare_exchange_weak(cur, new, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(actual) => cur = actual,
            }
        }
    }

    /// Marks the entry ready in `ready` without an event from the driver (tokio's
    /// `assume_ready`), for a resource whose state is known when it is registered: an
    /// accepted socket, a fresh socket pair. A wrong guess costs its first operation one
    /// `WouldBlock`, which clears the bits as usual (the tick is left alone, so that clear
    /// succeeds unless an event came since). Nothing after shutdown; wakes nobody (called
    /// before anyone can wait).
    pub(crate) fn assume_ready(&self, ready: Ready) {
        // Relaxed: as `set_readiness`, the bits publish no other memory.
        let _ = self
            .state
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |cur| {
                (cur & SHUTDOWN == 0).then_some(cur | (ready.0 as usize & READY_MASK))
            });
    }

    /// Mark shut down and move every waiter to `out`.
    pub(crate) fn shutdown(&self, out: &mut Vec<Waker>) {
        // Release: pairs with `poll_ready`'s Acquire loads: a poller that sees SHUTDOWN
        // happens-after the slab's shutdown flag (set before this by `Slab::shutdown`) and
        // what the shutting-down thread did before `Driver::shutdown`.
        self.state.fetch_or(SHUTDOWN, Ordering::Release);
        let mut waiters = self.waiters.lock();
        waiters.take(Direction::Read, out);
        waiters.take(Direction::Write, out);
    }

    /// Free the entry: bump the generation, clear readiness/tick/shutdown and return the
    /// waiters (the caller drops them after releasing every lock).
    pub(crate) fn reset(&self) -> Waiters {
        let mut waiters = self.waiters.lock();
        // Relaxed: a label (see the field).
        self.fd.store(-1, std::sync::atomic::Ordering::Relaxed);
        // Relaxed load: we hold the mutex that serialises generation changes.
        let gen = gen_of(self.state.load(Ordering::Relaxed));
        let next = ((gen + 1) & GEN_MASK) << GEN_SHIFT;
        // Relaxed: it publishes nothing. A dispatch that reads the new generation reads the
        // cleared bits with it (one word); the next occupant's `generation()` and polls are
        // ordered after this store by the slab's allocation mutex (`Slab::free` pushes the
        // index after this); `take_wakers` reads it under the mutex we hold; the previous
        // occupant polls no more (its `Registration` is being dropped).
        self.state.store(next, Ordering::Relaxed);
        std::mem::take(&mut *waiters)
    }
}

/// `ScheduledIo` for `loom-tests` (loom builds only; not an API): the readiness word and
/// its waiters driven alone, as the driver's dispatch and a resource's polls use them.
#[cfg(loom)]
pub mod loom_export {
    use super::*;

    /// One slab entry's readiness state, generation 0.
    #[derive(Default)]
    pub struct LoomScheduledIo(ScheduledIo);

    impl LoomScheduledIo {
        /// A fresh entry (generation 0, nothing ready).
        pub fn new() -> Self {
            Self::default()
        }
        /// The driver's dispatch of one event (`Slab::dispatch`): set, then take the wakers.
        pub fn dispatch(&self, gen: usize, tick: usize, ready: Ready, out: &mut Vec<Waker>) {
            if self.0.set_readiness(gen, tick, ready) {
                self.0.take_wakers(gen, ready, out);
            }
        }
        /// A resource's poll (`Registration::poll_ready`).
        pub fn poll_ready(
            &self,
            cx: &mut Context<'_>,
            dir: Direction,
        ) -> Poll<io::Result<ReadyEvent>> {
            self.0.poll_ready(cx, dir)
        }
        /// A resource's I/O attempt (`Registration::poll_io`): `f` is the syscall.
        pub fn poll_io<R>(
            &self,
            cx: &mut Context<'_>,
            dir: Direction,
            f: impl FnMut() -> io::Result<R>,
        ) -> Poll<io::Result<R>> {
            self.0.poll_io(cx, dir, f)
        }
        /// After a `WouldBlock` (`Registration::clear_readiness`).
        pub fn clear_readiness(&self, ev: ReadyEvent) {
            self.0.clear_readiness(ev)
        }
        /// The driver's shutdown of this entry (`Slab::shutdown`).
        pub fn shutdown(&self, out: &mut Vec<Waker>) {
            self.0.shutdown(out)
        }
        /// The entry's free (`Slab::free`); the waiters are dropped.
        pub fn reset(&self) {
            drop(self.0.reset());
        }
        /// The current occupant's generation.
        pub fn generation(&self) -> usize {
            self.0.generation()
        }
    }
}

#[cfg(test)]
mod tests;
