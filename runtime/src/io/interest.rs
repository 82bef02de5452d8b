//! [`Interest`] and [`Ready`]: the readiness sets of tokio's `io` module.
//!
//! Both are small bit sets in a `u8`, with tokio's constants and predicates, so code that
//! names `tokio::io::Interest::READABLE` or tests `ready.is_writable()` ports by a rename.
//! tokio only builds these with its `net` feature (which would bring its I/O driver), so
//! they are ours. The socket types and `AsyncFd` take an `Interest` in `ready()`, which
//! waits for the driver's readiness bits an interest covers, as tokio's does: readable is
//! readable or read-closed, writable is writable or write-closed, error is error, priority
//! is priority or read-closed; the `Ready` it answers holds exactly those of them that are
//! set, so a hang-up shows as `is_read_closed()` and an error as `is_error()`.

use std::fmt;
use std::ops;

const READABLE: u8 = 0b0001;
const WRITABLE: u8 = 0b0010;
const ERROR: u8 = 0b0100;
const PRIORITY: u8 = 0b1000;
const READ_CLOSED: u8 = 0b1_0000;
const WRITE_CLOSED: u8 = 0b10_0000;

/// Readiness a task waits for: readable, writable, or both.
///
/// ```
/// use runtime::io::Interest;
/// let both = Interest::READABLE | Interest::WRITABLE;
/// assert!(both.is_readable() && both.is_writable());
/// assert_eq!(both.remove(Interest::WRITABLE), Some(Interest::READABLE));
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Interest(u8);

impl Interest {
    /// Interest in reading.
    pub const READABLE: Interest = Interest(READABLE);
    /// Interest in writing.
    pub const WRITABLE: Interest = Interest(WRITABLE);
    /// Interest in error events (always reported by epoll, so implied by the others).
    pub const ERROR: Interest = Interest(ERROR);
    /// Interest in priority (out-of-band) data.
    pub const PRIORITY: Interest = Interest(PRIORITY);

    /// True when readable interest is set.
    pub const fn is_readable(self) -> bool {
        self.0 & READABLE != 0
    }

    /// True when writable interest is set.
    pub const fn is_writable(self) -> bool {
        self.0 & WRITABLE != 0
    }

    /// True when error interest is set.
    pub const fn is_error(self) -> bool {
        self.0 & ERROR != 0
    }

    /// True when priority interest is set.
    pub const fn is_priority(self) -> bool {
        self.0 & PRIORITY != 0
    }

    /// Both sets together (the `const` form of `|`).
    #[must_use = "this returns the result of the operation, without modifying the original"]
    pub const fn add(self, other: Interest) -> Interest {
        Interest(self.0 | other.0)
    }

    /// This set without `other`, or `None` if nothing is left.
    #[must_use = "this returns the result of the operation, without modifying the original"]
    pub fn remove(self, other: Interest) -> Option<Interest> {
        let left = self.0 & !other.0;
        (left != 0).then_some(Interest(left))
    }
}

impl Interest {
    /// The driver's readiness bits that satisfy this interest (tokio's mapping, see the
    /// module doc).
    pub(crate) fn mask(self) -> io_driver::Ready {
        use io_driver::Ready as R;
        let mut m = R::EMPTY;
        if self.is_readable() {
            m = m | R::READABLE | R::READ_CLOSED;
        }
        if self.is_writable() {
            m = m | R::WRITABLE | R::WRITE_CLOSED;
        }
        if self.is_error() {
            m = m | R::ERROR;
        }
        if self.is_priority() {
            m = m | R::PRIORITY | R::READ_CLOSED;
        }
        m
    }

    /// The epoll interest to register with: mio has no error interest (epoll always
    /// reports errors), so an interest in errors alone registers for readable, whose
    /// events its `mask` then filters out.
    pub(crate) fn to_mio(self) -> mio::Interest {
        let mut m: Option<mio::Interest> = None;
        let mut add = |i: mio::Interest| m = Some(m.map_or(i, |m| m | i));
        if self.is_readable() || self.is_error() {
            add(mio::Interest::READABLE);
        }
        if self.is_writable() {
            add(mio::Interest::WRITABLE);
        }
        if self.is_priority() {
            add(mio::Interest::PRIORITY);
        }
        m.unwrap_or(mio::Interest::READABLE)
    }
}

impl ops::BitOr for Interest {
    type Output = Interest;
    fn bitor(self, other: Interest) -> Interest {
        self.add(other)
    }
}

impl ops::BitOrAssign for Interest {
    fn bitor_assign(&mut self, other: Interest) {
        *self = self.add(other);
    }
}

impl fmt::Debug for Interest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_flags(
            f,
            self.0,
            &[
                (READABLE, "READABLE"),
                (WRITABLE, "WRITABLE"),
                (ERROR, "ERROR"),
                (PRIORITY, "PRIORITY"),
            ],
        )
    }
}

