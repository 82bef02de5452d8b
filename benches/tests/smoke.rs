//! Every workload, once, on every runtime and flavor the bench files use: each iteration
//! returns only after its tasks all ran (the last one signals, or every handle resolved),
//! so finishing is the assertion; a lost wakeup or a deadlock shows up as a hang.

use benches::adapters::floor::Floor;
use benches::adapters::ours::{Ours, OursOneshot};
use benches::adapters::smol::{SmolExecutor, SmolStatic};
use benches::adapters::tokio_rt::{Tokio, TokioOneshot};
use benches::workloads::remote_threads::*;
use benches::workloads::scheduler::*;
use benches::{AsyncSignal, Bench, BlockingSignal, Flavor, Signal};

type Workload<B> = for<'a> fn(&'a B) -> Iteration<'a>;

/// Runs each workload twice (setup, two iterations, teardown) on a fresh runtime.
fn all<B: Bench, S: Signal>(make: impl Fn() -> B, floor_only: bool) {
    let mut list: Vec<(&str, Workload<B>)> = vec![
        ("spawn_many_local", spawn_many_local::<B, S>),
        ("ping_pong", ping_pong::<B, S>),
        ("yield_many", yield_many::<B, S>),
        ("chained_spawn", chained_spawn::<B, S>),
    ];
    if !floor_only {
        list.push(("spawn_many_remote_idle", spawn_many_remote_idle::<B, S>));
        list.push(("spawn_many_remote_busy1", spawn_many_remote_busy1::<B, S>));
        list.push(("spawn_many_remote_busy2", spawn_many_remote_busy2::<B, S>));
    }
    if make().flavor() != Flavor::CurrentThread {
        list.push(("spawn_remote_threads_1", spawn_remote_threads_1::<B, S>));
        list.push(("spawn_remote_threads_4", spawn_remote_threads_4::<B, S>));
        list.push(("spawn_remote_threads_64", spawn_remote_threads_64::<B, S>));
    }
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

const MT: Flavor = Flavor::MultiThread(2);

#[test]
fn ours_multi_thread() {
    all::<Ours, BlockingSignal>(|| Ours::new(MT), false);
}

#[test]
fn ours_current_thread() {
    all::<Ours, AsyncSignal>(|| Ours::new(Flavor::CurrentThread), false);
}

/// Two iterations of `ping_pong` over each runtime's own oneshot (the pair
/// `ping_pong_own_oneshot` in both bench files).
fn own_oneshot_pair<S: Signal>(flavor: Flavor) {
    let ours = Ours::new(flavor);
    let mut it = ping_pong_with::<Ours, S, OursOneshot>(&ours);
    it();
    it();
    let tokio = Tokio::new(flavor);
    let mut it = ping_pong_with::<Tokio, S, TokioOneshot>(&tokio);
    it();
    it();
}

#[test]
fn ping_pong_over_own_oneshots() {
    own_oneshot_pair::<BlockingSignal>(MT);
    own_oneshot_pair::<AsyncSignal>(Flavor::CurrentThread);
}

#[test]
fn tokio_multi_thread() {
    all::<Tokio, BlockingSignal>(|| Tokio::new(MT), false);
}

#[test]
fn tokio_current_thread() {
    all::<Tokio, AsyncSignal>(|| Tokio::new(Flavor::CurrentThread), false);
}

#[test]
fn smol_multi_thread() {
    all::<SmolExecutor, BlockingSignal>(|| SmolExecutor::new(MT), false);
}

#[test]
fn smol_current_thread() {
    all::<SmolExecutor, AsyncSignal>(|| SmolExecutor::new(Flavor::CurrentThread), false);
}

#[test]
fn smol_static_multi_thread() {
    all::<SmolStatic, BlockingSignal>(|| SmolStatic::new(MT), false);
}

#[test]
fn smol_static_current_thread() {
    all::<SmolStatic, AsyncSignal>(|| SmolStatic::new(Flavor::CurrentThread), false);
}

#[test]
fn floor_every_workload() {
    all::<Floor, AsyncSignal>(Floor::new, false);
}

#[test]
fn floor_with_multi_thread_file_workloads() {
    all::<Floor, AsyncSignal>(Floor::new, true);
}

/// The metrics table divides each counter by the iterations and sums the workers: with
/// 2 workers that spawned 30 + 10 and completed 20 + 20 tasks over 10 iterations, the rows
/// read 3.0 / 1.0 spawned and 2.0 / 2.0 completed, the "all" row 4.0 and 4.0.
#[test]
fn metrics_table_shows_spawned_and_completed_per_iteration() {
    use benches::metrics::{format_metrics_table, MetricsTable, METRICS_COLUMNS};
    let at = |name: &str| METRICS_COLUMNS.iter().position(|c| *c == name).expect(name);
    let worker = |spawned, completed| {
        let mut counts = [0; 12];
        counts[at("spawned")] = spawned;
        counts[at("completed")] = completed;
        (counts, std::time::Duration::ZERO)
    };
    let m = MetricsTable {
        num_workers: 2,
        workers: vec![worker(30, 20), worker(10, 20)],
        ..MetricsTable::default()
    };
    let table = format_metrics_table("g", 10, &m);
    let lines: Vec<&str> = table.lines().collect();
    let header: Vec<&str> = lines[1].split_whitespace().collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (sp, co) = (col("spawned"), col("completed"));
    let cells = |row: &str| -> Vec<String> { row.split_whitespace().map(str::to_string).collect() };
    let w0 = cells(lines[2]);
    let w1 = cells(lines[3]);
    let all = cells(lines[4]);
    assert_eq!(
        (w0[sp].as_str(), w0[co].as_str()),
        ("3.0", "2.0"),
        "{table}"
    );
    assert_eq!(
        (w1[sp].as_str(), w1[co].as_str()),
        ("1.0", "2.0"),
        "{table}"
    );
    assert_eq!(all[0], "all", "{table}");
    assert_eq!(
        (all[sp].as_str(), all[co].as_str()),
        ("4.0", "4.0"),
        "{table}"
    );
}
