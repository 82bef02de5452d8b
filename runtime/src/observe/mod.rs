//! Runtime-wide diagnostics: what a user or a report can learn about a running runtime
//! without changing how it schedules.
//!
//! - `metrics.rs` (+ `metrics/`): the per-worker counters, the sampled poll-time and
//!   schedule-latency histograms, and their published slots; `runtime_metrics.rs`: the
//!   public `RuntimeMetrics` view that reads them.
//! - `hooks.rs`: the user's thread callbacks, the `on_stall` report and `FailOnStall`.
//! - `dump/`: task dumps (`Handle::dump`, a dump on a signal): every task, what each idle
//!   one waits on, cycles and tasks nothing can wake.
//! - `shutdown_report.rs`: what a shutdown that passed its deadline left behind.
//! - `stack_capture/`: asking another thread of this process, by signal, which task it is
//!   polling and for its native stack; used by the monitor, the blocking pool and the
//!   shutdown report.
//!
//! **The rule that ties them:** nothing here is on the schedule path. A wake, a spawn, a
//! steal or a park never calls into this folder to decide anything, and never waits on it.
//! The hot path only stores stamps and counts (a worker's counters in its own core,
//! published with relaxed stores to its own slot; a poll's start stamp; a sampled clock
//! read when the sampler is due); everything else (reading the slots, walking the waiter
//! lists, signalling a thread for its stack, building a report) runs on the thread that
//! asked for it, at the time it asked.

#[cfg(not(loom))]
pub mod dump;
pub(crate) mod hooks;
pub(crate) mod metrics;
pub(crate) mod runtime_metrics;
pub(crate) mod shutdown_report;
pub(crate) mod stack_capture;
