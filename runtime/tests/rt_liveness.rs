//! Liveness when a task misbehaves: work behind a blocked worker moves (its LIFO slot and
//! ring), I/O and timers are served while a worker is stuck, stuck workers are visible
//! (metrics, `on_stall`), and the unhandled-panic policy.
//!
//! Every test blocks a worker with a std channel receive that has a generous timeout
//! (10 s): if the rescue the test is about did not happen, the receive times out and the
//! test fails with a message, it never hangs. Nothing here measures speed.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use futures::io::{AsyncReadExt, AsyncWriteExt};
use runtime::net::{TcpListener, TcpStream};
use runtime::{Builder, UnhandledPanic};

const PATIENCE: Duration = Duration::from_secs(10);

/// A task spawns a child (into its worker's LIFO slot) and blocks its worker until the
/// child has run: a sibling must take the child out of the LIFO slot.
#[test]
fn child_in_the_lifo_slot_of_a_blocked_task_runs() {
    watchdog("a sibling to run the child in the LIFO slot", || {
        for workers in [2, 4] {
            let rt = multi_thread(workers);
            let out = rt.block_on(async {
                runtime::spawn(async {
                    let (tx, rx) = mpsc::channel();
                    let _child = runtime::spawn(async move { tx.send(()).unwrap() });
                    rx.recv_timeout(PATIENCE)
                        .map_err(|_| "the child stayed behind its blocked parent")
                })
                .await
                .unwrap()
            });
            assert_eq!(out, Ok(()), "{workers} workers");
        }
    })
}

/// The same with several children: one in the LIFO slot, the others in the ring.
#[test]
fn children_in_the_ring_of_a_blocked_task_run() {
    watchdog("siblings to run the children in the ring", || {
        let rt = multi_thread(2);
        let got = rt.block_on(async {
            runtime::spawn(async {
                let (tx, rx) = mpsc::channel();
                for i in 0..5 {
                    let tx = tx.clone();
                    drop(runtime::spawn(async move { tx.send(i).unwrap() }));
                }
                let mut got: Vec<i32> = (0..5)
                    .map(|_| rx.recv_timeout(PATIENCE).expect("a child stayed behind"))
                    .collect();
                got.sort();
                got
            })
            .await
            .unwrap()
        });
        assert_eq!(got, vec![0, 1, 2, 3, 4]);
    })
}

/// A chain: the rescued child spawns a grandchild and waits for it the same way; both
/// levels must be rescued (the sibling that took the child is itself stuck then).
#[test]
fn a_chain_of_blocked_parents_completes() {
    watchdog("the chain of blocked parents", || {
        let rt = multi_thread(3);
        let out = rt.block_on(async {
            runtime::spawn(async {
                let (tx, rx) = mpsc::channel();
                drop(runtime::spawn(async move {
                    let (tx2, rx2) = mpsc::channel();
                    drop(runtime::spawn(async move { tx2.send(()).unwrap() }));
                    let r = rx2.recv_timeout(PATIENCE);
                    tx.send(r.is_ok()).unwrap();
                }));
                rx.recv_timeout(PATIENCE).unwrap_or(false)
            })
            .await
            .unwrap()
        });
        assert!(out, "the grandchild or the child stayed behind");
    })
}

/// A timer set by a task on another worker fires while one worker is blocked (it may be
/// the worker that last held the driver).
#[test]
fn a_timer_fires_while_a_worker_blocks() {
    watchdog("the timer while a worker blocks", || {
        let rt = multi_thread(2);
        let out = rt.block_on(async {
            runtime::spawn(async {
                let (tx, rx) = mpsc::channel();
                drop(runtime::spawn(async move {
                    runtime::time::sleep(Duration::from_millis(5)).await;
                    tx.send(()).unwrap();
                }));
                rx.recv_timeout(PATIENCE)
                    .map_err(|_| "the timer did not fire while a worker blocked")
            })
            .await
            .unwrap()
        });
        assert_eq!(out, Ok(()));
    })
}

async fn echo_once(addr: std::net::SocketAddr) -> std::io::Result<Vec<u8>> {
    let mut c = TcpStream::connect(addr).await?;
    c.write_all(b"ping").await?;
    let mut buf = vec![0; 4];
    c.read_exact(&mut buf).await?;
    Ok(buf)
}

