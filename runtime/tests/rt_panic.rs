//! The runtime's argument checks panic as tokio's: with tokio's text, at the caller's line
//! (`#[track_caller]` down to the panic, so a panic hook sees this file), and only where
//! tokio refuses the input (tokio's `rt_panic` suite).
#![cfg(not(loom))]

#[macro_use]
mod support;

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
