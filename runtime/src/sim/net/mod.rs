//! The in-memory network of the deterministic mode: loopback TCP and UDP sockets and
//! Unix sockets that live inside one runtime, with seeded delivery delays on the
//! virtual clock.
//!
//! `Net` owns every bound address (addr.rs), every listener and connection (tcp/, and
//! the Unix streams of unix.rs on the same model), every UDP socket (udp.rs) and Unix
//! datagram socket (unix_dgram.rs) of its runtime, all in one `State` behind one mutex.
//! The public socket types (`runtime::net::{TcpListener, TcpStream, TcpSocket,
//! UdpSocket, UnixListener, UnixStream, UnixDatagram}`) hold an [`Io`]: their real
//! `IoSource`, or, when they were made inside a deterministic runtime, a handle into
//! this state (an id and the runtime's `Sim`).
//!
//! A write (a TCP segment, a FIN or RST, a SYN, a datagram) becomes visible at the peer
//! after a delay drawn from the network's own seeded generator (one of `0, DELAY_STEP_US,
//! .., MAX_DELAY_US` µs of virtual time; none without a timer driver): it is queued as a
//! `Delivery` keyed by
//! (due instant, sequence number of the write). A connection's deliveries in one
//! direction are due in write order (each is due no earlier than the one before it),
//! so the key order is the arrival order. The stepper (sim/stepper.rs) asks
//! `next_delivery` for the earliest key when nothing can run, moves the virtual clock
//! there and calls `deliver_due`, which applies what is due in key order and wakes the
//! tasks waiting for it. Nothing here reads real time, keys a choice on an address or
//! iterates a hash map: the structures are `BTreeMap`, `VecDeque` and `Vec`.
//!
//! Waiters are `Waker`s kept in the state of what they wait for (`Waiters`); every
//! change that can make an operation succeed takes them, and they are woken after the
//! lock is released. Dropping a socket handle forgets its waiters (their wakers are
//! dropped after the lock is released too).

mod addr;
mod sink;
pub(crate) mod tcp;
pub(crate) mod udp;
pub(crate) mod unix;
pub(crate) mod unix_dgram;

pub(crate) use addr::resolve;
pub(crate) use sink::done;

use std::collections::BTreeMap;
use std::ops::Deref;
use std::panic::Location;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::{Rng, Sim};

/// The largest delivery delay, in µs of virtual time.
pub(crate) const MAX_DELAY_US: u64 = 200;

/// Delays are drawn in steps of this many µs. Virtual time runs every task to idle before
/// it moves, so only deliveries due at one instant race each other (in the workers'
/// interleaving): coarse steps make such ties, and the races behind them, common (one
/// pair of deliveries in five ties), as concurrent arrivals are on a real machine.
pub(crate) const DELAY_STEP_US: u64 = 50;

/// A socket's I/O: its real `IoSource` (`R`) or its in-memory twin (`S`).
///
/// Every public method of a socket type handles `Sim` first (the `on_sim!` prefix in
/// `runtime::net`); what reaches the real source through `Deref` on a `Sim` is an
/// operation the in-memory network does not model (a raw descriptor, a kernel socket
/// option), and panics saying so.
pub(crate) enum Io<R, S> {
    Real(R),
    Sim(S),
}

impl<R, S> Io<R, S> {
    /// The in-memory twin, if this is one.
    #[inline]
    pub(crate) fn sim(&self) -> Option<&S> {
        match self {
            Io::Sim(s) => Some(s),
            Io::Real(_) => None,
        }
    }

    /// The real source; panics (naming the caller) on an in-memory socket.
    #[track_caller]
    pub(crate) fn into_real(self) -> R {
        match self {
            Io::Real(r) => r,
            Io::Sim(_) => no_descriptor(),
        }
    }
}

impl<R, S> Deref for Io<R, S> {
    type Target = R;

