//! The channel workloads (tokio's `benches/sync_mpsc.rs`, `sync_watch.rs`,
//! `sync_broadcast.rs`, re-implemented), each written once over small traits so every
//! runtime runs its own ecosystem's channels: ours on our runtime, tokio's on tokio, and
//! the smol ecosystem's (`async-channel`, `async-broadcast`) on smol's executor.
//!
//! Every workload creates its channels inside the iteration (as tokio's benches do), runs
//! its producers as spawned tasks and its consumer inside `block_on` (the bench thread),
//! and returns once every message was received.
//!
//! The fan-out workloads (watch, broadcast) send from `block_on` to spawned receivers, in
//! one of two shapes ([`FanOut`]): `*_fanout` (16 receivers, 1,000 values, no work, the
//! sender runs freely) measures the channel's wake-up path; `*_fanout_100` (100
//! receivers, 100 values, a few microseconds of [`busy_work`] per value received, the
//! sender waits for all 100 before the next value) measures how a runtime spreads a burst
//! of 100 short CPU-bound wake-ups over its workers.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::workloads::scheduler::Iteration;
use crate::{AsyncSignal, AsyncTx, Bench, Notify, Signal, Spawner};

/// Producers of the contention workloads.
pub const PRODUCERS: usize = 5;
/// Messages per producer (and of the uncontended and ping workloads).
pub const MESSAGES: usize = 1_000;
/// Capacity of the bounded channel in the contention workload.
pub const CONTENTION_CAP: usize = 1_000;
/// Receivers of `watch_fanout` and `broadcast_fanout`.
pub const RECEIVERS: usize = 16;
/// Values sent by `watch_fanout` and `broadcast_fanout`.
pub const UPDATES: usize = 1_000;
/// Receivers of `watch_fanout_100` and `broadcast_fanout_100`.
pub const RECEIVERS_100: usize = 100;
/// Values sent by `watch_fanout_100` and `broadcast_fanout_100`.
pub const UPDATES_100: usize = 100;
/// [`busy_work`] rounds per value received in `watch_fanout_100` and
/// `broadcast_fanout_100`: about 3 µs on a 3 GHz x86-64 core.
pub const WORK_ROUNDS: u32 = 1_000;

/// A many-producer channel as the workloads use it.
pub trait Mpsc: 'static {
    /// The sending half.
    type Tx: Clone + Send + Sync + 'static;
    /// The receiving half.
    type Rx: Send + 'static;
    /// A channel; `cap` is ignored by unbounded flavors.
    fn channel(cap: usize) -> (Self::Tx, Self::Rx);
    /// Sends (waiting for room when bounded); panics when the receiver is gone.
    fn send(tx: &Self::Tx, v: usize) -> impl Future<Output = ()> + Send + '_;
    /// Receives; `None` when closed.
    fn recv(rx: &mut Self::Rx) -> impl Future<Output = Option<usize>> + Send + '_;
}

macro_rules! mpsc_impl {
    ($(#[$doc:meta])* $name:ident, $tx:ty, $rx:ty, |$cap:ident| $make:expr,
     |$t:ident, $v:ident| $send:expr, |$r:ident| $recv:expr) => {
        $(#[$doc])*
        pub struct $name;

        impl Mpsc for $name {
            type Tx = $tx;
            type Rx = $rx;
            fn channel($cap: usize) -> ($tx, $rx) {
                $make
            }
            #[allow(clippy::manual_async_fn)]
            fn send($t: &$tx, $v: usize) -> impl Future<Output = ()> + Send + '_ {
                async move { $send }
            }
            #[allow(clippy::manual_async_fn)]
            fn recv($r: &mut $rx) -> impl Future<Output = Option<usize>> + Send + '_ {
                async move { $recv }
            }
        }
    };
}

mpsc_impl!(
    /// `runtime::sync::mpsc::channel`.
    OursBounded,
    runtime::sync::mpsc::Sender<usize>,
    runtime::sync::mpsc::Receiver<usize>,
    |cap| runtime::sync::mpsc::channel(cap),
    |tx, v| tx.send(v).await.expect("receiver alive"),
    |rx| rx.recv().await
);

