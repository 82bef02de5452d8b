//! The macros expanded against `mock` (a recording `Builder` and a tiny executor):
//! which builder calls each argument produces, that return values, `?` and
//! `return` behave as in an ordinary function, and that attributes and visibility
//! survive. Tests here run through `#[runtime_macros::test]` themselves where the
//! test attribute is what is being checked.

mod mock;

use mock::{Flavor, Recorded};
use std::error::Error;
use std::fmt;

// ---------------------------------------------------------------- main: builder

#[runtime_macros::main(crate = "mock")]
async fn default_main() -> Recorded {
    mock::current()
}

#[test]
fn main_defaults_to_multi_thread_with_builder_default_threads() {
    let rec = default_main();
    assert_eq!(rec.flavor, Flavor::MultiThread);
    assert_eq!(rec.worker_threads, None);
    assert_eq!(rec.calls, ["new_multi_thread", "enable_all", "build"]);
    // `main` blocks on the body's future itself, not on a `dyn` one.
    assert!(!rec.future_type.contains("dyn"), "{}", rec.future_type);
}

#[runtime_macros::main(crate = "mock", flavor = "current_thread")]
async fn current_thread_main() -> Recorded {
    mock::current()
}

#[test]
fn main_honours_current_thread_flavor() {
    let rec = current_thread_main();
    assert_eq!(rec.flavor, Flavor::CurrentThread);
    assert_eq!(rec.calls, ["new_current_thread", "enable_all", "build"]);
}

#[runtime_macros::main(crate = "mock", flavor = "local")]
async fn local_main() -> Recorded {
    mock::current()
}

#[test]
fn main_honours_local_flavor() {
    let rec = local_main();
    assert_eq!(rec.flavor, Flavor::Local);
    assert_eq!(
        rec.calls,
        ["new_current_thread", "enable_all", "build_local"]
    );
}

#[runtime_macros::test(crate = "mock", flavor = "local")]
async fn test_honours_local_flavor() {
    let rec = mock::current();
    assert_eq!(rec.flavor, Flavor::Local);
    assert_eq!(
        rec.calls,
        ["new_current_thread", "enable_all", "build_local"]
    );
}

#[runtime_macros::main(worker_threads = 3, crate = "mock")]
async fn three_workers_main() -> Recorded {
    mock::current()
}

#[runtime_macros::main(crate = "mock", flavor = "multi_thread", worker_threads = 1usize)]
async fn one_worker_main() -> Recorded {
    mock::current()
}

#[test]
fn main_honours_worker_threads() {
    let rec = three_workers_main();
    assert_eq!(rec.flavor, Flavor::MultiThread);
    assert_eq!(rec.worker_threads, Some(3));
    assert_eq!(
        rec.calls,
        [
            "new_multi_thread",
            "enable_all",
            "worker_threads(3)",
            "build"
        ]
    );
    assert_eq!(one_worker_main().worker_threads, Some(1));
}

#[runtime_macros::main(crate = "self::mock")]
async fn self_path_main() -> Flavor {
    mock::current().flavor
}

#[runtime_macros::main(crate = "crate::mock")]
async fn crate_path_main() -> Flavor {
    mock::current().flavor
}

#[test]
fn crate_argument_takes_any_path() {
    assert_eq!(self_path_main(), Flavor::MultiThread);
    assert_eq!(crate_path_main(), Flavor::MultiThread);
}

#[runtime_macros::main(crate = "mock")]
async fn unit_main() {}

#[test]
fn each_call_builds_its_own_runtime_and_leaves_it() {
    let before = mock::builds();
    unit_main();
    unit_main();
    assert_eq!(mock::builds(), before + 2);
    // `block_on` has returned: no runtime is current any more.
    assert_eq!(mock::try_current(), None);
    assert_eq!(mock::last_built().unwrap().flavor, Flavor::MultiThread);
}

// ----------------------------------------------------------- main: return values

#[runtime_macros::main(crate = "mock")]
async fn sum_across_awaits() -> i32 {
    let mut total = 0;
    for i in 1..=4 {
        mock::yield_now().await;
        total += i;
    }
    total + mock::from_thread(|| 32).await
}

#[test]
fn body_runs_to_completion_across_pending_polls() {
    assert_eq!(sum_across_awaits(), 42);
}

#[runtime_macros::main(crate = "mock")]
async fn early_return() -> &'static str {
    for i in 0.. {
        mock::yield_now().await;
        if i == 2 {
            return "returned early";
        }
    }
    "fell through"
}

