//! What the runtime's integration tests share: runtimes of each flavor, a per-test
//! watchdog, a generous in-runtime timeout, a panic-message reader, a drop counter, manual
//! polling with a counting waker, and `rt_test!`, which writes a test once and instantiates it
//! per flavor.
//!
//! A test file includes it with `#[macro_use] mod support;` (the attribute makes `rt_test!`
//! visible after the line) and uses what it needs; the rest is allowed to go unused.
//!
//! # Failing instead of hanging
//!
//! A lost wake-up does not crash: it parks a thread forever, and a test that waits on it
//! would hold CI until its own time limit, naming nothing. Three tools turn it into a failure
//! that names what was awaited:
//!
//! - [`watchdog`] runs a test's body on a thread of its own and waits for it a generous
//!   [`WATCHDOG`] of wall time (never a speed threshold: a healthy test finishes in a small
//!   fraction of it on a loaded machine). Past it, the test panics with the test's name and
//!   what the body was waiting for; the stuck thread is left behind, the other tests of the
//!   binary go on. It holds even when the runtime itself is wedged (no timer fires).
//! - [`AbortGuard`] is the same bound for a test whose body cannot move to another thread
//!   (an `async fn` under `#[runtime::test]`, which runs on the test's thread): past the
//!   bound it writes the test's name and what it waited for to stderr and aborts the
//!   process, so the binary fails (taking its other tests with it) instead of hanging.
//! - [`within`] bounds one await inside a healthy runtime with the runtime's own timer
//!   ([`GENEROUS`]), for a message that names the exact step.
//!
//! A body that panics re-raises its own payload on the test's thread, so
//! `#[should_panic(expected = ...)]` still sees the message.
//!
//! # Where a behaviour is tested
//!
//! One file per behaviour; a new test goes to the file of what it checks.
//!
//! - Both flavors alike (spawn, join, abort, yield, foreign wakes, shutdown drops):
//!   `rt_common.rs`.
//! - The multi-thread scheduler: work reaching idle workers, yielders under load, an idle
//!   runtime staying parked: `rt_spread.rs`; remote spawns and yielders against LIFO
//!   chains, the LIFO streak's cap: `rt_fairness.rs`; the overflow queue: `rt_overflow.rs`;
//!   blocked workers, stuck LIFO tasks, the unhandled-panic policy: `rt_liveness.rs`;
//!   `worker_index()`: `rt_worker_index.rs`.
//! - Shutdown: queued remote spawns reached at drop, `shutdown_timeout` with a blocking task:
//!   `rt_shutdown.rs`; its report on stderr: `rt_shutdown_report.rs`. The blocking pool:
//!   `rt_blocking.rs`; `block_in_place`: `task_block_in_place.rs`.
//! - Misuse: panics with tokio's message and advice, wrong-place drops, enter guards:
//!   `rt_misuse.rs`, `rt_panic.rs`, `sync_panic.rs`, `tokio_wording.rs`.
//! - Hooks, names, metrics: `rt_hooks_metrics.rs`; histograms: `rt_metrics_histogram.rs`;
//!   stalls: `rt_stall_report.rs`, `rt_stall_signal_taken.rs`, `macros_fail_on_stall.rs`;
//!   task dumps: `rt_dump*.rs`.
//! - tokio's surface and paths: `rt_surface.rs` (with `Runtime::enter`), `rt_paths.rs`,
//!   `rt_unwind_safe.rs`, `sync_surface.rs`, `task_join_set_surface.rs`; `Send`/`Sync` of
//!   the public types and of the returned futures: `async_send_sync.rs`.
//! - Macros: `#[runtime::main]`/`#[runtime::test]` on the real runtime:
//!   `macros_surface.rs`; `join!`, `try_join!`, `select!`, `pin!`: `macros_*.rs`;
//!   compile failures: `macros_ui.rs`.
//! - Tasks: ids, names, spawn locations: `task_identity.rs`; `JoinSet`: `task_join_set.rs`;
//!   task-locals: `task_local.rs`; `LocalSet`: `task_local_set.rs`; coop budget:
//!   `task_budget.rs`; `yield_now`: `task_yield.rs`.
//! - Time: `time_sleep.rs`, `time_interval.rs`, `time_timeout.rs`, `time_paused.rs`,
//!   `time_no_driver.rs`. Sync primitives: `sync_<name>.rs`.
//! - I/O: sockets `net_tcp.rs`, `net_udp.rs`, `net_unix.rs`, `net_unix_pipe.rs`, readiness
//!   `net_ready.rs`, waiters `net_waiters.rs`, the rest `net_more.rs`, `net_long_tail.rs`,
//!   `net_emfile.rs`, `net_no_driver.rs`; `AsyncFd`: `io_async_fd.rs`; the I/O traits:
//!   `io_traits.rs`; files: `fs.rs`; processes: `process_child.rs`, `process_reap.rs`;
//!   signals: `signal.rs`.
//! - The deterministic mode (feature `deterministic`): replay by seed `sim_replay.rs`,
//!   virtual time `sim_time.rs`, `#[runtime::test(deterministic)]` `sim_macro.rs`, deadlock
//!   and livelock reports `sim_failures.rs`, the two-process determinism checker
//!   `sim_check.rs`, the spread rules at 16 and 64 logical workers `sim_spread.rs`, the
//!   `sim_election` example's planted bug `sim_election.rs`.
#![allow(dead_code, unused_macros)]

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use runtime::{Builder, Runtime};

