//! The unbounded channel's queue: a linked list of blocks of `BLOCK` slots, many producers
//! and one consumer, whose blocks are recycled, so the steady state allocates nothing.
//!
//! Message `i` (counted from 0) lives in slot `i % BLOCK` of the block whose `start` is
//! `i - i % BLOCK`. The blocks form one chain, oldest first.
//!
//! - `tail_pos` holds `claims << 1 | CLOSED`: the next index to claim, and whether the
//!   receiver closed the channel. It is the channel's only sender-side word: no separate
//!   message count (tokio keeps one, a second RMW per send and one per receive).
//! - Send: claim an index with one `fetch_add(2)` on `tail_pos`; if the value it replaced
//!   has `CLOSED`, the send is refused (its claim is void: no slot is touched). Otherwise
//!   find its block by walking
//!   `next` from `block_tail` (appending a block when the chain ends there), write the slot,
//!   then set the slot's bit in the block's `ready` word (Release).
//! - `block_tail` (where producers start walking) moves past a block only once every slot
//!   of that block is written, so no producer ever needs a block behind it. The producer
//!   that moves it marks the old block `RELEASED`, recording `tail_pos` as it stood just
//!   after the move (`observed_tail`): producers whose index is below that may still be
//!   walking through the block; those above it started from the new `block_tail`.
//! - Receive (the one consumer owns `head` and `index`): move `head` along `next` to the
//!   block of `index`; if the slot's `ready` bit is set (Acquire), take the value. A claimed
//!   slot not yet written is [`Pop::Busy`]; nothing claimed is [`Pop::Empty`].
//! - Recycle: a block the consumer has left behind is reusable once it is `RELEASED` and the
//!   consumer has taken every message below its `observed_tail` (so every producer that
//!   could be walking through it has written its slot and left). The consumer resets it
//!   and appends it at the end of the chain (a few tries, as the chain may grow meanwhile;
//!   else it frees it). A producer that grew the chain in vain appends its block further on.
//!
//! Ordering: `tail_pos`'s `fetch_add`, the `block_tail` move and the `observed_tail` read are
//! SeqCst, so a producer whose claim is above `observed_tail` sees the new `block_tail` (the
//! pair is a store-buffering pattern; Release/Acquire would not order it). A block is
//! published (appended) with a Release CAS after its `start` is set; walkers read `next` with
//! Acquire. The consumer touches every slot through `with_mut` before reusing or freeing a
//! block, so loom checks that it sees every producer's write.
//!
//! - Close (the receiver): one `fetch_or(CLOSED)`. Its result, shifted, is the final index
//!   (`closed_at`, the receiver's): every claim before it sends (its producer writes its slot
//!   and the receiver waits for it), every claim after it saw `CLOSED` and was refused. The
//!   receiver is drained once `index == closed_at`, and never looks past `closed_at`.
//!   `fetch_or` is a Release (what the receiver wrote before closing) and every read that
//!   can answer "closed" (a claim, `is_closed`) an Acquire, so a sender told the channel is
//!   closed sees what the receiver did first, as in tokio (the loom models
//!   `unbounded_*_happens_after_close` in `loom_sync_chan`).
//!
//! Every message is dropped once: by the consumer, or by `Drop`, which walks the chain and
//! goes on past a message whose drop panics (freeing every block either way).

use std::mem::MaybeUninit;
use std::ptr;

use crossbeam_utils::CachePadded;
use shim::cell::UnsafeCell;
use shim::sync::atomic::{
    AtomicPtr, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release, SeqCst},
};

use super::queue::{Pop, Queue};

/// Slots per block. Small under loom so that a model crosses blocks and recycles them.
#[cfg(not(loom))]
const BLOCK: usize = if usize::BITS >= 64 { 32 } else { 16 };
#[cfg(loom)]
const BLOCK: usize = 2;

/// In `ready`: every producer is done with the block (`block_tail` moved past it).
const RELEASED: usize = 1 << BLOCK;
/// `ready` with every slot written.
const ALL_READY: usize = RELEASED - 1;
/// In `tail_pos`: the receiver closed the channel.
const CLOSED: usize = 1;
/// `tail_pos` moves by this per claim (bit 0 is `CLOSED`).
const CLAIM: usize = 2;
/// How many times the consumer tries to append a recycled block before freeing it.
const RECYCLE_TRIES: usize = 3;

