//! The misuse panics of the runtime, `time`, `net`, `task` and `io` are as tokio's: with
//! tokio's text, at the caller's line (`#[track_caller]` down to the panic, so a panic hook
//! sees this file), and only where tokio refuses the input (tokio's `rt_panic`,
//! `time_panic`, `net_panic`, `task_panic` and `io_panic` suites; `sync` has its own
//! file).
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::time::Duration;

use runtime::{Builder, Handle};
use support::{current_thread, panic_location_file};

#[test]
fn handle_current_outside_a_runtime() {
    let file = panic_location_file(|| {
        let _ = Handle::current();
    });
    assert_eq!(file, file!());
}

#[test]
fn into_panic_of_a_cancelled_task() {
    let file = panic_location_file(|| {
        current_thread().block_on(async {
            let handle = runtime::spawn(std::future::pending::<()>());
            handle.abort();
            let err = handle.await.unwrap_err();
            assert!(!err.is_panic());
            let _ = err.into_panic();
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn builder_worker_threads_zero() {
    let file = panic_location_file(|| {
        let _ = Builder::new_multi_thread().worker_threads(0).build();
    });
    assert_eq!(file, file!());
}

#[test]
fn builder_max_blocking_threads_zero() {
    let file = panic_location_file(|| {
        let _ = Builder::new_multi_thread().max_blocking_threads(0).build();
    });
    assert_eq!(file, file!());
}

#[test]
fn builder_global_queue_interval_zero() {
    let file = panic_location_file(|| {
        let _ = Builder::new_multi_thread().global_queue_interval(0).build();
    });
    assert_eq!(file, file!());
}

#[test]
fn builder_event_interval_zero() {
    let file = panic_location_file(|| {
        let _ = Builder::new_multi_thread().event_interval(0).build();
    });
    assert_eq!(file, file!());
}

#[test]
fn builder_name_blank() {
    let file = panic_location_file(|| {
        let _ = Builder::new_multi_thread().name(" ").build();
    });
    assert_eq!(file, file!());
}

#[test]
#[should_panic(expected = "runtime name shouldn't be empty")]
fn builder_name_empty_message() {
    let _ = Builder::new_current_thread().name("");
}

#[test]
#[should_panic(expected = "Worker threads cannot be set to 0")]
fn builder_worker_threads_zero_message() {
    let _ = Builder::new_multi_thread().worker_threads(0);
}

#[test]
#[should_panic(expected = "Max blocking threads cannot be set to 0")]
fn builder_max_blocking_threads_zero_message() {
    let _ = Builder::new_multi_thread().max_blocking_threads(0);
}

#[test]
#[should_panic(expected = "global_queue_interval must be greater than 0")]
fn builder_global_queue_interval_zero_message() {
    let _ = Builder::new_multi_thread().global_queue_interval(0);
}

#[test]
#[should_panic(expected = "event_interval must be greater than 0")]
fn builder_event_interval_zero_message() {
    let _ = Builder::new_multi_thread().event_interval(0);
}

#[test]
#[should_panic(expected = "`JoinError` reason is not a panic.")]
fn into_panic_of_a_cancelled_task_message() {
    current_thread().block_on(async {
        let handle = runtime::spawn(std::future::pending::<()>());
        handle.abort();
        let _ = handle.await.unwrap_err().into_panic();
    });
}

/// tokio takes any thread name, a blank one too: the runtime's threads carry it.
#[test]
fn builder_thread_name_blank_is_accepted() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name(" ")
        .build()
        .unwrap();
    let name = rt.block_on(async {
        runtime::spawn(async { std::thread::current().name().map(str::to_owned) })
            .await
            .unwrap()
    });
    assert_eq!(name.as_deref(), Some(" "));
}

/// A named runtime: the name is the handle's, as given.
#[test]
fn builder_name_is_the_handles() {
    let rt = Builder::new_current_thread().name("rt-a").build().unwrap();
    assert_eq!(rt.handle().name(), Some("rt-a"));
}

// ---- time ----

#[test]
fn pause_twice() {
    for rt in [
        current_thread(),
        Builder::new_current_thread().enable_time().build().unwrap(),
    ] {
        let file = panic_location_file(std::panic::AssertUnwindSafe(|| {
            rt.block_on(async {
                runtime::time::pause();
                runtime::time::pause();
            });
        }));
        assert_eq!(file, file!());
    }
}

#[test]
fn resume_without_pause() {
    let file = panic_location_file(|| {
        current_thread().block_on(async { runtime::time::resume() });
    });
    assert_eq!(file, file!());
}

#[test]
fn interval_of_zero() {
    let file = panic_location_file(|| {
        let _ = runtime::time::interval(Duration::ZERO);
    });
    assert_eq!(file, file!());
}

#[test]
fn interval_at_of_zero() {
    let file = panic_location_file(|| {
        let _ = runtime::time::interval_at(runtime::time::Instant::now(), Duration::ZERO);
    });
    assert_eq!(file, file!());
}

#[test]
fn timeout_without_a_timer() {
    let file = panic_location_file(|| {
        no_drivers().block_on(async {
            let _t = runtime::time::timeout(Duration::from_millis(5), std::future::pending::<()>());
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn timeout_at_without_a_timer() {
    let file = panic_location_file(|| {
        no_drivers().block_on(async {
            let _t = runtime::time::timeout_at(
                runtime::time::Instant::now(),
                std::future::pending::<()>(),
            );
        });
    });
    assert_eq!(file, file!());
}

// ---- net ----

fn no_drivers() -> runtime::Runtime {
    Builder::new_current_thread().build().unwrap()
}

#[test]
fn udp_from_std_without_io() {
    let std = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    std.set_nonblocking(true).unwrap();
    let file = panic_location_file(|| {
        no_drivers().block_on(async {
            let _ = runtime::net::UdpSocket::from_std(std);
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn tcp_listener_from_std_without_io() {
    let std = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    std.set_nonblocking(true).unwrap();
    let file = panic_location_file(|| {
        no_drivers().block_on(async {
            let _ = runtime::net::TcpListener::from_std(std);
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn tcp_stream_from_std_without_io() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let std = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    std.set_nonblocking(true).unwrap();
    let file = panic_location_file(|| {
        no_drivers().block_on(async {
            let _ = runtime::net::TcpStream::from_std(std);
        });
    });
    assert_eq!(file, file!());
}

/// A fresh socket path in the temp directory (removed first, if there).
fn sock_path(tag: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("rt-panic-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

#[test]
fn unix_listener_bind_without_io() {
    let path = sock_path("bind");
    let at = path.clone();
    let file = panic_location_file(move || {
        no_drivers().block_on(async {
            let _ = runtime::net::UnixListener::bind(&at);
        });
    });
    let _ = std::fs::remove_file(&path);
    assert_eq!(file, file!());
}

#[test]
fn unix_listener_from_std_without_io() {
    let path = sock_path("listener");
    let std = std::os::unix::net::UnixListener::bind(&path).unwrap();
    std.set_nonblocking(true).unwrap();
    let file = panic_location_file(|| {
        no_drivers().block_on(async {
            let _ = runtime::net::UnixListener::from_std(std);
        });
    });
    let _ = std::fs::remove_file(&path);
    assert_eq!(file, file!());
}

#[test]
fn unix_stream_from_std_without_io() {
    let (std, _other) = std::os::unix::net::UnixStream::pair().unwrap();
    std.set_nonblocking(true).unwrap();
    let file = panic_location_file(|| {
        no_drivers().block_on(async {
            let _ = runtime::net::UnixStream::from_std(std);
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn unix_datagram_from_std_without_io() {
    let (std, _other) = std::os::unix::net::UnixDatagram::pair().unwrap();
    std.set_nonblocking(true).unwrap();
    let file = panic_location_file(|| {
        no_drivers().block_on(async {
            let _ = runtime::net::UnixDatagram::from_std(std);
        });
    });
    assert_eq!(file, file!());
}

// ---- task ----

#[test]
fn block_in_place_on_current_thread() {
    let file = panic_location_file(|| {
        current_thread().block_on(async { runtime::task::block_in_place(|| {}) });
    });
    assert_eq!(file, file!());
}

#[test]
fn spawn_local_outside_a_local_set() {
    let file = panic_location_file(|| {
        let _local = runtime::task::LocalSet::new();
        drop(runtime::task::spawn_local(async {}));
    });
    assert_eq!(file, file!());
}

#[test]
fn local_set_block_on_inside_block_on() {
    let file = panic_location_file(|| {
        let rt = current_thread();
        let local = runtime::task::LocalSet::new();
        rt.block_on(async {
            local.block_on(&rt, std::future::pending::<()>());
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn spawn_outside_a_runtime() {
    let file = panic_location_file(|| {
        drop(runtime::spawn(std::future::pending::<()>()));
    });
    assert_eq!(file, file!());
}

runtime::task_local! {
    static NUMBER: u32;
}

#[test]
fn task_local_sync_scope_while_borrowed() {
    let file = panic_location_file(|| {
        NUMBER.sync_scope(1, || {
            NUMBER.with(|_| {
                NUMBER.sync_scope(1, || {});
            });
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn task_local_with_unset() {
    let file = panic_location_file(|| {
        NUMBER.with(|_| {});
    });
    assert_eq!(file, file!());
}

#[test]
fn task_local_get_unset() {
    let file = panic_location_file(|| {
        NUMBER.get();
    });
    assert_eq!(file, file!());
}

// ---- io ----

#[test]
fn duplex_of_zero() {
    let file = panic_location_file(|| {
        let _ = runtime::io::duplex(0);
    });
    assert_eq!(file, file!());
}

#[test]
fn simplex_of_zero() {
    let file = panic_location_file(|| {
        let _ = runtime::io::simplex(0);
    });
    assert_eq!(file, file!());
}

#[test]
fn simplex_new_unsplit_of_zero() {
    let file = panic_location_file(|| {
        let _ = runtime::io::SimplexStream::new_unsplit(0);
    });
    assert_eq!(file, file!());
}

#[test]
fn async_fd_without_io() {
    use runtime::io::unix::AsyncFd;
    use runtime::io::Interest;
    let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
    let file = panic_location_file(|| {
        no_drivers().block_on(async {
            let _ = AsyncFd::new(a);
        });
    });
    assert_eq!(file, file!());
    let file = panic_location_file(|| {
        no_drivers().block_on(async {
            let _ = AsyncFd::with_interest(b, Interest::READABLE);
        });
    });
    assert_eq!(file, file!());
}
