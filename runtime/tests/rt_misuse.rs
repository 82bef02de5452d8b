//! What a careless or hostile user does to a runtime must never wedge or abort it: panics
//! through `block_on`, runtimes dropped in the wrong place, thread-local runtimes, drop
//! context of cancelled tasks, panicking tasks, out-of-order enter guards, misused
//! oneshot receivers, and the blocking pool racing shutdown.
//!
//! Every wait runs under a watchdog (`support::watchdog`): a hang fails the test with a message
//! instead of hanging the suite. No timing thresholds.
//!
//! Misuse that panics with tokio's message and advice: `spawn` and `Handle::current` outside
//! a runtime, `block_on` inside one, a builder asked for zero workers.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use runtime::{Builder, Handle, Runtime};

const WATCHDOG: Duration = Duration::from_secs(10);

// --- 1. current_thread survives a panic out of block_on --------------------------------

#[test]
fn current_thread_block_on_works_after_a_panic_in_block_on() {
    let rt = Arc::new(current_thread());
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async { panic!("boom in block_on") })
    }));
    assert_eq!(panic_message(r.unwrap_err()), "boom in block_on");
    let out = watchdog("block_on after a panicking block_on", move || {
        rt.block_on(async { runtime::spawn(async { 2 }).await.unwrap() })
    });
    assert_eq!(out, 2);
}

#[test]
fn current_thread_block_on_works_after_a_refused_nested_block_on() {
    let rt = Arc::new(current_thread());
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async { rt.block_on(async {}) })
    }));
    let msg = panic_message(r.unwrap_err());
    assert!(
        msg.contains("Cannot start a runtime from within a runtime"),
        "{msg}"
    );
    let out = watchdog("block_on after a refused nested block_on", move || {
        rt.block_on(async { runtime::spawn(async { 3 }).await.unwrap() })
    });
    assert_eq!(out, 3);
}

#[test]
fn current_thread_tasks_spawned_before_a_panic_still_run() {
    let rt = Arc::new(current_thread());
    let (tx, rx) = mpsc::channel();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async {
            let tx = tx.clone();
            drop(runtime::spawn(async move { tx.send(1).unwrap() }));
            panic!("before the task ran")
        })
    }));
    assert!(r.is_err());
    watchdog("a task queued before the panic", move || {
        rt.block_on(runtime::task::yield_now());
        rx.recv_timeout(WATCHDOG)
            .expect("the queued task never ran")
    });
}

// --- 2. dropping a runtime where it would block -----------------------------------------

fn assert_drop_refused(msg: &str) {
    assert!(msg.contains("Cannot drop a runtime"), "{msg}");
    assert!(msg.contains("shutdown_background"), "{msg}");
}

#[test]
fn dropping_a_multi_thread_runtime_inside_its_own_task_panics() {
    let rt = multi_thread(2);
    let slot = Arc::new(Mutex::new(None::<Runtime>));
    let (tx, rx) = mpsc::channel();
    let s = slot.clone();
    let h = rt.spawn(async move {
        let rt = s.lock().unwrap().take().expect("runtime in the slot");
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(rt)));
        tx.send(r.map_err(panic_message)).unwrap();
    });
    drop(h);
    *slot.lock().unwrap() = Some(rt);
    let r = rx
        .recv_timeout(WATCHDOG)
        .expect("dropping the runtime inside its own task hung (a deadlock)");
    assert_drop_refused(&r.expect_err("the drop must panic"));
}

#[test]
fn dropping_a_runtime_inside_block_on_panics() {
    for outer in [current_thread(), multi_thread(2)] {
        let outer = Arc::new(outer);
        for inner in [current_thread(), multi_thread(2)] {
            let outer = outer.clone();
            let msg = watchdog("dropping a runtime inside block_on", move || {
                outer.block_on(async move {
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(inner)));
                    let payload = r.expect_err("the drop must panic");
                    // tokio's payload type: code that downcasts it to `&str` keeps working.
                    assert!(
                        payload.downcast_ref::<&'static str>().is_some(),
                        "the payload is not a &'static str"
                    );
                    panic_message(payload)
                })
            });
            assert_drop_refused(&msg);
        }
    }
}

#[test]
fn shutdown_timeout_inside_a_task_panics_but_shutdown_background_is_fine() {
    let outer = Arc::new(current_thread());
    let o = outer.clone();
    watchdog("shutdown inside a task", move || {
        o.block_on(async {
            let inner = multi_thread(2);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                inner.shutdown_timeout(Duration::from_secs(1))
            }));
            assert_drop_refused(&panic_message(r.expect_err("must panic")));
            // The documented way out of async context.
            let inner = multi_thread(2);
            assert_eq!(inner.block_on_spawned_value(), 5);
            inner.shutdown_background();
            let inner = current_thread();
            drop(inner.spawn(std::future::pending::<()>()));
            inner.shutdown_background();
        })
    });
}