struct Block<T> {
    /// The index of slot 0. Set while the block is private (new, or being recycled),
    /// before it is published by the Release CAS that links it.
    start: AtomicUsize,
    next: AtomicPtr<Block<T>>,
    /// Bit `i`: slot `i` is written. `RELEASED`: see the module doc.
    ready: AtomicUsize,
    /// `tail_pos` just after `block_tail` moved past this block (valid once `RELEASED`).
    observed_tail: UnsafeCell<usize>,
    slots: [UnsafeCell<MaybeUninit<T>>; BLOCK],
}

impl<T> Block<T> {
    fn alloc(start: usize) -> *mut Block<T> {
        Box::into_raw(Box::new(Block {
            start: AtomicUsize::new(start),
            next: AtomicPtr::new(ptr::null_mut()),
            ready: AtomicUsize::new(0),
            observed_tail: UnsafeCell::new(0),
            slots: std::array::from_fn(|_| UnsafeCell::new(MaybeUninit::uninit())),
        }))
    }

    fn start(&self) -> usize {
        // Relaxed: `start` was set before the block was published, and every reader reached
        // it through an Acquire load of the pointer that published it.
        self.start.load(Relaxed)
    }
}

pub(crate) struct List<T> {
    /// `next index to claim << 1 | CLOSED` (producers; the receiver sets `CLOSED`).
    tail_pos: CachePadded<AtomicUsize>,
    /// The block producers start walking from.
    block_tail: CachePadded<AtomicPtr<Block<T>>>,
    /// The consumer's state.
    rx: CachePadded<UnsafeCell<Rx<T>>>,
}

struct Rx<T> {
    /// The block of `index`, or the block before it if that one is not linked yet.
    head: *mut Block<T>,
    /// The next message's index.
    index: usize,
    /// The oldest block not yet recycled (all blocks from here to `head` are behind).
    free_head: *mut Block<T>,
    /// The index after the last message claimed before the close; `usize::MAX` while open.
    closed_at: usize,
}

impl<T> List<T> {
    pub(crate) fn new() -> List<T> {
        let first = Block::alloc(0);
        List {
            tail_pos: CachePadded::new(AtomicUsize::new(0)),
            block_tail: CachePadded::new(AtomicPtr::new(first)),
            rx: CachePadded::new(UnsafeCell::new(Rx {
                head: first,
                index: 0,
                free_head: first,
                closed_at: usize::MAX,
            })),
        }
    }

    /// The block holding index `start` (a block start), appending blocks as needed. Moves
    /// `block_tail` past blocks it walks through that are fully written.
    fn find_block(&self, start: usize, offset: usize) -> *mut Block<T> {
        // SeqCst: see the module doc (the load after our claim, against a move's CAS and
        // `tail_pos` read).
        let mut cur = self.block_tail.load(SeqCst);
        // SAFETY: a block reachable from `block_tail` is not recycled while we walk (this
        // holds for every dereference below): our claim is not written yet, so the
        // consumer has not passed it, and a block is recycled only when every claim below
        // its `observed_tail` (which includes ours, see the module doc) has been consumed.
        let first = unsafe { &*cur }.start();
        debug_assert!(first <= start, "block_tail moved past an unwritten slot");
        // Only a producer well past the tail block tries to move `block_tail` (most
        // producers find their block at the tail and do no bookkeeping).
        let mut try_move = (start - first) / BLOCK > offset;
        loop {
            // SAFETY: `cur` is `block_tail` or a successor linked from a block we walked;
            // neither is recycled while our claim is unwritten (the argument above).
            let block = unsafe { &*cur };
            if block.start() == start {
                return cur;
            }
            let mut next = block.next.load(Acquire);
            if next.is_null() {
                next = self.grow(block);
            }
            // Relaxed: a test only. Moving `block_tail` past the block reads no slot; the
            // consumer, who reads and recycles them, acquires each slot's write through its
            // own Acquire load of `ready` (and the move's RELEASED through another).
            try_move &= block.ready.load(Relaxed) & ALL_READY == ALL_READY;
            if try_move {
                match self.block_tail.compare_exchange(cur, next, SeqCst, SeqCst) {
                    Ok(_) => {
                        let observed = self.tail_pos.load(SeqCst) >> 1;
                        // SAFETY: only the producer whose CAS moved `block_tail` past this
                        // block writes `observed_tail`, before it sets RELEASED (Release);
                        // the consumer reads it after seeing RELEASED (Acquire).
                        block.observed_tail.with_mut(|o| unsafe { *o = observed });
                        block.ready.fetch_or(RELEASED, Release);
                    }
                    Err(_) => try_move = false,
                }
            }
            cur = next;
        }
    }