    #[track_caller]
    #[inline]
    fn deref(&self) -> &R {
        match self {
            Io::Real(r) => r,
            Io::Sim(_) => no_descriptor(),
        }
    }
}

#[track_caller]
#[cold]
fn no_descriptor() -> ! {
    panic!(
        "{}: this socket lives in a deterministic runtime's in-memory network and has no \
         descriptor: raw-descriptor access (`as_raw_fd`, `as_fd`, `into_std`, `try_io` on \
         the descriptor) and kernel socket options other than the ones the network models \
         (nodelay, ttl, linger, broadcast) are not available there; use the socket through \
         its own methods, or run this test on a runtime built without \
         `Builder::deterministic`",
        Location::caller()
    )
}

// As `IoSource`'s: the network's state is only changed under its lock, by the network's
// own bookkeeping (no caller code runs under it; wakers are woken after it is
// released), so no panic unwinds through a half-made change and the handles into it
// are unwind safe, as the real sockets are.
macro_rules! unwind_safe {
    ($($t:ty),*) => {$(
        impl std::panic::UnwindSafe for $t {}
        impl std::panic::RefUnwindSafe for $t {}
    )*};
}

unwind_safe!(
    tcp::Stream,
    tcp::Listener,
    tcp::Socket,
    udp::Socket,
    unix_dgram::Dgram
);

/// Panics for a real resource created inside a deterministic runtime.
#[track_caller]
#[cold]
pub(crate) fn real_resource(what: &str, instead: &str) -> ! {
    panic!(
        "{what} at {}: a deterministic runtime (`Builder::deterministic`) has no real I/O \
         resources: what one does would not replay from the seed. {instead}",
        Location::caller()
    )
}

/// Panics when the current runtime is deterministic (for the constructors of real
/// resources).
#[track_caller]
pub(crate) fn forbid_real(what: &str, instead: &str) {
    if super::current().is_some() {
        real_resource(what, instead);
    }
}

/// The tasks waiting for one condition.
#[derive(Default)]
pub(crate) struct Waiters(Vec<Waker>);

impl Waiters {
    /// Adds `cx`'s waker (once per task).
    pub(crate) fn register(&mut self, cx: &Context<'_>) {
        let w = cx.waker();
        if !self.0.iter().any(|o| o.will_wake(w)) {
            self.0.push(w.clone());
        }
    }

    /// Moves every waiter to `out` (to be woken after the lock is released).
    pub(crate) fn take(&mut self, out: &mut Vec<Waker>) {
        out.append(&mut self.0);
    }
}

/// `Pending` after registering in `waiters` (`cx` given), else `WouldBlock` (a `try_*`).
pub(crate) fn blocked<T>(
    cx: Option<&mut Context<'_>>,
    waiters: &mut Waiters,
) -> Poll<std::io::Result<T>> {
    match cx {
        Some(cx) => {
            waiters.register(cx);
            Poll::Pending
        }
        None => Poll::Ready(Err(std::io::ErrorKind::WouldBlock.into())),
    }
}

/// One queued delivery.
pub(crate) enum Delivery {
    Tcp(tcp::Delivery),
    Udp(udp::Delivery),
    UnixDgram(unix_dgram::Delivery),
}

/// Everything the network holds (one lock).
pub(crate) struct State {
    pub(crate) q: Queue,
    pub(crate) ports: addr::Ports,
    pub(crate) tcp: tcp::Tcp,
    pub(crate) udp: udp::Udp,
    pub(crate) unix_dgram: unix_dgram::UnixDgrams,
    /// The waiters of closed sockets: dropped only after the lock is released, as a
    /// waker's drop may run code (a last task reference) that reaches the network.
    pub(crate) stale: Vec<Waker>,
}

/// The deliveries in flight and the generator of their delays.
pub(crate) struct Queue {
    rng: Rng,
    seq: u64,
    queue: BTreeMap<(Instant, u64), Delivery>,
    /// The virtual clock's reading at the current operation (set by `Net::with`, and
    /// to a delivery's due instant while it is applied; nothing is scheduled before
    /// the first operation sets it).
    now: Option<Instant>,
    /// Whether delays are drawn (a timer driver moves the clock).
    delays: bool,
}

