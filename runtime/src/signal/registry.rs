//! The process-wide signal registry and its delivery through each runtime's I/O driver.
//!
//! # Algorithm
//!
//! One Unix stream socket pair per process: the *sender* end is written by the signal
//! handlers, the *receiver* end is read by tasks. For each signal number there is a
//! [`Slot`]: a `pending` flag, a generation counter and the wakers of the [`Signal`]s
//! waiting for that number.
//!
//! - **Handler** (installed once per signal number through `signal-hook-registry`, which
//!   chains with other handlers): sets `pending` and writes one byte to the sender. Both
//!   are async-signal-safe (an atomic store, one `write(2)` on a non-blocking socket;
//!   `errno` is saved and restored). A full socket drops the byte, never blocks: the flag
//!   carries the information, a byte is only a doorbell.
//! - **Per runtime** a duplicate (`dup`) of the receiver end is registered, read-only,
//!   with that runtime's I/O driver, the first time a `Signal` is created on it, and
//!   shared by every `Signal` of that runtime (a weak map keyed by the driver). Every
//!   epoll instance watching a duplicate is told when a byte arrives, so all runtimes
//!   hear every signal. No thread is spawned.
//! - **Receiving** (`Signal::poll_recv`): (1) under the slot's lock, if the slot's
//!   generation moved past the one this `Signal` last saw, consume it and return; else
//!   store the waker. (2) Wait for read readiness of the runtime's receiver; when
//!   readable, drain it (read until `WouldBlock`, which clears the readiness) and
//!   *dispatch*: every slot whose `pending` flag was set (swapped back to false) gets
//!   its generation bumped and all its wakers taken and woken, after the lock is
//!   released. Then back to (1).
//!
//! # Invariants
//!
//! - No signal is lost: the handler sets `pending` *before* writing the byte, and a
//!   dispatcher drains the bytes *before* swapping the flags; so a signal racing with a
//!   dispatch is either swapped by it or leaves a byte that makes the receiver readable
//!   again. A `Signal` stores its waker before it looks at the pipe, so a dispatch run by
//!   any other task (on any runtime) wakes it.
//! - Several deliveries of one signal number between two `recv`s coalesce into one
//!   (as with tokio and the kernel itself); every `Signal` of that number sees it.
//! - Wakers are woken and dropped outside the slot lock.
//! - A `Signal` only sees deliveries dispatched after its creation.
//! - For task dumps, a waiter stored in a slot is recorded in the wait registry
//!   (`task::waits`, kind "signal", the signal's number), under the slot's lock where it is
//!   stored, and forgotten under it where it leaves (dispatched, or its `Signal` dropped):
//!   recorded exactly while stored.

use std::io::{self, Read};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{OnceLock, Weak};
use std::task::{Context, Poll, Waker};

use io_driver::Direction;
use mio::Interest;
use shim::sync::{Arc, Mutex};
use task::waits::WaitSlot;

use crate::io::io_source::IoSource;

/// Signal numbers accepted: 1..SLOTS (Linux's real-time signals end at 64).
const SLOTS: usize = 65;

/// The receiver end registered with one runtime's driver.
pub(crate) type Receiver = IoSource<mio::net::UnixStream>;

pub(crate) struct Slot {
    /// The signal's number (the slot's index).
    signum: i32,
    pending: AtomicBool,
    /// The outcome of installing the handler (once per process).
    installed: OnceLock<Result<(), String>>,
    state: Mutex<SlotState>,
}

struct SlotState {
    generation: u64,
    /// Each stored waiter: its id, its waker and its wait record (module doc).
    waiters: Vec<(u64, Waker, WaitSlot)>,
}

struct Globals {
    sender: std::os::unix::net::UnixStream,
    receiver: std::os::unix::net::UnixStream,
    slots: Vec<Slot>,
    /// One receiver per runtime (keyed by its I/O driver handle's address); weak, so a
    /// runtime whose `Signal`s are all gone deregisters and closes its duplicate.
    receivers: Mutex<Vec<(usize, Weak<Receiver>)>>,
    next_id: AtomicU64,
}

fn globals() -> io::Result<&'static Globals> {
    static GLOBALS: OnceLock<Result<Globals, String>> = OnceLock::new();
    let g = GLOBALS.get_or_init(|| {
        let (sender, receiver) = std::os::unix::net::UnixStream::pair()
            .and_then(|(s, r)| {
                s.set_nonblocking(true)?;
                r.set_nonblocking(true)?;
                Ok((s, r))
            })
            .map_err(|e| format!("creating the signal socket pair failed: {e}"))?;
        let slots = (0..SLOTS)
            .map(|signum| Slot {
                signum: signum as i32,
                pending: AtomicBool::new(false),
                installed: OnceLock::new(),
                state: Mutex::new(SlotState {
                    generation: 0,
                    waiters: Vec::new(),
                }),
            })
            .collect();
        Ok(Globals {
            sender,
            receiver,
            slots,
            receivers: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(0),
        })
    });
    g.as_ref().map_err(|e| io::Error::other(e.clone()))
}

/// Installs the handler of `signum` (once) and returns its slot.
pub(crate) fn slot(signum: i32) -> io::Result<&'static Slot> {
    if signum <= 0 || signal_hook_registry::FORBIDDEN.contains(&signum) {
        return Err(io::Error::other(format!(
            "Refusing to register signal {signum}"
        )));
    }
    if signum as usize >= SLOTS {
        return Err(io::Error::other("signal too large"));
    }
    let g = globals()?;
    let slot: &'static Slot = &g.slots[signum as usize];
    let fd = g.sender.as_raw_fd();
    let installed = slot.installed.get_or_init(|| {
        let handler = move || on_signal(slot, fd);
        // SAFETY: `on_signal` is async-signal-safe: an atomic store, one write(2), and
        // reading/restoring errno; it allocates, locks and panics nowhere.
        unsafe { signal_hook_registry::register(signum, handler) }
            .map(drop)
            .map_err(|e| format!("installing the handler of signal {signum} failed: {e}"))
    });
    match installed {
        Ok(()) => Ok(slot),
        Err(e) => Err(io::Error::other(e.clone())),
    }
}

