//! Every misuse panic and runtime error carries tokio's text for the same condition, word
//! for word (our advice may follow it): code and tests written against tokio's messages
//! match ours. One test per message; the expected strings are tokio 1.x's.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::sync::Arc;
use std::time::Duration;

use runtime::{Builder, Handle, Runtime};

fn no_drivers() -> Runtime {
    Builder::new_current_thread().build().unwrap()
}

// ---- no runtime ----

#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn spawn_outside_a_runtime() {
    drop(runtime::spawn(async {}));
}

#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn spawn_blocking_outside_a_runtime() {
    drop(runtime::task::spawn_blocking(|| {}));
}

#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn handle_current_outside_a_runtime() {
    let _ = Handle::current();
}

#[test]
fn try_current_error_outside_a_runtime() {
    let err = Handle::try_current().unwrap_err();
    assert!(
        err.to_string().starts_with(
            "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
        ),
        "{err}"
    );
}

#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn sleep_outside_a_runtime() {
    drop(runtime::time::sleep(Duration::from_secs(1)));
}

#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn socket_outside_a_runtime() {
    let std = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    std.set_nonblocking(true).unwrap();
    let _ = runtime::net::TcpListener::from_std(std);
}

// ---- a driver not enabled ----

#[test]
#[should_panic(
    expected = "A Tokio 1.x context was found, but IO is disabled. Call `enable_io` on the runtime builder to enable IO."
)]
fn socket_without_enable_io() {
    no_drivers().block_on(async {
        let _ = runtime::net::TcpListener::bind("127.0.0.1:0").await;
    });
}

#[test]
#[should_panic(
    expected = "A Tokio 1.x context was found, but timers are disabled. Call `enable_time` on the runtime builder to enable timers."
)]
fn sleep_without_enable_time() {
    no_drivers().block_on(async {
        runtime::time::sleep(Duration::from_millis(1)).await;
    });
}

// ---- after shutdown ----

#[test]
#[should_panic(expected = "A Tokio 1.x context was found, but it is being shutdown.")]
fn timer_polled_after_its_runtime_shut_down() {
    let rt = current_thread();
    let mut sleep = {
        let _enter = rt.enter();
        Box::pin(runtime::time::sleep(Duration::from_secs(3600)))
    };
    drop(rt);
    let _ = poll_once(&mut sleep);
}

#[test]
fn socket_polled_after_its_runtime_shut_down() {
    let rt = current_thread();
    let listener = rt.block_on(async {
        runtime::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap()
    });
    drop(rt);
    let err = current_thread().block_on(async { listener.accept().await.unwrap_err() });
    assert!(
        err.to_string()
            .starts_with("A Tokio 1.x context was found, but it is being shutdown."),
        "{err}"
    );
    assert!(runtime::runtime::is_rt_shutdown_err(&err), "{err}");
}

#[test]
fn fs_after_shutdown_is_background_task_failed() {
    let rt = current_thread();
    let _enter = rt.enter();
    rt.shutdown_timeout(Duration::from_secs(1000));
    let err = Handle::current()
        .block_on(runtime::fs::read_to_string("Cargo.toml"))
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::Other);
    let inner = err.get_ref().expect("an inner error");
    assert_eq!(inner.to_string(), "background task failed");
}

// ---- blocking where it would stall a runtime ----

#[test]
#[should_panic(
    expected = "Cannot start a runtime from within a runtime. This happens because a function (like `block_on`) attempted to block the current thread while the thread is being used to drive asynchronous tasks. If you are in an async function, use `.await` on the future instead of blocking on it."
)]
fn block_on_inside_block_on() {
    let rt = Arc::new(current_thread());
    let inner = rt.clone();
    rt.block_on(async move { inner.block_on(async {}) });
}

#[test]
#[should_panic(expected = "can call blocking only when running on the multi-threaded runtime")]
fn block_in_place_on_a_current_thread_runtime() {
    current_thread().block_on(async { runtime::task::block_in_place(|| {}) });
}

#[test]
#[should_panic(
    expected = "Cannot block the current thread from within a runtime. This happens because a function attempted to block the current thread while the thread is being used to drive asynchronous tasks."
)]
fn blocking_lock_inside_a_runtime() {
    current_thread().block_on(async {
        let m = runtime::sync::Mutex::new(());
        let _g = m.blocking_lock();
    });
}

#[test]
#[should_panic(
    expected = "Cannot drop a runtime in a context where blocking is not allowed. This happens when a runtime is dropped from within an asynchronous context."
)]
fn runtime_dropped_inside_a_runtime() {
    let outer = current_thread();
    let inner = current_thread();
    outer.block_on(async move { drop(inner) });
}

// ---- arguments and places ----

