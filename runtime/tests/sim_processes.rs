//! The same seed gives the same run in 100 fresh processes: a 4-worker workload with TCP
//! (the in-memory network), timers, `select!`, mpsc, `spawn_blocking` and many tasks (over
//! 50,000 trace events), each process its own address space, thread ids, hash keys and
//! allocator state.
#![cfg(all(feature = "deterministic", not(loom)))]

use std::time::Duration;

use runtime::io::{AsyncReadExt, AsyncWriteExt};
use runtime::net::{TcpListener, TcpStream};
use runtime::time::{interval, sleep};
use runtime::Builder;

/// The workload; returns its output digest, trace hash and trace length.
fn workload(seed: u64) -> (u64, u64, u64) {
    let rt = Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .deterministic(seed)
        .build()
        .unwrap();
    let digest = rt.block_on(async {
        let (tx, mut rx) = runtime::sync::mpsc::channel::<(u64, u64)>(16);
        // An echo server on the in-memory network.
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        runtime::spawn(async move {
            loop {
                let (mut socket, _) = listener.accept().await.unwrap();
                runtime::spawn(async move {
                    let mut buf = [0u8; 64];
                    loop {
                        match socket.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => socket.write_all(&buf[..n]).await.unwrap(),
                        }
                    }
                });
            }
        });
        for client in 0..100u64 {
            let tx = tx.clone();
            runtime::spawn(async move {
                let mut conn = TcpStream::connect(addr).await.unwrap();
                let mut tick = interval(Duration::from_millis(3 + client % 7));
                for round in 0..40u64 {
                    runtime::select! {
                        _ = tick.tick() => {}
                        _ = sleep(Duration::from_millis(5)) => {}
                    }
                    let v = if round % 5 == 0 {
                        runtime::task::spawn_blocking(move || client * 1_000 + round)
                            .await
                            .unwrap()
                    } else {
                        client * 1_000 + round
                    };
                    // A round trip through the echo server.
                    conn.write_all(&v.to_le_bytes()).await.unwrap();
                    let mut back = [0u8; 8];
                    conn.read_exact(&mut back).await.unwrap();
                    let v = u64::from_le_bytes(back);
                    tx.send((client, v)).await.unwrap();
                }
            });
        }
        drop(tx);
        // An order-sensitive digest of what arrived.
        let mut digest = 0xcbf2_9ce4_8422_2325u64;
        while let Some((client, v)) = rx.recv().await {
            digest = (digest ^ (client << 32 | v)).wrapping_mul(0x0100_0000_01b3);
        }
        digest
    });
    (digest, rt.trace_hash(), rt.trace_events())
}

/// The child: one run of the seed in `SIM_PROCESS_SEED`, printed.
#[test]
fn workload_child() {
    let Ok(seed) = std::env::var("SIM_PROCESS_SEED") else {
        return;
    };
    let (digest, hash, events) = workload(seed.parse().unwrap());
    println!("run: digest {digest:016x} trace {hash:016x} events {events}");
}

#[test]
fn one_seed_one_run_in_100_processes() {
    let exe = std::env::current_exe().unwrap();
    let mut first: Option<String> = None;
    for i in 0..100 {
        let out = std::process::Command::new(&exe)
            .args(["workload_child", "--exact", "--nocapture"])
            .env("SIM_PROCESS_SEED", "7")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text
            .lines()
            .find(|l| l.starts_with("run:"))
            .unwrap_or_else(|| {
                panic!(
                    "process {i} printed no result:\n{text}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                )
            })
            .to_string();
        match &first {
            None => {
                let events: u64 = line.rsplit(' ').next().unwrap().parse().unwrap();
                assert!(events >= 50_000, "the workload is too small: {line}");
                first = Some(line);
            }
            Some(f) => assert_eq!(&line, f, "process {i} of 100 ran seed 7 another way"),
        }
    }
}

#[test]
fn seeds_differ() {
    let a = workload(1);
    let b = workload(2);
    assert_ne!(a.1, b.1, "two seeds, one trace");
    assert_eq!(a, workload(1));
}
