//! The resource slab: where every registered I/O resource's `ScheduledIo` lives.
//!
//! Storage is a fixed array of lazily allocated pages whose sizes double (32, 64, 128, ...
//! entries), so the slab grows on demand without ever moving an entry and lookups need no
//! lock: index -> (page, offset) is a little arithmetic, then a `OnceLock::get`. Pages are
//! never freed before the slab itself, so an entry reference is valid for the slab's life;
//! a registration keeps its page's `Arc` and offset (`entry`), so its operations reach the
//! entry by one indexing, without the lookup.
//!
//! Allocation and freeing take one mutex (registration is not the hot path); freed indices
//! go on a free list and are reused. Freeing bumps the entry's generation, and the mio
//! token carries `index | generation << INDEX_BITS`, so a stale token (an event for a socket
//! that was closed and whose slot was reused) is recognised and ignored by `dispatch`.
//! Shutdown sets a flag under the same mutex, then marks every entry ever handed out:
//! an allocation either precedes the flag (and is marked) or sees it (and fails).
//!
//! `any_live` is a relaxed copy of the live count, written under the mutex, read by the
//! driver's zero-timeout turn: with no resource registered there is nothing `epoll_wait`
//! could dispatch, so the turn skips the syscall. A stale read only moves an event's
//! dispatch to the next turn (the kernel keeps it queued), never loses it.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::Waker;

use mio::Token;
use parking_lot::Mutex;

use crate::readiness::{shutdown_error, Ready, ScheduledIo, GEN_MASK};

/// Low bits of a token: the slab index.
pub(crate) const INDEX_BITS: u32 = 24;
const INDEX_MASK: usize = (1 << INDEX_BITS) - 1;
const FIRST_PAGE_SHIFT: u32 = 5;
const FIRST_PAGE: usize = 1 << FIRST_PAGE_SHIFT;
const PAGES: usize = 19;
/// How many entries the slab can hold: 32 * (2^19 - 1), just under 2^24.
pub(crate) const CAPACITY: usize = FIRST_PAGE * ((1 << PAGES) - 1);
const _: () = assert!(CAPACITY < INDEX_MASK);
const _: () = assert!(INDEX_BITS + crate::readiness::GEN_BITS <= usize::BITS);

/// The token the driver's own `mio::Waker` uses. Its index part is beyond `CAPACITY`, so it
/// can never name a slab entry.
pub(crate) const WAKER_TOKEN: Token = Token(usize::MAX);

/// Token for entry `index` in generation `gen`.
pub(crate) fn token_for(index: usize, gen: usize) -> Token {
    Token(index | ((gen & GEN_MASK) << INDEX_BITS))
}

/// Split a token into (index, generation).
pub(crate) fn split_token(token: Token) -> (usize, usize) {
    (token.0 & INDEX_MASK, (token.0 >> INDEX_BITS) & GEN_MASK)
}

/// Index -> (page, offset): page `p` covers indices `[32 * (2^p - 1), 32 * (2^(p+1) - 1))`.
fn locate(index: usize) -> (usize, usize) {
    let n = index + FIRST_PAGE;
    let page = (usize::BITS - 1 - n.leading_zeros() - FIRST_PAGE_SHIFT) as usize;
    (page, n - (FIRST_PAGE << page))
}

struct AllocState {
    free: Vec<usize>,
    /// Indices below this have been handed out at least once (their pages exist).
    high_water: usize,
    live: usize,
}

pub(crate) struct Slab {
    /// Shared with the registrations of their entries (`entry`), which keep the page they
    /// point into.
    pages: [OnceLock<Arc<[ScheduledIo]>>; PAGES],
    alloc: Mutex<AllocState>,
    /// `AllocState::live`, readable without the mutex (a hint: see the module doc).
    live_hint: AtomicUsize,
    shutdown: AtomicBool,
}

impl Slab {
    pub(crate) fn new() -> Slab {
        Slab {
            pages: [const { OnceLock::new() }; PAGES],
            alloc: Mutex::new(AllocState {
                free: Vec::new(),
                high_water: 0,
                live: 0,
            }),
            live_hint: AtomicUsize::new(0),
            shutdown: AtomicBool::new(false),
        }
    }

    /// The entry at `index`, if its page exists.
    pub(crate) fn get(&self, index: usize) -> Option<&ScheduledIo> {
        if index >= CAPACITY {
            return None;
        }
        let (page, offset) = locate(index);
        self.pages[page].get().map(|p| &p[offset])
    }

    /// The page holding `index` and the entry's offset in it, if the page exists: what a
    /// registration keeps, so that its operations reach the entry without this lookup.
    pub(crate) fn entry(&self, index: usize) -> Option<(Arc<[ScheduledIo]>, usize)> {
        if index >= CAPACITY {
            return None;
        }
        let (page, offset) = locate(index);
        self.pages[page].get().map(|p| (Arc::clone(p), offset))
    }