/// A connection handler blocks its worker until an echo on a second connection has
/// completed: readiness for the second connection must be dispatched while the worker
/// that last polled the driver is stuck.
#[test]
fn an_echo_on_a_second_connection_completes_while_the_first_handler_blocks() {
    watchdog("the second connection's echo", || {
        for workers in [2, 4] {
            let rt = multi_thread(workers);
            let (blocked_tx, blocked_rx) = mpsc::channel::<()>();
            let (release_tx, release_rx) = mpsc::channel::<()>();
            let release_rx = Arc::new(Mutex::new(release_rx));
            let handled = Arc::new(AtomicUsize::new(0));
            let listener = rt.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
            let addr = listener.local_addr().unwrap();
            let h = handled.clone();
            drop(rt.spawn(async move {
                for n in 0.. {
                    let Ok((mut sock, _)) = listener.accept().await else {
                        return;
                    };
                    let blocked_tx = blocked_tx.clone();
                    let release_rx = release_rx.clone();
                    let h = h.clone();
                    drop(runtime::spawn(async move {
                        let mut buf = [0; 4];
                        if sock.read_exact(&mut buf).await.is_err() {
                            return;
                        }
                        if n == 0 {
                            // The first handler blocks its worker (a blocking call in a task).
                            blocked_tx.send(()).unwrap();
                            let _ = release_rx.lock().unwrap().recv_timeout(PATIENCE);
                        }
                        if n == 0 {
                            h.fetch_add(1, SeqCst);
                        }
                        let _ = sock.write_all(&buf).await;
                    }));
                }
            }));
            // Connection 1: its handler blocks. (A plain thread: block_on must not be the one
            // holding the only reference to the runtime while this waits.)
            let first = std::thread::spawn(move || {
                let mut c = std::net::TcpStream::connect(addr).unwrap();
                std::io::Write::write_all(&mut c, b"1111").unwrap();
                let mut buf = [0; 4];
                c.set_read_timeout(Some(PATIENCE)).unwrap();
                std::io::Read::read_exact(&mut c, &mut buf).map(|_| buf)
            });
            blocked_rx
                .recv_timeout(PATIENCE)
                .expect("the first handler never ran");
            // Connection 2, while handler 1 still blocks.
            let second =
                rt.block_on(async { runtime::time::timeout(PATIENCE, echo_once(addr)).await });
            let still_blocked = handled.load(SeqCst) == 0;
            release_tx.send(()).unwrap();
            let second = second
                .expect("the second echo timed out behind the blocked handler")
                .unwrap();
            assert_eq!(second, b"ping");
            assert!(
                still_blocked,
                "the first handler was not blocking during the echo"
            );
            assert_eq!(&first.join().unwrap().unwrap(), b"1111");
        }
    })
}

/// `on_stall` reports a poll that blocks, while it blocks; the metrics show the worker
/// inside that poll, the long poll counted and the longest poll at least the threshold.
#[test]
fn a_stalled_poll_is_reported_and_visible_in_metrics() {
    watchdog("the stall report", || {
        let threshold = Duration::from_millis(10);
        let (stall_tx, stall_rx) = mpsc::channel();
        let stall_tx = Mutex::new(stall_tx);
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .on_stall(threshold, move |stall| {
                let _ = stall_tx.lock().unwrap().send(stall.clone());
            })
            .build()
            .unwrap();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let task = rt.spawn(async move { release_rx.recv_timeout(PATIENCE).is_ok() });
        let stall = stall_rx
            .recv_timeout(PATIENCE)
            .expect("no on_stall call while a poll blocked");
        assert!(stall.elapsed >= threshold, "{stall:?}");
        let m = rt.metrics().workers()[stall.worker].clone();
        let since = m
            .current_poll_since()
            .expect("the stuck worker is not shown inside a poll");
        assert!(since + threshold <= Instant::now(), "{m:?}");
        assert!(m.long_polls() >= 1, "{m:?}");
        assert!(m.longest_poll() >= threshold, "{m:?}");
        release_tx.send(()).unwrap();
        assert!(rt.block_on(task).unwrap());
        // Once the poll ended, the worker is no longer shown inside it (it parks soon).
        let deadline = Instant::now() + PATIENCE;
        while rt.metrics().workers()[stall.worker].current_poll_since() == Some(since) {
            assert!(Instant::now() < deadline, "the ended poll is still shown");
            std::thread::sleep(Duration::from_millis(1));
        }
        // No stall is reported twice.
        assert!(stall_rx.try_recv().is_err());
    })
}

