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

/// As tokio's `macros_test::trait_method`: `#[runtime::main]` on a trait method taking
/// `self` runs the body (which uses `self`) on a runtime of its own.
#[test]
fn main_on_a_trait_method_taking_self() {
    trait A {
        fn f(self) -> u32;
        fn g(self) -> u32;
    }
    impl A for u32 {
        #[runtime::main(flavor = "current_thread")]
        async fn f(self) -> u32 {
            runtime::task::yield_now().await;
            self.g()
        }
        fn g(self) -> u32 {
            self + 1
        }
    }
    assert_eq!(41.f(), 42);
}

#[derive(Debug)]
struct Counter {
    n: u32,
}

impl Counter {
    /// `&mut self`, a parameter, `Self` in the return type and `?`/`return` whose types
    /// come from that return type.
    #[runtime::main(worker_threads = 1)]
    async fn bump(&mut self, by: u32) -> Result<Self, Box<dyn std::error::Error>> {
        let handle = runtime::spawn(async move { by * 2 });
        self.n += handle.await?;
        if self.n > 100 {
            return Err("too big".into());
        }
        Ok(Counter { n: self.n })
    }

    #[runtime::main(flavor = "current_thread")]
    async fn consume(self) -> impl std::fmt::Debug {
        runtime::task::yield_now().await;
        self.n
    }
}

#[test]
fn main_on_methods_taking_self_by_reference_and_by_value() {
    let mut c = Counter { n: 1 };
    let copy = c.bump(3).unwrap();
    assert_eq!((c.n, copy.n), (7, 7));
    assert_eq!(c.bump(100).unwrap_err().to_string(), "too big");
    assert_eq!(format!("{:?}", Counter { n: 5 }.consume()), "5");
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
