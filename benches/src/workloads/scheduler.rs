//! The scheduler workloads (tokio's `benches/rt_multi_threaded.rs`, re-implemented), each
//! written once for every runtime.
//!
//! Each function sets its workload up on `rt` (background tasks, channels, buffers) and
//! returns the closure criterion times: one call is one iteration. Whatever the setup
//! started (background loops) stops when the closure is dropped. `S` picks how the
//! bench thread learns that an iteration finished (see [`crate::Signal`]).
//!
//! Background load scales with the runtime's worker count, as in tokio's benches:
//! `spawn_many_remote_busy1` keeps 2 x workers yielding loops, `spawn_many_remote_busy2`
//! keeps `workers` self-respawning chains, each stalling `stall` per poll (10 us on the
//! multi-thread flavor; 0 on a single thread, where a 10 us stall per background poll
//! would make every remote task wait out dozens of stalls, as tokio's own current-thread
//! bench avoids).

use std::time::Duration;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use crate::{stall, Bench, Flavor, FuturesOneshot, Notify, Oneshot, Signal, Spawner};

/// Tasks per iteration of `spawn_many_local` / `spawn_many_remote_{idle,busy1}`.
pub const NUM_SPAWN: usize = 10_000;
/// Remote spawns per iteration of `spawn_many_remote_busy2`.
pub const BUSY2_SPAWN: usize = 1_000;
/// Ping-pong pairs per iteration.
pub const NUM_PINGS: usize = 1_000;
/// Tasks of `yield_many`, and how many times each yields.
pub const YIELD_TASKS: usize = 200;
/// Yields per `yield_many` task.
pub const NUM_YIELD: usize = 1_000;
/// Length of the `chained_spawn` chain.
pub const CHAIN: usize = 1_000;
/// Children a `join_await` root spawns and awaits, one after another.
pub const NUM_JOINS: usize = 1_000;
/// The background stall of the busy workloads on multi-thread runtimes.
pub const STALL: Duration = Duration::from_micros(10);

/// An iteration closure borrowing its runtime.
pub type Iteration<'a> = Box<dyn FnMut() + 'a>;

/// Clears a background loop's flag when the iteration closure is dropped.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        // Relaxed: a flag polled in a loop; the runtime's shutdown orders the rest.
        self.0.store(false, Relaxed);
    }
}

/// Inside `block_on`, spawn `NUM_SPAWN` tasks that each decrement a shared counter; the
/// last one signals; `block_on` waits for the signal.
pub fn spawn_many_local<B: Bench, S: Signal>(rt: &B) -> Iteration<'_> {
    let (tx, mut rx) = S::channel();
    let rem = Arc::new(AtomicUsize::new(0));
    let sp = rt.spawner();
    Box::new(move || {
        // Relaxed: the signal's channel orders the workers' decrements for the next store.
        rem.store(NUM_SPAWN, Relaxed);
        rt.block_on(async {
            for _ in 0..NUM_SPAWN {
                let tx = tx.clone();
                let rem = rem.clone();
                sp.spawn_detached(async move {
                    // Relaxed: only the count matters; the last task signals.
                    if rem.fetch_sub(1, Relaxed) == 1 {
                        tx.notify();
                    }
                });
            }
            rx.recv().await;
        });
    })
}

/// `spawn_many_remote_idle`: `NUM_SPAWN` remote spawns into an idle runtime.
pub fn spawn_many_remote_idle<B: Bench, S: Signal>(rt: &B) -> Iteration<'_> {
    remote_spawns(rt, NUM_SPAWN, None)
}

/// `spawn_many_remote_busy1`: `NUM_SPAWN` remote spawns while 2 x workers background
/// tasks loop `yield_now` + stall.
pub fn spawn_many_remote_busy1<B: Bench, S: Signal>(rt: &B) -> Iteration<'_> {
    let flag = Arc::new(AtomicBool::new(true));
    let dur = busy_stall(rt);
    for _ in 0..2 * rt.flavor().workers() {
        let flag = flag.clone();
        let sp = rt.spawner();
        rt.spawn_remote_detached(async move {
            // Relaxed: a stop flag, checked every round.
            while flag.load(Relaxed) {
                sp.yield_now().await;
                stall(dur);
            }
        });
    }
    remote_spawns(rt, NUM_SPAWN, Some(StopOnDrop(flag)))
}

/// `spawn_many_remote_busy2`: `BUSY2_SPAWN` remote spawns while `workers` chains each
/// stall and spawn their successor.
pub fn spawn_many_remote_busy2<B: Bench, S: Signal>(rt: &B) -> Iteration<'_> {
    fn link<Sp: Spawner>(sp: Sp, flag: Arc<AtomicBool>, dur: Duration) {
        let next = sp.clone();
        sp.spawn_detached(async move {
            // Relaxed: a stop flag.
            if flag.load(Relaxed) {
                stall(dur);
                link(next, flag, dur);
            }
        });
    }
    let flag = Arc::new(AtomicBool::new(true));
    let dur = busy_stall(rt);
    for _ in 0..rt.flavor().workers() {
        let flag = flag.clone();
        let sp = rt.spawner();
        rt.spawn_remote_detached(async move { link(sp, flag, dur) });
    }
    remote_spawns(rt, BUSY2_SPAWN, Some(StopOnDrop(flag)))
}