/// Spawns a task on the runtime and reads its value through a std channel (usable from
/// inside another runtime's task, where `block_on` is refused).
trait SpawnedValue {
    fn block_on_spawned_value(&self) -> i32;
}

impl SpawnedValue for Runtime {
    fn block_on_spawned_value(&self) -> i32 {
        let (tx, rx) = mpsc::channel();
        drop(self.spawn(async move { tx.send(5).unwrap() }));
        rx.recv_timeout(WATCHDOG)
            .expect("task on the inner runtime")
    }
}

#[test]
fn dropping_a_runtime_inside_its_own_spawn_blocking_shuts_it_down() {
    for rt in [current_thread(), multi_thread(2)] {
        let slot = Arc::new(Mutex::new(None::<Runtime>));
        let (tx, rx) = mpsc::channel();
        let s = slot.clone();
        let h = rt.spawn_blocking(move || {
            // Wait for the runtime to arrive in the slot.
            let rt = loop {
                if let Some(rt) = s.lock().unwrap().take() {
                    break rt;
                }
                std::thread::sleep(Duration::from_millis(1));
            };
            let task = rt.spawn(std::future::pending::<()>());
            drop(rt);
            tx.send(task.is_finished()).unwrap();
        });
        drop(h);
        *slot.lock().unwrap() = Some(rt);
        let finished = rx
            .recv_timeout(WATCHDOG)
            .expect("dropping the runtime inside its own spawn_blocking hung");
        assert!(finished, "a task of the dropped runtime was not cancelled");
    }
}

// --- 3. a runtime in a thread_local! --------------------------------------------------

/// Runs the named test of this binary in a child process (a thread-local destructor that
/// panics aborts the process, which must not take the suite with it).
fn run_in_child(test: &str) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env("RT_MISUSE_CHILD", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "child {test} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn is_child() -> bool {
    std::env::var_os("RT_MISUSE_CHILD").is_some()
}

thread_local! {
    static TLS_RT: Runtime = current_thread();
}

#[test]
fn child_current_thread_runtime_in_a_thread_local() {
    watchdog("the thread whose thread-local runtime shuts down", || {
        if !is_child() {
            return;
        }
        let dropped = Arc::new(AtomicBool::new(false));
        let d = dropped.clone();
        std::thread::spawn(move || {
            // First touch registers TLS_RT's destructor before the runtime's own context:
            // at thread exit that context is destroyed first.
            TLS_RT.with(|rt| {
                rt.block_on(async move {
                    assert_eq!(runtime::spawn(async { 1 }).await.unwrap(), 1);
                    // A task that is still live at shutdown, cancelled by the TLS destructor.
                    drop(runtime::spawn(async move {
                        let _flag = SetOnDrop(d);
                        std::future::pending::<()>().await
                    }));
                    runtime::task::yield_now().await;
                })
            });
        })
        .join()
        .expect("the thread holding a runtime in a thread_local");
        assert!(dropped.load(SeqCst), "the live task was not dropped");
    })
}

#[test]
fn current_thread_runtime_in_a_thread_local_shuts_down_cleanly() {
    watchdog("the child process", || {
        run_in_child("child_current_thread_runtime_in_a_thread_local");
    })
}

struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, SeqCst);
    }
}

// --- 4. tasks dropped at shutdown see the runtime ---------------------------------------

/// Records, when dropped, whether a runtime was current.
struct SeesRuntime {
    saw: Arc<AtomicUsize>,
    dropped: Arc<AtomicUsize>,
}

impl Drop for SeesRuntime {
    fn drop(&mut self) {
        if Handle::try_current().is_ok() {
            self.saw.fetch_add(1, SeqCst);
        }
        self.dropped.fetch_add(1, SeqCst);
    }
}

// --- 5. a panicking task's future is dropped during the unwind -------------------------

struct PanicsOnPoll {
    panicking_in_drop: Arc<Mutex<Option<bool>>>,
}

impl Future for PanicsOnPoll {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        panic!("poll panicked")
    }
}

impl Drop for PanicsOnPoll {
    fn drop(&mut self) {
        *self.panicking_in_drop.lock().unwrap() = Some(std::thread::panicking());
    }
}

