//! Liveness figures with a task that blocks its worker (4 workers):
//! 1. the child of a blocked task: how long after its spawn it starts (the parent blocks
//!    until it has run), over 20 rounds: median and worst;
//! 2. a connection handler blocks its worker for BLOCK_MS (default 3000): the worst echo
//!    latency meanwhile on 3 other connections, each pinging once a millisecond.
//!
//! Targets: both worst figures under 10 ms. Usage:
//! `cargo run --release -p benches --example blocked_worker [BLOCK_MS]`.

use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use futures::io::{AsyncReadExt, AsyncWriteExt};

fn main() {
    let block_ms: u64 = std::env::args()
        .nth(1)
        .map_or(3000, |s| s.parse().expect("BLOCK_MS"));
    let rt = runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .expect("runtime");

    // 1. Child start latency behind a blocked parent.
    let mut lat: Vec<Duration> = (0..20)
        .map(|_| {
            rt.block_on(async {
                runtime::spawn(async {
                    let (tx, rx) = mpsc::channel();
                    let spawned = Instant::now();
                    drop(runtime::spawn(async move {
                        let _ = tx.send(spawned.elapsed());
                    }));
                    rx.recv_timeout(Duration::from_secs(10))
                        .expect("the child never ran")
                })
                .await
                .expect("parent")
            })
        })
        .collect();
    lat.sort();
    println!(
        "child of a blocked task starts after: median {:?}, worst {:?} (target < 10 ms)",
        lat[lat.len() / 2],
        lat[lat.len() - 1]
    );

    // 2. Echo latency on other connections while one handler blocks.
    let listener = rt
        .block_on(runtime::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(rt.spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            drop(runtime::spawn(async move {
                let mut b = [0u8; 1];
                while sock.read_exact(&mut b).await.is_ok() {
                    if b[0] == b'B' {
                        // A handler that blocks its worker (CPU work, a blocking call).
                        std::thread::sleep(Duration::from_millis(block_ms));
                    }
                    if sock.write_all(&b).await.is_err() {
                        return;
                    }
                }
            }));
        }
    }));
    let pingers: Vec<_> = (0..3)
        .map(|_| {
            std::thread::spawn(move || {
                let mut c = std::net::TcpStream::connect(addr).expect("connect");
                c.set_nodelay(true).expect("nodelay");
                let start = Instant::now();
                let mut worst = Duration::ZERO;
                let mut b = [0u8; 1];
                while start.elapsed() < Duration::from_millis(block_ms + 500) {
                    let t = Instant::now();
                    c.write_all(b"p").expect("write");
                    c.read_exact(&mut b).expect("read");
                    worst = worst.max(t.elapsed());
                    std::thread::sleep(Duration::from_millis(1));
                }
                worst
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let mut blocker = std::net::TcpStream::connect(addr).expect("connect");
    blocker.write_all(b"B").expect("write");
    let mut b = [0u8; 1];
    blocker
        .read_exact(&mut b)
        .expect("the blocked handler answers at last");
    let worst = pingers
        .into_iter()
        .map(|p| p.join().expect("pinger"))
        .max()
        .unwrap_or_default();
    println!(
        "worst echo latency on 3 other connections while a handler blocked its worker \
         {block_ms} ms: {worst:?} (target < 10 ms)"
    );
}
