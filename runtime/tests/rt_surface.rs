//! tokio's runtime, task and time surface beyond the core, through tokio's names at
//! tokio's paths: `TryCurrentError`'s kinds, `runtime::is_rt_shutdown_err`,
//! `Builder::max_io_events_per_tick`, `LocalKey::try_get`, `LocalSet::id`,
//! `task::coop::{poll_proceed, RestoreOnPending, cooperative}`, `time::error::{Error,
//! Elapsed}` and `fs::File`'s descriptor conversions.
//!
//! `Runtime::enter`: spawning outside `block_on` under the guard.
#![cfg(not(loom))]

#[macro_use]
mod support;

use runtime::RuntimeFlavor;
use std::cell::RefCell;
use std::future::poll_fn;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;
use std::task::{ready, Poll};

use runtime::io::{AsyncReadExt, AsyncWriteExt};
use runtime::runtime::{is_rt_shutdown_err, Builder, Handle, Runtime};
use runtime::task::coop;
use support::*;

#[test]
fn try_current_outside_a_runtime_is_missing_context() {
    let err = Handle::try_current().unwrap_err();
    assert!(err.is_missing_context());
    assert!(!err.is_thread_local_destroyed());
    assert!(err.to_string().contains("no runtime"), "{err}");
}

/// A thread-local whose destructor asks for the current runtime: it runs after the
/// runtime's own thread-local was destroyed (destructors run in the reverse order of
/// registration, and this one registers first).
struct Probe(std::sync::mpsc::Sender<(bool, bool)>);

impl Drop for Probe {
    fn drop(&mut self) {
        let err = Handle::try_current().unwrap_err();
        let _ = self
            .0
            .send((err.is_missing_context(), err.is_thread_local_destroyed()));
    }
}

thread_local! {
    static PROBE: RefCell<Option<Probe>> = const { RefCell::new(None) };
}

#[test]
fn try_current_from_a_thread_local_destructor_is_thread_local_destroyed() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        PROBE.with(|p| *p.borrow_mut() = Some(Probe(tx)));
        // Touches (and so registers) the runtime's thread-local after the probe's.
        assert!(Handle::try_current().unwrap_err().is_missing_context());
    })
    .join()
    .unwrap();
    let (missing, destroyed) = rx
        .recv_timeout(WATCHDOG)
        .expect("the probe's destructor never ran");
    assert!(
        destroyed && !missing,
        "missing {missing}, destroyed {destroyed}"
    );
}

