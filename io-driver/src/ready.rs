//! The readiness bit-set types: [`Ready`], [`Direction`], [`ReadyEvent`], and the masks
//! that map a wait and an event to the waiters of each side.
//!
//! [`Ready`] is a `u8` set of six bits (readable, writable, read-closed, write-closed,
//! error, priority), built from a mio event by `Ready::from_mio`, one mio flag per bit.
//! The bit values are fixed: a resource's readiness word (`readiness.rs`) stores them
//! unshifted in its low bits, below its SHUTDOWN flag, and `from_bits` drops anything
//! outside [`Ready::ALL`]. Read-closed and write-closed are sticky there (no further edge
//! comes for them), so a clear never removes them (`Ready::CLOSED`).
//!
//! A [`Direction`] names the half of a resource an operation waits on and its
//! [`mask`](Direction::mask), the bits that satisfy such a wait: readable, read-closed or
//! error for a read; writable, write-closed or error for a write.
//!
//! A wait on any set of bits joins the waiters of the sides it selects: the read side when
//! the set holds a bit of `READ_WAIT` (readable, read-closed, priority) or holds no bit of
//! `WRITE_WAIT`, and the write side when it holds a bit of `WRITE_WAIT` (writable,
//! write-closed). An event wakes the read waiters when it carries a bit of `READ_SIDE`
//! (readable, read-closed, error, priority) and the write waiters when it carries one of
//! `WRITE_SIDE` (writable, write-closed, error). `READ_WAIT` lies inside `READ_SIDE`,
//! `WRITE_WAIT` inside `WRITE_SIDE`, and error, which a wait on error alone joins the read
//! side for, is in both sides, so an event carrying any bit a wait asks for wakes a side the
//! wait joined.
//!
//! A [`ReadyEvent`] is the readiness a poll observed: the bits, restricted to what was
//! polled for, and the driver tick of the dispatch that set them. Handed back to
//! `clear_readiness`, the tick leaves the word untouched when it holds a different tick
//! (a later dispatch stamped it).
//!
//! These are plain values: nothing here is shared or atomic, and none of it goes through
//! the `shim` crate.

use std::fmt;
use std::ops::BitOr;

/// A set of readiness bits reported by the OS for one resource.
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Ready(pub(crate) u8);

impl Ready {
    /// No readiness.
    pub const EMPTY: Ready = Ready(0);
    /// The resource can be read from.
    pub const READABLE: Ready = Ready(1 << 0);
    /// The resource can be written to.
    pub const WRITABLE: Ready = Ready(1 << 1);
    /// The read half is closed (peer sent FIN, or hang-up). Sticky: never cleared.
    pub const READ_CLOSED: Ready = Ready(1 << 2);
    /// The write half is closed (hang-up or error). Sticky: never cleared.
    pub const WRITE_CLOSED: Ready = Ready(1 << 3);
    /// The resource reported an error condition.
    pub const ERROR: Ready = Ready(1 << 4);
    /// Priority (out-of-band) data can be read (`EPOLLPRI`).
    pub const PRIORITY: Ready = Ready(1 << 5);
    /// Every readiness bit.
    pub const ALL: Ready = Ready(0b11_1111);

    pub(crate) const CLOSED: Ready = Ready(Self::READ_CLOSED.0 | Self::WRITE_CLOSED.0);

    /// The raw bits.
    pub const fn bits(self) -> u8 {
        self.0
    }
    /// Builds a set from raw bits; unknown bits are dropped.
    pub const fn from_bits(bits: u8) -> Ready {
        Ready(bits & Self::ALL.0)
    }
    /// True when no bit is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// True when every bit of `other` is set in `self`.
    pub const fn contains(self, other: Ready) -> bool {
        self.0 & other.0 == other.0
    }
    /// True when `self` and `other` share a bit.
    pub const fn intersects(self, other: Ready) -> bool {
        self.0 & other.0 != 0
    }
    /// The bits set in both.
    pub const fn intersection(self, other: Ready) -> Ready {
        Ready(self.0 & other.0)
    }
    /// Readable bit set.
    pub const fn is_readable(self) -> bool {
        self.contains(Self::READABLE)
    }
    /// Writable bit set.
    pub const fn is_writable(self) -> bool {
        self.contains(Self::WRITABLE)
    }
    /// Read-closed bit set.
    pub const fn is_read_closed(self) -> bool {
        self.contains(Self::READ_CLOSED)
    }
    /// Write-closed bit set.
    pub const fn is_write_closed(self) -> bool {
        self.contains(Self::WRITE_CLOSED)
    }
    /// Error bit set.
    pub const fn is_error(self) -> bool {
        self.contains(Self::ERROR)
    }
    /// Priority bit set.
    pub const fn is_priority(self) -> bool {
        self.contains(Self::PRIORITY)
    }

