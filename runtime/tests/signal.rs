//! `signal::ctrl_c` and `signal::unix::signal` on both flavors: a signal raised in-process
//! (`raise`, `kill(getpid())`) reaches its receivers through the I/O driver; several
//! receivers of one signal all get it; deliveries coalesce; a receiver only sees what is
//! delivered after its creation; receivers on two runtimes both hear one delivery; a
//! runtime's shutdown ends its receivers' streams.
//!
//! Tests of one binary share the process and run in parallel, so each uses its own signal.
#![cfg(all(unix, not(loom)))]

#[macro_use]
mod support;

use support::*;

use std::time::Duration;

use futures::FutureExt;
use runtime::signal::unix::{signal, SignalKind};
use runtime::time::timeout;
use runtime::Builder;

fn raise(sig: i32) {
    // SAFETY: raising a signal whose handler this test installed.
    assert_eq!(unsafe { libc::raise(sig) }, 0);
}

fn kill_self(sig: i32) {
    // SAFETY: as above; the process-directed form may run the handler on any thread.
    assert_eq!(unsafe { libc::kill(libc::getpid(), sig) }, 0);
}

rt_test! {
    #[test]
    fn raise_then_recv() {
        watchdog("the raised signal", || {
            let rt = rt();
            rt.block_on(async {
                let mut s = signal(SignalKind::user_defined1()).unwrap();
                raise(libc::SIGUSR1);
                timeout(GENEROUS, s.recv())
                    .await
                    .expect("SIGUSR1 not received")
                    .unwrap();
                // From another task, via kill(getpid()).
                let waiter = runtime::spawn(async move {
                    s.recv().await.unwrap();
                });
                runtime::task::yield_now().await;
                kill_self(libc::SIGUSR1);
                timeout(GENEROUS, waiter)
                    .await
                    .expect("SIGUSR1 via kill not received")
                    .unwrap();
            });
        })
    }

    #[test]
    fn several_receivers_all_get_it() {
        watchdog("every receiver's signal", || {
            let rt = rt();
            rt.block_on(async {
                let mut signals: Vec<_> = (0..4)
                    .map(|_| signal(SignalKind::user_defined2()).unwrap())
                    .collect();
                let mut inline = signals.pop().unwrap();
                let tasks: Vec<_> = signals
                    .into_iter()
                    .map(|mut s| runtime::spawn(async move { s.recv().await }))
                    .collect();
                // Let the tasks park on the driver first (not required for correctness:
                // receivers created before the delivery see it either way).
                runtime::task::yield_now().await;
                raise(libc::SIGUSR2);
                for t in tasks {
                    let got = timeout(GENEROUS, t)
                        .await
                        .expect("a receiver missed SIGUSR2");
                    assert_eq!(got.unwrap(), Some(()));
                }
                assert_eq!(timeout(GENEROUS, inline.recv()).await.unwrap(), Some(()));
            });
        })
    }

    #[test]
    fn deliveries_coalesce_and_only_later_ones_are_seen() {
        watchdog("the coalesced deliveries", || {
            let rt = rt();
            rt.block_on(async {
                let mut a = signal(SignalKind::window_change()).unwrap();
                raise(libc::SIGWINCH);
                raise(libc::SIGWINCH);
                raise(libc::SIGWINCH);
                timeout(GENEROUS, a.recv()).await.unwrap().unwrap();
                // The three coalesced into the one just received.
                assert_eq!(a.recv().now_or_never(), None);
                // A receiver created now does not see the past delivery.
                let mut b = signal(SignalKind::window_change()).unwrap();
                assert_eq!(b.recv().now_or_never(), None);
                raise(libc::SIGWINCH);
                timeout(GENEROUS, b.recv()).await.unwrap().unwrap();
                timeout(GENEROUS, a.recv()).await.unwrap().unwrap();
            });
        })
    }

    #[test]
    fn ctrl_c_completes_on_sigint() {
        watchdog("ctrl_c after SIGINT", || {
            let rt = rt();
            rt.block_on(async {
                // Keep a SIGINT handler installed, so an early raise cannot kill the process.
                let _installed = signal(SignalKind::interrupt()).unwrap();
                let mut waiter = runtime::spawn(runtime::signal::ctrl_c());
                // ctrl_c registers at its first poll: raise until it has seen one.
                let deadline = std::time::Instant::now() + GENEROUS;
                loop {
                    raise(libc::SIGINT);
                    if let Ok(res) = timeout(Duration::from_millis(20), &mut waiter).await {
                        res.unwrap().unwrap();
                        break;
                    }
                    assert!(
                        std::time::Instant::now() < deadline,
                        "ctrl_c never completed"
                    );
                }
            });
        })
    }

    #[test]
    fn shutdown_ends_the_stream() {
        watchdog("the end of the signal stream at shutdown", || {
            let rt = rt();
            let mut s = rt.block_on(async { signal(SignalKind::alarm()).unwrap() });
            drop(rt);
            let other = Builder::new_current_thread().enable_all().build().unwrap();
            let got = other.block_on(async { timeout(GENEROUS, s.recv()).await.expect("hung") });
            assert_eq!(got, None);
        })
    }
}

