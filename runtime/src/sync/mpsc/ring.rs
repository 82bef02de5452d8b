//! The bounded channel's queue: a ring of slots allocated once, with a sequence stamp per
//! slot (after Vyukov's bounded queue), many producers and one consumer.
//!
//! Positions count up forever; position `p` lives in slot `p & mask`. A slot's `seq` says
//! whose turn it is: `seq == p` means free for the producer of position `p`; `seq == p + 1`
//! means it holds position `p`'s message for the consumer, who then sets `seq = p + len`
//! (free for the producer one lap later).
//!
//! A producer claims a position with one `fetch_add` on `tail`. It only pushes while holding
//! a permit of the channel's semaphore, and there are at most `len` permits (the ring has at
//! least as many slots as the channel's capacity), so the previous lap's message of its slot
//! has been taken, or is being taken: the producer waits on the slot's stamp with Acquire
//! (which also orders the consumer's read before our write) and in practice finds it free.
//! The consumer reads `head` (its own) and takes a slot once its stamp says `p + 1`
//! (Acquire pairs with the producer's Release). A claimed slot whose message is not written
//! yet reads as [`Pop::Busy`].
//!
//! With one slot (a channel of capacity 1) the stamps "holds position `p`" and "free for
//! position `p + 1`" are the same number, `p + 1`, so the stamp alone does not hold the next
//! producer back until the consumer has read: the permit does (it comes back only after the
//! consumer's read and stamp store). With two slots or more the ring orders its laps by
//! itself (the loom model `ring_slot_reused_a_lap_later` drives it without the semaphore).
//!
//! No allocation after construction; every message is dropped once: by the consumer, or by
//! the ring's `Drop` (positions `head..tail` are full), which goes on past a message whose
//! drop panics.

use std::mem::MaybeUninit;

use crossbeam_utils::CachePadded;
use shim::cell::UnsafeCell;
use shim::sync::atomic::{
    AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};

use super::queue::{Pop, Queue};

struct Slot<T> {
    seq: AtomicUsize,
    value: UnsafeCell<MaybeUninit<T>>,
}

pub struct Ring<T> {
    slots: Box<[Slot<T>]>,
    mask: usize,
    tail: CachePadded<AtomicUsize>,
    /// The consumer's next position (consumer only).
    head: CachePadded<UnsafeCell<usize>>,
}

impl<T> Ring<T> {
    /// A ring with room for at least `cap` messages.
    pub fn new(cap: usize) -> Ring<T> {
        let len = cap.max(1).next_power_of_two();
        let slots = (0..len)
            .map(|i| Slot {
                seq: AtomicUsize::new(i),
                value: UnsafeCell::new(MaybeUninit::uninit()),
            })
            .collect();
        Ring {
            slots,
            mask: len - 1,
            tail: CachePadded::new(AtomicUsize::new(0)),
            head: CachePadded::new(UnsafeCell::new(0)),
        }
    }

    /// Pushes `value`; the caller holds a permit for it (module doc).
    pub fn push(&self, value: T) {
        let pos = self.tail.fetch_add(1, Relaxed);
        let slot = &self.slots[pos & self.mask];
        // Acquire: the consumer's read of the previous lap's message is before our write.
        while slot.seq.load(Acquire) != pos {
            shim::hint::spin_loop();
        }
        // SAFETY: `seq == pos` makes the slot ours (module doc) until we publish it.
        slot.value.with_mut(|v| unsafe { (*v).write(value) });
        // Release: publishes the message to the consumer.
        slot.seq.store(pos.wrapping_add(1), Release);
    }
}

impl<T> Queue<T> for Ring<T> {
    unsafe fn pop(&self) -> Pop<T> {
        // SAFETY: the caller is the one consumer.
        let pos = self.head.with(|h| unsafe { *h });
        let slot = &self.slots[pos & self.mask];
        // Acquire: pairs with the producer's Release (the message).
        let seq = slot.seq.load(Acquire);
        if seq == pos.wrapping_add(1) {
            // SAFETY: the stamp says the slot holds position `pos`'s message, ours to take.
            let value = slot.value.with(|v| unsafe { (*v).assume_init_read() });
            // SAFETY: the caller is the one consumer.
            self.head.with_mut(|h| unsafe { *h = pos.wrapping_add(1) });
            // Release: our read is before the next lap's producer's write.
            slot.seq.store(pos.wrapping_add(self.slots.len()), Release);
            Pop::Value(value)
        } else if self.tail.load(Relaxed) != pos {
            Pop::Busy
        } else {
            Pop::Empty
        }
    }

    unsafe fn len(&self) -> usize {
        // SAFETY: the caller is the one consumer, the only writer of `head`.
        let head = self.head.with(|h| unsafe { *h });
        self.tail.load(Relaxed).wrapping_sub(head)
    }
}

impl<T> Drop for Ring<T> {
    fn drop(&mut self) {
        /// The messages at `pos..tail`; dropped again while a message's drop unwinds, so
        /// one that panics does not leak the rest.
        struct Rest<'a, T> {
            ring: &'a Ring<T>,
            pos: usize,
            tail: usize,
        }
        impl<T> Rest<'_, T> {
            fn run(&mut self) {
                while self.pos != self.tail {
                    let slot = &self.ring.slots[self.pos & self.ring.mask];
                    // Past it before its drop runs: a panicking drop is not repeated.
                    self.pos = self.pos.wrapping_add(1);
                    // SAFETY: the position was written and not taken (`Ring::drop`), and
                    // each is visited once.
                    slot.value.with_mut(|v| unsafe { (*v).assume_init_drop() });
                }
            }
        }
        impl<T> Drop for Rest<'_, T> {
            fn drop(&mut self) {
                self.run();
            }
        }
        // `&mut self`: no producer is mid-push, so positions head..tail hold messages.
        // SAFETY: we are the only user.
        let pos = self.head.with(|h| unsafe { *h });
        let tail = self.tail.load(Relaxed);
        Rest {
            ring: self,
            pos,
            tail,
        }
        .run();
    }
}

// SAFETY: messages move between threads (T: Send); the cells are accessed as the module doc
// says, ordered by the slot stamps.
unsafe impl<T: Send> Send for Ring<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Ring<T> {}
