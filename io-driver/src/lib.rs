//! The driver a parked worker blocks in: mio readiness plus a hierarchical timer wheel.
//!
//! - [`Driver`] owns the `mio::Poll`; whichever worker parks calls [`Driver::park`], which
//!   sleeps in `epoll_wait` until I/O, the next timer deadline, [`Handle::unpark`] or the
//!   caller's timeout, then sets readiness on resources, fires expired timers, and wakes
//!   their wakers with no lock held.
//! - [`Handle`] (shared through an `Arc`) registers resources, creates timers and unparks.
//! - [`Registration`] is one resource's slab entry: an atomic readiness word (bits, a
//!   shutdown flag, the dispatch tick, the slot generation) and the tasks waiting on each
//!   direction (any number: one inline slot, a list from the second on; an event wakes
//!   every waiter of its direction).
//!   Tokens carry the slot generation, so events for a closed socket never reach the
//!   socket that reuses its slot; clearing readiness is tick-checked, so an event arriving
//!   between a `WouldBlock` and the clear is never lost.
//! - [`Timer`] is an entry in a 6-level x 64-slot wheel at 1 ms resolution ([`wheel`]):
//!   O(1) insert, reset and cancel, cascading on advance, never firing early. A timer
//!   polled while the driver sleeps past its deadline unparks it to re-arm. The driver
//!   keeps one wheel per CPU (at least 4), each behind its own mutex; a thread inserts
//!   into its own, so workers do not contend for timers, and the driver fires the wheels
//!   in bounded batches, waking each batch with no lock held.
//! - Time is read from the driver's clock ([`Handle::now`]): real time, or a paused clock
//!   ([`Handle::pause`], [`Handle::advance`]) that a parking driver moves to the next timer
//!   when nothing else happens (auto-advance), so tests that sleep for hours finish at once.
//! - [`Driver::shutdown`] fails every resource's polls and fires every timer with
//!   [`TimerShutdown`].
//!
//! This crate stores std `Waker`s only (it knows nothing of tasks) and contains no `unsafe`
//! code. The protocols that other threads race go through the `shim` crate (std and
//! `parking_lot` normally, loom's types under `--cfg loom`): a resource's readiness word and
//! waiters (`readiness.rs`), and the timer shards with the deadline the sleeping driver
//! publishes (`shards.rs`) and the timer entries' state machine (`timer.rs`'s `Entry`);
//! `loom-tests` drives them through loom-only exports. The mio (epoll) parts, the slab's
//! allocation and the clock use std atomics and `parking_lot` directly.

#![forbid(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod clock;
mod driver;
mod readiness;
mod ready;
mod registration;
mod shards;
mod slab;
mod timer;
mod waiters;
#[doc(hidden)]
pub mod wheel;

pub use driver::{Driver, Handle, EVENTS_CAPACITY};
pub use readiness::{is_shutdown_error, Direction, Ready, ReadyEvent, SHUTDOWN_ERROR};
pub use registration::Registration;
pub use timer::{Timer, TimerShutdown};

/// Not API: the protocols the loom suites drive directly (loom builds only), as
/// `runtime::loom_internals` is for the scheduler's.
#[cfg(loom)]
#[doc(hidden)]
pub mod loom_internals {
    /// A resource's readiness word and waiters (`loom_readiness`, `loom_driver`).
    pub use crate::readiness::loom_export::LoomScheduledIo as ScheduledIo;
    /// The wheels' shards and the sleeping driver's deadline (`loom_timer`).
    pub use crate::shards::TimerShards;
    /// A timer's wheel half (`loom_timer`).
    pub use crate::timer::Entry as TimerEntry;
}