mpsc_impl!(
    /// `runtime::sync::mpsc::unbounded_channel`.
    OursUnbounded,
    runtime::sync::mpsc::UnboundedSender<usize>,
    runtime::sync::mpsc::UnboundedReceiver<usize>,
    |_cap| runtime::sync::mpsc::unbounded_channel(),
    |tx, v| tx.send(v).expect("receiver alive"),
    |rx| rx.recv().await
);

mpsc_impl!(
    /// `tokio::sync::mpsc::channel`.
    TokioBounded,
    tokio::sync::mpsc::Sender<usize>,
    tokio::sync::mpsc::Receiver<usize>,
    |cap| tokio::sync::mpsc::channel(cap),
    |tx, v| tx.send(v).await.expect("receiver alive"),
    |rx| rx.recv().await
);

mpsc_impl!(
    /// `tokio::sync::mpsc::unbounded_channel`.
    TokioUnbounded,
    tokio::sync::mpsc::UnboundedSender<usize>,
    tokio::sync::mpsc::UnboundedReceiver<usize>,
    |_cap| tokio::sync::mpsc::unbounded_channel(),
    |tx, v| tx.send(v).expect("receiver alive"),
    |rx| rx.recv().await
);

mpsc_impl!(
    /// `async_channel::bounded` (smol's ecosystem).
    AsyncChannelBounded,
    async_channel::Sender<usize>,
    async_channel::Receiver<usize>,
    |cap| async_channel::bounded(cap),
    |tx, v| tx.send(v).await.expect("receiver alive"),
    |rx| rx.recv().await.ok()
);

mpsc_impl!(
    /// `async_channel::unbounded` (smol's ecosystem).
    AsyncChannelUnbounded,
    async_channel::Sender<usize>,
    async_channel::Receiver<usize>,
    |_cap| async_channel::unbounded(),
    |tx, v| tx.try_send(v).expect("receiver alive"),
    |rx| rx.recv().await.ok()
);

/// `PRODUCERS` tasks each send `MESSAGES` into one channel (capacity `CONTENTION_CAP`
/// when bounded); `block_on` receives them all.
pub fn mpsc_contention<B: Bench, M: Mpsc>(rt: &B) -> Iteration<'_> {
    let sp = rt.spawner();
    Box::new(move || {
        let sp = sp.clone();
        rt.block_on(async move {
            let (tx, mut rx) = M::channel(CONTENTION_CAP);
            for _ in 0..PRODUCERS {
                let tx = tx.clone();
                sp.spawn_detached(async move {
                    for i in 0..MESSAGES {
                        M::send(&tx, i).await;
                    }
                });
            }
            drop(tx);
            for _ in 0..PRODUCERS * MESSAGES {
                M::recv(&mut rx).await.expect("a message");
            }
        })
    })
}

/// One task sends `MESSAGES` into a channel with room for all, then receives them all.
pub fn mpsc_uncontended<B: Bench, M: Mpsc>(rt: &B) -> Iteration<'_> {
    Box::new(move || {
        rt.block_on(async move {
            let (tx, mut rx) = M::channel(MESSAGES);
            for i in 0..MESSAGES {
                M::send(&tx, i).await;
            }
            for _ in 0..MESSAGES {
                M::recv(&mut rx).await.expect("a message");
            }
        })
    })
}

/// Capacity 1: a spawned task sends `MESSAGES`, each waiting for `block_on` to take the
/// one before (a full channel at every send).
pub fn mpsc_full_ping<B: Bench, M: Mpsc>(rt: &B) -> Iteration<'_> {
    let sp = rt.spawner();
    Box::new(move || {
        let sp = sp.clone();
        rt.block_on(async move {
            let (tx, mut rx) = M::channel(1);
            sp.spawn_detached(async move {
                for i in 0..MESSAGES {
                    M::send(&tx, i).await;
                }
            });
            for _ in 0..MESSAGES {
                M::recv(&mut rx).await.expect("a message");
            }
        })
    })
}

/// The shape of a fan-out workload (watch or broadcast).
#[derive(Clone, Copy, Debug)]
pub struct FanOut {
    /// Receiver tasks.
    pub receivers: usize,
    /// Values sent.
    pub values: usize,
    /// [`busy_work`] rounds each receiver runs per value it receives.
    pub work: u32,
    /// The sender waits until every receiver is done with a value before it sends the
    /// next (tokio's `sync_watch` bench shape); otherwise it sends freely, yielding every
    /// 16 sends.
    pub lockstep: bool,
}

