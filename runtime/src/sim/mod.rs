//! The deterministic mode (`Builder::deterministic`, cargo feature `deterministic`).
//!
//! A deterministic runtime is a pure function of its seed. Its N workers are logical: the
//! real `Core`s with their real queues and decision code, stepped one decision at a time
//! on the thread that calls `block_on` by a seeded stepper (stepper.rs); no worker thread
//! and no monitor thread is started. Time is the driver's paused clock, frozen at the
//! driver's origin at build, which the stepper moves to the next timer (or network
//! delivery) only when no participant can run. Blocking closures run one at a time, at
//! the stepper's choice, on one helper thread it waits for (blocking.rs). Every step feeds
//! the trace (trace.rs), whose hash `Runtime::trace_hash` returns.
//!
//! `Sim` is what the rest of the runtime reaches through its handle
//! (`scheduler::Handle::sim`): the seed, the network, the clock. Nothing in the worker run
//! loop or the wake path looks at it.
//!
//! Nothing in the mode reads real time for a decision, keys a choice on an address, or
//! iterates a hash map: the seeded generator below (`Rng`) makes every choice.

mod blocking;
pub(crate) mod net;
mod options;
pub(crate) mod spread;
pub(crate) mod stepper;
#[doc(hidden)]
pub mod test;
pub(crate) mod trace;

use std::sync::Arc;
use std::time::{Duration, Instant};

pub use options::{Options, Strategy};
pub use spread::Spread;

/// The version of the mode's algorithm (the stepper's choices and the trace's encoding):
/// a seed replays the same run under the same version. Printed with every failure.
pub const ALGORITHM_VERSION: u32 = 1;

/// The state of one deterministic runtime that its sockets, timers and stepper share.
pub(crate) struct Sim {
    pub(crate) seed: u64,
    pub(crate) options: Options,
    /// The in-memory network.
    pub(crate) net: net::Net,
    /// The runtime's timer driver (None without `enable_time`): its paused clock is the
    /// virtual time.
    pub(crate) time: Option<Arc<io_driver::Handle>>,
    /// The virtual epoch: the clock's reading at build.
    pub(crate) origin: Instant,
}

impl Sim {
    pub(crate) fn new(seed: u64, options: Options, time: Option<Arc<io_driver::Handle>>) -> Sim {
        let origin = time.as_ref().map_or_else(Instant::now, |t| t.now());
        Sim {
            seed,
            options,
            net: net::Net::new(mix(seed, 0x006e_6574)),
            time,
            origin,
        }
    }

    /// The virtual time since the epoch.
    pub(crate) fn elapsed(&self) -> Duration {
        self.time.as_ref().map_or(Duration::ZERO, |t| {
            t.now().saturating_duration_since(self.origin)
        })
    }
}

/// The deterministic state of the runtime whose context this thread is in, if it is one.
#[allow(dead_code)]
pub(crate) fn current() -> Option<Arc<Sim>> {
    crate::context::with_handle(|h| h.and_then(|h| h.sim().cloned()))
}

/// A seed for stream `stream` of `seed` (SplitMix64's finalizer of their combination):
/// independent generators for the stepper, each worker and the network.
pub(crate) fn mix(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The mode's seeded generator (SplitMix64): every choice the stepper makes.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A draw below `n` (> 0), by multiply-shift (no modulo bias worth the name at these
    /// bounds).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// True with probability `per_mille` / 1000.
    pub(crate) fn chance(&mut self, per_mille: u32) -> bool {
        per_mille > 0 && (self.below(1000) as u32) < per_mille
    }
}