#[test]
fn return_in_body_returns_the_value() {
    assert_eq!(early_return(), "returned early");
}

#[derive(Debug)]
struct Odd(u32);

impl fmt::Display for Odd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is odd", self.0)
    }
}

impl Error for Odd {}

/// `?` converts the error; `return Err(Box::new(..))` needs the declared return
/// type to coerce `Box<Odd>` into `Box<dyn Error>`: both only compile when the
/// body's output type is known before the body is checked.
macro_rules! halve_main {
    ($name:ident, $input:expr) => {
        #[runtime_macros::main(crate = "mock")]
        async fn $name() -> Result<u32, Box<dyn Error>> {
            let n: u32 = mock::from_thread(|| $input).await.parse()?;
            if n % 2 == 1 {
                return Err(Box::new(Odd(n)));
            }
            Ok(n / 2)
        }
    };
}

halve_main!(halve_ok, "84");
halve_main!(halve_not_a_number, "x");
halve_main!(halve_odd, "7");

#[test]
fn result_return_type_with_question_mark_and_coercing_return() {
    assert_eq!(halve_ok().unwrap(), 42);
    let err = halve_not_a_number().unwrap_err();
    assert!(err.is::<std::num::ParseIntError>(), "{err}");
    assert_eq!(halve_odd().unwrap_err().to_string(), "7 is odd");
}

#[runtime_macros::main(crate = "mock")]
async fn impl_trait_main() -> impl fmt::Debug {
    (mock::current().future_type.contains("dyn"), vec![1, 2])
}

#[test]
fn impl_trait_return_type() {
    assert_eq!(format!("{:?}", impl_trait_main()), "(false, [1, 2])");
}

// ------------------------------------------------- main: attributes, visibility

mod inner {
    /// Doc comments stay.
    #[must_use = "kept attribute"]
    #[runtime_macros::main(crate = "super::mock")]
    pub async fn visible() -> u8 {
        #![allow(clippy::let_and_return)]
        // Items declared in the body are usable in it.
        const SEVEN: u8 = 7;
        fn twice(x: u8) -> u8 {
            x * 2
        }
        let v = twice(SEVEN);
        v
    }
}

#[test]
fn visibility_attributes_and_nested_items_kept() {
    // Compiles only because `pub` was kept.
    assert_eq!(inner::visible(), 14);
}

/// `main` itself, as a binary would have it; called like any function here.
mod as_main {
    #[runtime_macros::main(crate = "super::mock")]
    pub async fn main() -> Result<(), Box<dyn std::error::Error>> {
        super::mock::yield_now().await;
        Ok(())
    }
}

#[test]
fn a_function_named_main() {
    as_main::main().unwrap();
}

// --------------------------------------------------------------------- test

#[runtime_macros::test(crate = "mock")]
async fn test_defaults_to_current_thread() {
    let rec = mock::current();
    assert_eq!(rec.flavor, Flavor::CurrentThread);
    assert_eq!(rec.worker_threads, None);
    assert_eq!(rec.calls, ["new_current_thread", "enable_all", "build"]);
    // Tests block on a pinned `dyn Future`, one `block_on` for all of them.
    assert!(rec.future_type.contains("dyn"), "{}", rec.future_type);
}

#[runtime_macros::test(crate = "mock", flavor = "multi_thread")]
async fn test_multi_thread_flavor() {
    let rec = mock::current();
    assert_eq!(rec.flavor, Flavor::MultiThread);
    assert_eq!(rec.worker_threads, None);
}

#[runtime_macros::test(flavor = "multi_thread", worker_threads = 2, crate = "mock")]
async fn test_worker_threads() {
    let rec = mock::current();
    assert_eq!(rec.flavor, Flavor::MultiThread);
    assert_eq!(rec.worker_threads, Some(2));
    assert_eq!(
        rec.calls,
        [
            "new_multi_thread",
            "enable_all",
            "worker_threads(2)",
            "build"
        ]
    );
}

#[runtime_macros::test(crate = "mock", flavor = "current_thread")]
async fn test_explicit_current_thread() {
    assert_eq!(mock::current().flavor, Flavor::CurrentThread);
}

#[runtime_macros::test(crate = "mock")]
async fn test_awaits_across_threads() {
    let v = mock::from_thread(|| 20).await + mock::from_thread(|| 22).await;
    assert_eq!(v, 42);
}

