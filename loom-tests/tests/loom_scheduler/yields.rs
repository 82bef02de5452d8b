//! `yield_now` on both schedulers: the other runnable task runs before the yielder resumes
//! (multi_thread with one worker: the spawned task in the LIFO slot before the yielder at
//! the back of the ring; current_thread: for `block_on`'s own future and for a spawned
//! task). The release of the deferred list of yielders (`flush_defer` in worker.rs and
//! current_thread.rs) racing a spawn from another thread into the inject queue: both tasks
//! run, once, and shutdown finds nothing left.

use loom::thread;
use runtime::task::yield_now;
use runtime::Runtime;
use shim::sync::atomic::{AtomicBool, Ordering::*};
use shim::sync::Arc;

use super::{counter, current_thread, model, multi_thread, Oneshot};

// ---------------------------------------------------------------------------------------
// multi_thread.

/// `yield_now` on a one-worker multi-thread runtime: the task spawned just before the yield
/// (in the LIFO slot) runs before the yielder (at the back of the ring) resumes. (With two
/// workers a sibling may steal the yielder first: fairness is per worker.)
#[test]
fn yield_now_runs_other_task_first_one_worker() {
    model(|| {
        let rt = multi_thread(1);
        let res = rt.block_on(async {
            runtime::spawn(async {
                let ran = Arc::new(AtomicBool::new(false));
                let r2 = ran.clone();
                let other = runtime::spawn(async move { r2.store(true, Relaxed) });
                yield_now().await;
                let seen = ran.load(Relaxed);
                other.await.unwrap();
                seen
            })
            .await
            .unwrap()
        });
        assert!(
            res,
            "the yielder resumed before the other runnable task ran"
        );
        drop(rt);
    });
}

/// A yielder and a spawn from another thread, both counted: the release of the deferred
/// list (back of the remote queue while it holds work, else the local queue) races the
/// remote push. Whichever way it goes, both tasks run and shutdown finds nothing left.
fn yield_racing_remote_spawn(rt: &Runtime) {
    let ran = counter();
    let done = Oneshot::new();
    let body = {
        let (ran, done) = (ran.clone(), done.clone());
        move |yields: bool| {
            let (ran, done) = (ran.clone(), done.clone());
            async move {
                if yields {
                    yield_now().await;
                }
                if ran.fetch_add(1, Relaxed) + 1 == 2 {
                    done.send(());
                }
            }
        }
    };
    let th = {
        let (h, body) = (rt.handle().clone(), body.clone());
        thread::spawn(move || drop(h.spawn(body(false))))
    };
    drop(rt.spawn(body(true)));
    done.recv();
    th.join().unwrap();
    assert_eq!(ran.load(Relaxed), 2);
}

/// The worker releases its deferred list while a remote spawn may be landing in the
/// remote queue (worker.rs `flush_defer`).
#[test]
fn yield_released_racing_remote_spawn_one_worker() {
    model(|| {
        let rt = multi_thread(1);
        yield_racing_remote_spawn(&rt);
        drop(rt);
    });
}

// ---------------------------------------------------------------------------------------
// current_thread.

/// `yield_now` lets the other runnable task run first, both for `block_on`'s own future
/// and for a spawned task.
#[test]
fn current_thread_yield_now_runs_other_task_first() {
    model(|| {
        let rt = current_thread();
        rt.block_on(async {
            let ran = Arc::new(AtomicBool::new(false));
            let r2 = ran.clone();
            let other = runtime::spawn(async move { r2.store(true, Relaxed) });
            yield_now().await;
            assert!(
                ran.load(Relaxed),
                "block_on's future resumed before the task ran"
            );
            other.await.unwrap();

            let seen = runtime::spawn(async {
                let ran = Arc::new(AtomicBool::new(false));
                let r2 = ran.clone();
                let other = runtime::spawn(async move { r2.store(true, Relaxed) });
                yield_now().await;
                let seen = ran.load(Relaxed);
                other.await.unwrap();
                seen
            })
            .await
            .unwrap();
            assert!(seen, "a yielding task resumed before the other task ran");
        });
        drop(rt);
    });
}

/// The current-thread core releases its deferred list while a remote spawn may be landing
/// in the inject queue (current_thread.rs `flush_defer`), inside `block_on`.
#[test]
fn current_thread_yield_released_racing_remote_spawn() {
    model(|| {
        let rt = current_thread();
        let ran = counter();
        let th = {
            let (h, ran) = (rt.handle().clone(), ran.clone());
            thread::spawn(move || {
                drop(h.spawn(async move {
                    ran.fetch_add(1, Relaxed);
                }))
            })
        };
        let r2 = ran.clone();
        rt.block_on(async move {
            let yielder = runtime::spawn(async move {
                yield_now().await;
                r2.fetch_add(1, Relaxed);
            });
            yielder.await.unwrap();
        });
        th.join().unwrap();
        // The remote task may still be queued (it ran already if the yielder's release
        // went behind it): the core runs it in this `block_on`.
        rt.block_on(async {
            while ran.load(Relaxed) < 2 {
                yield_now().await;
            }
        });
        drop(rt);
    });
}