/// A panicking `on_stall` callback does not end the monitor: a later stuck worker's task
/// is still rescued.
#[test]
fn a_panicking_stall_callback_leaves_the_rescue_working() {
    watchdog("the rescue after a panicking stall callback", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .on_stall(Duration::from_millis(1), |_| panic!("callback went boom"))
            .build()
            .unwrap();
        for _ in 0..2 {
            let out = rt.block_on(async {
                runtime::spawn(async {
                    let (tx, rx) = mpsc::channel();
                    drop(runtime::spawn(async move { tx.send(()).unwrap() }));
                    rx.recv_timeout(PATIENCE)
                        .map_err(|_| "the child stayed behind its blocked parent")
                })
                .await
                .unwrap()
            });
            assert_eq!(out, Ok(()));
        }
    })
}

#[test]
fn shutdown_runtime_policy_makes_block_on_panic_on_both_flavors() {
    watchdog("block_on's panic under shutdown_runtime", || {
        for mut b in [Builder::new_multi_thread(), Builder::new_current_thread()] {
            let rt = b
                .worker_threads(2)
                .unhandled_panic(UnhandledPanic::ShutdownRuntime)
                .build()
                .unwrap();
            let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                rt.block_on(async {
                    drop(runtime::spawn(async { panic!("task went boom") }));
                    std::future::pending::<()>().await
                })
            }))
            .expect_err("block_on returned after a task panicked");
            let msg = panic_message(err);
            assert!(msg.contains("task went boom"), "{msg}");
            assert!(msg.contains("ShutdownRuntime"), "{msg}");
            // The runtime stays shut down: a later block_on panics too.
            assert!(std::panic::catch_unwind(std::panic::AssertUnwindSafe(
                || rt.block_on(async {})
            ))
            .is_err());
        }
    })
}

#[test]
fn shutdown_runtime_policy_the_join_handle_still_sees_the_panic() {
    watchdog("the JoinHandle under shutdown_runtime", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .unhandled_panic(UnhandledPanic::ShutdownRuntime)
            .build()
            .unwrap();
        let (tx, rx) = mpsc::channel();
        let join = rt.spawn(async { panic!("boom") });
        // Awaited on another runtime: this one is going down.
        std::thread::spawn(move || {
            let other = Builder::new_current_thread().build().unwrap();
            tx.send(other.block_on(join).map_err(|e| e.is_panic()))
                .unwrap();
        });
        let r = rx
            .recv_timeout(PATIENCE)
            .expect("the JoinHandle never resolved");
        assert_eq!(r, Err(true));
    })
}

#[test]
fn ignore_policy_hands_the_panic_to_the_join_handle_and_goes_on() {
    watchdog("the JoinHandle under the ignore policy", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .unhandled_panic(UnhandledPanic::Ignore)
            .build()
            .unwrap();
        let err = rt.block_on(rt.spawn(async { panic!("boom") })).unwrap_err();
        assert!(err.is_panic());
        assert_eq!(rt.block_on(rt.spawn(async { 5 })).unwrap(), 5);
    })
}

#[runtime::test(unhandled_panic = "shutdown_runtime")]
#[should_panic(expected = "macro task boom")]
async fn the_test_macro_takes_the_panic_policy() {
    let _watchdog = abort_after("the panic policy");
    drop(runtime::spawn(async { panic!("macro task boom") }));
    std::future::pending::<()>().await
}

#[runtime::test(
    flavor = "multi_thread",
    worker_threads = 2,
    unhandled_panic = "ignore"
)]
async fn the_test_macro_takes_the_ignore_policy() {
    let _watchdog = abort_after("the ignore policy");
    let err = runtime::spawn(async { panic!("ignored") })
        .await
        .unwrap_err();
    assert!(err.is_panic());
}

// Both sides' macro arguments together (the merge of `start_paused` and `unhandled_panic`):
// the paused clock skips the hour at once, then the panic policy ends the test.
#[runtime::test(
    flavor = "current_thread",
    start_paused = true,
    unhandled_panic = "shutdown_runtime"
)]
#[should_panic(expected = "paused boom")]
async fn the_test_macro_takes_start_paused_and_the_panic_policy() {
    let _watchdog = abort_after("the paused runtime");
    runtime::time::sleep(Duration::from_secs(3600)).await;
    drop(runtime::spawn(async { panic!("paused boom") }));
    std::future::pending::<()>().await
}