/// Readiness a task observed.
///
/// ```
/// use runtime::io::Ready;
/// let r = Ready::READABLE | Ready::WRITABLE;
/// assert!(r.is_readable() && r.is_writable() && !r.is_read_closed());
/// assert!((r - Ready::READABLE).is_writable());
/// assert!(Ready::EMPTY.is_empty());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ready(u8);

impl Ready {
    /// No readiness.
    pub const EMPTY: Ready = Ready(0);
    /// Readable.
    pub const READABLE: Ready = Ready(READABLE);
    /// Writable.
    pub const WRITABLE: Ready = Ready(WRITABLE);
    /// The read direction is closed.
    pub const READ_CLOSED: Ready = Ready(READ_CLOSED);
    /// The write direction is closed.
    pub const WRITE_CLOSED: Ready = Ready(WRITE_CLOSED);
    /// An error is pending.
    pub const ERROR: Ready = Ready(ERROR);
    /// Priority data is readable.
    pub const PRIORITY: Ready = Ready(PRIORITY);
    /// Every readiness.
    pub const ALL: Ready =
        Ready(READABLE | WRITABLE | READ_CLOSED | WRITE_CLOSED | ERROR | PRIORITY);

    /// True when nothing is set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// True when readable (or read-closed, where a read returns at once).
    pub fn is_readable(self) -> bool {
        self.0 & (READABLE | READ_CLOSED) != 0
    }
    /// True when writable (or write-closed, where a write returns at once).
    pub fn is_writable(self) -> bool {
        self.0 & (WRITABLE | WRITE_CLOSED) != 0
    }
    /// True when the read direction is closed.
    pub fn is_read_closed(self) -> bool {
        self.0 & READ_CLOSED != 0
    }
    /// True when the write direction is closed.
    pub fn is_write_closed(self) -> bool {
        self.0 & WRITE_CLOSED != 0
    }
    /// True when an error is pending.
    pub fn is_error(self) -> bool {
        self.0 & ERROR != 0
    }
    /// True when priority data is readable.
    pub fn is_priority(self) -> bool {
        self.0 & PRIORITY != 0
    }
}

impl Ready {
    /// The driver's bits, in this type's layout.
    pub(crate) fn from_driver(r: io_driver::Ready) -> Ready {
        let mut bits = 0;
        for (d, b) in [
            (io_driver::Ready::READABLE, READABLE),
            (io_driver::Ready::WRITABLE, WRITABLE),
            (io_driver::Ready::READ_CLOSED, READ_CLOSED),
            (io_driver::Ready::WRITE_CLOSED, WRITE_CLOSED),
            (io_driver::Ready::ERROR, ERROR),
            (io_driver::Ready::PRIORITY, PRIORITY),
        ] {
            if r.contains(d) {
                bits |= b;
            }
        }
        Ready(bits)
    }

    /// This set in the driver's layout.
    pub(crate) fn to_driver(self) -> io_driver::Ready {
        let mut r = io_driver::Ready::EMPTY;
        for (d, b) in [
            (io_driver::Ready::READABLE, READABLE),
            (io_driver::Ready::WRITABLE, WRITABLE),
            (io_driver::Ready::READ_CLOSED, READ_CLOSED),
            (io_driver::Ready::WRITE_CLOSED, WRITE_CLOSED),
            (io_driver::Ready::ERROR, ERROR),
            (io_driver::Ready::PRIORITY, PRIORITY),
        ] {
            if self.0 & b != 0 {
                r = r | d;
            }
        }
        r
    }
}

impl ops::BitOr for Ready {
    type Output = Ready;
    fn bitor(self, other: Ready) -> Ready {
        Ready(self.0 | other.0)
    }
}

impl ops::BitOrAssign for Ready {
    fn bitor_assign(&mut self, other: Ready) {
        self.0 |= other.0;
    }
}

impl ops::BitAnd for Ready {
    type Output = Ready;
    fn bitand(self, other: Ready) -> Ready {
        Ready(self.0 & other.0)
    }
}

impl ops::Sub for Ready {
    type Output = Ready;
    fn sub(self, other: Ready) -> Ready {
        Ready(self.0 & !other.0)
    }
}

impl fmt::Debug for Ready {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_flags(
            f,
            self.0,
            &[
                (READABLE, "READABLE"),
                (WRITABLE, "WRITABLE"),
                (READ_CLOSED, "READ_CLOSED"),
                (WRITE_CLOSED, "WRITE_CLOSED"),
                (ERROR, "ERROR"),
                (PRIORITY, "PRIORITY"),
            ],
        )
    }
}

fn write_flags(f: &mut fmt::Formatter<'_>, bits: u8, names: &[(u8, &str)]) -> fmt::Result {
    let mut sep = "";
    for &(bit, name) in names {
        if bits & bit != 0 {
            write!(f, "{sep}{name}")?;
            sep = " | ";
        }
    }
    if sep.is_empty() {
        f.write_str("EMPTY")?;
    }
    Ok(())
}
