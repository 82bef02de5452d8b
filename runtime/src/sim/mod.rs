//! The deterministic mode (`Builder::deterministic`, cargo feature `deterministic`).
//!
//! A deterministic runtime is a pure function of its seed. Its N workers are logical: the
//! real `Core`s with their real queues and decision code, stepped one decision at a time
//! on the thread that calls `block_on` by a seeded stepper (stepper.rs); no worker thread
//! and no monitor thread is started. Time is the driver's paused clock, which the stepper
//! moves to the next timer or network delivery only when no participant can run.
//! Blocking closures run one at a time at the stepper's choice (blocking.rs); sockets are
//! the in-memory network of `net/`. Every step feeds the trace (trace.rs), whose hash
//! `Runtime::trace_hash` returns.
//!
//! `Sim` is what the rest of the runtime reaches through its handle
//! (`scheduler::Handle::sim`): the seed, the network, the trace. Nothing in the worker run
//! loop or the wake path looks at it.

pub(crate) mod net;

use std::sync::Arc;
use std::time::Instant;

/// The state of one deterministic runtime that its sockets, timers and stepper share.
pub(crate) struct Sim {
    pub(crate) seed: u64,
    /// The in-memory network.
    pub(crate) net: net::Net,
    /// The runtime's timer driver: its paused clock is the virtual time.
    pub(crate) time: Arc<io_driver::Handle>,
}

impl Sim {
    /// The virtual time now.
    pub(crate) fn now(&self) -> Instant {
        self.time.now()
    }
}

/// The deterministic state of the runtime whose context this thread is in, if it is one.
pub(crate) fn current() -> Option<Arc<Sim>> {
    crate::context::with_handle(|h| h.and_then(|h| h.sim().cloned()))
}
