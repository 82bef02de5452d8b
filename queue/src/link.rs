//! The intrusive link: how a queue threads its items together without allocating.
//!
//! An item (for the runtime: a task handle) converts into a raw pointer to its node and
//! back, and the node carries one `next` field that the queue holding the item, and nothing
//! else, reads and writes. The [`Inject`](crate::Inject) list chains items through it;
//! the [`Local`](crate::Local) ring stores items by value and never touches the link.
//!
//! Ownership travels with the raw pointer: `into_raw` hands the item's ownership to the
//! queue, `from_raw` takes it back, exactly once per `into_raw`.

use core::ptr::NonNull;

/// An item that carries its own intrusive `next` pointer (tasks implement it on their header).
///
/// # Safety
///
/// `from_raw(into_raw(x))` must give back `x`; `next`/`set_next` must read/write a link field
/// that nothing but the queue holding the item touches while the item is queued.
pub unsafe trait Link: Sized {
    /// The node the raw pointer points at (the task header, for the runtime).
    type Node;

    /// Gives up ownership of the item; the queue now owns it through the pointer.
    fn into_raw(self) -> NonNull<Self::Node>;

    /// Takes back ownership of an item given up with [`into_raw`](Link::into_raw).
    ///
    /// # Safety
    ///
    /// `ptr` came from `into_raw` and ownership of it is taken back at most once.
    unsafe fn from_raw(ptr: NonNull<Self::Node>) -> Self;

    /// Reads the link field of the node.
    ///
    /// # Safety
    ///
    /// `ptr` points at a live node owned by the caller's queue, and no other thread
    /// accesses its link concurrently.
    unsafe fn next(ptr: NonNull<Self::Node>) -> Option<NonNull<Self::Node>>;

    /// Writes the link field of the node.
    ///
    /// # Safety
    ///
    /// As for [`next`](Link::next).
    unsafe fn set_next(ptr: NonNull<Self::Node>, next: Option<NonNull<Self::Node>>);
}
