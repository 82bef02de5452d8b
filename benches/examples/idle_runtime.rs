//! An idle runtime, for checking that it makes no periodic wake-ups: a multi-thread
//! runtime (4 workers, I/O and timers on) with a listener waiting in `accept`, a task
//! asleep for an hour, and nothing else to do. It prints its pid, serves for SECS seconds
//! (default 30) and exits. Check it with `benches/scripts/idle_syscalls.sh`, which attaches
//! `strace -c` to every thread for 5 s and expects 0 syscalls.
//! Usage: `cargo run --release -p benches --example idle_runtime [SECS]`.

use std::time::Duration;

fn main() {
    let secs: u64 = std::env::args()
        .nth(1)
        .map_or(30, |s| s.parse().expect("SECS"));
    let rt = runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let listener = runtime::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        drop(runtime::spawn(async move {
            while let Ok((conn, _)) = listener.accept().await {
                drop(conn);
            }
        }));
        drop(runtime::spawn(runtime::time::sleep(Duration::from_secs(
            3600,
        ))));
        println!("idle pid {}", std::process::id());
        runtime::time::sleep(Duration::from_secs(secs)).await;
    });
}
