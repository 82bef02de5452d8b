//! `#[runtime::main]` and `#[runtime::test]`: run an `async fn` on a runtime built
//! just for it.
//!
//! Both attributes rewrite `async fn name() -> T { body }` into a plain
//! `fn name() -> T` that builds a runtime with the crate's `Builder` and
//! `block_on`s the body (see `expand` for the exact shape and why the body becomes
//! a nested `async fn`). Arguments are parsed in `args`. Every misuse is reported as
//! a `compile_error!` spanned on the offending token; the macro never panics.
//!
//! Both are re-exported by the `runtime` crate; use them through it.

#![deny(unsafe_op_in_unsafe_fn)]

mod args;
mod clean_pattern;
mod expand;

use args::{Facade, Kind};
use proc_macro::TokenStream;

/// Runs the `async` function on a runtime built for it; meant for `main`.
///
/// ```ignore
/// #[runtime::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let listener = runtime::net::TcpListener::bind("127.0.0.1:0").await?;
///     Ok(())
/// }
/// ```
///
/// expands to (roughly)
///
/// ```ignore
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     async fn body() -> Result<(), Box<dyn std::error::Error>> { /* the body */ }
///     ::runtime::Builder::new_multi_thread()
///         .enable_all()
///         .build()
///         .expect("failed to build the runtime")
///         .block_on(body())
/// }
/// ```
///
/// # Arguments
///
/// - `flavor = "multi_thread"` (default) or `flavor = "current_thread"`;
/// - `worker_threads = N`, an integer literal `>= 1`, only with `"multi_thread"`
///   (by default the builder picks the count);
/// - `unhandled_panic = "ignore"` (default) or `unhandled_panic = "shutdown_runtime"`:
///   `Builder::unhandled_panic`; with `"shutdown_runtime"` a panicking spawned task
///   shuts the runtime down and the function panics (a test fails);
/// - `start_paused = true|false`: start the runtime's clock paused
///   (`Builder::start_paused`, see `runtime::time::pause`), only with `"current_thread"`;
/// - `crate = "path"`: where `Builder` lives, `::runtime` by default; for
///   re-exports or a renamed dependency. The path resolves where it is written;
/// - `name = "..."`: the runtime's name (`Builder::name`);
/// - `shutdown_timeout = "1s"` (an integer and `ns`, `us`, `ms` or `s`): when the function
///   returns, the runtime is shut down with `Runtime::shutdown_timeout`, which waits at
///   most that long for tasks stuck in a poll and blocking closures and, past it, prints
///   who held it to stderr. Without it, dropping the runtime waits for them, as tokio's.
///
/// The function must be `async`. `main` itself takes no parameters and has no generics;
/// any other function may have both (each call builds a runtime and runs the body on
/// it with the arguments given), a method taking `self` included (its body then runs as
/// an `async` block in the method). Its attributes, visibility and return type are kept.
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(Kind::Main(Facade::Runtime), args.into(), item.into()).into()
}

/// Like [`macro@main`] but marks the function `#[test]`, and the flavor defaults to
/// `"current_thread"`.
///
/// ```ignore
/// #[runtime::test]
/// async fn reads_back() -> std::io::Result<()> { Ok(()) }
///
/// #[runtime::test(flavor = "multi_thread", worker_threads = 2)]
/// async fn on_two_workers() {}
///
/// #[runtime::test(start_paused = true)]
/// async fn an_hour_in_no_time() {
///     runtime::time::sleep(std::time::Duration::from_secs(3600)).await;
/// }
///
/// #[runtime::test(fail_on_stall = "20ms")]
/// async fn never_blocks_a_worker() {}
/// ```
///
/// Besides `main`'s arguments, `fail_on_stall = "20ms"` fails the test when one poll keeps
/// a worker busy longer than that (a blocking call in async code): the test panics, once
/// the body is done, with the `on_stall` report of each such poll (the task, the worker,
/// the time, the thread's native backtrace). The body then runs as a spawned task (so it
/// must be `Send`), and the flavor is `"multi_thread"`: only that runtime has the monitor
/// that sees a stuck poll, so another `flavor` is a compile error.
///
/// Do not add `#[test]` yourself: it is an error, the function would be
/// registered twice.
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(Kind::Test(Facade::Runtime), args.into(), item.into()).into()
}

/// `#[tokio::main]` of the `tokio` patch crate (`compat/tokio`): [`macro@main`] whose
/// expansion names `::tokio` (the crate its users depend on) unless `crate = ".."` is given.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_main(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(Kind::Main(Facade::Tokio), args.into(), item.into()).into()
}

/// `#[tokio::test]` of the `tokio` patch crate: [`macro@test`] naming `::tokio`.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_test(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(Kind::Test(Facade::Tokio), args.into(), item.into()).into()
}

/// `runtime::select!`'s helper: the branch pattern with `mut` and `ref` removed (from
/// bindings and reference patterns), so it can test a value through a reference without
/// moving out of it. Not for direct use.
#[doc(hidden)]
#[proc_macro]
pub fn select_priv_clean_pattern(input: TokenStream) -> TokenStream {
    clean_pattern::expand(input.into()).into()
}
