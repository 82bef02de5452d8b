//! `Handle::dump` lists the tasks queued on the workers themselves (a worker's ring and
//! LIFO slot) that were never polled, by taking them and requeueing them on the global
//! queue: each is listed as not yet polled and runs exactly once afterwards.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc as std_mpsc, Arc};
use std::time::Duration;

use runtime::dump::TaskState;
use runtime::task::Id;
use support::{eventually, watchdog};

/// Holds the calling worker inside its poll until `release` is set (bounded by the
/// test's watchdog); counts itself in `blocked` first.
fn block_worker(blocked: &AtomicUsize, release: &AtomicBool) {
    blocked.fetch_add(1, SeqCst);
    while !release.load(SeqCst) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Sets the flag when dropped: a failing assertion releases the stuck workers, so the
/// runtime's drop during the unwind does not wait on them.
struct ReleaseOnDrop(Arc<AtomicBool>);

impl Drop for ReleaseOnDrop {
    fn drop(&mut self) {
        self.0.store(true, SeqCst);
    }
}

#[test]
fn tasks_queued_on_a_stuck_worker_are_listed_by_id_and_then_run_exactly_once() {
    watchdog(
        "tasks queued on two stuck workers, dumped, then run",
        || {
            const N: usize = 100;
            let rt = support::multi_thread(2);
            let blocked = Arc::new(AtomicUsize::new(0));
            let release = Arc::new(AtomicBool::new(false));
            let _release_on_failure = ReleaseOnDrop(release.clone());
            let runs: Arc<Vec<AtomicUsize>> =
                Arc::new((0..N).map(|_| AtomicUsize::new(0)).collect());

            // One worker stuck in a poll, so that nobody steals from the other.
            let first = {
                let (blocked, release) = (blocked.clone(), release.clone());
                rt.spawn(async move { block_worker(&blocked, &release) })
            };
            eventually("the first worker to block", || blocked.load(SeqCst) == 1);
            // The other worker spawns N tasks (into its LIFO slot and ring), then is stuck too.
            let (ids_tx, ids_rx) = std_mpsc::channel();
            let second = {
                let (blocked, release, runs) = (blocked.clone(), release.clone(), runs.clone());
                rt.spawn(async move {
                    let ids: Vec<Id> = (0..N)
                        .map(|i| {
                            let runs = runs.clone();
                            runtime::spawn(async move {
                                runs[i].fetch_add(1, SeqCst);
                            })
                            .id()
                        })
                        .collect();
                    ids_tx.send(ids).unwrap();
                    block_worker(&blocked, &release);
                })
            };
            let ids = ids_rx.recv().unwrap();
            eventually("the second worker to block", || blocked.load(SeqCst) == 2);

            let d = rt.dump();
            for &id in &ids {
                let t = d
                    .task(id)
                    .unwrap_or_else(|| panic!("queued task {id} is not listed:\n{d}"));
                assert!(t.not_yet_polled(), "{d}");
                assert_eq!(t.state(), TaskState::Scheduled, "{d}");
            }
            // The two blockers never parked: each is in no list, in its first poll, and
            // named by its worker's thread (stack capture: Linux only).
            if cfg!(target_os = "linux") {
                for (which, id) in [("first", first.id()), ("second", second.id())] {
                    let t = d.task(id).unwrap_or_else(|| {
                        panic!("the {which} blocker, in its first poll, is not listed:\n{d}")
                    });
                    assert_eq!(t.state(), TaskState::Running, "{d}");
                    assert!(!t.not_yet_polled(), "{d}");
                }
                assert_eq!(d.unlisted(), 0, "{d}");
            } else {
                assert!(d.unlisted() <= 2, "{} unlisted:\n{d}", d.unlisted());
            }
            assert!(
                runs.iter().all(|r| r.load(SeqCst) == 0),
                "a queued task ran while both workers were stuck"
            );

            release.store(true, SeqCst);
            rt.block_on(async {
                first.await.unwrap();
                second.await.unwrap();
            });
            eventually("every queued task to run", || {
                runs.iter().all(|r| r.load(SeqCst) >= 1)
            });
            drop(rt);
            let counts: Vec<usize> = runs.iter().map(|r| r.load(SeqCst)).collect();
            assert!(
                counts.iter().all(|&c| c == 1),
                "each task must run exactly once: {counts:?}"
            );
        },
    );
}

#[test]
fn a_dump_taken_by_a_task_lists_what_its_own_worker_queued_and_everything_still_runs() {
    watchdog("a dump from inside a task, then its children", || {
        const N: usize = 20;
        let rt = support::multi_thread(2);
        let runs: Arc<Vec<AtomicUsize>> = Arc::new((0..N).map(|_| AtomicUsize::new(0)).collect());
        let r = runs.clone();
        rt.block_on(async move {
            runtime::spawn(async move {
                let handles: Vec<_> = (0..N)
                    .map(|i| {
                        let r = r.clone();
                        runtime::spawn(async move {
                            r[i].fetch_add(1, SeqCst);
                        })
                    })
                    .collect();
                // Taken on this worker, with its children queued behind this poll (or
                // already taken by the other worker): each one listed is not yet polled.
                let d = runtime::Handle::current().dump();
                for h in &handles {
                    if let Some(t) = d.task(h.id()) {
                        assert!(t.not_yet_polled(), "{d}");
                    }
                }
                for h in handles {
                    h.await.unwrap();
                }
            })
            .await
            .unwrap();
        });
        drop(rt);
        let counts: Vec<usize> = runs.iter().map(|r| r.load(SeqCst)).collect();
        assert!(counts.iter().all(|&c| c == 1), "{counts:?}");
    });
}
