//! The per-thread random source behind `select!`'s branch order, and `RngSeed`, which makes
//! it reproducible.
//!
//! Each thread owns one xorshift generator (`util::FastRand`) in a thread-local, seeded
//! lazily from the process's random hasher keys and the thread's identity, so two threads
//! and two runs differ. A runtime built with `Builder::rng_seed` owns a `SeedGenerator`,
//! itself a `FastRand` seeded from the `RngSeed`; every thread that enters the runtime to
//! run tasks (`block_on`, a worker) re-seeds its generator from the next seed of that
//! sequence for as long as it is inside, and gets its old state back when it leaves. So on
//! a current-thread runtime the same seed gives the same branch choices, run after run.
//! (With several workers, which worker takes which seed depends on thread start order.)

use std::cell::Cell;
use std::fmt;

use shim::sync::Mutex;

use crate::util::FastRand;

/// A seed for the random choices a runtime makes for its tasks (the branch order of
/// `select!`): two runtimes built with equal seeds make the same choices when they run the
/// same tasks on one thread, for reproducible tests.
///
/// ```
/// use runtime::{Builder, RngSeed};
///
/// fn order(seed: &RngSeed) -> Vec<u32> {
///     let rt = Builder::new_current_thread().rng_seed(seed.clone()).build().unwrap();
///     rt.block_on(async {
///         let mut picks = Vec::new();
///         for _ in 0..20 {
///             picks.push(runtime::select! {
///                 v = async { 0 } => v,
///                 v = async { 1 } => v,
///                 v = async { 2 } => v,
///             });
///         }
///         picks
///     })
/// }
///
/// let seed = RngSeed::from_bytes(b"make it reproducible");
/// assert_eq!(order(&seed), order(&seed));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct RngSeed(u64);

impl RngSeed {
    /// A seed derived from `bytes` (the same bytes always give the same seed).
    ///
    /// ```
    /// let a = runtime::RngSeed::from_bytes(b"seed");
    /// assert_eq!(a, runtime::RngSeed::from_bytes(b"seed"));
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> RngSeed {
        // FNV-1a: stable across processes, platforms and compiler versions.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        RngSeed(h)
    }
}

impl fmt::Debug for RngSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("RngSeed { .. }")
    }
}

/// The seeds a seeded runtime hands to the threads that enter it.
pub(crate) struct SeedGenerator(Mutex<FastRand>);

impl SeedGenerator {
    pub(crate) fn new(seed: &RngSeed) -> SeedGenerator {
        SeedGenerator(Mutex::new(FastRand::new(seed.0)))
    }

    fn next_seed(&self) -> u64 {
        self.0.lock().next()
    }
}

std::thread_local! {
    /// The generator's state; 0 until the thread's first draw seeds it (a xorshift state
    /// is never 0, `FastRand::from_state`).
    static RNG: Cell<u64> = const { Cell::new(0) };
}

#[cold]
fn initial_state() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_usize(&h as *const _ as usize);
    FastRand::new(h.finish()).next()
}

/// A value in `0..n` (n > 0) from the thread's generator. (`select!` calls it, at every
/// poll of a `select!` that is not `biased`: one thread-local read and write.)
#[inline]
pub(crate) fn thread_rng_n(n: u32) -> u32 {
    RNG.try_with(|cell| {
        let state = match cell.get() {
            0 => initial_state(),
            s => s,
        };
        let mut rng = FastRand::from_state(state);
        let v = rng.below(n);
        cell.set(rng.state());
        v
    })
    .unwrap_or(0)
}

/// Restores the thread's generator when a seeded runtime's thread leaves it.
pub(crate) struct ReseedGuard {
    /// The state to put back (0: unseeded), when the runtime re-seeded the thread.
    prev: Option<u64>,
}

/// Seeds the thread's generator from `gen` (when the runtime has one) until the guard drops.
pub(crate) fn enter(gen: Option<&SeedGenerator>) -> ReseedGuard {
    let prev = gen.and_then(|g| {
        let state = FastRand::new(g.next_seed()).state();
        RNG.try_with(|cell| cell.replace(state)).ok()
    });
    ReseedGuard { prev }
}

impl Drop for ReseedGuard {
    fn drop(&mut self) {
        if let Some(prev) = self.prev {
            let _ = RNG.try_with(|cell| cell.set(prev));
        }
    }
}
