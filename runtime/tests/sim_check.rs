//! The determinism checker (`RUNTIME_CHECK_DETERMINISM=1`) runs a deterministic test in two
//! processes and reports the first diverging trace event. Each planted leak below reads
//! something that is not a function of the seed; the checker must catch every one, and
//! must pass a test that uses only the runtime's timers, channels, `select!` and
//! `spawn_blocking`.
//!
//! The leaky tests are children: they do nothing unless `SIM_CHECK_CHILD` names them, so
//! a plain `cargo test` runs only the parents, which start this binary again.
#![cfg(all(feature = "deterministic", not(loom)))]

use std::collections::HashMap;
use std::io::Read;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use runtime::time::sleep;

fn planted(name: &str) -> bool {
    std::env::var("SIM_CHECK_CHILD").is_ok_and(|v| v == name)
}

/// Runs child `name` under the checker; returns (success, stderr).
fn check(name: &str) -> (bool, String) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("SIM_CHECK_CHILD", name)
        .env("RUNTIME_CHECK_DETERMINISM", "1")
        .env_remove("RUNTIME_SEED")
        .env_remove("RUNTIME_SEEDS")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_caught(name: &str) {
    let (ok, err) = check(name);
    assert!(!ok, "the checker passed the leak `{name}`:\n{err}");
    assert!(err.contains("two processes diverged"), "{name}: {err}");
    assert!(err.contains("first diverging trace line"), "{name}: {err}");
    assert!(
        err.contains("first process:") && err.contains("second process:"),
        "{err}"
    );
}

/// Sleeps a number of milliseconds (the timer's resolution) that the leak decided, in a
/// task of its own.
async fn sleep_ms(ms: u64) {
    runtime::spawn(async move { sleep(Duration::from_millis(ms)).await })
        .await
        .unwrap();
}

#[runtime::test(flavor = "multi_thread", worker_threads = 4, deterministic)]
async fn leak_system_time() {
    if !planted("leak_system_time") {
        return;
    }
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    if nanos.is_multiple_of(2) {
        runtime::task::yield_now().await;
    }
    sleep_ms(u64::from(nanos) % 9973).await;
}

#[runtime::test(flavor = "multi_thread", worker_threads = 4, deterministic)]
async fn leak_std_instant() {
    if !planted("leak_std_instant") {
        return;
    }
    let start = std::time::Instant::now();
    let mut x = 0u64;
    for i in 0..10_000u64 {
        x = x.wrapping_mul(31).wrapping_add(i);
    }
    std::hint::black_box(x);
    sleep_ms(start.elapsed().as_nanos() as u64 % 9973 + 1).await;
}

#[runtime::test(flavor = "multi_thread", worker_threads = 4, deterministic)]
async fn leak_hash_map_order() {
    if !planted("leak_hash_map_order") {
        return;
    }
    let map: HashMap<u64, u64> = (0..16).map(|k| (k, k)).collect();
    let mut hs = Vec::new();
    for (_, v) in map {
        hs.push(runtime::spawn(async move {
            sleep(Duration::from_millis(v)).await
        }));
    }
    for h in hs {
        h.await.unwrap();
    }
}

#[runtime::test(flavor = "multi_thread", worker_threads = 4, deterministic)]
async fn leak_os_thread() {
    if !planted("leak_os_thread") {
        return;
    }
    let (tx, mut rx) = runtime::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_micros(300));
        let _ = tx.send(());
    });
    // Waits a virtual millisecond at a time until the thread's message lands: how many
    // waits that takes is wall time.
    while rx.try_recv().is_err() {
        sleep(Duration::from_millis(1)).await;
    }
}

#[runtime::test(flavor = "multi_thread", worker_threads = 4, deterministic)]
async fn leak_os_rng() {
    if !planted("leak_os_rng") {
        return;
    }
    let mut bytes = [0u8; 8];
    std::fs::File::open("/dev/urandom")
        .unwrap()
        .read_exact(&mut bytes)
        .unwrap();
    sleep_ms(u64::from_le_bytes(bytes) % 9973).await;
}

/// Timers, mpsc, `select!`, `spawn_blocking` and many tasks: deterministic throughout.
#[runtime::test(flavor = "multi_thread", worker_threads = 4, deterministic)]
async fn clean_workload() {
    if !planted("clean_workload") {
        return;
    }
    let (tx, mut rx) = runtime::sync::mpsc::channel::<u64>(8);
    for i in 0..32u64 {
        let tx = tx.clone();
        runtime::spawn(async move {
            let v = runtime::task::spawn_blocking(move || i * 3).await.unwrap();
            sleep(Duration::from_millis(i % 5)).await;
            tx.send(v).await.unwrap();
        });
    }
    drop(tx);
    let mut sum = 0;
    let mut ticks = runtime::time::interval(Duration::from_millis(2));
    loop {
        runtime::select! {
            v = rx.recv() => match v {
                Some(v) => sum += v,
                None => break,
            },
            _ = ticks.tick() => {}
        }
    }
    assert_eq!(sum, (0..32u64).map(|i| i * 3).sum::<u64>());
}

#[test]
fn a_clean_test_passes_the_check() {
    let (ok, err) = check("clean_workload");
    assert!(ok, "the checker failed a deterministic test:\n{err}");
    assert!(err.contains("identical in two processes"), "{err}");
}

#[test]
fn catches_system_time() {
    assert_caught("leak_system_time");
}

#[test]
fn catches_std_instant() {
    assert_caught("leak_std_instant");
}

#[test]
fn catches_hash_map_order() {
    assert_caught("leak_hash_map_order");
}

#[test]
fn catches_an_os_thread() {
    assert_caught("leak_os_thread");
}

#[test]
fn catches_an_os_rng() {
    assert_caught("leak_os_rng");
}
