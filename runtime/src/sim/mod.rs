//! Deterministic runs: a multi-thread runtime that is a pure function of a seed (cargo
//! feature `deterministic`).
//!
//! A concurrency bug in async code shows up as a flaky test: a lost wake-up, a message
//! that overtakes another, a timeout that fires between two steps. On a deterministic
//! runtime the same program, with the same types and the real scheduler, runs as a
//! function of a seed: a seed that fails fails every time, on every machine, and a test
//! explores hundreds of seeds (hundreds of interleavings) in seconds.
//!
//! ```toml
//! [dev-dependencies]
//! runtime = { version = "*", features = ["deterministic"] }
//! ```
//!
//! ```
//! # #[cfg(any())] mod m {
//! #[runtime::test(flavor = "multi_thread", worker_threads = 4, deterministic, seeds = 500)]
//! async fn no_lost_messages() {
//!     // runs under seeds 0..500, each on a fresh deterministic runtime
//! }
//! # }
//! ```
//!
//! or, by hand, `Builder::new_multi_thread().deterministic(seed)` (or
//! `new_current_thread()`), with [`Runtime::trace_hash`](crate::Runtime::trace_hash) to
//! compare runs.
//!
//! **What the seed decides.** The N workers are logical: the real `Core`s, their rings,
//! LIFO slots, global queue interval, steal-half, searcher hand-off and coop budget,
//! stepped one scheduling decision and one poll at a time on the thread that calls
//! `block_on`. At each step a seeded choice picks which eligible worker goes next (a
//! parked worker is eligible only once notified); which parked worker a notify wakes and
//! the steal victims are seeded too. [`Options`] sets the strategy ([`Strategy::Random`],
//! the default; [`Strategy::Pct`], probabilistic concurrency testing; [`Strategy::Fixed`],
//! exploration off) and perturbations: the LIFO slot demoted to the ring, driver turns
//! inserted between polls. `select!`'s branch order and `RngSeed`'s draws come from the
//! seed too.
//!
//! **Virtual time.** `time::Instant::now()`, `sleep`, `timeout` and `interval` read a
//! virtual clock that starts at a fixed epoch and jumps to the next timer when nothing
//! can run: an hour of `sleep` costs nothing, and every timer fires at its deadline
//! (same-deadline timers in the order they were set).
//!
//! **Blocking work.** `spawn_blocking`, `fs` and the other blocking closures run one at a
//! time, at a seeded point, while nothing else runs; `block_in_place` runs its closure in
//! place. A blocking closure that waits on a task (which cannot run meanwhile) is reported
//! with its spawn location after a second of wall time.
//!
//! **Failures are reproductions.** A failing `#[runtime::test(deterministic)]` prints
//! its seed, the strategy, the algorithm version ([`ALGORITHM_VERSION`]) and the command
//! that replays it (`RUNTIME_SEED=<s> cargo test ... -- <name> --exact`); `RUNTIME_SEED`
//! pins every deterministic test to one seed, `RUNTIME_SEEDS=<n>` widens the search,
//! `RUNTIME_SIM_STRATEGY=random|pct|fixed` picks the strategy. A run where nothing can
//! run and nothing is due panics as a deadlock, with the seed and a task dump; a task
//! polled 10^6 times at one virtual instant panics as a livelock, naming it.
//!
//! **The determinism checker.** `RUNTIME_CHECK_DETERMINISM=1 cargo test ...` runs each
//! deterministic test twice more, each in a fresh process, and fails it at the first
//! trace event where the two differ, naming the task: the sign of something outside the
//! seed (wall time, std's `Instant`, a `HashMap`'s iteration order, an OS thread, an
//! OS-seeded random number).
//!
//! **An in-memory network.** `net::{TcpListener, TcpStream, TcpSocket, UdpSocket,
//! UnixListener, UnixStream, UnixDatagram}` made inside a deterministic runtime live in
//! that runtime's memory, bound to loopback addresses (and paths), with tokio's
//! semantics (backlog, partial reads and writes, half-close, reset on drop with unread
//! data, `peek`, readiness, datagrams) and seeded delivery delays in virtual time (see
//! [`net`](crate::net)). What would reach the real world (a non-loopback address,
//! `from_std`, `AsyncFd`, `process::Command`, a signal handler) panics naming the call.
//!
//! **The pool's many-core behaviour, on any machine.**
//! [`Runtime::sim_spread`](crate::Runtime::sim_spread) reports how the run's pool spread
//! its work (searchers against their cap, the longest a worker slept beside a sibling's
//! backlog, polls per worker), so 16- and 64-worker properties are testable on two cores.
//!
//! **Limits.** Tasks run only inside `block_on` and at shutdown. Anything the seed does
//! not decide is outside the run: files (the runtime's `fs` runs, but what the disk holds
//! is the disk's), OS threads that wake tasks, wall-clock reads. Polls take no virtual
//! time, so only events due at one instant race each other; the monitor thread (stall
//! and LIFO rescue) is not a participant, since a poll never outlasts its tick in
//! virtual time. A runtime built this way costs nothing when the feature is off; with the
//! feature on, a runtime not built with `deterministic` runs exactly as without it.
//!
//! The example `sim_election` (runtime/examples) elects a leader among three nodes over
//! UDP on the in-memory network, with a planted bug (a vote sent before it is stored); the
//! default exploration finds the split brain within the first few seeds (in about one
//! seed in five), the fixed order in none of 2,000.
//!
//! # How it works
//!
//! The stepper (stepper.rs) owns the logical workers (scheduler/multi_thread/
//! sim_workers.rs), the `block_on` future and the blocking participant (blocking.rs).
//! Time is the driver's paused clock, frozen at the driver's origin at build, moved by
//! the stepper to the next timer (or network delivery) only when no participant can
//! run. Every step feeds the trace (trace.rs), whose hash `Runtime::trace_hash` returns.
//! `Sim` is what the rest of the runtime reaches through its handle
//! (`scheduler::Handle::sim`): the seed, the network, the clock. Nothing in the worker
//! run loop or the wake path looks at it; the one hook in the run loop
//! (`ObservePolls`) is a type parameter whose default compiles away.
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
    /// Built by `new_current_thread()`: one logical worker, reported as the
    /// current-thread flavor (`Handle::runtime_flavor`, `block_in_place` panics).
    pub(crate) current_thread: bool,
}

impl Sim {
    pub(crate) fn new(
        seed: u64,
        options: Options,
        time: Option<Arc<io_driver::Handle>>,
        current_thread: bool,
    ) -> Sim {
        let origin = time.as_ref().map_or_else(Instant::now, |t| t.now());
        Sim {
            seed,
            options,
            // Exploration off fixes the network's delays too (one run for every seed).
            net: net::Net::new(mix(
                if options.strategy == Strategy::Fixed {
                    0
                } else {
                    seed
                },
                0x006e_6574,
            )),
            time,
            origin,
            current_thread,
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