#[runtime_macros::test(crate = "mock")]
async fn test_returns_result() -> Result<(), String> {
    let n: i32 = "12".parse().map_err(|e| format!("{e}"))?;
    if n != 12 {
        return Err(format!("parsed {n}"));
    }
    Ok(())
}

#[runtime_macros::test(crate = "mock")]
async fn test_returns_boxed_error() -> Result<(), Box<dyn Error>> {
    let _: u8 = "255".parse()?;
    Ok(())
}

#[runtime_macros::test(crate = "mock")]
async fn test_impl_trait_return() -> impl std::process::Termination {
    // `impl Trait` cannot be named in a `dyn Future<Output = ..>`: not pinned.
    assert!(!mock::current().future_type.contains("dyn"));
}

#[runtime_macros::test(crate = "mock")]
#[should_panic(expected = "boom in the body")]
async fn test_should_panic_is_kept() {
    mock::yield_now().await;
    panic!("boom in the body");
}

/// A failing `Result` test really fails: checked by running it here.
#[runtime_macros::test(crate = "mock")]
#[ignore = "called by `failing_result_test_returns_err`"]
async fn test_failing_result() -> Result<(), &'static str> {
    Err("failed")
}

#[test]
fn failing_result_test_returns_err() {
    assert_eq!(test_failing_result(), Err("failed"));
}

macro_rules! threads_test {
    ($name:ident, $n:expr) => {
        #[runtime_macros::test(crate = "mock", flavor = "multi_thread", worker_threads = $n)]
        async fn $name() {
            assert_eq!(mock::current().worker_threads, Some($n));
        }
    };
}

// `$n:expr` reaches the macro wrapped in an invisible group.
threads_test!(test_threads_from_macro_rules, 5);

mod nested_tests {
    #[runtime_macros::test(crate = "super::mock")]
    async fn in_a_module() {
        assert_eq!(super::mock::current().flavor, super::Flavor::CurrentThread);
    }
}

#[runtime_macros::test(crate = "mock", start_paused = true)]
async fn test_start_paused_reaches_the_builder() {
    let rec = mock::current();
    assert_eq!(rec.flavor, Flavor::CurrentThread);
    assert_eq!(
        rec.calls,
        [
            "new_current_thread",
            "enable_all",
            "start_paused(true)",
            "build"
        ]
    );
}

#[runtime_macros::main(crate = "mock", flavor = "current_thread", start_paused = false)]
async fn unpaused_main() -> Recorded {
    mock::current()
}

#[test]
fn main_passes_start_paused_false_through() {
    let rec = unpaused_main();
    assert_eq!(
        rec.calls,
        [
            "new_current_thread",
            "enable_all",
            "start_paused(false)",
            "build"
        ]
    );
}

// ------------------------------------------- main on other functions: parameters, generics

#[runtime_macros::main(crate = "mock", flavor = "current_thread", name = "sum-rt")]
async fn sum_with((a, b): (u32, u32), mut c: u32) -> (u32, Recorded) {
    c += 1;
    mock::yield_now().await;
    (a + b + c, mock::current())
}

#[test]
fn main_on_a_function_with_parameters_passes_them_and_names_the_runtime() {
    let (sum, rec) = sum_with((1, 2), 3);
    assert_eq!(sum, 7, "patterns and `mut` bindings keep their meaning");
    assert_eq!(
        rec.calls,
        ["new_current_thread", "enable_all", "name(sum-rt)", "build"]
    );
}

#[runtime_macros::main(crate = "mock")]
async fn generic_len<'a, T, const N: usize>(v: &'a T) -> usize
where
    T: AsRef<[u8]> + fmt::Debug + ?Sized,
{
    v.as_ref().len() * N
}

#[runtime_macros::main(crate = "mock")]
async fn with_impl_arg(v: impl fmt::Display, n: u8) -> String {
    format!("{v}{n}")
}

#[runtime_macros::main(crate = "mock")]
async fn parse_as<T: std::str::FromStr + Default>(s: &str) -> T {
    s.parse().unwrap_or_default()
}

#[test]
fn main_on_a_generic_function() {
    assert_eq!(generic_len::<_, 2>("abc"), 6);
    assert_eq!(with_impl_arg("x", 1), "x1");
    // `T` appears only in the return type: the turbofish names it for the body.
    assert_eq!(parse_as::<u8>("42"), 42);
    assert_eq!(parse_as::<u8>("nope"), 0);
}
