//! The channel workloads on multi-thread runtimes (`BENCH_WORKERS` workers,
//! default 4), each runtime with its own ecosystem's channels: `runtime` (ours, on our
//! runtime), `tokio` (tokio's, on tokio) and `smol` (`async-channel` / `async-broadcast` on
//! smol's executor; smol has no watch channel); the mpsc groups also have
//! `asyncchannel_on_ours` (`async-channel` on our runtime: the channels compared on one
//! scheduler). The workloads are in `benches::workloads::chan`:
//! `watch_fanout_16` / `broadcast_fanout_16` time the channel's wake-up path,
//! `watch_fanout_100` / `broadcast_fanout_100` 100 receivers doing about 3 µs of work per
//! value, the sender waiting for all of them before the next.

use benches::adapters::ours::Ours;
use benches::adapters::smol::SmolExecutor;
use benches::adapters::tokio_rt::Tokio;
use benches::harness::{bench, group};
use benches::workloads::chan::*;
use benches::{workers, Flavor};
use criterion::{criterion_group, criterion_main, Criterion};

/// One group: `workload` with ours, tokio's and (when given) the smol ecosystem's channel.
macro_rules! chan_group {
    ($c:expr, $name:literal, $workload:ident, $ours:ty, $tokio:ty $(, $smol:ty)?) => {{
        let flavor = Flavor::MultiThread(workers());
        let name = concat!("sync_chan/", $name);
        let mut g = group($c, name, false);
        bench(&mut g, name, "runtime", Ours::new(flavor), $workload::<Ours, $ours>);
        bench(&mut g, name, benches::adapters::tokio_rt::NAME, Tokio::new(flavor), $workload::<Tokio, $tokio>);
        $(
            bench(&mut g, name, "smol", SmolExecutor::new(flavor), $workload::<SmolExecutor, $smol>);
        )?
        g.finish();
    }};
    // An mpsc group: also `async-channel` on our runtime.
    (mpsc $c:expr, $name:literal, $workload:ident, $ours:ty, $tokio:ty, $smol:ty) => {{
        let flavor = Flavor::MultiThread(workers());
        let name = concat!("sync_chan/", $name);
        let mut g = group($c, name, false);
        bench(&mut g, name, "runtime", Ours::new(flavor), $workload::<Ours, $ours>);
        bench(&mut g, name, benches::adapters::tokio_rt::NAME, Tokio::new(flavor), $workload::<Tokio, $tokio>);
        bench(&mut g, name, "smol", SmolExecutor::new(flavor), $workload::<SmolExecutor, $smol>);
        bench(&mut g, name, "asyncchannel_on_ours", Ours::new(flavor), $workload::<Ours, $smol>);
        g.finish();
    }};
}

fn sync_chan(c: &mut Criterion) {
    chan_group!(
        mpsc c,
        "mpsc_contention_bounded",
        mpsc_contention,
        OursBounded,
        TokioBounded,
        AsyncChannelBounded
    );
    chan_group!(
        mpsc c,
        "mpsc_contention_unbounded",
        mpsc_contention,
        OursUnbounded,
        TokioUnbounded,
        AsyncChannelUnbounded
    );
    chan_group!(
        mpsc c,
        "mpsc_uncontended_bounded",
        mpsc_uncontended,
        OursBounded,
        TokioBounded,
        AsyncChannelBounded
    );
    chan_group!(
        mpsc c,
        "mpsc_uncontended_unbounded",
        mpsc_uncontended,
        OursUnbounded,
        TokioUnbounded,
        AsyncChannelUnbounded
    );
    chan_group!(
        mpsc c,
        "mpsc_full_ping",
        mpsc_full_ping,
        OursBounded,
        TokioBounded,
        AsyncChannelBounded
    );
    chan_group!(c, "watch_fanout_16", watch_fanout, OursWatch, TokioWatch);
    chan_group!(
        c,
        "broadcast_fanout_16",
        broadcast_fanout,
        OursBroadcast,
        TokioBroadcast,
        AsyncBroadcast
    );
    chan_group!(
        c,
        "watch_fanout_100",
        watch_fanout_100,
        OursWatch,
        TokioWatch
    );
    chan_group!(
        c,
        "broadcast_fanout_100",
        broadcast_fanout_100,
        OursBroadcast,
        TokioBroadcast,
        AsyncBroadcast
    );
}

criterion_group!(benches, sync_chan);
criterion_main!(benches);