    /// Appends a new block after `block` (whose `next` was null); returns `block`'s next,
    /// ours or the one that won the race (ours then goes further down the chain).
    #[cold]
    fn grow(&self, block: &Block<T>) -> *mut Block<T> {
        let new = Block::alloc(block.start() + BLOCK);
        // Release: publishes `new` (its `start`) to walkers. No Acquire on success: the
        // null we replace was stored Relaxed (initially, or by the consumer resetting a
        // recycled block before its own Release CAS published it), so it carries nothing.
        // Failure Acquire: we walk into the winner's block.
        match block
            .next
            .compare_exchange(ptr::null_mut(), new, Release, Acquire)
        {
            Ok(_) => new,
            Err(winner) => {
                // SAFETY: `new` is ours (unpublished); `winner` is ahead of our claim, so
                // not recycled while we hold it (see `find_block`).
                unsafe { self.append(winner, new, usize::MAX) };
                winner
            }
        }
    }

    /// Links the private block `new` at the end of the chain, starting the search at
    /// `cur`; gives up after `tries` lost races and frees it. Returns whether it was linked.
    ///
    /// # Safety
    /// `new` is private to the caller; `cur` is not recycled meanwhile.
    unsafe fn append(&self, mut cur: *mut Block<T>, new: *mut Block<T>, tries: usize) -> bool {
        for _ in 0..tries {
            // SAFETY: as the caller promises; every later `cur` is further down the chain.
            let block = unsafe { &*cur };
            // SAFETY: `new` is private until the CAS publishes it (Release).
            unsafe { &*new }.start.store(block.start() + BLOCK, Relaxed);
            // Release: publishes `new`. No Acquire on success (the null carries nothing, as
            // in `grow`); failure Acquire: we go on from the block found there.
            match block
                .next
                .compare_exchange(ptr::null_mut(), new, Release, Acquire)
            {
                Ok(_) => return true,
                Err(next) => cur = next,
            }
        }
        // SAFETY: never published; allocated by `Block::alloc`; its slots hold no value.
        drop(unsafe { Box::from_raw(new) });
        false
    }

    /// Recycles the blocks behind `rx.head` that no producer can still be walking through.
    ///
    /// # Safety
    /// Called by the one consumer.
    unsafe fn reclaim(&self, rx: &mut Rx<T>) {
        while rx.free_head != rx.head {
            // SAFETY: blocks behind `head` are only touched by the consumer and by
            // producers that, per `RELEASED`/`observed_tail`, are done once we pass here.
            let block = unsafe { &*rx.free_head };
            let ready = block.ready.load(Acquire);
            if ready & RELEASED == 0 {
                return;
            }
            // SAFETY: written before RELEASED, which we saw with Acquire.
            let observed = block.observed_tail.with(|o| unsafe { *o });
            if observed > rx.index {
                return;
            }
            // Not null: `head` is further down. Relaxed: `pop` already walked this link
            // with Acquire (that is how `head` got past it), and a non-null `next` is not
            // written again until we recycle the block, so this load reads that same value
            // and needs no edge of its own.
            let next = block.next.load(Relaxed);
            // Every value here was taken; touching each slot lets loom check that every
            // producer's write happened before this reuse.
            for slot in &block.slots {
                slot.with_mut(|_| ());
            }
            block.observed_tail.with_mut(|_| ());
            block.ready.store(0, Relaxed);
            block.next.store(ptr::null_mut(), Relaxed);
            let old = std::mem::replace(&mut rx.free_head, next);
            // SAFETY: `old` is now private to us (see above); `block_tail` is at or ahead
            // of `head`, never recycled concurrently (only we recycle).
            unsafe { self.append(self.block_tail.load(Acquire), old, RECYCLE_TRIES) };
        }
    }
}

impl<T> List<T> {
    /// Sends `value`, unless the receiver closed the list (then gives it back).
    pub(crate) fn try_push(&self, value: T) -> Result<(), T> {
        // SeqCst: the store-buffering pair with `block_tail` (module doc); it is also the
        // Acquire that orders a refused send after the close.
        let pos = self.tail_pos.fetch_add(CLAIM, SeqCst);
        if pos & CLOSED != 0 {
            return Err(value);
        }
        let index = pos >> 1;
        let offset = index % BLOCK;
        let block = self.find_block(index - offset, offset);
        // SAFETY: the slot is ours alone (we claimed its index) and its block stays
        // allocated until we set its ready bit (see `find_block`).
        unsafe {
            (*block).slots[offset].with_mut(|s| (*s).write(value));
            (*block).ready.fetch_or(1 << offset, Release);
        }
        Ok(())
    }

