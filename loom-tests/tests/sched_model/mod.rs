//! What the scheduler-level loom suites share (`loom_scheduler`, `loom_block_in_place`):
//! the bounded model runner and a multi-thread runtime builder. Each suite includes it
//! with `mod sched_model;`.

// Each suite uses only part of it.
#![allow(dead_code)]

use runtime::{Builder, Runtime};

/// Preemption bound when `LOOM_MAX_PREEMPTIONS` is not set.
pub const DEFAULT_PREEMPTIONS: usize = 2;

/// The bound two-worker models are capped at unless `LOOM_UNCAPPED` is set. Two workers
/// searching, spinning, stealing and parking around each other explode: the two-worker
/// `spawn_from_outside` explores 23k executions at bound 1 but 877k (over a minute) at
/// bound 2, and the larger two-worker models take many minutes to hours at 2. The
/// one-worker twins cover the same wake / park / shutdown races at the full bound; the
/// two-worker ones add searching and stealing.
pub const TWO_WORKER_CAP: usize = 1;

/// Runs `f` under loom at the bound from `LOOM_MAX_PREEMPTIONS` (else
/// `DEFAULT_PREEMPTIONS`), capped at `cap` unless `LOOM_UNCAPPED` is set, and prints how
/// many executions were explored.
pub fn check(cap: Option<usize>, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    let mut bound = b.preemption_bound.unwrap_or(DEFAULT_PREEMPTIONS);
    if let Some(cap) = cap {
        if std::env::var_os("LOOM_UNCAPPED").is_none() {
            bound = bound.min(cap);
        }
    }
    b.preemption_bound = Some(bound);
    // A std atomic on purpose: it counts executions from outside the model.
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = runs.clone();
    b.check(move || {
        counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        f()
    });
    eprintln!(
        "explored {} executions (preemption bound {bound})",
        runs.load(std::sync::atomic::Ordering::Relaxed)
    );
}

/// A multi-thread runtime with `workers` workers (no drivers: there are none under loom).
pub fn multi_thread(workers: usize) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .build()
        .expect("build a multi-thread runtime")
}
