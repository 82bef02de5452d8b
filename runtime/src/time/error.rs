//! Time errors: [`Elapsed`], what a [`Timeout`](super::Timeout) resolves to when its
//! deadline passes first, and [`Error`], tokio's timer error (shut down, at capacity, or
//! an invalid duration). This runtime's timers report none of `Error`'s cases through it
//! (a timer polled after its runtime shut down panics with what happened; the wheel has
//! no capacity limit; every duration is clamped to the wheel's range), so the type is
//! here for code written against tokio's signatures.

use std::fmt;
use std::io;

/// The deadline of a [`timeout`](super::timeout) passed before its future completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed(());

impl Elapsed {
    pub(crate) fn new() -> Elapsed {
        Elapsed(())
    }
}

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("deadline has elapsed")
    }
}

impl std::error::Error for Elapsed {}

impl From<Elapsed> for io::Error {
    /// An `io::ErrorKind::TimedOut` error.
    fn from(e: Elapsed) -> io::Error {
        io::Error::new(io::ErrorKind::TimedOut, e)
    }
}

/// A timer error (tokio's `time::error::Error`): the timer driver shut down, is at
/// capacity, or was given an invalid duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Error(Kind);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Shutdown,
    AtCapacity,
    Invalid,
}

impl Error {
    /// The timer driver shut down.
    ///
    /// ```
    /// let e = runtime::time::error::Error::shutdown();
    /// assert!(e.is_shutdown() && !e.is_at_capacity() && !e.is_invalid());
    /// ```
    pub fn shutdown() -> Error {
        Error(Kind::Shutdown)
    }

    /// True for [`shutdown`](Error::shutdown).
    pub fn is_shutdown(&self) -> bool {
        self.0 == Kind::Shutdown
    }

    /// The timer is at capacity.
    pub fn at_capacity() -> Error {
        Error(Kind::AtCapacity)
    }

    /// True for [`at_capacity`](Error::at_capacity).
    pub fn is_at_capacity(&self) -> bool {
        self.0 == Kind::AtCapacity
    }

    /// The duration given is invalid (beyond the timer's range).
    pub fn invalid() -> Error {
        Error(Kind::Invalid)
    }

    /// True for [`invalid`](Error::invalid).
    pub fn is_invalid(&self) -> bool {
        self.0 == Kind::Invalid
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            Kind::Shutdown => {
                "the timer is shutdown, must be called from the context of Tokio runtime: \
                 timers need a running runtime with time enabled"
            }
            Kind::AtCapacity => "timer is at capacity and cannot create a new entry",
            Kind::Invalid => "timer duration exceeds maximum duration",
        })
    }
}

impl std::error::Error for Error {}