/// How long [`watchdog`] and [`abort_after`] wait for a test body: generous wall time, a
/// hang detector and never a speed claim. `RUNTIME_TEST_WATCHDOG_SECS` overrides it (a
/// slower machine, or a quicker demonstration of a planted lost wake-up).
pub const WATCHDOG: Duration = Duration::from_secs(60);

/// How long one await of a test may take before the test fails (`timeout(GENEROUS, ..)`,
/// [`within`], the `on_both*` helpers), on the runtime's own clock: a hang detector, never a
/// speed claim. The one bound every test file uses (a loaded CI machine serving sockets,
/// signals and file I/O stays far inside it).
pub const GENEROUS: Duration = Duration::from_secs(60);

/// Polls `rt.metrics()` until `done` holds for it (workers publish on park and every
/// maintenance tick), or 10 s pass; returns the last snapshot either way.
pub fn metrics_when(
    rt: &runtime::Handle,
    done: impl Fn(&runtime::RuntimeMetrics) -> bool,
) -> runtime::RuntimeMetrics {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let m = rt.metrics();
        if done(&m) || std::time::Instant::now() > deadline {
            return m;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A current-thread runtime with every driver enabled.
pub fn current_thread() -> Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

/// A multi-thread runtime with `workers` workers and every driver enabled.
pub fn multi_thread(workers: usize) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap()
}

/// Both flavors (the multi-thread one with 2 workers), every driver enabled.
pub fn runtimes() -> Vec<Runtime> {
    vec![current_thread(), multi_thread(2)]
}

/// [`runtimes`] with each flavor's name, for messages.
pub fn flavors() -> Vec<(&'static str, Runtime)> {
    vec![
        ("current_thread", current_thread()),
        ("multi_thread", multi_thread(2)),
    ]
}

/// Polls `cond` (sleeping 1 ms between looks) until it holds; panics naming `what` after
/// 10 s (a condition another thread makes true, such as a published metric).
pub fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out after 10 s waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Runs `body` on a thread of its own and returns what it returns, re-raising its panic.
/// If it has not finished within [`WATCHDOG`], fails the calling test with its name and
/// `waiting_for` (the thread is left behind), instead of hanging.
///
/// ```ignore
/// #[test]
/// fn spawned_task_answers() {
///     watchdog("the spawned task's answer", || {
///         let rt = current_thread();
///         assert_eq!(rt.block_on(rt.spawn(async { 1 })).unwrap(), 1);
///     });
/// }
/// ```
pub fn watchdog<R: Send + 'static>(
    waiting_for: &str,
    body: impl FnOnce() -> R + Send + 'static,
) -> R {
    let bound = watchdog_bound();
    // libtest names each test's thread after the test; the body's thread takes the same
    // name so that its panic reads like the test's own.
    let test = std::thread::current()
        .name()
        .unwrap_or("<unnamed test>")
        .to_owned();
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name(test.clone())
        .spawn(move || {
            let _ = tx.send(catch_unwind(AssertUnwindSafe(body)));
        })
        .expect("spawn the test body's thread");
    match rx.recv_timeout(bound) {
        Ok(Ok(v)) => v,
        Ok(Err(payload)) => resume_unwind(payload),
        Err(_) => panic!(
            "watchdog: {}::{test} still waiting for {waiting_for} after {} s \
             (a lost wake-up or a deadlock; the body's thread is left behind)",
            env!("CARGO_CRATE_NAME"),
            bound.as_secs(),
        ),
    }
}

