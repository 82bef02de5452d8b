//! The blocking pool: `spawn_blocking` closures run off the workers, on a pool that grows to
//! `max_blocking_threads` when its tasks need each other.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::sync::Arc;

use runtime::Builder;

#[test]
fn spawn_blocking_runs_off_the_workers_and_pool_grows() {
    watchdog("the blocking tasks", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .max_blocking_threads(4)
            .build()
            .unwrap();
        let names = rt.block_on(async {
            // Four blocking tasks that wait for each other can only finish on four threads.
            let barrier = Arc::new(std::sync::Barrier::new(4));
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    let b = barrier.clone();
                    runtime::task::spawn_blocking(move || {
                        b.wait();
                        std::thread::current().id()
                    })
                })
                .collect();
            let mut ids = Vec::new();
            for h in hs {
                ids.push(h.await.unwrap());
            }
            ids
        });
        let mut unique = names.clone();
        unique.sort_by_key(|id| format!("{id:?}"));
        unique.dedup();
        assert_eq!(unique.len(), 4);
    })
}