#[test]
fn receivers_on_two_runtimes_both_hear_one_delivery() {
    watchdog("both runtimes' receivers", || {
        let (a, b) = (runtimes().remove(0), runtimes().remove(1));
        let mut sa = a.block_on(async { signal(SignalKind::hangup()).unwrap() });
        let mut sb = b.block_on(async { signal(SignalKind::hangup()).unwrap() });
        raise(libc::SIGHUP);
        let tb = std::thread::spawn(move || {
            b.block_on(async {
                timeout(GENEROUS, sb.recv())
                    .await
                    .expect("runtime b missed it")
            })
        });
        let ra = a.block_on(async {
            timeout(GENEROUS, sa.recv())
                .await
                .expect("runtime a missed it")
        });
        assert_eq!(ra, Some(()));
        assert_eq!(tb.join().unwrap(), Some(()));
    })
}

#[test]
fn forbidden_and_out_of_range_signals_are_errors() {
    watchdog("the signal registrations", || {
        Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async {
                for sig in [libc::SIGKILL, libc::SIGSTOP, libc::SIGSEGV, 0, -1] {
                    let err = signal(SignalKind::from_raw(sig)).unwrap_err();
                    assert_eq!(
                        err.to_string(),
                        format!("Refusing to register signal {sig}")
                    );
                }
                // Past the platform's signal numbers: tokio's "signal too large".
                let err = signal(SignalKind::from_raw(1000)).unwrap_err();
                assert_eq!(err.kind(), std::io::ErrorKind::Other);
                assert_eq!(err.to_string(), "signal too large");
            });
    })
}

#[test]
fn real_time_signal_and_stream_impl() {
    watchdog("the real-time signal", || {
        use futures::StreamExt;
        for rt in runtimes() {
            rt.block_on(async {
                let sig = libc::SIGRTMIN() + 3;
                let mut s = signal(SignalKind::from_raw(sig)).unwrap();
                assert_eq!(i32::from(SignalKind::from(sig)), sig);
                raise(sig);
                assert_eq!(timeout(GENEROUS, s.next()).await.unwrap(), Some(()));
            });
        }
    })
}

#[test]
#[should_panic(
    expected = "`runtime::signal` (`signal`, `ctrl_c`) must be called from the context of a runtime"
)]
fn signal_outside_a_runtime_panics_with_a_message() {
    let _ = signal(SignalKind::quit());
}

/// As tokio's: the runtime is looked up before the signal number is checked, so a bad
/// number outside a runtime is the missing runtime's panic, not an error.
#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn bad_signal_outside_a_runtime_panics() {
    let _ = signal(SignalKind::from_raw(-1));
}

/// As tokio's `signal_panic` suite: on a runtime without I/O, `signal` of a bad number
/// panics (I/O disabled) at the caller's line.
#[test]
fn bad_signal_without_io_panics_at_the_caller() {
    let file = panic_location_file(|| {
        Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(async {
                let _ = signal(SignalKind::from_raw(-1));
            });
    });
    assert_eq!(file, file!());
    let msg = std::panic::catch_unwind(|| {
        Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(async {
                let _ = signal(SignalKind::from_raw(-1));
            });
    })
    .map(|_| String::new())
    .unwrap_or_else(panic_message);
    assert!(
        msg.contains("A Tokio 1.x context was found, but IO is disabled."),
        "{msg}"
    );
}

#[test]
fn a_worker_task_hears_a_signal_sent_from_another_thread() {
    watchdog("the worker task's signal", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let sig = libc::SIGRTMIN() + 4;
        rt.block_on(async {
            let mut s = signal(SignalKind::from_raw(sig)).unwrap();
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            let waiter = runtime::spawn(async move {
                let mut n = 0;
                for _ in 0..3 {
                    s.recv().await.unwrap();
                    n += 1;
                    tx.send(()).unwrap();
                }
                n
            });
            // A plain OS thread signals the process three times, each after the previous
            // delivery was seen (deliveries in between would coalesce).
            let sender = std::thread::spawn(move || {
                for _ in 0..3 {
                    kill_self(sig);
                    rx.recv_timeout(GENEROUS).expect("delivery not seen");
                }
            });
            assert_eq!(timeout(GENEROUS, waiter).await.unwrap().unwrap(), 3);
            sender.join().unwrap();
        });
    })
}

/// A waker that records being woken.
struct Flag(std::sync::atomic::AtomicBool);

impl std::task::Wake for Flag {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn a_dispatch_on_one_runtime_wakes_receivers_waiting_on_another() {
    watchdog("the receivers on the other runtime", || {
        use std::sync::atomic::Ordering;
        use std::task::{Context, Poll, Waker};
        let sig = libc::SIGRTMIN() + 5;
        // Runtime `idle` is never driven after the first poll: its I/O driver cannot turn, so
        // only the runtime that reads the doorbell (`busy`) can wake the receiver waiting there.
        let idle = Builder::new_current_thread().enable_all().build().unwrap();
        let busy = Builder::new_current_thread().enable_all().build().unwrap();
        let flag = std::sync::Arc::new(Flag(std::sync::atomic::AtomicBool::new(false)));
        let waker = Waker::from(flag.clone());
        let mut waiting = idle.block_on(async {
            let mut s = signal(SignalKind::from_raw(sig)).unwrap();
            assert!(s.poll_recv(&mut Context::from_waker(&waker)).is_pending());
            s
        });
        busy.block_on(async {
            let mut s = signal(SignalKind::from_raw(sig)).unwrap();
            raise(sig);
            timeout(GENEROUS, s.recv()).await.unwrap().unwrap();
        });
        assert!(
            flag.0.load(Ordering::SeqCst),
            "the dispatch did not wake the receiver waiting on the other runtime"
        );
        idle.block_on(async {
            assert_eq!(
                waiting.poll_recv(&mut Context::from_waker(&waker)),
                Poll::Ready(Some(()))
            );
        });
    })
}