/// [`WATCHDOG`], or `RUNTIME_TEST_WATCHDOG_SECS` when set.
fn watchdog_bound() -> Duration {
    std::env::var("RUNTIME_TEST_WATCHDOG_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(WATCHDOG, Duration::from_secs)
}

/// While alive, a thread that aborts the process with a message naming the test and
/// `waiting_for` if the guard is not dropped within [`WATCHDOG`]; see [`abort_after`].
pub struct AbortGuard {
    _disarm: mpsc::Sender<()>,
}

/// Arms an [`AbortGuard`] for the calling test; dropping it (the test returning or
/// panicking) disarms it.
///
/// ```ignore
/// #[runtime::test]
/// async fn ticks() {
///     let _watchdog = abort_after("the interval's ticks");
///     // ...
/// }
/// ```
pub fn abort_after(waiting_for: &str) -> AbortGuard {
    let bound = watchdog_bound();
    let test = std::thread::current()
        .name()
        .unwrap_or("<unnamed test>")
        .to_owned();
    let waiting_for = waiting_for.to_owned();
    let (tx, rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(bound) {
            // Straight to the stderr handle: `eprintln!` in a thread spawned by a test is
            // captured with the test's output, which an abort would never print.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "watchdog: {}::{test} still waiting for {waiting_for} after {} s \
                 (a lost wake-up or a deadlock); aborting the test binary",
                env!("CARGO_CRATE_NAME"),
                bound.as_secs(),
            );
            std::process::abort();
        }
    });
    AbortGuard { _disarm: tx }
}

/// Awaits `fut` for at most [`GENEROUS`] on the runtime's clock; past it, panics naming
/// `what`.
pub async fn within<F: Future>(what: &str, fut: F) -> F::Output {
    match runtime::time::timeout(GENEROUS, fut).await {
        Ok(v) => v,
        Err(_) => panic!(
            "timed out after {} s waiting for {what}",
            GENEROUS.as_secs()
        ),
    }
}

/// Runs `f()` in `rt.block_on`, bounded by [`GENEROUS`] on the runtime's clock.
pub fn on<F, Fut>(rt: &Runtime, f: F)
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = ()>,
{
    rt.block_on(async {
        runtime::time::timeout(GENEROUS, f())
            .await
            .expect("the test hung for 10 s (a lost wake-up or permit?)");
    });
}

/// Runs `f()` as a spawned task (on a worker, for the multi-thread flavor) and waits for
/// it, bounded by [`GENEROUS`]; a panic in the task fails the test.
pub fn on_in_task<F, Fut>(rt: &Runtime, f: F)
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let fut = f();
    rt.block_on(async move {
        runtime::time::timeout(GENEROUS, runtime::spawn(fut))
            .await
            .expect("test timed out")
            .expect("test task panicked");
    });
}

/// [`on`] on every flavor.
pub fn on_both<F, Fut>(f: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    for rt in runtimes() {
        on(&rt, &f);
    }
}

/// [`on_in_task`] on every flavor.
pub fn on_both_in_task<F, Fut>(f: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    for rt in runtimes() {
        on_in_task(&rt, &f);
    }
}

/// The message of a caught panic (`String` or `&str` payload), or `<non-string panic>`.
pub fn panic_message(payload: Box<dyn Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else {
        String::from("<non-string panic>")
    }
}

/// Runs `f`, which must panic, with a hook that records where the panic happened, and
/// returns that location's file: a `#[track_caller]` API names its caller's file (the
/// test's `file!()`). One at a time, the hook being process-wide.
pub fn panic_location_file(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let seen: Arc<std::sync::Mutex<Option<String>>> = Arc::default();
    let prev = std::panic::take_hook();
    let record = seen.clone();
    std::panic::set_hook(Box::new(move |info| {
        let file = info.location().map(|l| l.file().to_string());
        *record.lock().unwrap_or_else(|e| e.into_inner()) = file;
    }));
    let result = catch_unwind(f);
    std::panic::set_hook(prev);
    assert!(result.is_err(), "the call did not panic");
    let file = seen.lock().unwrap_or_else(|e| e.into_inner()).take();
    file.expect("the panic has a location")
}

