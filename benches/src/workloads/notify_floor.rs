//! The floor of the `notify_waiters` fan-out: the least a "wake every waiter" primitive can
//! do, run on each runtime, to show how much of the workload's time is the primitive's.
//!
//! [`SlotNotify`] gives each of a fixed number of waiters its own slot (an armed flag and
//! an `AtomicWaker`, on its own cache line) and counts calls in one word. A waiter
//! snapshots the count, and each poll registers its waker, arms its slot and is ready
//! once the count moved. `notify_waiters` adds one to the count (SeqCst), then disarms
//! every armed slot and wakes its waker. No lock, no list, no allocation: a waiter costs
//! one `AtomicWaker::register` and one store, a wake-up one swap and one `wake`.
//!
//! Why no wake-up is lost: the waiter's arm (store) and re-check (load), and the
//! notifier's count (RMW) and disarm (swap), are all SeqCst; so either the notifier's
//! swap sees the arm (and `AtomicWaker` hands it the waker registered before the arm),
//! or the waiter's re-check sees the count. A stale arm from an earlier wait only makes a
//! spurious wake-up, after which the waiter registers and arms again.
//!
//! It is not a general primitive: the waiters are known in advance, one per slot, and
//! nothing handles a waiter that goes away. `runtime::sync::Notify` does all of that; the
//! gap between the two is what its list and lock cost, and the floor itself is what the
//! scheduler and the bench's shared counter cost.

use std::future::poll_fn;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::Arc;
use std::task::Poll;

use futures::task::AtomicWaker;

use crate::workloads::scheduler::Iteration;
use crate::workloads::sync_locks::{NOTIFY_ITERS, NOTIFY_WAITERS};
use crate::Bench;

/// One waiter's slot, alone on its cache line.
#[repr(align(128))]
struct Slot {
    armed: AtomicBool,
    waker: AtomicWaker,
}

/// A notify-all for a fixed set of waiters, one slot each (see the module doc).
///
/// ```
/// use benches::workloads::notify_floor::SlotNotify;
///
/// let n = SlotNotify::new(1);
/// let waiting = n.notified(0);
/// n.notify_waiters();
/// futures::executor::block_on(waiting);
/// ```
#[repr(align(128))]
pub struct SlotNotify {
    calls: AtomicUsize,
    slots: Box<[Slot]>,
}

impl SlotNotify {
    /// A notifier for `waiters` waiters, numbered from 0.
    pub fn new(waiters: usize) -> SlotNotify {
        SlotNotify {
            calls: AtomicUsize::new(0),
            slots: (0..waiters)
                .map(|_| Slot {
                    armed: AtomicBool::new(false),
                    waker: AtomicWaker::new(),
                })
                .collect(),
        }
    }

    /// Wakes every wait that began before this call.
    pub fn notify_waiters(&self) {
        self.calls.fetch_add(1, SeqCst);
        for slot in self.slots.iter() {
            // The load spares the line's ownership when the slot is not armed.
            if slot.armed.load(SeqCst) && slot.armed.swap(false, SeqCst) {
                slot.waker.wake();
            }
        }
    }

    /// Waiter `i`'s wait: ready after the next `notify_waiters`. One wait per slot at a
    /// time.
    pub fn notified(&self, i: usize) -> impl std::future::Future<Output = ()> + '_ {
        let seen = self.calls.load(SeqCst);
        let slot = &self.slots[i];
        poll_fn(move |cx| {
            if self.calls.load(SeqCst) != seen {
                return Poll::Ready(());
            }
            slot.waker.register(cx.waker());
            slot.armed.store(true, SeqCst);
            if self.calls.load(SeqCst) != seen {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
    }
}

/// `sync_locks`'s `notify_waiters` workload over [`SlotNotify`]: `NOTIFY_WAITERS` tasks
/// loop on their slot and count their wake-ups; the bench thread calls `notify_waiters`
/// until `NOTIFY_ITERS` were counted. Multi-thread flavors only.
pub fn notify_waiters_floor<B: Bench>(rt: &B) -> Iteration<'_> {
    let n = Arc::new(SlotNotify::new(NOTIFY_WAITERS));
    let count = Arc::new(AtomicUsize::new(0));
    for i in 0..NOTIFY_WAITERS {
        let (n, count) = (n.clone(), count.clone());
        rt.spawn_remote_detached(async move {
            loop {
                n.notified(i).await;
                // Relaxed: a counter the bench thread polls; nothing else is ordered by it.
                count.fetch_add(1, Relaxed);
            }
        });
    }
    Box::new(move || {
        count.store(0, Relaxed);
        while count.load(Relaxed) < NOTIFY_ITERS {
            n.notify_waiters();
            std::hint::spin_loop();
        }
    })
}