    /// Claim an entry; returns (index, generation).
    pub(crate) fn alloc(&self) -> io::Result<(usize, usize)> {
        let mut st = self.alloc.lock();
        // Relaxed: the flag is only written under `alloc`, which we hold.
        if self.shutdown.load(Ordering::Relaxed) {
            return Err(shutdown_error());
        }
        let index = match st.free.pop() {
            Some(index) => index,
            None => {
                let index = st.high_water;
                if index >= CAPACITY {
                    return Err(io::Error::other(
                        "io driver: too many registered resources (slab full)",
                    ));
                }
                let (page, _) = locate(index);
                self.pages[page].get_or_init(|| {
                    (0..FIRST_PAGE << page)
                        .map(|_| ScheduledIo::default())
                        .collect()
                });
                st.high_water = index + 1;
                index
            }
        };
        st.live += 1;
        // Relaxed: a hint, written under `alloc` (the module doc says why staleness is safe).
        self.live_hint.store(st.live, Ordering::Relaxed);
        drop(st);
        let gen = self
            .get(index)
            .expect("allocated slab index has a page")
            .generation();
        Ok((index, gen))
    }

    /// Release an entry: bump its generation, drop its wakers, put the index on the free list.
    pub(crate) fn free(&self, index: usize) {
        let Some(io) = self.get(index) else { return };
        let wakers = io.reset();
        let mut st = self.alloc.lock();
        st.free.push(index);
        st.live -= 1;
        // Relaxed: as in `alloc`.
        self.live_hint.store(st.live, Ordering::Relaxed);
        drop(st);
        // Wakers can run arbitrary code on drop: only after every lock is released.
        drop(wakers);
    }

    /// Driver side: apply one event. Events whose generation is stale are ignored.
    pub(crate) fn dispatch(&self, token: Token, ready: Ready, tick: usize, out: &mut Vec<Waker>) {
        let (index, gen) = split_token(token);
        let Some(io) = self.get(index) else { return };
        if io.set_readiness(gen, tick, ready) {
            io.take_wakers(gen, ready, out);
        }
    }

    /// Flag shutdown and mark every entry ever handed out. Returns false if already done.
    pub(crate) fn shutdown(&self, out: &mut Vec<Waker>) -> bool {
        let st = self.alloc.lock();
        // Release: pairs with the Acquire in `is_shutdown` (public, as `Handle::is_shutdown`):
        // a `true` answer happens-after what the shutting-down thread did before
        // `Driver::shutdown`, the contract of the runtime's other "closed" answers.
        // Against `alloc` the mutex orders it (its Relaxed load is under the mutex); the
        // per-entry SHUTDOWN bit set below is what polls actually check, with
        // its own Release/Acquire pair (`readiness.rs`).
        if self.shutdown.swap(true, Ordering::Release) {
            return false;
        }
        let high_water = st.high_water;
        drop(st);
        for index in 0..high_water {
            if let Some(io) = self.get(index) {
                io.shutdown(out);
            }
        }
        true
    }

    pub(crate) fn is_shutdown(&self) -> bool {
        // Acquire: pairs with the Release swap in `shutdown` (see there). `Timer` reads it
        // only as a hint (a due timer that sees `true` asks its wheel, under the wheel's
        // mutex); the Acquire is for the public answer.
        self.shutdown.load(Ordering::Acquire)
    }

    /// Whether any resource is registered, as last published (a hint: see the module doc).
    pub(crate) fn any_live(&self) -> bool {
        // Relaxed: a hint; see the module doc.
        self.live_hint.load(Ordering::Relaxed) != 0
    }

    /// Calls `f` with every entry of every page allocated so far (task dumps).
    pub(crate) fn for_each(&self, mut f: impl FnMut(&ScheduledIo)) {
        for page in self.pages.iter().filter_map(|p| p.get()) {
            page.iter().for_each(&mut f);
        }
    }

    /// Live registrations (test/diagnostic use).
    pub(crate) fn live(&self) -> usize {
        self.alloc.lock().live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_covers_pages_contiguously() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(31), (0, 31));
        assert_eq!(locate(32), (1, 0));
        assert_eq!(locate(95), (1, 63));
        assert_eq!(locate(96), (2, 0));
        let (page, offset) = locate(CAPACITY - 1);
        assert_eq!(page, PAGES - 1);
        assert_eq!(offset, (FIRST_PAGE << (PAGES - 1)) - 1);
    }

    #[test]
    fn token_round_trips_and_waker_token_is_no_entry() {
        let t = token_for(12345, 77);
        assert_eq!(split_token(t), (12345, 77));
        let (index, _) = split_token(WAKER_TOKEN);
        assert!(index >= CAPACITY);
    }

    #[test]
    fn reuse_bumps_generation_and_grows() {
        let slab = Slab::new();
        let (a, ga) = slab.alloc().unwrap();
        slab.free(a);
        let (b, gb) = slab.alloc().unwrap();
        assert_eq!(a, b);
        assert_ne!(ga, gb);
        let many: Vec<_> = (0..200).map(|_| slab.alloc().unwrap().0).collect();
        assert_eq!(slab.live(), 201);
        let mut sorted = many.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 200);
        for i in many {
            slab.free(i);
        }
        slab.free(b);
        assert_eq!(slab.live(), 0);
    }

    #[test]
    fn alloc_after_shutdown_fails() {
        let slab = Slab::new();
        let mut out = Vec::new();
        assert!(slab.shutdown(&mut out));
        assert!(!slab.shutdown(&mut out));
        assert!(slab.alloc().is_err());
    }
}
