//! Shared pieces of the compat programs: a bound on each test's run time and the check that
//! the work ran on this runtime rather than on the registry's tokio.
//!
//! Every program's handlers call [`note_thread`] from inside the work they do (an HTTP handler,
//! a gRPC method, a websocket echo loop, a spawned task). [`assert_on_runtime`] then checks
//! that the current handle reports worker threads through `Handle::metrics()` and that every
//! noted thread, and a freshly spawned task's thread, carries this runtime's default worker
//! name, [`WORKER_NAME`]. The registry's tokio names its workers `tokio-rt-worker`, so
//! against it this check fails with a message saying which name it found; that is the one
//! assertion in each program that tells the two runtimes apart, and it is the last one.

use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

/// The name this runtime gives its worker threads unless the builder is told otherwise.
pub const WORKER_NAME: &str = "runtime-worker";

/// How long one program may run before it counts as hung.
pub const TEST_BOUND: Duration = Duration::from_secs(60);

static NOTED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Records the name of the thread the caller runs on, for [`assert_on_runtime`].
pub fn note_thread() {
    let name = std::thread::current()
        .name()
        .unwrap_or("<unnamed>")
        .to_string();
    NOTED.lock().unwrap().push(name);
}

/// Runs `fut` for at most [`TEST_BOUND`], panicking with `what` if it does not finish, so
/// that a hang becomes a failed test with a message.
pub async fn bounded<F: Future>(what: &str, fut: F) -> F::Output {
    match tokio::time::timeout(TEST_BOUND, fut).await {
        Ok(out) => out,
        Err(_) => panic!("{what}: did not finish within {TEST_BOUND:?} (hung?)"),
    }
}

/// Asserts that the caller runs inside a multi-threaded runtime whose workers are this
/// runtime's: `Handle::metrics()` reports workers, a spawned task runs on a thread named
/// [`WORKER_NAME`], and so did every thread noted by [`note_thread`] (at least one).
pub async fn assert_on_runtime() {
    let handle = tokio::runtime::Handle::current();
    let workers = handle.metrics().num_workers();
    assert!(workers > 0, "Handle::metrics() reports no worker threads");

    let spawned = tokio::spawn(async {
        std::thread::current()
            .name()
            .unwrap_or("<unnamed>")
            .to_string()
    })
    .await
    .expect("probe task failed");

    let mut noted = NOTED.lock().unwrap().clone();
    assert!(
        !noted.is_empty(),
        "no handler called note_thread(): the program's work did not run"
    );
    noted.sort();
    noted.dedup();
    let foreign: Vec<&String> = noted.iter().filter(|n| *n != WORKER_NAME).collect();
    assert!(
        spawned == WORKER_NAME && foreign.is_empty(),
        "work ran on threads named {spawned:?} / {foreign:?}, not on this runtime's \
         {WORKER_NAME:?} workers (the registry's tokio names them \"tokio-rt-worker\")"
    );
}