// Sections 4 and 5 on each flavor.
rt_test! {
    #[test]
    fn tasks_dropped_at_shutdown_see_the_runtime_context() {
        watchdog("the parked task to start", || {
            let rt = rt();
            let saw = Arc::new(AtomicUsize::new(0));
            let dropped = Arc::new(AtomicUsize::new(0));
            let guard = |saw: &Arc<AtomicUsize>, dropped: &Arc<AtomicUsize>| SeesRuntime {
                saw: saw.clone(),
                dropped: dropped.clone(),
            };
            // Parked (bound to the owned list).
            let (tx, rx) = mpsc::channel();
            let g = guard(&saw, &dropped);
            rt.block_on(async {
                drop(runtime::spawn(async move {
                    let _g = g;
                    tx.send(()).unwrap();
                    std::future::pending::<()>().await
                }));
                while rx.try_recv().is_err() {
                    runtime::task::yield_now().await;
                }
            });
            // Never polled: spawned from outside after the last `block_on`, so on a
            // current-thread runtime they are still queued at shutdown.
            for _ in 0..3 {
                let g = guard(&saw, &dropped);
                drop(rt.spawn(async move {
                    let _g = g;
                    std::future::pending::<()>().await
                }));
            }
            watchdog("dropping the runtime", move || drop(rt));
            assert_eq!(dropped.load(SeqCst), 4, "every live future dropped once");
            assert_eq!(
                saw.load(SeqCst),
                4,
                "a future dropped outside the runtime context"
            );
        })
    }

    #[test]
    fn a_panicking_tasks_future_is_dropped_during_the_unwind() {
        watchdog("the panicking task's JoinError", || {
            let rt = rt();
            let seen = Arc::new(Mutex::new(None));
            let fut = PanicsOnPoll {
                panicking_in_drop: seen.clone(),
            };
            let err = rt.block_on(rt.spawn(fut)).unwrap_err();
            assert!(err.is_panic());
            assert_eq!(panic_message(err.into_panic()), "poll panicked");
            assert_eq!(
                *seen.lock().unwrap(),
                Some(true),
                "the future must be dropped while the panic unwinds (as tokio does)"
            );
        })
    }
}

// --- 6. enter guards out of order; oneshot receiver misuse ------------------------------

#[test]
fn enter_guards_dropped_out_of_order_panic() {
    let (rt1, rt2) = (current_thread(), multi_thread(2));
    let (h1, h2) = (rt1.handle().clone(), rt2.handle().clone());
    let msg = watchdog("out-of-order EnterGuard drop", move || {
        let a = h1.enter();
        let b = h2.enter();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(a)));
        let msg = panic_message(r.expect_err("dropping the outer guard first must panic"));
        drop(b);
        msg
    });
    assert!(msg.contains("EnterGuard"), "{msg}");
    assert!(msg.contains("reverse order"), "{msg}");
}

#[test]
fn enter_guards_in_order_restore_the_previous_runtime() {
    let (rt1, rt2) = (current_thread(), multi_thread(2));
    let a = rt1.enter();
    {
        let _b = rt2.enter();
        assert_eq!(
            Handle::current().runtime_flavor(),
            runtime::RuntimeFlavor::MultiThread
        );
    }
    assert_eq!(
        Handle::current().runtime_flavor(),
        runtime::RuntimeFlavor::CurrentThread
    );
    drop(a);
    assert!(Handle::try_current().is_err());
}

#[test]
fn oneshot_receiver_polled_after_close_and_failed_try_recv_panics() {
    use runtime::sync::oneshot::{self, error::TryRecvError};
    let (_tx, mut rx) = oneshot::channel::<i32>();
    rx.close();
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| poll_once(&mut rx)));
    let msg = panic_message(r.expect_err("polling a spent receiver must panic"));
    assert!(msg.contains("polled after"), "{msg}");

    // tokio, the spec, does the same.
    let (_tx, mut rx) = tokio::sync::oneshot::channel::<i32>();
    rx.close();
    assert!(rx.try_recv().is_err());
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| poll_once(&mut rx)));
    assert!(r.is_err());
}

#[test]
fn oneshot_receiver_polled_after_sender_dropped_and_failed_try_recv_panics() {
    use runtime::sync::oneshot::{self, error::TryRecvError};
    let (tx, mut rx) = oneshot::channel::<i32>();
    drop(tx);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| poll_once(&mut rx)));
    assert!(r.is_err(), "polling a spent receiver must panic");
}

// --- 7. spawn_blocking racing shutdown --------------------------------------------------