#[runtime::test(flavor = "local", unhandled_panic = "shutdown_runtime")]
#[should_panic(expected = "local flavor boom")]
async fn the_local_flavor_takes_the_panic_policy() {
    let _watchdog = abort_after("the local flavor");
    drop(runtime::spawn(async { panic!("local flavor boom") }));
    std::future::pending::<()>().await
}

// `spawn_local` tasks are covered by the policy too (a LocalSet driven by the runtime, and
// the local flavor's `spawn_local`).
#[runtime::test(flavor = "local", unhandled_panic = "shutdown_runtime")]
#[should_panic(expected = "local task boom")]
async fn a_spawn_local_task_takes_the_panic_policy() {
    let _watchdog = abort_after("the local task's panic");
    drop(runtime::task::spawn_local(async {
        let _not_send = std::rc::Rc::new(());
        panic!("local task boom")
    }));
    std::future::pending::<()>().await
}

#[test]
#[should_panic(expected = "local set boom")]
fn a_local_set_task_takes_the_driving_runtimes_panic_policy() {
    let rt = Builder::new_current_thread()
        .unhandled_panic(runtime::UnhandledPanic::ShutdownRuntime)
        .build()
        .unwrap();
    let local = runtime::task::LocalSet::new();
    local.block_on(&rt, async {
        let _watchdog = abort_after("the local set task's panic");
        drop(runtime::task::spawn_local(async {
            panic!("local set boom")
        }));
        std::future::pending::<()>().await
    });
}

// The thread hooks run on the workers only, not on the runtime's monitor thread.
#[test]
fn thread_hooks_skip_the_monitor_thread() {
    watchdog("the thread hooks", || {
        let started = Arc::new(AtomicUsize::new(0));
        let stopped = Arc::new(AtomicUsize::new(0));
        let (s, t) = (started.clone(), stopped.clone());
        let rt = Builder::new_multi_thread()
            .worker_threads(3)
            .on_thread_start(move || {
                s.fetch_add(1, SeqCst);
            })
            .on_thread_stop(move || {
                t.fetch_add(1, SeqCst);
            })
            .build()
            .unwrap();
        assert_eq!(rt.block_on(rt.spawn(async { 7 })).unwrap(), 7);
        drop(rt);
        assert_eq!(started.load(SeqCst), 3);
        assert_eq!(stopped.load(SeqCst), 3);
    })
}

/// Echo round trips on a runtime that always has runnable tasks (spinning yielders), so
/// its driver polls never wait and each takes one event (`max_io_events_per_busy_tick(1)`):
/// every event still arrives, on both flavors.
fn busy_runtime_gets_every_event(rt: runtime::Runtime) {
    for _ in 0..8 {
        rt.spawn(async {
            loop {
                runtime::task::yield_now().await;
            }
        });
    }
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        runtime::spawn(async move {
            loop {
                let (mut s, _) = listener.accept().await.unwrap();
                runtime::spawn(async move {
                    let mut buf = [0u8; 4];
                    while s.read_exact(&mut buf).await.is_ok() {
                        s.write_all(&buf).await.unwrap();
                    }
                });
            }
        });
        let clients: Vec<_> = (0..16)
            .map(|_| {
                runtime::spawn(async move {
                    let mut s = TcpStream::connect(addr).await.unwrap();
                    for _ in 0..16 {
                        s.write_all(b"ping").await.unwrap();
                        s.read_exact(&mut [0u8; 4]).await.unwrap();
                    }
                })
            })
            .collect();
        let all = async {
            for c in clients {
                c.await.unwrap();
            }
        };
        runtime::time::timeout(GENEROUS, all)
            .await
            .expect("echo round trips did not finish");
    });
    rt.shutdown_background();
}

#[test]
fn a_busy_runtime_taking_one_event_per_poll_gets_every_event() {
    watchdog("the echo round trips on a busy runtime", || {
        let multi = Builder::new_multi_thread()
            .worker_threads(1)
            .max_io_events_per_busy_tick(1)
            .enable_all()
            .build()
            .unwrap();
        busy_runtime_gets_every_event(multi);
        let current = Builder::new_current_thread()
            .max_io_events_per_busy_tick(1)
            .enable_all()
            .build()
            .unwrap();
        busy_runtime_gets_every_event(current);
    })
}

#[test]
#[should_panic(expected = "max_io_events_per_busy_tick must be non-zero")]
fn max_io_events_per_busy_tick_of_zero_panics() {
    Builder::new_multi_thread().max_io_events_per_busy_tick(0);
}
