//! Every `sync_locks` workload, twice, on each primitive family and its runtime (2
//! workers), and async-lock's family on ours: finishing is the assertion (a lost permit
//! or wake-up hangs, which the watchdog turns into a failure), and the mutex and rwlock
//! workloads check their counts. Likewise the
//! `notify_waiters` floor (`benches::workloads::notify_floor`) on ours and on tokio.

use std::time::Duration;

use benches::adapters::ours::Ours;
use benches::adapters::smol::SmolExecutor;
use benches::adapters::tokio_rt::Tokio;
use benches::workloads::notify_floor::notify_waiters_floor;
use benches::workloads::scheduler::Iteration;
use benches::workloads::sync_locks::*;
use benches::{Bench, Flavor};

type Workload<B> = for<'a> fn(&'a B) -> Iteration<'a>;

const MT: Flavor = Flavor::MultiThread(2);

fn all<B: Bench, K: SyncKit>(make: impl Fn() -> B) {
    let list: [(&str, Workload<B>); 10] = [
        ("semaphore_uncontended", semaphore_uncontended::<B, K>),
        ("semaphore_contended_1", semaphore_contended_1::<B, K>),
        ("semaphore_contended_n", semaphore_contended_n::<B, K>),
        ("mutex_contended", mutex_contended::<B, K>),
        ("mutex_handoff", mutex_handoff::<B, K>),
        ("rwlock_read_uncontended", rwlock_read_uncontended::<B, K>),
        ("rwlock_read_contended", rwlock_read_contended::<B, K>),
        ("rwlock_write_held", rwlock_write_held::<B, K>),
        ("notify_one", notify_one::<B, K>),
        ("notify_waiters", notify_waiters::<B, K>),
    ];
    for (name, workload) in list {
        let rt = make();
        let mut iteration = workload(&rt);
        iteration();
        iteration();
        drop(iteration);
        drop(rt);
        eprintln!("{name}: ok");
    }
}

/// Runs `f` on a thread and fails if it takes more than 60 s.
fn watchdog(name: &'static str, f: fn()) {
    let (tx, rx) = std::sync::mpsc::channel();
    let t = std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(()) => t.join().unwrap(),
        Err(_) if t.is_finished() => {
            t.join().expect("the workloads panicked");
        }
        Err(_) => panic!("{name}: a sync_locks workload hung for 60 s"),
    }
}

/// The notify floor (`SlotNotify`) on our runtime and on tokio's: both iterations finish.
/// (The bench thread notifies until enough wake-ups were counted, so a missed wake-up here
/// is made up by the next call; this checks the workload runs, not the primitive.)
fn floor() {
    run_floor(|| Ours::new(MT));
    eprintln!("floor on ours: ok");
    run_floor(|| Tokio::new(MT));
    eprintln!("floor on tokio: ok");
}

fn run_floor<B: Bench>(make: fn() -> B) {
    let rt = make();
    let mut iteration = notify_waiters_floor(&rt);
    iteration();
    iteration();
}

#[test]
fn notify_floor() {
    watchdog("notify_floor", floor);
}

#[test]
fn ours() {
    watchdog("ours", || all::<Ours, OursKit>(|| Ours::new(MT)));
}

#[test]
fn tokio() {
    watchdog("tokio", || all::<Tokio, TokioKit>(|| Tokio::new(MT)));
}

#[test]
fn asynclock_on_ours() {
    watchdog("asynclock_on_ours", || {
        all::<Ours, SmolKit>(|| Ours::new(MT))
    });
}

/// The hand-off workload on the current-thread flavor (what `instr_locks` counts).
#[test]
fn mutex_handoff_current_thread() {
    watchdog("mutex_handoff_current_thread", || {
        let rt = Ours::new(Flavor::CurrentThread);
        let mut iteration = mutex_handoff::<Ours, OursKit>(&rt);
        iteration();
        iteration();
        drop(iteration);
        let rt = Ours::new(Flavor::CurrentThread);
        let mut iteration = mutex_handoff::<Ours, SmolKit>(&rt);
        iteration();
        let rt = Tokio::new(Flavor::CurrentThread);
        let mut iteration = mutex_handoff::<Tokio, TokioKit>(&rt);
        iteration();
    });
}

#[test]
fn smol() {
    watchdog("smol", || {
        all::<SmolExecutor, SmolKit>(|| SmolExecutor::new(MT))
    });
}
