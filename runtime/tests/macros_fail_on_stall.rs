//! `#[runtime::test(fail_on_stall = "..")]`: a test whose poll blocks a worker longer than
//! the threshold fails with the stall report; one that does not passes.
//!
//! The failing test is `#[ignore]`d and run here in a child process (this test binary,
//! re-invoked on that one test), so the suite asserts that it failed and what it said.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The blocking call inside the failing test's poll, by a name the report must show.
#[inline(never)]
fn blocking_call_inside_a_poll() {
    std::thread::sleep(Duration::from_millis(200));
}

#[runtime::test(fail_on_stall = "20ms")]
#[ignore = "fails on purpose: run by a_poll_blocking_past_the_threshold_fails_with_the_report"]
async fn blocks_its_worker() {
    blocking_call_inside_a_poll();
}

#[runtime::test(fail_on_stall = "5s")]
async fn a_test_that_never_blocks_passes() {
    let v = runtime::spawn(async { 7 }).await.unwrap();
    runtime::task::yield_now().await;
    runtime::time::sleep(Duration::from_millis(1)).await;
    assert_eq!(v, 7);
}

/// Runs one test of this binary in a child process; a watchdog kills it after 30 s and
/// fails the calling test.
fn run_test_in_child(name: &str) -> Output {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            name,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the child test");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("watchdog: the child test {name} still runs after 30 s: killed");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_poll_blocking_past_the_threshold_fails_with_the_report() {
    let out = run_test_in_child("blocks_its_worker");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "the blocking test passed:\n{text}");
    assert!(
        text.contains("longer than fail_on_stall (20ms)"),
        "no fail_on_stall message:\n{text}"
    );
    assert!(
        text.contains("has been polling"),
        "no stall report:\n{text}"
    );
    if cfg!(target_os = "linux") {
        assert!(
            text.contains("blocking_call_inside_a_poll"),
            "the backtrace misses the blocking function:\n{text}"
        );
        assert!(
            text.contains("nanosleep") || text.contains("std::thread::sleep"),
            "the backtrace misses the sleep:\n{text}"
        );
    }
}
