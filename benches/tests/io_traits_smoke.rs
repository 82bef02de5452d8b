//! The `io_traits` bench pair runs: each family, each message size, a few round trips
//! that echo the message intact. Bounded by a watchdog so a stuck echo fails.

use std::sync::mpsc;
use std::time::Duration;

use benches::workloads::io_echo::{Echo, Family};

#[test]
fn both_families_echo_both_sizes() {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        for family in [Family::Tokio, Family::FuturesIo] {
            for size in [1024, 64 * 1024] {
                let mut echo = Echo::new(family, size);
                for _ in 0..3 {
                    echo.round_trip();
                    assert!(echo.echoed(), "{family:?} {size}: echo differs");
                }
            }
        }
        done.send(()).unwrap();
    });
    finished
        .recv_timeout(Duration::from_secs(30))
        .expect("the echo round trips finished (or the thread panicked)");
}