/// The signal handler's body (async-signal-safe): the flag, then the doorbell.
fn on_signal(slot: &Slot, sender: RawFd) {
    slot.pending.store(true, Ordering::SeqCst);
    // `sender` is the non-blocking socket of `Globals`, open for the life of the process.
    super::doorbell::ring(sender);
}

/// The receiver registered with the current runtime's driver (created on first use).
///
/// # Panics
/// Outside a runtime, or on one built without `Builder::enable_io()`.
#[track_caller]
pub(crate) fn receiver() -> io::Result<Arc<Receiver>> {
    let handle = crate::scheduler::Handle::current_driver("`runtime::signal` (`signal`, `ctrl_c`)")
        .io_handle()
        .clone();
    let key = Arc::as_ptr(&handle) as usize;
    let g = globals()?;
    let mut map = g.receivers.lock();
    map.retain(|(_, w)| w.strong_count() > 0);
    if let Some(r) = map
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, w)| w.upgrade())
    {
        // A live receiver holds its driver handle, so the address names this driver.
        return Ok(r);
    }
    let dup = g.receiver.try_clone()?;
    let io = IoSource::with_handle(
        &handle,
        mio::net::UnixStream::from_std(dup),
        Interest::READABLE,
    )?;
    let r = Arc::new(io);
    map.push((key, Arc::downgrade(&r)));
    Ok(r)
}

impl Slot {
    /// A new waiter id and the generation it starts from.
    pub(crate) fn subscribe(&self) -> (u64, u64) {
        let id = globals()
            .map(|g| g.next_id.fetch_add(1, Ordering::Relaxed))
            .unwrap_or(0);
        (id, self.state.lock().generation)
    }

    /// Step (1) of receiving: a delivery newer than `*seen` is consumed; else the waker
    /// is stored.
    fn check(&self, id: u64, seen: &mut u64, cx: &mut Context<'_>) -> bool {
        let old;
        {
            let mut st = self.state.lock();
            if st.generation != *seen {
                *seen = st.generation;
                return true;
            }
            let at = match st.waiters.iter().position(|(i, ..)| *i == id) {
                Some(at) if st.waiters[at].1.will_wake(cx.waker()) => return false,
                Some(at) => {
                    old = Some(std::mem::replace(&mut st.waiters[at].1, cx.waker().clone()));
                    at
                }
                None => {
                    st.waiters.push((id, cx.waker().clone(), WaitSlot::new()));
                    old = None;
                    st.waiters.len() - 1
                }
            };
            self.record_wait(id, &mut st.waiters[at].2, cx.waker());
        }
        drop(old); // outside the lock
        false
    }

    /// Records waiter `id`'s task in its slot `rec`, for task dumps (a waker that is no
    /// task's records nothing, and removes the record of a task's waker it replaced).
    /// Under the slot's lock.
    #[cold]
    fn record_wait(&self, id: u64, rec: &mut WaitSlot, waker: &Waker) {
        let wait = task::waits::Wait::on(task::waits::WaitKind::Signal, self.signum as usize);
        // SAFETY: no holder word, no test.
        unsafe { rec.record(self.wait_key(id), waker, wait, None, None) };
    }

    fn wait_key(&self, id: u64) -> (usize, usize) {
        (self as *const Slot as usize, id as usize)
    }

    /// Forgets waiter `id` (its `Signal` is dropped).
    pub(crate) fn unsubscribe(&self, id: u64) {
        let removed = {
            let mut st = self.state.lock();
            let at = st.waiters.iter().position(|(i, ..)| *i == id);
            at.map(|at| {
                let mut removed = st.waiters.swap_remove(at);
                removed.2.forget();
                removed
            })
        };
        drop(removed); // outside the lock
    }

    /// Receives one (coalesced) delivery; `None` once the runtime's driver is shut down.
    pub(crate) fn poll_recv(
        &self,
        receiver: &Receiver,
        id: u64,
        seen: &mut u64,
        cx: &mut Context<'_>,
    ) -> Poll<Option<()>> {
        loop {
            if self.check(id, seen, cx) {
                return Poll::Ready(Some(()));
            }
            match receiver.poll_ready_recorded(cx, Direction::Read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(_)) => return Poll::Ready(None),
                Poll::Ready(Ok(())) => {
                    drain(receiver);
                    dispatch();
                }
            }
        }
    }
}

/// Reads the receiver until `WouldBlock` (which clears the readiness recorded for it).
fn drain(receiver: &Receiver) {
    let mut buf = [0u8; 128];
    loop {
        match receiver.try_io(Direction::Read, |mut s| s.read(&mut buf)) {
            Ok(0) => return, // cannot happen: the sender lives as long as the process
            Ok(_) => continue,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return, // WouldBlock: drained
        }
    }
}

/// Bumps the generation of every slot whose handler ran, waking its waiters.
fn dispatch() {
    let Ok(g) = globals() else { return };
    for slot in &g.slots {
        if !slot.pending.swap(false, Ordering::SeqCst) {
            continue;
        }
        let wakers = {
            let mut st = slot.state.lock();
            st.generation += 1;
            for (.., rec) in &mut st.waiters {
                rec.forget();
            }
            std::mem::take(&mut st.waiters)
        };
        for (_, w, _) in wakers {
            w.wake();
        }
    }
}
