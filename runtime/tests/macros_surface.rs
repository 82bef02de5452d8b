//! `#[runtime::main]` on functions other than `main` (parameters, patterns, generics)
//! and the `name = ".."` argument, expanded against the real runtime.
//!
//! `#[runtime::test]` on the real runtime: the default flavor, `worker_threads`, a body
//! returning `Result`.
#![cfg(not(loom))]

#[macro_use]
mod support;

use runtime::{Handle, RuntimeFlavor};
use std::fmt::Display;
use support::*;

#[runtime::main(flavor = "current_thread", name = "adder")]
async fn add((a, b): (u32, u32), mut scale: u32) -> (u32, Option<String>) {
    scale += 1;
    runtime::task::yield_now().await;
    let name = runtime::runtime::Handle::current()
        .name()
        .map(str::to_owned);
    ((a + b) * scale, name)
}

#[runtime::main(worker_threads = 2)]
async fn describe<T: Display + Send + 'static>(items: Vec<T>, sep: &str) -> String {
    let joined =
        runtime::spawn(async move { items.iter().map(|i| i.to_string()).collect::<Vec<_>>() })
            .await
            .unwrap();
    joined.join(sep)
}

#[test]
fn main_runs_a_function_with_parameters_on_a_named_runtime() {
    assert_eq!(add((2, 3), 1), (10, Some("adder".to_owned())));
    // Each call builds its own runtime.
    assert_eq!(add((0, 1), 0).0, 1);
}

#[test]
fn main_runs_a_generic_function() {
    assert_eq!(describe(vec![1, 2, 3], "-"), "1-2-3");
    assert_eq!(describe(vec!['a'], ","), "a");
}

#[runtime::test(name = "named-test")]
async fn test_runtime_takes_its_name() {
    assert_eq!(
        runtime::runtime::Handle::current().name(),
        Some("named-test")
    );
}

#[runtime::test]
async fn macro_test_default_is_current_thread() {
    let _watchdog = abort_after("the spawned task");
    assert_eq!(
        Handle::current().runtime_flavor(),
        RuntimeFlavor::CurrentThread
    );
    assert_eq!(runtime::spawn(async { 1 }).await.unwrap(), 1);
}

#[runtime::test(flavor = "multi_thread", worker_threads = 3)]
async fn macro_test_multi_thread_with_workers() {
    let _watchdog = abort_after("the spawned task");
    let m = Handle::current().metrics();
    assert_eq!(m.num_workers(), 3);
    assert_eq!(
        Handle::current().runtime_flavor(),
        RuntimeFlavor::MultiThread
    );
}

#[runtime::test]
async fn macro_test_returning_result() -> Result<(), std::num::ParseIntError> {
    let _watchdog = abort_after("the test body");
    let n: u32 = "42".parse()?;
    assert_eq!(n, 42);
    Ok(())
}
