//! The unbounded channel's queue: an intrusive-free linked list of nodes, many producers and
//! one consumer (after Vyukov's MPSC queue).
//!
//! `tail` points at the newest node; producers append with one `swap` on it and then link
//! the previous tail's `next` to their node (Release). The consumer owns `head`, a stub node
//! whose `next` is the oldest message: it follows `next` (Acquire), takes the value, frees the
//! old stub and makes the message's node the new stub. Between a producer's swap and its link
//! the list looks cut; the consumer reads that as [`Pop::Busy`] (`tail != head`).
//!
//! One allocation per message (the unbounded channel gives no backpressure, so it has no
//! fixed ring to reuse). Every message is dropped once: by the consumer, or by `Drop`, which
//! walks the list from the stub.

use std::ptr;

use crossbeam_utils::CachePadded;
use shim::cell::UnsafeCell;
use shim::sync::atomic::{
    AtomicPtr,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};

use super::chan::{Pop, Queue};

struct Node<T> {
    next: AtomicPtr<Node<T>>,
    value: UnsafeCell<Option<T>>,
}

impl<T> Node<T> {
    fn alloc(value: Option<T>) -> *mut Node<T> {
        Box::into_raw(Box::new(Node {
            next: AtomicPtr::new(ptr::null_mut()),
            value: UnsafeCell::new(value),
        }))
    }
}

pub(crate) struct List<T> {
    tail: CachePadded<AtomicPtr<Node<T>>>,
    /// The stub (consumer only).
    head: CachePadded<UnsafeCell<*mut Node<T>>>,
}

impl<T> List<T> {
    pub(crate) fn new() -> List<T> {
        let stub = Node::alloc(None);
        List {
            tail: CachePadded::new(AtomicPtr::new(stub)),
            head: CachePadded::new(UnsafeCell::new(stub)),
        }
    }
}

impl<T> Queue<T> for List<T> {
    fn push(&self, value: T) {
        let node = Node::alloc(Some(value));
        // AcqRel: Acquire so the previous tail's initialisation is visible before we link it;
        // Release so the next producer sees ours.
        let prev = self.tail.swap(node, AcqRel);
        // SAFETY: `prev` stays allocated until the consumer moves past it, which needs its
        // `next`, which only we set.
        unsafe { (*prev).next.store(node, Release) };
    }

    unsafe fn pop(&self) -> Pop<T> {
        // SAFETY: the caller is the one consumer, the owner of `head`.
        let head = self.head.with(|h| unsafe { *h });
        // SAFETY: the stub is live (freed only here, by the consumer).
        let next = unsafe { (*head).next.load(Acquire) };
        if next.is_null() {
            return if self.tail.load(Acquire) == head {
                Pop::Empty
            } else {
                Pop::Busy
            };
        }
        // SAFETY: `next` was published with Release by its producer, which never touches
        // its value again; we own it now, and the old stub is ours to free (no producer
        // holds it: its `next` is set).
        unsafe {
            let value = (*next).value.with_mut(|v| (*v).take());
            self.head.with_mut(|h| *h = next);
            drop(Box::from_raw(head));
            Pop::Value(value.expect("a linked node holds a message"))
        }
    }

    unsafe fn len(&self) -> usize {
        // Not tracked here: the unbounded semaphore counts messages.
        0
    }
}

impl<T> Drop for List<T> {
    fn drop(&mut self) {
        // SAFETY: `&mut self`: no producer is mid-push; every node is linked from the stub.
        let mut node = self.head.with(|h| unsafe { *h });
        while !node.is_null() {
            // SAFETY: each node was allocated by `Node::alloc` and is freed once, here.
            let boxed = unsafe { Box::from_raw(node) };
            node = boxed.next.load(Relaxed);
        }
    }
}

// SAFETY: the raw pointers are owned by the list; values move between threads (T: Send).
unsafe impl<T: Send> Send for List<T> {}
// SAFETY: access to the cells is serialised as the module doc says.
unsafe impl<T: Send> Sync for List<T> {}
