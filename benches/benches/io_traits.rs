//! Echo over loopback through tokio's `AsyncRead`/`AsyncWrite` vs through futures-io, on
//! the same `runtime::net::TcpStream` (see `benches::workloads::io_echo`). Groups `io_echo/1KiB` and
//! `io_echo/64KiB`, functions `tokio_traits` and `futures_io`: the pair's ratio is the
//! cost of the trait layer, expected within noise of 1.

use benches::workloads::io_echo::{Echo, Family};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn io_echo(c: &mut Criterion) {
    for (label, size) in [("1KiB", 1024), ("64KiB", 64 * 1024)] {
        let mut g = c.benchmark_group(format!("io_echo/{label}"));
        g.throughput(Throughput::Bytes(2 * size as u64));
        for family in [Family::Tokio, Family::FuturesIo] {
            let mut echo = Echo::new(family, size);
            g.bench_function(family.id(), |b| b.iter(|| echo.round_trip()));
        }
        g.finish();
    }
}

criterion_group!(benches, io_echo);
criterion_main!(benches);