/// `watch_fanout` and `broadcast_fanout`: `RECEIVERS` receivers, `UPDATES` values, no
/// work, a free-running sender.
pub const FANOUT_16: FanOut = FanOut {
    receivers: RECEIVERS,
    values: UPDATES,
    work: 0,
    lockstep: false,
};

/// `watch_fanout_100` and `broadcast_fanout_100`: `RECEIVERS_100` receivers,
/// `UPDATES_100` values, `WORK_ROUNDS` of work per value received, in lockstep.
pub const FANOUT_100: FanOut = FanOut {
    receivers: RECEIVERS_100,
    values: UPDATES_100,
    work: WORK_ROUNDS,
    lockstep: true,
};

/// A deterministic CPU-bound loop of `rounds` xorshift steps, each through `black_box`
/// so the compiler neither folds nor vectorizes it: the per-value work of a receiver.
pub fn busy_work(rounds: u32) -> u64 {
    let mut x = std::hint::black_box(0x9E37_79B9_7F4A_7C15_u64);
    for _ in 0..rounds {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x = std::hint::black_box(x);
    }
    x
}

/// What a lockstep fan-out's sender waits on: each receiver counts a value off
/// `pending`, and the one that takes it to zero signals the sender. Runtime-neutral
/// ([`AsyncSignal`]), so only the channel and the scheduler differ between runtimes.
struct Countdown {
    pending: AtomicUsize,
    done: AsyncTx,
}

impl Countdown {
    /// One receiver is done with the current value.
    fn count(&self) {
        // AcqRel (more than needed; this is not what is measured): the decrements form
        // one read-modify-write chain, and the signal (Release / Acquire) orders its last
        // link before the sender's next `store`.
        if self.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.done.notify();
        }
    }
}

/// A watch channel as the workloads use it.
pub trait Watch: 'static {
    /// The sending half.
    type Tx: Send + 'static;
    /// The receiving half.
    type Rx: Clone + Send + 'static;
    /// A channel holding 0.
    fn channel() -> (Self::Tx, Self::Rx);
    /// Replaces the value.
    fn send(tx: &Self::Tx, v: usize);
    /// Waits for a change and returns the value now (`None` when closed).
    fn changed(rx: &mut Self::Rx) -> impl Future<Output = Option<usize>> + Send + '_;
}

/// `runtime::sync::watch`.
pub struct OursWatch;

impl Watch for OursWatch {
    type Tx = runtime::sync::watch::Sender<usize>;
    type Rx = runtime::sync::watch::Receiver<usize>;
    fn channel() -> (Self::Tx, Self::Rx) {
        runtime::sync::watch::channel(0)
    }
    fn send(tx: &Self::Tx, v: usize) {
        tx.send(v).expect("receivers alive");
    }
    async fn changed(rx: &mut Self::Rx) -> Option<usize> {
        rx.changed().await.ok()?;
        Some(*rx.borrow_and_update())
    }
}

/// `tokio::sync::watch`.
pub struct TokioWatch;

impl Watch for TokioWatch {
    type Tx = tokio::sync::watch::Sender<usize>;
    type Rx = tokio::sync::watch::Receiver<usize>;
    fn channel() -> (Self::Tx, Self::Rx) {
        tokio::sync::watch::channel(0)
    }
    fn send(tx: &Self::Tx, v: usize) {
        tx.send(v).expect("receivers alive");
    }
    async fn changed(rx: &mut Self::Rx) -> Option<usize> {
        rx.changed().await.ok()?;
        Some(*rx.borrow_and_update())
    }
}

/// `RECEIVERS` tasks wait on one watch channel until they see the last of `UPDATES`
/// values, sent by `block_on` (yielding every 16 sends so the receivers wake in between).
pub fn watch_fanout<B: Bench, W: Watch>(rt: &B) -> Iteration<'_> {
    watch_fanout_with::<B, W>(rt, FANOUT_16)
}

