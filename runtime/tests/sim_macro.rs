//! `#[runtime::test(deterministic, seeds = N)]`: the body runs under each seed on a
//! deterministic runtime of the flavor asked for; a failure names its seed.
#![cfg(all(feature = "deterministic", not(loom)))]

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::time::Duration;

static RUNS: AtomicU64 = AtomicU64::new(0);

#[runtime::test(deterministic, seeds = 25)]
async fn runs_once_per_seed() {
    let n = RUNS.fetch_add(1, SeqCst) + 1;
    // An hour of virtual time per seed.
    runtime::time::sleep(Duration::from_secs(3600)).await;
    if n == 25
        && std::env::var_os("RUNTIME_SEED").is_none()
        && std::env::var_os("RUNTIME_SEEDS").is_none()
    {
        // The last seed: every earlier one ran.
        assert_eq!(RUNS.load(SeqCst), 25);
    }
}

#[runtime::test(flavor = "multi_thread", worker_threads = 4, deterministic, seeds = 10)]
async fn multi_thread_flavor() {
    let hs: Vec<_> = (0..16u64)
        .map(|i| runtime::spawn(async move { i * i }))
        .collect();
    let mut sum = 0;
    for h in hs {
        sum += h.await.unwrap();
    }
    assert_eq!(sum, (0..16u64).map(|i| i * i).sum::<u64>());
    assert_eq!(runtime::Handle::current().metrics().num_workers(), 4);
}

#[runtime::test(deterministic)]
async fn returns_a_result() -> Result<(), std::io::Error> {
    runtime::time::sleep(Duration::from_millis(5)).await;
    Ok(())
}

/// Fails at one seed: the runner stops there and reports it (checked in the child).
#[runtime::test(flavor = "multi_thread", deterministic, seeds = 50)]
async fn planted_failure_child() {
    if std::env::var_os("SIM_MACRO_CHILD").is_none() {
        return;
    }
    let seed_dependent = runtime::spawn(async {
        runtime::task::yield_now().await;
        1
    });
    let other = runtime::spawn(async { 2 });
    // Which finishes first depends on the seed; fail when `other` won.
    let first = runtime::select! {
        biased;
        v = seed_dependent => v.unwrap(),
        v = other => v.unwrap(),
    };
    assert_eq!(first, 1, "the planted race went the other way");
}

#[test]
fn a_failure_prints_its_replay_command() {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(&exe)
        .args(["planted_failure_child", "--exact", "--nocapture"])
        .env("SIM_MACRO_CHILD", "1")
        .env_remove("RUNTIME_SEED")
        .env_remove("RUNTIME_SEEDS")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "the planted race was never hit in 50 seeds:\n{err}"
    );
    let line = err
        .lines()
        .find(|l| l.contains("RUNTIME_SEED="))
        .unwrap_or_else(|| panic!("no replay command in:\n{err}"));
    assert!(line.contains("-- planted_failure_child --exact"), "{line}");
    assert!(err.contains("algorithm version"), "{err}");
    let seed: u64 = line
        .split("RUNTIME_SEED=")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap();
    // The printed seed replays the failure alone.
    for _ in 0..3 {
        let again = std::process::Command::new(&exe)
            .args(["planted_failure_child", "--exact", "--nocapture"])
            .env("SIM_MACRO_CHILD", "1")
            .env("RUNTIME_SEED", seed.to_string())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&again.stderr);
        assert!(
            !again.status.success(),
            "seed {seed} did not replay the failure:\n{err}"
        );
        assert!(
            err.contains(&format!("at seed {seed} (seed 1 of 1")),
            "{err}"
        );
    }
}
