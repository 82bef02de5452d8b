//! `Runtime::shutdown_timeout` says who held the shutdown: a program whose `main` returns
//! while a named blocking closure sleeps and a named task never yields exits at the
//! timeout and names both on stderr; a clean program prints no report.
//!
//! The programs are this test binary re-invoked as a child process (`CHILD`), so the test
//! can see its exit and its stderr; a watchdog kills a child that runs for 30 s.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Selects the program a child runs.
const CHILD: &str = "RUNTIME_SHUTDOWN_REPORT_CHILD";

/// The program that leaves work behind: its `main` returns while `dns-lookup` (a blocking
/// closure) sleeps for a minute and `spinner` (a task) never yields.
#[runtime::main(shutdown_timeout = "1s")]
async fn held_main() {
    let (started_tx, started_rx) = std::sync::mpsc::channel::<&str>();
    let tx = started_tx.clone();
    // Detached: their handles are dropped at once.
    drop(
        runtime::task::Builder::new()
            .name("dns-lookup")
            .spawn_blocking(move || {
                tx.send("dns-lookup").unwrap();
                std::thread::sleep(Duration::from_secs(60));
            })
            .unwrap(),
    );
    drop(
        runtime::task::Builder::new()
            .name("spinner")
            .spawn(async move {
                started_tx.send("spinner").unwrap();
                loop {
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
            .unwrap(),
    );
    for _ in 0..2 {
        started_rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the blocking closure and the spinner started");
    }
}

/// The program that leaves nothing behind.
#[runtime::main(shutdown_timeout = "1s")]
async fn clean_main() {
    let _ = runtime::task::Builder::new()
        .name("quick")
        .spawn_blocking(|| 1)
        .unwrap()
        .await;
    runtime::spawn(async { runtime::task::yield_now().await })
        .await
        .unwrap();
}

/// Runs this binary's test `name` with `CHILD=program` in a child process; a watchdog
/// kills it after 30 s and fails the calling test.
fn run_child(program: &str) -> Output {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["child_entry", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, program)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the child");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("watchdog: the child program {program} still runs after 30 s: killed");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

/// The child's entry point: runs the program `CHILD` names, then exits the process
/// (threads left running in the background die with it). Without `CHILD`, nothing.
#[test]
fn child_entry() {
    let Ok(program) = std::env::var(CHILD) else {
        return;
    };
    match program.as_str() {
        "held" => held_main(),
        "clean" => clean_main(),
        other => panic!("unknown child program {other}"),
    }
    std::process::exit(0);
}

#[test]
fn a_shutdown_past_its_timeout_names_the_task_and_the_closure_that_held_it() {
    let out = run_child("held");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the program failed: {out:?}");
    assert!(
        stderr.contains("runtime shutdown: still held"),
        "no shutdown report:\n{stderr}"
    );
    if cfg!(target_os = "linux") {
        assert!(
            stderr.contains("'spinner'") && stderr.contains("has not yielded"),
            "the spinner is not named as stuck in its poll:\n{stderr}"
        );
        assert!(
            stderr.contains("'dns-lookup'") && stderr.contains("still running"),
            "the blocking closure is not named:\n{stderr}"
        );
    }
}

#[test]
fn a_clean_shutdown_prints_no_report() {
    let out = run_child("clean");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the program failed: {out:?}");
    assert!(
        !stderr.contains("runtime shutdown"),
        "a report for a clean shutdown:\n{stderr}"
    );
}

#[test]
fn the_report_of_a_shutdown_in_time_is_empty() {
    let rt = runtime::Runtime::new().unwrap();
    rt.spawn(async { runtime::task::yield_now().await });
    drop(rt.spawn_blocking(|| 1));
    let report = rt.shutdown_timeout_report(Duration::from_secs(20));
    assert!(report.is_empty(), "{report}");
}

#[test]
fn shutdown_timeout_report_lists_a_stuck_poll_and_a_running_closure() {
    let rt = runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let release_rx = std::sync::Arc::new(std::sync::Mutex::new(release_rx));
    let (r1, r2) = (release_rx.clone(), release_rx);
    let t1 = tx.clone();
    drop(rt.spawn_blocking(move || {
        t1.send(()).unwrap();
        let _ = r1.lock().unwrap().recv_timeout(Duration::from_secs(20));
    }));
    drop(rt.spawn(async move {
        tx.send(()).unwrap();
        // Holds the lock only once the closure has it: waits for the release too.
        let _ = r2.lock().map(|rx| rx.recv_timeout(Duration::from_secs(20)));
    }));
    for _ in 0..2 {
        rx.recv_timeout(Duration::from_secs(20)).unwrap();
    }
    let report = rt.shutdown_timeout_report(Duration::from_millis(100));
    drop(release_tx);
    assert_eq!(report.stuck_polls.len(), 1, "{report}");
    assert_eq!(report.running_closures.len(), 1, "{report}");
    assert!(report.stuck_polls[0].worker < 2, "{report}");
    if cfg!(target_os = "linux") {
        assert!(report.stuck_polls[0].task.is_some(), "{report}");
        assert!(report.running_closures[0].task.is_some(), "{report}");
    }
    assert!(!report.is_empty());
}

#[test]
fn shutdown_timeout_report_names_a_task_inside_block_in_place() {
    let rt = runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let task = runtime::task::Builder::new()
        .name("in-place")
        .spawn_on(
            async move {
                runtime::task::block_in_place(move || {
                    started_tx.send(()).unwrap();
                    let _ = release_rx.recv_timeout(Duration::from_secs(20));
                });
            },
            rt.handle(),
        )
        .unwrap();
    let id = task.id();
    drop(task);
    started_rx.recv_timeout(Duration::from_secs(20)).unwrap();
    let report = rt.shutdown_timeout_report(Duration::from_millis(100));
    drop(release_tx);
    // The thread handed its core away: it is no worker, so only this entry names it.
    assert!(report.stuck_polls.is_empty(), "{report}");
    assert_eq!(report.in_block_in_place.len(), 1, "{report}");
    let entry = &report.in_block_in_place[0];
    let meta = entry
        .task
        .as_ref()
        .expect("the task that called block_in_place");
    assert_eq!(meta.id(), id, "{report}");
    assert_eq!(meta.name(), Some("in-place"), "{report}");
    assert!(
        report.to_string().contains("block_in_place: ")
            && report.to_string().contains("'in-place'"),
        "{report}"
    );
    assert!(!report.is_empty());
}

/// A report names every running blocking closure, however many: 100 named closures held
/// at the deadline are 100 named entries (their identity is the pool's, not their
/// threads' answer).
#[test]
fn the_report_names_each_of_100_running_closures() {
    const N: usize = 100;
    let rt = runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(N)
        .build()
        .unwrap();
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let release_rx = std::sync::Arc::new(std::sync::Mutex::new(release_rx));
    for i in 0..N {
        let (started, release) = (started_tx.clone(), release_rx.clone());
        let _guard = rt.enter();
        runtime::task::Builder::new()
            .name(&format!("held-{i}"))
            .spawn_blocking(move || {
                started.send(()).unwrap();
                // Every closure waits for the release (the lock is held by one at a time;
                // the rest wait on the lock itself).
                let _ = release
                    .lock()
                    .map(|rx| rx.recv_timeout(Duration::from_secs(20)));
            })
            .unwrap();
    }
    for _ in 0..N {
        started_rx.recv_timeout(Duration::from_secs(20)).unwrap();
    }
    let report = rt.shutdown_timeout_report(Duration::from_millis(100));
    drop(release_tx);
    assert_eq!(report.running_closures.len(), N, "{report}");
    let mut names: Vec<String> = report
        .running_closures
        .iter()
        .map(|c| {
            c.task
                .as_ref()
                .and_then(|t| t.name().map(str::to_string))
                .unwrap_or_else(|| panic!("an unnamed closure ({:?}) in:\n{report}", c.missing))
        })
        .collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), N, "{report}");
}