#[test]
#[should_panic(expected = "a RwLock may not be created with 0 readers")]
fn rwlock_with_zero_readers() {
    let _ = runtime::sync::RwLock::with_max_readers((), 0);
}

#[test]
#[should_panic(expected = "a RwLock may not be created with more than 536870911 readers")]
fn rwlock_with_too_many_readers() {
    let _ = runtime::sync::RwLock::with_max_readers((), (u32::MAX >> 3) + 1);
}

#[test]
#[should_panic(expected = "merging permits from different semaphore instances")]
fn merging_permits_of_two_semaphores() {
    let (a, b) = (
        runtime::sync::Semaphore::new(1),
        runtime::sync::Semaphore::new(1),
    );
    let mut p = a.try_acquire().unwrap();
    p.merge(b.try_acquire().unwrap());
}

#[test]
#[should_panic(
    expected = "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime`"
)]
fn spawn_local_outside_a_local_set() {
    current_thread().block_on(async {
        drop(runtime::task::spawn_local(async {}));
    });
}

#[test]
#[should_panic(expected = "Can't get a task id when not inside a task")]
fn task_id_outside_a_task() {
    let _ = runtime::task::id();
}

#[test]
#[should_panic(expected = "time cannot be frozen from outside the Tokio runtime")]
fn pause_outside_a_runtime() {
    runtime::time::pause();
}

#[test]
#[should_panic(expected = "`time::pause()` requires the `current_thread` Tokio runtime.")]
fn pause_on_a_multi_thread_runtime() {
    multi_thread(1).block_on(async { runtime::time::pause() });
}

runtime::task_local! {
    static KEY: u32;
}

#[test]
#[should_panic(expected = "cannot access a task-local storage value without setting it first")]
fn task_local_outside_its_scope() {
    KEY.with(|_| {});
}

#[test]
#[should_panic(expected = "`EnterGuard` values dropped out of order. Guards returned by")]
fn enter_guards_dropped_out_of_order() {
    let (a, b) = (current_thread(), current_thread());
    let ga = a.enter();
    let gb = b.enter();
    drop(ga);
    drop(gb);
}

// ---- Debug and I/O errors ----

#[test]
fn fs_file_debug() {
    current_thread().block_on(async {
        let file = runtime::fs::File::open("Cargo.toml").await.unwrap();
        let text = format!("{file:?}");
        assert!(
            text.starts_with("tokio::fs::File { std: File { fd:"),
            "{text}"
        );
    });
}

#[test]
fn timer_error_display() {
    let text = runtime::time::error::Error::shutdown().to_string();
    assert!(
        text.starts_with("the timer is shutdown, must be called from the context of Tokio runtime"),
        "{text}"
    );
    let text = runtime::time::error::Error::at_capacity().to_string();
    assert_eq!(text, "timer is at capacity and cannot create a new entry");
    let text = runtime::time::error::Error::invalid().to_string();
    assert_eq!(text, "timer duration exceeds maximum duration");
}

#[test]
fn read_line_of_invalid_utf8() {
    use runtime::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    current_thread().block_on(async {
        let (mut a, b) = runtime::io::duplex(64);
        a.write_all(b"Hello Wor\xffld.\n").await.unwrap();
        drop(a);
        let mut read = BufReader::new(b);
        let mut line = "Foo".to_string();
        let err = read.read_line(&mut line).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        let utf8 = err
            .into_inner()
            .unwrap()
            .downcast::<std::str::Utf8Error>()
            .unwrap();
        assert_eq!(utf8.valid_up_to(), 12);
        assert_eq!(line, "Foo", "the line is left as it was");
    });
}

#[test]
fn read_to_string_of_invalid_utf8() {
    use runtime::io::{AsyncReadExt, AsyncWriteExt};
    current_thread().block_on(async {
        let (mut a, mut b) = runtime::io::duplex(64);
        a.write_all(&[0xff, 0xff, 0xff]).await.unwrap();
        drop(a);
        let mut s = "abc".to_string();
        let err = b.read_to_string(&mut s).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        let utf8 = err
            .into_inner()
            .unwrap()
            .downcast::<std::str::Utf8Error>()
            .unwrap();
        assert_eq!(utf8.valid_up_to(), 3);
        assert_eq!(s, "abc", "the string is not truncated");
    });
}

#[test]
fn fs_read_to_string_of_invalid_utf8() {
    let path = std::env::temp_dir().join(format!("tokio-wording-utf8-{}", std::process::id()));
    std::fs::write(&path, [0xff, 0xfe]).unwrap();
    let err = current_thread()
        .block_on(runtime::fs::read_to_string(path.clone()))
        .unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
    assert_eq!(err.to_string(), "stream did not contain valid UTF-8");
}

#[test]
#[should_panic(expected = "`max_buf_size` must be greater than 0")]
fn duplex_of_zero_bytes() {
    let _ = runtime::io::duplex(0);
}
