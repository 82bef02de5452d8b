//! Every `sync_chan` workload, twice, on every runtime the bench file uses (ours, tokio,
//! smol's executor) with its own ecosystem's channels, and async-channel on ours: each
//! iteration returns only once every message was received, so finishing is the assertion
//! (a lost wake-up hangs; the watchdog turns a hang into a failure).

use std::sync::mpsc;
use std::time::Duration;

use benches::adapters::ours::Ours;
use benches::adapters::smol::SmolExecutor;
use benches::adapters::tokio_rt::Tokio;
use benches::workloads::chan::*;
use benches::workloads::scheduler::Iteration;
use benches::{Bench, Flavor};

const MT: Flavor = Flavor::MultiThread(2);

/// Runs `workload` twice on a fresh runtime from `make`, failing after 60 s.
fn twice<B: Bench + 'static>(
    name: &str,
    make: fn() -> B,
    workload: for<'a> fn(&'a B) -> Iteration<'a>,
) {
    let (done_tx, done_rx) = mpsc::channel();
    let name2 = name.to_string();
    std::thread::spawn(move || {
        let rt = make();
        let mut it = workload(&rt);
        it();
        it();
        drop(it);
        drop(rt);
        let _ = done_tx.send(name2);
    });
    match done_rx.recv_timeout(Duration::from_secs(60)) {
        Ok(_) => eprintln!("{name}: ok"),
        Err(_) => panic!("{name}: no progress in 60 s (hang or panic)"),
    }
}

#[test]
fn ours() {
    let make = || Ours::new(MT);
    twice(
        "ours mpsc_contention_bounded",
        make,
        mpsc_contention::<Ours, OursBounded>,
    );
    twice(
        "ours mpsc_contention_unbounded",
        make,
        mpsc_contention::<Ours, OursUnbounded>,
    );
    twice(
        "ours mpsc_uncontended_bounded",
        make,
        mpsc_uncontended::<Ours, OursBounded>,
    );
    twice(
        "ours mpsc_uncontended_unbounded",
        make,
        mpsc_uncontended::<Ours, OursUnbounded>,
    );
    twice(
        "ours mpsc_full_ping",
        make,
        mpsc_full_ping::<Ours, OursBounded>,
    );
    twice("ours watch_fanout", make, watch_fanout::<Ours, OursWatch>);
    twice(
        "ours watch_fanout_100",
        make,
        watch_fanout_100::<Ours, OursWatch>,
    );
    twice(
        "ours broadcast_fanout_100",
        make,
        broadcast_fanout_100::<Ours, OursBroadcast>,
    );
    twice(
        "ours broadcast_fanout",
        make,
        broadcast_fanout::<Ours, OursBroadcast>,
    );
}

#[test]
fn tokio() {
    let make = || Tokio::new(MT);
    twice(
        "tokio mpsc_contention_bounded",
        make,
        mpsc_contention::<Tokio, TokioBounded>,
    );
    twice(
        "tokio mpsc_contention_unbounded",
        make,
        mpsc_contention::<Tokio, TokioUnbounded>,
    );
    twice(
        "tokio mpsc_uncontended_bounded",
        make,
        mpsc_uncontended::<Tokio, TokioBounded>,
    );
    twice(
        "tokio mpsc_full_ping",
        make,
        mpsc_full_ping::<Tokio, TokioBounded>,
    );
    twice(
        "tokio watch_fanout",
        make,
        watch_fanout::<Tokio, TokioWatch>,
    );
    twice(
        "tokio broadcast_fanout",
        make,
        broadcast_fanout::<Tokio, TokioBroadcast>,
    );
}

#[test]
fn smol() {
    let make = || SmolExecutor::new(MT);
    twice(
        "smol mpsc_contention_bounded",
        make,
        mpsc_contention::<SmolExecutor, AsyncChannelBounded>,
    );
    twice(
        "smol mpsc_contention_unbounded",
        make,
        mpsc_contention::<SmolExecutor, AsyncChannelUnbounded>,
    );
    twice(
        "smol mpsc_uncontended_bounded",
        make,
        mpsc_uncontended::<SmolExecutor, AsyncChannelBounded>,
    );
    twice(
        "smol mpsc_full_ping",
        make,
        mpsc_full_ping::<SmolExecutor, AsyncChannelBounded>,
    );
    twice(
        "smol broadcast_fanout",
        make,
        broadcast_fanout::<SmolExecutor, AsyncBroadcast>,
    );
}

/// async-channel on our runtime (the mpsc groups' `asyncchannel_on_ours`).
#[test]
fn asyncchannel_on_ours() {
    let make = || Ours::new(MT);
    twice(
        "asyncchannel_on_ours mpsc_contention_bounded",
        make,
        mpsc_contention::<Ours, AsyncChannelBounded>,
    );
    twice(
        "asyncchannel_on_ours mpsc_contention_unbounded",
        make,
        mpsc_contention::<Ours, AsyncChannelUnbounded>,
    );
    twice(
        "asyncchannel_on_ours mpsc_uncontended_bounded",
        make,
        mpsc_uncontended::<Ours, AsyncChannelBounded>,
    );
    twice(
        "asyncchannel_on_ours mpsc_uncontended_unbounded",
        make,
        mpsc_uncontended::<Ours, AsyncChannelUnbounded>,
    );
    twice(
        "asyncchannel_on_ours mpsc_full_ping",
        make,
        mpsc_full_ping::<Ours, AsyncChannelBounded>,
    );
}
