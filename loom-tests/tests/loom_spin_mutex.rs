//! loom suite for `shim::sync::SpinMutex`, the lock under `Notify`'s waiter queue (the
//! shipping code: under loom it runs over loom's atomics and tracked cell).
//!
//! Safety: the value lives in the lock's loom-tracked cell, which the guard touches when
//! it is taken and when it is released, so two holders whose accesses are not ordered by
//! the lock (a missing Acquire on the CAS that takes it, a missing Release on the release) are a
//! reported causality violation; and every increment is a separate read and write, so a
//! broken exclusion also loses one, which the final count asserts.
//! Progress: each thread must get the lock and finish. Under loom a waiter sleeps on a
//! condvar between its looks (loom cannot run an unbounded spin), so a release that wakes
//! nobody is a reported deadlock.
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 2 when unset.

#![cfg(loom)]

use loom::sync::Arc;
use loom::thread;
use shim::sync::SpinMutex;

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound.get_or_insert(2);
    builder.check(f);
}

/// Adds 1 in two steps (read, then write), so an overlapping holder loses an update.
fn add_one(m: &SpinMutex<u32>, briefly: bool) {
    let mut g = if briefly { m.lock_briefly() } else { m.lock() };
    let v = *g;
    thread::yield_now();
    *g = v + 1;
}

/// A thread that adds 1 through `lock` (or `lock_briefly`).
fn spawn_add_one(m: &Arc<SpinMutex<u32>>, briefly: bool) -> thread::JoinHandle<()> {
    let m = m.clone();
    thread::spawn(move || add_one(&m, briefly))
}

/// Two threads (one per lock flavour) and the main thread each add 1: the count ends at 3.
#[test]
fn three_holders_never_overlap_and_all_get_in() {
    model(|| {
        let m = Arc::new(SpinMutex::new(0u32));
        let a = spawn_add_one(&m, false);
        let b = spawn_add_one(&m, true);
        add_one(&m, false);
        a.join().unwrap();
        b.join().unwrap();
        assert_eq!(*m.lock(), 3, "an update was lost: two holders at once");
    });
}

/// `try_lock` racing a holder: it gets in only when the lock is free, and then its
/// update is ordered with the holder's (the count equals the successful entries).
#[test]
fn try_lock_racing_a_holder() {
    model(|| {
        let m = Arc::new(SpinMutex::new(0u32));
        let holder = spawn_add_one(&m, false);
        let mut got = 0;
        if let Some(mut g) = m.try_lock() {
            let v = *g;
            *g = v + 1;
            got = 1;
        }
        holder.join().unwrap();
        assert_eq!(*m.lock(), 1 + got, "try_lock entered a held lock");
    });
}
