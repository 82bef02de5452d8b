//! The test item: a boxed node implementing `queue::Link`, with an optional per-id drop
//! tracker so tests can check that every item is dropped exactly once.

#![allow(dead_code)]

use std::ptr::NonNull;

use queue::Link;
use shim::cell::UnsafeCell;
use shim::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use shim::sync::Arc;

/// Counts the drops of each id.
#[derive(Clone)]
pub struct Tracker(Arc<Vec<AtomicUsize>>);

impl Tracker {
    pub fn new(ids: usize) -> Self {
        Tracker(Arc::new((0..ids).map(|_| AtomicUsize::new(0)).collect()))
    }

    pub fn item(&self, id: usize) -> Item {
        Item::build(id, Some(self.clone()))
    }

    pub fn drops(&self, id: usize) -> usize {
        self.0[id].load(SeqCst)
    }

    pub fn total(&self) -> usize {
        self.0.iter().map(|d| d.load(SeqCst)).sum()
    }

    /// Asserts every id in `ids` was dropped exactly once.
    pub fn assert_each_dropped_once(&self, ids: impl IntoIterator<Item = usize>) {
        for id in ids {
            assert_eq!(
                self.drops(id),
                1,
                "item {id} dropped {} times",
                self.drops(id)
            );
        }
    }
}

pub struct Node {
    id: usize,
    next: UnsafeCell<Option<NonNull<Node>>>,
    tracker: Option<Tracker>,
}

impl Drop for Node {
    fn drop(&mut self) {
        if let Some(t) = &self.tracker {
            t.0[self.id].fetch_add(1, SeqCst);
        }
    }
}

/// An owned test item.
pub struct Item(Box<Node>);

// SAFETY: the node's link is only touched by the queue holding the item; everything else in
// it is Send.
unsafe impl Send for Item {}

impl Item {
    pub fn new(id: usize) -> Self {
        Item::build(id, None)
    }

    fn build(id: usize, tracker: Option<Tracker>) -> Self {
        Item(Box::new(Node {
            id,
            next: UnsafeCell::new(None),
            tracker,
        }))
    }

    pub fn id(&self) -> usize {
        self.0.id
    }

    /// The node's address (what `Local::last_node` reports).
    #[allow(dead_code)]
    pub fn addr(&self) -> *const Node {
        &*self.0
    }
}

// SAFETY: `into_raw`/`from_raw` are `Box::into_raw`/`Box::from_raw`; the link field is
// touched only through `next`/`set_next`.
unsafe impl Link for Item {
    type Node = Node;

    fn into_raw(self) -> NonNull<Node> {
        NonNull::from(Box::leak(self.0))
    }

    unsafe fn from_raw(ptr: NonNull<Node>) -> Self {
        // SAFETY: `ptr` came from `Box::leak` in `into_raw`, taken back once.
        Item(unsafe { Box::from_raw(ptr.as_ptr()) })
    }

    unsafe fn next(ptr: NonNull<Node>) -> Option<NonNull<Node>> {
        // SAFETY: the caller guarantees the node is live.
        let node = unsafe { ptr.as_ref() };
        // SAFETY: the caller guarantees the link is ours to read.
        node.next.with(|p| unsafe { *p })
    }

    unsafe fn set_next(ptr: NonNull<Node>, next: Option<NonNull<Node>>) {
        // SAFETY: the caller guarantees the node is live.
        let node = unsafe { ptr.as_ref() };
        // SAFETY: the caller guarantees the link is ours to write.
        node.next.with_mut(|p| unsafe { *p = next })
    }
}

/// Ids of the items, in order, consuming them.
pub fn ids(items: impl IntoIterator<Item = Item>) -> Vec<usize> {
    items.into_iter().map(|i| i.id()).collect()
}
