//! Helpers shared by the loom suites in `tests/` (compiled only under `--cfg loom`; a plain
//! build of this crate is empty).
//!
//! [`Item`] is the queue suites' test item: a boxed node implementing `queue::Link`, whose
//! link lives in a `shim::cell::UnsafeCell` so loom checks every access the queues make to
//! it, and which optionally bumps a shared drop counter when it is dropped.

#![deny(unsafe_op_in_unsafe_fn)]

#[cfg(loom)]
pub use item::Item;

/// Runs `f` under loom at `LOOM_MAX_PREEMPTIONS`, or `default_bound` when it is unset,
/// and prints how many executions it explored (`--nocapture` shows it): the cost of a
/// model, read beside its wall time.
#[cfg(loom)]
pub fn model(f: impl Fn() + Sync + Send + 'static, default_bound: usize) {
    let builder = loom::model::Builder::new();
    let bound = builder.preemption_bound.unwrap_or(default_bound);
    model_at(f, bound);
}

/// Runs `f` under loom at preemption bound `bound`, whatever `LOOM_MAX_PREEMPTIONS` says,
/// and prints how many executions it explored (as [`model`]).
#[cfg(loom)]
pub fn model_at(f: impl Fn() + Sync + Send + 'static, bound: usize) {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(bound);
    // A std atomic on purpose: it counts executions from outside the model.
    let runs = std::sync::Arc::new(AtomicUsize::new(0));
    let counted = runs.clone();
    builder.check(move || {
        counted.fetch_add(1, Relaxed);
        f()
    });
    eprintln!(
        "explored {} executions (preemption bound {bound})",
        runs.load(Relaxed)
    );
}

/// Polls `f` once with a waker that does nothing (the models check state, not wake-ups,
/// where they use this).
#[cfg(loom)]
pub fn poll_noop<F: std::future::Future + ?Sized>(
    f: std::pin::Pin<&mut F>,
) -> std::task::Poll<F::Output> {
    f.poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
}

#[cfg(loom)]
mod item {
    use std::ptr::NonNull;

    use queue::Link;
    use shim::cell::UnsafeCell;
    use shim::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    use shim::sync::Arc;

    /// The node behind an [`Item`].
    pub struct Node {
        id: usize,
        next: UnsafeCell<Option<NonNull<Node>>>,
        drops: Option<Arc<AtomicUsize>>,
    }

    impl Drop for Node {
        fn drop(&mut self) {
            // The free of the node, made visible to loom: the link's last accesses (by the
            // queues, on other threads) must happen-before it.
            self.next.with_mut(|_| ());
            if let Some(drops) = &self.drops {
                // Relaxed: the suites read the count after joining every thread.
                drops.fetch_add(1, Relaxed);
            }
        }
    }

    /// An owned test item with an id.
    pub struct Item(Box<Node>);

    // SAFETY: the link is touched only by the queue holding the item; the rest is Send.
    unsafe impl Send for Item {}

    impl Item {
        /// An item without a drop counter (no extra atomic operations for loom to explore).
        pub fn new(id: usize) -> Self {
            Item::build(id, None)
        }

        /// An item that bumps `drops` when dropped.
        pub fn counted(id: usize, drops: &Arc<AtomicUsize>) -> Self {
            Item::build(id, Some(drops.clone()))
        }

        fn build(id: usize, drops: Option<Arc<AtomicUsize>>) -> Self {
            Item(Box::new(Node {
                id,
                next: UnsafeCell::new(None),
                drops,
            }))
        }

        /// The item's id.
        pub fn id(&self) -> usize {
            self.0.id
        }
    }

    // SAFETY: `into_raw`/`from_raw` are `Box::leak`/`Box::from_raw`; the link is only
    // accessed through `next`/`set_next`.
    unsafe impl Link for Item {
        type Node = Node;

        fn into_raw(self) -> NonNull<Node> {
            NonNull::from(Box::leak(self.0))
        }

        unsafe fn from_raw(ptr: NonNull<Node>) -> Self {
            // SAFETY: `ptr` came from `into_raw` and is taken back once (caller's contract).
            Item(unsafe { Box::from_raw(ptr.as_ptr()) })
        }

        unsafe fn next(ptr: NonNull<Node>) -> Option<NonNull<Node>> {
            // SAFETY: the caller guarantees the node is live.
            let node = unsafe { ptr.as_ref() };
            // SAFETY: the caller guarantees the link is ours to read; loom checks it.
            node.next.with(|p| unsafe { *p })
        }

        unsafe fn set_next(ptr: NonNull<Node>, next: Option<NonNull<Node>>) {
            // SAFETY: the caller guarantees the node is live.
            let node = unsafe { ptr.as_ref() };
            // SAFETY: the caller guarantees the link is ours to write; loom checks it.
            node.next.with_mut(|p| unsafe { *p = next })
        }
    }
}
