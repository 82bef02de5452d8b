//! Synchronization between tasks.
//!
//! - [`oneshot`]: one value, sent once, from one task (or thread) to another; the receiver
//!   is a future. One allocation and one state word per channel (see the module doc).

pub mod oneshot;