impl Queue {
    /// Queues `d`, due after a seeded delay but no earlier than `after` (the previous
    /// delivery of the same flow, for in-order arrival); returns its due instant.
    pub(crate) fn schedule(&mut self, after: Option<Instant>, d: Delivery) -> Instant {
        let delay = if self.delays {
            let steps = (MAX_DELAY_US / DELAY_STEP_US) as usize + 1;
            Duration::from_micros(self.rng.below(steps) as u64 * DELAY_STEP_US)
        } else {
            Duration::ZERO
        };
        let now = self
            .now
            .expect("an operation set the clock before scheduling");
        let mut due = now + delay;
        if let Some(a) = after {
            due = due.max(a);
        }
        let seq = self.seq;
        self.seq += 1;
        self.queue.insert((due, seq), d);
        due
    }
}

/// The network of one deterministic runtime.
pub(crate) struct Net {
    state: Mutex<State>,
}

impl Net {
    /// An empty network whose delays are drawn from `seed`.
    pub(crate) fn new(seed: u64) -> Net {
        Net {
            state: Mutex::new(State {
                q: Queue {
                    rng: Rng::new(seed),
                    seq: 0,
                    queue: BTreeMap::new(),
                    now: None,
                    delays: false,
                },
                ports: addr::Ports::default(),
                tcp: tcp::Tcp::default(),
                udp: udp::Udp::default(),
                unix_dgram: unix_dgram::UnixDgrams::default(),
                stale: Vec::new(),
            }),
        }
    }

    /// The instant of the earliest pending delivery, if any.
    pub(crate) fn next_delivery(&self) -> Option<Instant> {
        self.state.lock().q.queue.keys().next().map(|k| k.0)
    }

    /// Makes every delivery due at or before `now` visible, waking its readers. Returns
    /// how many deliveries it made.
    pub(crate) fn deliver_due(&self, now: Instant) -> usize {
        let mut wake = Vec::new();
        let mut n = 0;
        let _stale = {
            let mut st = self.state.lock();
            let delays = st.q.delays;
            while let Some(entry) = st.q.queue.first_entry() {
                let (due, _) = *entry.key();
                if due > now && delays {
                    break;
                }
                let d = entry.remove();
                // Follow-ups (an RST answering data sent to a closed socket) are
                // scheduled from the delivery's own instant.
                st.q.now = Some(due);
                match d {
                    Delivery::Tcp(d) => tcp::deliver(&mut st, d, &mut wake),
                    Delivery::Udp(d) => udp::deliver(&mut st, d, &mut wake),
                    Delivery::UnixDgram(d) => unix_dgram::deliver(&mut st, d, &mut wake),
                }
                n += 1;
            }
            std::mem::take(&mut st.stale)
        };
        for w in wake {
            w.wake();
        }
        n
    }

    /// Runs `f` on the state at the virtual instant of `sim`'s clock, then wakes what
    /// it collected (outside the lock).
    pub(crate) fn with<R>(sim: &Sim, f: impl FnOnce(&mut State, &mut Vec<Waker>) -> R) -> R {
        let mut wake = Vec::new();
        let (r, _stale) = {
            let mut st = sim.net.state.lock();
            match &sim.time {
                Some(t) => {
                    st.q.now = Some(t.now());
                    st.q.delays = true;
                }
                None => {
                    // No clock: every delivery is due at the epoch, and the stepper
                    // delivers them all when the run is idle.
                    st.q.now = Some(sim.origin);
                    st.q.delays = false;
                }
            }
            let r = f(&mut st, &mut wake);
            (r, std::mem::take(&mut st.stale))
        };
        for w in wake {
            w.wake();
        }
        r
    }
}
