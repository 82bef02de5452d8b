//! Synchronization between tasks.
//!
//! - [`oneshot`]: one value, sent once, from one task (or thread) to another; the receiver
//!   is a future. One allocation and one state word per channel (see the module doc).
//! - [`mpsc`]: many producers, one consumer; bounded (backpressure) and unbounded.
//! - [`watch`]: one value, many readers notified of each change.
//! - [`broadcast`]: many producers, many consumers, each seeing every value (a bounded
//!   ring; a slow consumer is told how many it missed).

mod atomic_waker;
pub mod broadcast;
pub mod mpsc;
pub mod oneshot;
mod wait_list;
pub mod watch;
