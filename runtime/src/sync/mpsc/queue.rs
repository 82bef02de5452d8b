//! The contract between a channel and its queue: `Queue`, a many-producer, one-consumer
//! queue (`ring::Ring` for the bounded flavor, `list::List` for the unbounded one), and
//! `Pop`, what one look at it found. A `Busy` look means a producer claimed the next
//! position and has not written it yet: not empty, only not readable yet (a receive that
//! waits lets the producer finish; a non-waiting look reports nothing for now).

/// What one look at the queue found.
pub enum Pop<T> {
    Value(T),
    Empty,
    /// A producer claimed the next position but has not written it yet.
    Busy,
}

/// A many-producer, one-consumer queue.
// Public only as a doc-hidden export for the loom suites (`mpsc/mod.rs`); no caller asks a
// queue whether it is empty, so there is no `is_empty` to go with `len`.
#[allow(clippy::len_without_is_empty)]
pub trait Queue<T> {
    /// # Safety
    /// The caller is the one consumer.
    unsafe fn pop(&self) -> Pop<T>;
    /// # Safety
    /// The caller is the one consumer.
    unsafe fn len(&self) -> usize;
}