/// `RECEIVERS_100` tasks each run `WORK_ROUNDS` of [`busy_work`] per value of one watch
/// channel; `block_on` sends `UPDATES_100` values, each once all receivers are done with
/// the one before.
pub fn watch_fanout_100<B: Bench, W: Watch>(rt: &B) -> Iteration<'_> {
    watch_fanout_with::<B, W>(rt, FANOUT_100)
}

/// `fan.receivers` tasks wait on one watch channel, run `fan.work` per value they see,
/// and stop at the last of `fan.values` values, sent by `block_on` (in lockstep or
/// yielding every 16 sends).
pub fn watch_fanout_with<B: Bench, W: Watch>(rt: &B, fan: FanOut) -> Iteration<'_> {
    let sp = rt.spawner();
    Box::new(move || {
        let sp = sp.clone();
        rt.block_on(async move {
            let (tx, rx) = W::channel();
            let (done, mut all_done) = AsyncSignal::channel();
            let countdown = Arc::new(Countdown {
                pending: AtomicUsize::new(0),
                done,
            });
            let mut joins = Vec::with_capacity(fan.receivers);
            for _ in 0..fan.receivers {
                let mut rx = rx.clone();
                let countdown = countdown.clone();
                joins.push(sp.spawn(async move {
                    while let Some(v) = W::changed(&mut rx).await {
                        std::hint::black_box(busy_work(fan.work));
                        if fan.lockstep {
                            countdown.count();
                        }
                        if v == fan.values {
                            return;
                        }
                    }
                    panic!("closed before the last value");
                }));
            }
            for v in 1..=fan.values {
                if fan.lockstep {
                    // Relaxed: the send publishes it to the receivers.
                    countdown.pending.store(fan.receivers, Ordering::Relaxed);
                    W::send(&tx, v);
                    all_done.recv().await;
                } else {
                    W::send(&tx, v);
                    if v % 16 == 0 {
                        sp.yield_now().await;
                    }
                }
            }
            for j in joins {
                j.await;
            }
            drop(tx);
        })
    })
}

/// A broadcast channel as the workloads use it.
pub trait Broadcast: 'static {
    /// The sending half.
    type Tx: Send + Sync + 'static;
    /// The receiving half.
    type Rx: Send + 'static;
    /// A channel keeping `cap` values, and its first receiver.
    fn channel(cap: usize) -> (Self::Tx, Self::Rx);
    /// Another receiver.
    fn subscribe(tx: &Self::Tx) -> Self::Rx;
    /// Sends to every receiver (never waits).
    fn send(tx: &Self::Tx, v: usize) -> impl Future<Output = ()> + Send + '_;
    /// `Some(Some(v))`: a value; `Some(None)`: lagged; `None`: closed.
    fn recv(rx: &mut Self::Rx) -> impl Future<Output = Option<Option<usize>>> + Send + '_;
}

/// `runtime::sync::broadcast`.
pub struct OursBroadcast;

impl Broadcast for OursBroadcast {
    type Tx = runtime::sync::broadcast::Sender<usize>;
    type Rx = runtime::sync::broadcast::Receiver<usize>;
    fn channel(cap: usize) -> (Self::Tx, Self::Rx) {
        runtime::sync::broadcast::channel(cap)
    }
    fn subscribe(tx: &Self::Tx) -> Self::Rx {
        tx.subscribe()
    }
    async fn send(tx: &Self::Tx, v: usize) {
        tx.send(v).expect("receivers alive");
    }
    async fn recv(rx: &mut Self::Rx) -> Option<Option<usize>> {
        use runtime::sync::broadcast::error::RecvError;
        match rx.recv().await {
            Ok(v) => Some(Some(v)),
            Err(RecvError::Lagged(_)) => Some(None),
            Err(RecvError::Closed) => None,
        }
    }
}

/// `tokio::sync::broadcast`.
pub struct TokioBroadcast;

impl Broadcast for TokioBroadcast {
    type Tx = tokio::sync::broadcast::Sender<usize>;
    type Rx = tokio::sync::broadcast::Receiver<usize>;
    fn channel(cap: usize) -> (Self::Tx, Self::Rx) {
        tokio::sync::broadcast::channel(cap)
    }
    fn subscribe(tx: &Self::Tx) -> Self::Rx {
        tx.subscribe()
    }
    async fn send(tx: &Self::Tx, v: usize) {
        tx.send(v).expect("receivers alive");
    }
    async fn recv(rx: &mut Self::Rx) -> Option<Option<usize>> {
        use tokio::sync::broadcast::error::RecvError;
        match rx.recv().await {
            Ok(v) => Some(Some(v)),
            Err(RecvError::Lagged(_)) => Some(None),
            Err(RecvError::Closed) => None,
        }
    }
}