fn busy_stall<B: Bench>(rt: &B) -> Duration {
    match rt.flavor() {
        Flavor::MultiThread(_) => STALL,
        Flavor::CurrentThread => Duration::ZERO,
    }
}

/// Spawns `n` empty tasks from the bench thread, then awaits every handle in `block_on`.
fn remote_spawns<B: Bench>(rt: &B, n: usize, stop: Option<StopOnDrop>) -> Iteration<'_> {
    let mut handles = Vec::with_capacity(n);
    Box::new(move || {
        let _keep = &stop;
        for _ in 0..n {
            handles.push(rt.spawn_remote(async {}));
        }
        rt.block_on(async {
            for h in handles.drain(..) {
                h.await;
            }
        });
    })
}

/// A root task spawns `NUM_PINGS` tasks; each creates two oneshots, spawns a partner that
/// awaits the first and answers on the second, sends, awaits the answer and decrements
/// the counter; the last one signals. The channels are `futures::channel::oneshot` for
/// every runtime, so the channel is not what is measured.
pub fn ping_pong<B: Bench, S: Signal>(rt: &B) -> Iteration<'_> {
    ping_pong_with::<B, S, FuturesOneshot>(rt)
}

/// [`ping_pong`] over the channel `O` (a runtime's own oneshot, for the
/// `ping_pong_own_oneshot` pair: ours with `runtime::sync::oneshot`, tokio with its own).
pub fn ping_pong_with<B: Bench, S: Signal, O: Oneshot>(rt: &B) -> Iteration<'_> {
    let (tx, mut rx) = S::channel();
    let rem = Arc::new(AtomicUsize::new(0));
    let sp = rt.spawner();
    Box::new(move || {
        // Relaxed: as in `spawn_many_local`.
        rem.store(NUM_PINGS, Relaxed);
        let (tx, rem, sp) = (tx.clone(), rem.clone(), sp.clone());
        rt.block_on(async {
            let root = sp.clone();
            root.spawn_detached(async move {
                for _ in 0..NUM_PINGS {
                    let (tx, rem, partner) = (tx.clone(), rem.clone(), sp.clone());
                    sp.spawn_detached(async move {
                        let (tx1, rx1) = O::channel();
                        let (tx2, rx2) = O::channel();
                        partner.spawn_detached(async move {
                            assert!(rx1.await, "ping dropped");
                            assert!(O::send(tx2), "pong receiver dropped");
                        });
                        assert!(O::send(tx1), "ping receiver dropped");
                        assert!(rx2.await, "pong dropped");
                        // Relaxed: the count only; the signal orders the rest.
                        if rem.fetch_sub(1, Relaxed) == 1 {
                            tx.notify();
                        }
                    });
                }
            });
            rx.recv().await;
        });
    })
}

/// `join_await`: a root task spawns `NUM_JOINS` children one at a time and awaits each
/// one's join handle before the next (the child has not run yet, so every await parks the
/// root once on the handle: the join's slow path, from a task); then signals. For the
/// runtimes whose join handle is `Send` (not the floor's).
pub fn join_await<B: Bench, S: Signal>(rt: &B) -> Iteration<'_>
where
    <B::Spawner as Spawner>::Join<usize>: Send,
{
    let (tx, mut rx) = S::channel();
    let sp = rt.spawner();
    Box::new(move || {
        let (tx, sp) = (tx.clone(), sp.clone());
        rt.block_on(async {
            let root = sp.clone();
            root.spawn_detached(async move {
                for i in 0..NUM_JOINS {
                    assert_eq!(sp.spawn(async move { i }).await, i);
                }
                tx.notify();
            });
            rx.recv().await;
        });
    })
}

/// `YIELD_TASKS` tasks spawned from the bench thread each `yield_now` `NUM_YIELD` times,
/// then signal; the bench thread receives every signal.
pub fn yield_many<B: Bench, S: Signal>(rt: &B) -> Iteration<'_> {
    let (tx, mut rx) = S::channel();
    let sp = rt.spawner();
    Box::new(move || {
        for _ in 0..YIELD_TASKS {
            let (tx, sp) = (tx.clone(), sp.clone());
            rt.spawn_remote_detached(async move {
                for _ in 0..NUM_YIELD {
                    sp.yield_now().await;
                }
                tx.notify();
            });
        }
        rt.block_on(async {
            for _ in 0..YIELD_TASKS {
                rx.recv().await;
            }
        });
    })
}

/// A root task (spawned inside `block_on`) starts a chain of `CHAIN` tasks, each spawning
/// the next; the last signals.
pub fn chained_spawn<B: Bench, S: Signal>(rt: &B) -> Iteration<'_> {
    fn link<Sp: Spawner, T: Notify>(sp: Sp, tx: T, n: usize) {
        if n == 0 {
            tx.notify();
        } else {
            let next = sp.clone();
            sp.spawn_detached(async move { link(next, tx, n - 1) });
        }
    }
    let (tx, mut rx) = S::channel();
    let sp = rt.spawner();
    Box::new(move || {
        let (tx, next) = (tx.clone(), sp.clone());
        rt.block_on(async {
            sp.spawn_detached(async move { link(next, tx, CHAIN) });
            rx.recv().await;
        });
    })
}