    /// Refuses every later send; the messages claimed before stay to be received.
    ///
    /// # Safety
    /// Called by the one consumer.
    pub(crate) unsafe fn close(&self) {
        // Release: what the receiver did before closing is visible to a sender told
        // "closed" (its claim or `is_closed` is an Acquire).
        let pos = self.tail_pos.fetch_or(CLOSED, Release);
        // SAFETY: the caller is the one consumer, the owner of `rx`.
        self.rx
            .with_mut(|rx| unsafe { (*rx).closed_at = (*rx).closed_at.min(pos >> 1) });
    }

    pub(crate) fn is_closed(&self) -> bool {
        // Acquire: pairs with `close`'s Release.
        self.tail_pos.load(Acquire) & CLOSED != 0
    }

    /// Closed, and every message claimed before the close was taken.
    ///
    /// # Safety
    /// Called by the one consumer.
    pub(crate) unsafe fn is_closed_and_drained(&self) -> bool {
        // SAFETY: the caller is the one consumer.
        self.rx.with(|rx| unsafe { (*rx).index >= (*rx).closed_at })
    }
}

impl<T> Queue<T> for List<T> {
    unsafe fn pop(&self) -> Pop<T> {
        // SAFETY: the caller is the one consumer, the owner of `rx`.
        self.rx.with_mut(|rx| unsafe {
            let rx = &mut *rx;
            if rx.index >= rx.closed_at {
                return Pop::Empty;
            }
            let offset = rx.index % BLOCK;
            let start = rx.index - offset;
            // SAFETY: `head` and the blocks after it are not recycled (only we recycle,
            // and only blocks behind `head`).
            while (*rx.head).start() != start {
                let next = (*rx.head).next.load(Acquire);
                if next.is_null() {
                    return self.not_ready(rx.index);
                }
                rx.head = next;
                self.reclaim(rx);
            }
            let block = &*rx.head;
            if block.ready.load(Acquire) & (1 << offset) == 0 {
                return self.not_ready(rx.index);
            }
            // SAFETY: the bit says the slot was written (Acquire pairs with the producer's
            // Release); each index is read once.
            let value = block.slots[offset].with_mut(|s| (*s).assume_init_read());
            rx.index += 1;
            Pop::Value(value)
        })
    }

    unsafe fn len(&self) -> usize {
        // Relaxed: a snapshot; claims in flight count as queued.
        let tail = self.tail_pos.load(Relaxed) >> 1;
        // SAFETY: the caller is the one consumer.
        self.rx
            .with(|rx| unsafe { tail.min((*rx).closed_at) - (*rx).index })
    }
}

impl<T> List<T> {
    fn not_ready(&self, index: usize) -> Pop<T> {
        if self.tail_pos.load(SeqCst) >> 1 > index {
            Pop::Busy
        } else {
            Pop::Empty
        }
    }
}

impl<T> Drop for List<T> {
    fn drop(&mut self) {
        /// The walk over the chain: block `cur`, from its slot `slot` on. Dropped again
        /// while a message's drop unwinds, so one that panics leaks neither the other
        /// messages nor the blocks.
        struct Walk<T> {
            cur: *mut Block<T>,
            slot: usize,
            /// The receiver's next index: the slots below it were taken.
            index: usize,
        }
        impl<T> Walk<T> {
            fn run(&mut self) {
                while !self.cur.is_null() {
                    // SAFETY: `cur` is a live block of the chain, ours alone (`List::drop`).
                    let block = unsafe { &*self.cur };
                    let ready = block.ready.load(Relaxed);
                    while self.slot < BLOCK {
                        let i = self.slot;
                        // Past it before its drop runs: a panicking drop is not repeated.
                        self.slot += 1;
                        if ready & (1 << i) != 0 && block.start() + i >= self.index {
                            // SAFETY: the bit says the slot was written, and at or after
                            // `index` it was not taken; each slot is visited once.
                            block.slots[i].with_mut(|s| unsafe { (*s).assume_init_drop() });
                        }
                    }
                    let next = block.next.load(Relaxed);
                    // SAFETY: every slot of the block was handled; the block came from
                    // `Block::alloc` (a `Box`), and the walk moves past it for good.
                    drop(unsafe { Box::from_raw(self.cur) });
                    self.cur = next;
                    self.slot = 0;
                }
            }
        }
        impl<T> Drop for Walk<T> {
            fn drop(&mut self) {
                self.run();
            }
        }
        // SAFETY: `&mut self`: no producer is mid-push and every block is on the chain from
        // `free_head`; the values left are the written slots at or after `index`.
        let (cur, index) = self.rx.with(|rx| unsafe { ((*rx).free_head, (*rx).index) });
        Walk {
            cur,
            slot: 0,
            index,
        }
        .run();
    }
}