/// Counts its own drops in the shared counter: carried into a future, a task or a
/// channel, it shows that a value was dropped, and how many times.
#[derive(Clone, Debug)]
pub struct CountDrop(pub Arc<AtomicUsize>);

impl Drop for CountDrop {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// A waker that counts its wake-ups.
pub struct Counter(pub AtomicUsize);

impl Wake for Counter {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
}

impl Counter {
    /// Wake-ups so far.
    pub fn count(&self) -> usize {
        self.0.load(SeqCst)
    }
}

/// A [`Counter`] and a waker that feeds it.
pub fn counting_waker() -> (Arc<Counter>, Waker) {
    let c = Arc::new(Counter(AtomicUsize::new(0)));
    (c.clone(), Waker::from(c))
}

/// Polls `f` once with `waker`.
pub fn poll<F: Future + ?Sized>(f: Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    f.poll(&mut Context::from_waker(waker))
}

/// Polls once with a no-op waker.
pub fn poll_noop<F: Future + ?Sized>(f: Pin<&mut F>) -> Poll<F::Output> {
    poll(f, Waker::noop())
}

/// Polls an `Unpin` future once with a no-op waker.
pub fn poll_once<F: Future + Unpin>(f: &mut F) -> Poll<F::Output> {
    poll_noop(Pin::new(f))
}

/// Polls an `Unpin` future once with `waker`.
pub fn poll_once_with<F: Future + Unpin>(f: &mut F, waker: &Waker) -> Poll<F::Output> {
    poll(Pin::new(f), waker)
}

/// Writes tests once and instantiates them per flavor, as tokio's `rt_common` does: each
/// flavor becomes a module holding `fn rt() -> Runtime` (a fresh runtime of that flavor),
/// `FLAVOR` (its name) and a copy of the tests, so a test is reported as
/// `current_thread::name`, `multi_thread::name`.
///
/// ```ignore
/// rt_test! {
///     #[test]
///     fn spawn_and_join() {
///         watchdog("the spawned task", || {
///             let rt = rt();
///             assert_eq!(rt.block_on(rt.spawn(async { 1 })).unwrap(), 1);
///         });
///     }
/// }
/// ```
///
/// The default flavors are `current_thread` and `multi_thread` (2 workers); a file that
/// wants others names them first, each `module_name => runtime expression;`:
///
/// ```ignore
/// rt_test! {
///     flavors {
///         current_thread => support::current_thread();
///         multi_thread_4 => support::multi_thread(4);
///     }
///     #[test]
///     fn ...
/// }
/// ```
macro_rules! rt_test {
    (flavors { $($flavors:tt)* } $($tests:tt)*) => {
        rt_test!(@each [$($flavors)*] { $($tests)* });
    };
    (@each [] $tests:tt) => {};
    (@each [$flavor:ident => $build:expr; $($rest:tt)*] { $($tests:tt)* }) => {
        mod $flavor {
            #[allow(unused_imports)]
            use super::*;

            /// This flavor's name.
            #[allow(dead_code)]
            const FLAVOR: &str = stringify!($flavor);

            /// A fresh runtime of this flavor.
            #[allow(dead_code)]
            fn rt() -> runtime::Runtime {
                $build
            }

            $($tests)*
        }
        rt_test!(@each [$($rest)*] { $($tests)* });
    };
    ($($tests:tt)*) => {
        rt_test!(@each [
            current_thread => $crate::support::current_thread();
            multi_thread => $crate::support::multi_thread(2);
        ] { $($tests)* });
    };
}

/// A 4-worker deterministic runtime of `seed` (feature `deterministic`).
#[cfg(all(feature = "deterministic", not(loom)))]
#[allow(dead_code)]
pub fn sim(seed: u64) -> runtime::Runtime {
    runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .deterministic(seed)
        .build()
        .unwrap()
}

/// Runs `f` on [`sim`]`(seed)` under the watchdog.
#[cfg(all(feature = "deterministic", not(loom)))]
#[allow(dead_code)]
pub fn run<F, Fut, R>(what: &str, seed: u64, f: F) -> R
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = R>,
    R: Send + 'static,
{
    watchdog(what, move || sim(seed).block_on(f()))
}