#[test]
fn io_on_a_shut_down_runtime_is_an_rt_shutdown_error() {
    watchdog("the accept on a dead driver", || {
        let rt1 = Runtime::new().unwrap();
        let rt2 = Runtime::new().unwrap();
        let listener = rt1
            .block_on(runtime::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        drop(rt1);
        let err = rt2.block_on(listener.accept()).unwrap_err();
        assert!(is_rt_shutdown_err(&err), "{err}");
        assert!(!is_rt_shutdown_err(&std::io::Error::other(
            err.to_string() + "!"
        )));
        assert!(!is_rt_shutdown_err(&std::io::Error::from(
            std::io::ErrorKind::Other
        )));
    });
}

#[test]
#[should_panic(expected = "max_io_events_per_tick must be non-zero")]
fn max_io_events_per_tick_zero_panics() {
    Builder::new_current_thread().max_io_events_per_tick(0);
}

#[test]
fn one_io_event_per_tick_still_serves_every_ready_socket() {
    for multi in [false, true] {
        let mut b = if multi {
            Builder::new_multi_thread()
        } else {
            Builder::new_current_thread()
        };
        let rt = b.enable_all().max_io_events_per_tick(1).build().unwrap();
        watchdog("the echoes through a one-event driver", move || {
            on(&rt, || async {
                let listener = runtime::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .unwrap();
                let addr = listener.local_addr().unwrap();
                let server = runtime::spawn(async move {
                    for _ in 0..8 {
                        let (mut s, _) = listener.accept().await.unwrap();
                        runtime::spawn(async move {
                            let mut b = [0; 1];
                            s.read_exact(&mut b).await.unwrap();
                            s.write_all(&b).await.unwrap();
                        });
                    }
                });
                let mut clients = Vec::new();
                for i in 0..8u8 {
                    clients.push(runtime::spawn(async move {
                        let mut c = runtime::net::TcpStream::connect(addr).await.unwrap();
                        c.write_all(&[i]).await.unwrap();
                        let mut b = [0; 1];
                        c.read_exact(&mut b).await.unwrap();
                        b[0]
                    }));
                }
                for (i, c) in clients.into_iter().enumerate() {
                    assert_eq!(within("an echo", c).await.unwrap(), i as u8);
                }
                within("the server", server).await.unwrap();
            });
        });
    }
}

runtime::task_local! {
    static DEPTH: u32;
}

#[test]
fn local_key_try_get() {
    assert!(DEPTH.try_get().is_err(), "outside any scope");
    let rt = current_thread();
    let got = rt.block_on(DEPTH.scope(3, async { DEPTH.try_get() }));
    assert_eq!(got, Ok(3));
}

#[test]
fn local_set_ids_are_unique_among_sets_and_runtimes() {
    let a = runtime::task::LocalSet::new();
    let b = runtime::task::LocalSet::new();
    let rt = current_thread();
    let id: runtime::runtime::Id = a.id();
    assert_eq!(id, a.id(), "stable");
    assert_ne!(a.id(), b.id());
    assert_ne!(a.id(), rt.handle().id());
    assert_ne!(b.id(), rt.handle().id());
}

rt_test! {
    #[test]
    fn poll_proceed_without_progress_spends_nothing() {
        watchdog("the budget probe", || {
            on_in_task(&rt(), || async {
                // Far more than a budget's worth of attempts that made no progress.
                for _ in 0..1000 {
                    poll_fn(|cx| {
                        let restore = ready!(coop::poll_proceed(cx));
                        drop(restore);
                        Poll::Ready(())
                    })
                    .await;
                }
                assert!(coop::has_budget_remaining(), "every unit came back");
                // With progress, the budget runs out: the task is made to yield.
                let mut spent = 0u32;
                let mut yielded = false;
                poll_fn(|cx| {
                    if yielded {
                        return Poll::Ready(());
                    }
                    loop {
                        match coop::poll_proceed(cx) {
                            Poll::Ready(restore) => {
                                restore.made_progress();
                                spent += 1;
                                assert!(spent <= 10_000, "the budget never ran out");
                            }
                            Poll::Pending => {
                                // The task was woken: it is polled again, after others.
                                yielded = true;
                                return Poll::Pending;
                            }
                        }
                    }
                })
                .await;
                assert!(yielded && spent > 1, "spent {spent}");
            });
        });
    }

    #[test]
    fn cooperative_makes_an_always_ready_loop_yield() {
        watchdog("the cooperative loop", || {
            on(&rt(), || async {
                let flag = Arc::new(AtomicBool::new(false));
                let set = flag.clone();
                let looper = runtime::spawn(async move {
                    // Without `cooperative` this loop never returns `Pending`: on the
                    // current-thread flavor the setter could never run, and the watchdog
                    // fails the test. With it, the loop gives way every budget's worth
                    // of iterations and ends once the setter ran, however late that is.
                    while !flag.load(SeqCst) {
                        coop::cooperative(std::future::ready(())).await;
                    }
                });
                let setter = runtime::spawn(async move { set.store(true, SeqCst) });
                within("the setter", setter).await.unwrap();
                within("the looper", looper).await.unwrap();
            });
        });
    }
}

#[test]
fn time_error_at_tokios_path() {
    use runtime::time::error::{Elapsed, Error};
    let e = Error::shutdown();
    assert!(e.is_shutdown() && !e.is_at_capacity() && !e.is_invalid());
    assert!(Error::at_capacity().is_at_capacity());
    assert!(Error::invalid().is_invalid());
    assert_ne!(Error::invalid(), Error::shutdown());
    let _: &dyn std::error::Error = &e;
    assert!(!e.to_string().is_empty());
    let rt = current_thread();
    let elapsed: Elapsed = rt
        .block_on(async {
            runtime::time::timeout(std::time::Duration::ZERO, std::future::pending::<()>()).await
        })
        .unwrap_err();
    assert_eq!(elapsed.to_string(), "deadline has elapsed");
}

#[test]
fn fs_file_from_and_as_descriptors() {
    use std::os::fd::{AsFd, AsRawFd, FromRawFd, IntoRawFd, OwnedFd};
    let dir = std::env::temp_dir().join(format!("rt_surface_fd_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("f");
    std::fs::write(&path, b"fd").unwrap();
    let rt = current_thread();
    rt.block_on(async {
        let owned: OwnedFd = std::fs::File::open(&path).unwrap().into();
        let raw = owned.as_raw_fd();
        let mut f = runtime::fs::File::from(owned);
        assert_eq!(f.as_raw_fd(), raw);
        assert_eq!(f.as_fd().as_raw_fd(), raw);
        let mut s = String::new();
        f.read_to_string(&mut s).await.unwrap();
        assert_eq!(s, "fd");

        let raw = std::fs::File::open(&path).unwrap().into_raw_fd();
        // SAFETY: `raw` was just released by its `std::fs::File`; the new file owns it.
        let mut f = unsafe { runtime::fs::File::from_raw_fd(raw) };
        let mut s = String::new();
        f.read_to_string(&mut s).await.unwrap();
        assert_eq!(s, "fd");

        let mut f = runtime::fs::File::from(std::fs::File::open(&path).unwrap());
        let mut s = String::new();
        f.read_to_string(&mut s).await.unwrap();
        assert_eq!(s, "fd");
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn enter_makes_spawn_work_outside_block_on() {
    watchdog("the task spawned under enter", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let h = {
            let _g = rt.enter();
            assert_eq!(
                Handle::current().runtime_flavor(),
                RuntimeFlavor::MultiThread
            );
            runtime::spawn(async { 9 })
        };
        assert!(Handle::try_current().is_err());
        assert_eq!(rt.block_on(h).unwrap(), 9);
    })
}
