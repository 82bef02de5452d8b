//! Timers without a timer driver: on a runtime built without `enable_time` they panic
//! with a message naming `Builder::enable_time()`; outside any runtime, with one saying
//! where to call them from.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use runtime::time::{interval, sleep, timeout};
use runtime::Builder;

#[test]
#[should_panic(expected = "Builder::enable_time()")]
fn sleep_on_a_current_thread_runtime_with_only_io_panics() {
    let rt = Builder::new_current_thread().enable_io().build().unwrap();
    rt.block_on(async { sleep(Duration::from_millis(1)).await });
}

#[test]
#[should_panic(expected = "Builder::enable_time()")]
fn sleep_inside_a_multi_thread_runtime_without_drivers_panics() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    rt.block_on(async { sleep(Duration::from_millis(1)).await });
}

#[test]
fn timeout_and_interval_without_time_panic_with_the_enable_time_message() {
    let rt = Builder::new_current_thread().enable_io().build().unwrap();
    let _g = rt.enter();
    let err = catch_unwind(AssertUnwindSafe(|| {
        drop(timeout(Duration::from_secs(1), async {}));
    }))
    .unwrap_err();
    assert!(panic_message(err).contains("Builder::enable_time()"));
    let err = catch_unwind(AssertUnwindSafe(|| {
        let _ = interval(Duration::from_secs(1));
    }))
    .unwrap_err();
    assert!(panic_message(err).contains("Builder::enable_time()"));
}

#[test]
fn sleep_outside_a_runtime_panics_with_the_context_message() {
    let err = catch_unwind(|| {
        drop(sleep(Duration::from_millis(1)));
    })
    .unwrap_err();
    let msg = panic_message(err);
    assert!(
        msg.contains("must be called from the context of a runtime"),
        "{msg}"
    );
}
