//! Sockets without an I/O driver: on a runtime built without `enable_io` they panic with
//! a message naming `Builder::enable_io()`; outside any runtime, with one saying where to
//! call them from.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::panic::{catch_unwind, AssertUnwindSafe};

use runtime::net::{TcpListener, TcpStream, UdpSocket};
use runtime::Builder;

#[test]
#[should_panic(expected = "Builder::enable_io()")]
fn bind_on_a_runtime_without_io_panics_current_thread() {
    let rt = Builder::new_current_thread().enable_time().build().unwrap();
    rt.block_on(async {
        let _ = TcpListener::bind("127.0.0.1:0").await;
    });
}

#[test]
#[should_panic(expected = "Builder::enable_io()")]
fn bind_on_a_runtime_without_any_driver_panics_multi_thread() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    rt.block_on(async {
        let _ = UdpSocket::bind("127.0.0.1:0").await;
    });
}

#[test]
fn from_std_without_io_panics_with_the_enable_io_message() {
    let rt = Builder::new_current_thread().enable_time().build().unwrap();
    let _guard = rt.enter();
    let std = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let err = catch_unwind(AssertUnwindSafe(|| UdpSocket::from_std(std))).unwrap_err();
    let msg = panic_message(err);
    assert!(msg.contains("Builder::enable_io()"), "{msg}");
}

#[test]
fn a_spawned_task_using_a_socket_without_io_fails_its_join_handle() {
    watchdog("the failing task's JoinHandle", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .enable_time()
            .build()
            .unwrap();
        let err = rt
            .block_on(rt.spawn(async {
                let _ = TcpStream::connect("127.0.0.1:1").await;
            }))
            .unwrap_err();
        assert!(err.is_panic());
        let msg = panic_message(err.into_panic());
        assert!(msg.contains("enable_io"), "{msg}");
    })
}

#[test]
fn outside_a_runtime_panics_with_the_context_message() {
    let std = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let err = catch_unwind(AssertUnwindSafe(|| TcpListener::from_std(std))).unwrap_err();
    let msg = panic_message(err);
    assert!(
        msg.contains("must be called from the context of a runtime"),
        "{msg}"
    );
    assert!(msg.contains("Runtime::enter()"), "{msg}");
}