    pub(crate) fn from_mio(event: &mio::event::Event) -> Ready {
        let mut bits = 0;
        if event.is_readable() {
            bits |= Self::READABLE.0;
        }
        if event.is_writable() {
            bits |= Self::WRITABLE.0;
        }
        if event.is_read_closed() {
            bits |= Self::READ_CLOSED.0;
        }
        if event.is_write_closed() {
            bits |= Self::WRITE_CLOSED.0;
        }
        if event.is_error() {
            bits |= Self::ERROR.0;
        }
        if event.is_priority() {
            bits |= Self::PRIORITY.0;
        }
        Ready(bits)
    }
}

impl BitOr for Ready {
    type Output = Ready;
    fn bitor(self, rhs: Ready) -> Ready {
        Ready(self.0 | rhs.0)
    }
}

impl fmt::Debug for Ready {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [(Ready, &str); 6] = [
            (Ready::READABLE, "READABLE"),
            (Ready::WRITABLE, "WRITABLE"),
            (Ready::READ_CLOSED, "READ_CLOSED"),
            (Ready::WRITE_CLOSED, "WRITE_CLOSED"),
            (Ready::ERROR, "ERROR"),
            (Ready::PRIORITY, "PRIORITY"),
        ];
        let mut set = f.debug_set();
        for (bit, name) in NAMES {
            if self.contains(bit) {
                set.entry(&format_args!("{name}"));
            }
        }
        set.finish()
    }
}

/// Which half of a resource an operation waits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Wait for readable (or read-closed, or error).
    Read,
    /// Wait for writable (or write-closed, or error).
    Write,
}

impl Direction {
    /// The readiness bits that satisfy a wait in this direction.
    pub const fn mask(self) -> Ready {
        match self {
            Direction::Read => Ready(Ready::READABLE.0 | Ready::READ_CLOSED.0 | Ready::ERROR.0),
            Direction::Write => Ready(Ready::WRITABLE.0 | Ready::WRITE_CLOSED.0 | Ready::ERROR.0),
        }
    }
}

/// The bits whose events wake the read waiters (and which a wait on them joins them for).
pub(crate) const READ_SIDE: Ready =
    Ready(Ready::READABLE.0 | Ready::READ_CLOSED.0 | Ready::ERROR.0 | Ready::PRIORITY.0);
/// The bits a wait joins the read waiters for (besides a wait on error alone).
pub(crate) const READ_WAIT: Ready =
    Ready(Ready::READABLE.0 | Ready::READ_CLOSED.0 | Ready::PRIORITY.0);
/// The bits whose events wake the write waiters.
pub(crate) const WRITE_SIDE: Ready = Direction::Write.mask();
/// The bits a wait joins the write waiters for (an error wakes both sides, so a wait that
/// includes it is served by the read side alone).
pub(crate) const WRITE_WAIT: Ready = Ready(Ready::WRITABLE.0 | Ready::WRITE_CLOSED.0);

/// Readiness observed by `poll_ready`: the bits (restricted to the polled direction) and the
/// driver tick at which they were set. Hand it back to `clear_readiness` after a `WouldBlock`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadyEvent {
    pub(crate) ready: Ready,
    pub(crate) tick: u32,
}

impl ReadyEvent {
    /// The readiness bits seen.
    pub fn ready(&self) -> Ready {
        self.ready
    }
    /// The driver tick at which they were set.
    pub fn tick(&self) -> u32 {
        self.tick
    }
    /// The same event restricted to the bits of `ready` (to clear only those).
    #[must_use]
    pub fn with_ready(self, ready: Ready) -> ReadyEvent {
        ReadyEvent {
            ready: self.ready.intersection(ready),
            tick: self.tick,
        }
    }
}