/// With one pool thread busy, a second blocking closure is still queued when shutdown
/// begins: it runs anyway (spawned before shutdown), on every flavor and every shutdown.
#[test]
fn blocking_tasks_spawned_before_shutdown_run() {
    watchdog("the shutdowns with queued blocking tasks", || {
        #[derive(Clone, Copy, Debug)]
        enum How {
            Drop,
            Timeout,
            Background,
        }
        for how in [How::Drop, How::Timeout, How::Background] {
            for ct in [true, false] {
                let rt = if ct {
                    Builder::new_current_thread()
                } else {
                    Builder::new_multi_thread()
                }
                .max_blocking_threads(1)
                .build()
                .unwrap();
                let ran = Arc::new(AtomicUsize::new(0));
                let (started_tx, started_rx) = mpsc::channel();
                let (release_tx, release_rx) = mpsc::channel::<()>();
                let r = ran.clone();
                let first = rt.spawn_blocking(move || {
                    started_tx.send(()).unwrap();
                    // Held until shutdown has begun (or a little while, for the blocking kinds).
                    let _ = release_rx.recv_timeout(Duration::from_millis(50));
                    r.fetch_add(1, SeqCst);
                });
                started_rx
                    .recv_timeout(WATCHDOG)
                    .expect("first blocking task");
                let queued: Vec<_> = (0..3)
                    .map(|_| {
                        let r = ran.clone();
                        rt.spawn_blocking(move || {
                            r.fetch_add(1, SeqCst);
                        })
                    })
                    .collect();
                match how {
                    How::Drop => drop(rt),
                    How::Timeout => rt.shutdown_timeout(WATCHDOG),
                    How::Background => {
                        rt.shutdown_background();
                        drop(release_tx);
                    }
                }
                let ran2 = ran.clone();
                watchdog("blocking tasks after shutdown", move || {
                    while ran2.load(SeqCst) < 4 {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                });
                assert_eq!(ran.load(SeqCst), 4, "{how:?} ct={ct}");
                for h in std::iter::once(first).chain(queued) {
                    let r = watchdog("blocking JoinHandle", move || {
                        futures::executor::block_on(h)
                    });
                    assert!(r.is_ok(), "{how:?} ct={ct}: {r:?}");
                }
            }
        }
    })
}

#[test]
fn spawn_blocking_after_shutdown_is_cancelled() {
    let rt = current_thread();
    let handle = rt.handle().clone();
    drop(rt);
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    let h = handle.spawn_blocking(move || r.store(true, SeqCst));
    let res = watchdog("spawn_blocking after shutdown", move || {
        futures::executor::block_on(h)
    });
    assert!(res.unwrap_err().is_cancelled());
    assert!(!ran.load(SeqCst));
}

#[test]
fn spawn_outside_a_runtime_panics_with_advice() {
    let err = std::panic::catch_unwind(|| drop(runtime::spawn(async {}))).unwrap_err();
    let msg = panic_message(err);
    assert!(msg.contains("outside of a runtime"), "{msg}");
    assert!(msg.contains("Handle::spawn"), "{msg}");
}

#[test]
fn handle_current_outside_panics_and_try_current_errs() {
    assert!(Handle::try_current().is_err());
    let msg = panic_message(std::panic::catch_unwind(Handle::current).unwrap_err());
    assert!(msg.contains("outside of a runtime"), "{msg}");
}

#[test]
fn block_on_inside_a_runtime_panics_with_advice() {
    watchdog("the refused nested block_on", || {
        for rt in [
            Builder::new_current_thread().build().unwrap(),
            Builder::new_multi_thread()
                .worker_threads(2)
                .build()
                .unwrap(),
        ] {
            let inner = Builder::new_current_thread().build().unwrap();
            let msg = rt.block_on(async {
                // Inside block_on.
                let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    inner.block_on(async {})
                }));
                panic_message(err.unwrap_err())
            });
            assert!(
                msg.contains("Cannot start a runtime from within a runtime"),
                "{msg}"
            );
            assert!(msg.contains(".await"), "{msg}");
            // Inside a task on a worker: the panic becomes the task's JoinError.
            let inner = Arc::new(inner);
            let i2 = inner.clone();
            let err = rt
                .block_on(rt.spawn(async move { i2.block_on(async {}) }))
                .unwrap_err();
            assert!(err.is_panic());
            assert!(panic_message(err.into_panic())
                .contains("Cannot start a runtime from within a runtime"));
            // The runtime is fine afterwards.
            assert_eq!(rt.block_on(rt.spawn(async { 3 })).unwrap(), 3);
        }
    })
}

#[test]
fn builder_rejects_zero_workers() {
    let msg = panic_message(
        std::panic::catch_unwind(|| {
            Builder::new_multi_thread().worker_threads(0);
        })
        .unwrap_err(),
    );
    assert!(msg.contains("worker_threads must be at least 1"), "{msg}");
}