// SAFETY: the raw pointers are owned by the list; values move between threads (T: Send).
unsafe impl<T: Send> Send for List<T> {}
// SAFETY: access to the cells is serialised as the module doc says.
unsafe impl<T: Send> Sync for List<T> {}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use super::{List, BLOCK};
    use crate::sync::mpsc::queue::{Pop, Queue};

    fn try_push_ok<T>(list: &List<T>, v: T) {
        assert!(list.try_push(v).is_ok(), "the list is open");
    }

    fn pop<T>(list: &List<T>) -> Option<T> {
        loop {
            // SAFETY: each test has one consumer, this thread.
            match unsafe { list.pop() } {
                Pop::Value(v) => return Some(v),
                Pop::Empty => return None,
                Pop::Busy => std::thread::yield_now(),
            }
        }
    }

    /// Counts its drops.
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn fifo_across_many_blocks_with_recycling() {
        let list = List::new();
        let mut next_out = 0;
        let mut next_in = 0;
        // Uneven bursts cross block boundaries at every offset and reuse blocks.
        for burst in 1..(4 * BLOCK) {
            for _ in 0..burst {
                try_push_ok(&list, next_in);
                next_in += 1;
            }
            for _ in 0..(burst / 2 + 1) {
                assert_eq!(pop(&list), Some(next_out));
                next_out += 1;
            }
        }
        while let Some(v) = pop(&list) {
            assert_eq!(v, next_out);
            next_out += 1;
        }
        assert_eq!(next_out, next_in, "every message came out once, in order");
    }

    #[test]
    fn drop_drops_each_remaining_message_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let list = List::new();
        for _ in 0..(3 * BLOCK + 5) {
            try_push_ok(&list, Counted(drops.clone()));
        }
        for _ in 0..(BLOCK + 3) {
            drop(pop(&list).expect("a message"));
        }
        assert_eq!(drops.load(Ordering::SeqCst), BLOCK + 3);
        drop(list);
        assert_eq!(drops.load(Ordering::SeqCst), 3 * BLOCK + 5);
    }

    /// Counts its drops; panics in its drop when `panics`.
    struct Bomb(bool, Arc<AtomicUsize>);
    impl Drop for Bomb {
        fn drop(&mut self) {
            self.1.fetch_add(1, Ordering::SeqCst);
            if self.0 {
                panic!("a message's drop panics");
            }
        }
    }

    #[test]
    fn drop_goes_on_past_a_panicking_message() {
        let drops = Arc::new(AtomicUsize::new(0));
        let list = List::new();
        for i in 0..(3 * BLOCK + 5) {
            try_push_ok(&list, Bomb(i == BLOCK + 1, drops.clone()));
        }
        drop(pop(&list).expect("a message"));
        let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(list)));
        assert!(dropped.is_err(), "the panic goes on");
        assert_eq!(drops.load(Ordering::SeqCst), 3 * BLOCK + 5);
    }

    #[test]
    fn producers_race_one_consumer() {
        const PRODUCERS: usize = 4;
        const EACH: usize = 20_000;
        let list = Arc::new(List::new());
        let handles: Vec<_> = (0..PRODUCERS)
            .map(|p| {
                let list = list.clone();
                std::thread::spawn(move || {
                    for i in 0..EACH {
                        try_push_ok(&list, (p, i));
                    }
                })
            })
            .collect();
        let mut next = [0; PRODUCERS];
        let mut got = 0;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while got < PRODUCERS * EACH {
            assert!(
                std::time::Instant::now() < deadline,
                "only {got} messages arrived"
            );
            match pop(&list) {
                Some((p, i)) => {
                    assert_eq!(i, next[p], "producer {p}'s messages in order");
                    next[p] += 1;
                    got += 1;
                }
                None => std::thread::yield_now(),
            }
        }
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(pop(&list), None);
    }
}
