//! loom suites for `runtime::sync::{mpsc, watch, broadcast}`, the shipping code through the
//! shim: send/recv racing close (bounded and unbounded), `try_recv` running while a send is
//! in flight, a reservation cancelled after it was granted (the capacity must pass on to the
//! next sender, or wake the receiver of a closed channel), a lagging broadcast receiver, a
//! broadcast value freed by its last reader, watch `changed` racing `send`, and the
//! unbounded list's blocks filled, recycled and reused (one and two producers).
//!
//! Each model asserts safety (every message received at most once, in order, dropped
//! exactly once; loom checks the cells for data races) and progress: the waits are
//! `block_on`s, so a lost wake-up or lost capacity leaves a thread blocked forever, which
//! loom reports as a deadlock.
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 2 when unset.
//!
//! The models are in modules by channel (files in `loom_sync_chan/`): `mpsc` (the bounded
//! and unbounded channels, and the bounded channel's ring alone), `broadcast`, `watch`.
//! This file holds the model runners and the helpers more than one module uses.

#![cfg(loom)]

use shim::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use shim::sync::Arc;

#[path = "loom_sync_chan/broadcast.rs"]
mod broadcast;
#[path = "loom_sync_chan/mpsc.rs"]
mod mpsc;
#[path = "loom_sync_chan/watch.rs"]
mod watch;

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound.get_or_insert(2);
    builder.check(f);
}

/// For the long block-list models (dozens of atomic steps per thread): one preemption.
fn model_1(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(1);
    builder.check(f);
}

/// A value that counts its drops.
struct Tracked(u8, Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.1.fetch_add(1, SeqCst);
    }
}

/// Writes 1 to `cell` (the thread that does is the writer of a happens-after model).
fn write_cell(cell: &loom::cell::UnsafeCell<u8>) {
    // SAFETY: the models read the cell only once they saw the event this write precedes
    // (loom checks the ordering).
    cell.with_mut(|v| unsafe { *v = 1 });
}

/// Reads `cell`, which must hold the writer's 1.
fn read_cell(cell: &loom::cell::UnsafeCell<u8>) {
    // SAFETY: called only after the event the write precedes (loom checks the ordering).
    assert_eq!(cell.with(|v| unsafe { *v }), 1);
}