/// `async_broadcast` (smol's ecosystem), in overflow mode so a full ring drops its oldest
/// value as the others do (instead of making the sender wait).
pub struct AsyncBroadcast;

impl Broadcast for AsyncBroadcast {
    type Tx = async_broadcast::Sender<usize>;
    type Rx = async_broadcast::Receiver<usize>;
    fn channel(cap: usize) -> (Self::Tx, Self::Rx) {
        let (mut tx, rx) = async_broadcast::broadcast(cap);
        tx.set_overflow(true);
        (tx, rx)
    }
    fn subscribe(tx: &Self::Tx) -> Self::Rx {
        tx.new_receiver()
    }
    async fn send(tx: &Self::Tx, v: usize) {
        tx.broadcast(v).await.expect("receivers alive");
    }
    async fn recv(rx: &mut Self::Rx) -> Option<Option<usize>> {
        use async_broadcast::RecvError;
        match rx.recv().await {
            Ok(v) => Some(Some(v)),
            Err(RecvError::Overflowed(_)) => Some(None),
            Err(RecvError::Closed) => None,
        }
    }
}

/// `RECEIVERS` tasks each receive every one of `UPDATES` values (the ring keeps 1,024, so
/// nobody should lag; a lag is counted as received up to the next value) sent by
/// `block_on`, yielding every 16 sends.
pub fn broadcast_fanout<B: Bench, C: Broadcast>(rt: &B) -> Iteration<'_> {
    broadcast_fanout_with::<B, C>(rt, FANOUT_16)
}

/// `RECEIVERS_100` tasks each receive every one of `UPDATES_100` values and run
/// `WORK_ROUNDS` of [`busy_work`] per value; `block_on` sends each value once all
/// receivers are done with the one before.
pub fn broadcast_fanout_100<B: Bench, C: Broadcast>(rt: &B) -> Iteration<'_> {
    broadcast_fanout_with::<B, C>(rt, FANOUT_100)
}

/// `fan.receivers` tasks each receive the `fan.values` values sent by `block_on` (in
/// lockstep or yielding every 16 sends) and run `fan.work` per value. The ring keeps
/// 1,024; outside lockstep a lag is counted as received up to the next value, in lockstep
/// (one value in flight) it cannot happen and panics.
pub fn broadcast_fanout_with<B: Bench, C: Broadcast>(rt: &B, fan: FanOut) -> Iteration<'_> {
    let sp = rt.spawner();
    Box::new(move || {
        let sp = sp.clone();
        rt.block_on(async move {
            let (tx, rx0) = C::channel(1024);
            let (done, mut all_done) = AsyncSignal::channel();
            let countdown = Arc::new(Countdown {
                pending: AtomicUsize::new(0),
                done,
            });
            let mut joins = Vec::with_capacity(fan.receivers);
            for _ in 0..fan.receivers {
                let mut rx = C::subscribe(&tx);
                let countdown = countdown.clone();
                joins.push(sp.spawn(async move {
                    loop {
                        match C::recv(&mut rx).await {
                            Some(Some(v)) => {
                                std::hint::black_box(busy_work(fan.work));
                                if fan.lockstep {
                                    countdown.count();
                                }
                                if v + 1 == fan.values {
                                    return;
                                }
                            }
                            Some(None) if fan.lockstep => panic!("lagged in lockstep"),
                            Some(None) => {}
                            None => panic!("closed before the last value"),
                        }
                    }
                }));
            }
            drop(rx0);
            for v in 0..fan.values {
                if fan.lockstep {
                    // Relaxed: the send publishes it to the receivers.
                    countdown.pending.store(fan.receivers, Ordering::Relaxed);
                    C::send(&tx, v).await;
                    all_done.recv().await;
                } else {
                    C::send(&tx, v).await;
                    if v % 16 == 15 {
                        sp.yield_now().await;
                    }
                }
            }
            for j in joins {
                j.await;
            }
        })
    })
}
