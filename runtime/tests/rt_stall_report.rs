//! `Builder::on_stall` reports: a poll that blocks its worker is reported once, with the
//! task's identity (id, name, spawn location), the worker, the time and a native backtrace
//! of the stuck thread; the other tasks keep running meanwhile.

#[macro_use]
mod support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use runtime::{Builder, Stall};
use support::watchdog;

const TICKERS: usize = 1_000;

/// The blocking call inside the stuck poll, by a name the backtrace must show.
#[inline(never)]
fn sleep_inside_a_poll() {
    std::thread::sleep(Duration::from_millis(200));
}

#[test]
fn a_blocking_poll_is_reported_once_with_its_task_and_native_backtrace() {
    watchdog("the stall report", || {
        let reports: Arc<Mutex<Vec<Stall>>> = Arc::default();
        let record = reports.clone();
        let rt = Builder::new_multi_thread()
            .worker_threads(4)
            .enable_all()
            .on_stall(Duration::from_millis(10), move |stall| {
                record.lock().unwrap().push(stall.clone());
            })
            .build()
            .unwrap();
        let ticks = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (blocker_id, spawn_line, (before, after)) = rt.block_on(async {
            let mut tickers = Vec::with_capacity(TICKERS);
            for _ in 0..TICKERS {
                let (ticks, stop) = (ticks.clone(), stop.clone());
                tickers.push(runtime::spawn(async move {
                    while !stop.load(SeqCst) {
                        runtime::time::sleep(Duration::from_millis(1)).await;
                        ticks.fetch_add(1, SeqCst);
                    }
                }));
            }
            let counted = ticks.clone();
            let body = async move {
                let before = counted.load(SeqCst);
                sleep_inside_a_poll();
                (before, counted.load(SeqCst))
            };
            let builder = runtime::task::Builder::new().name("blocker");
            let (blocker, spawn_line) = (builder.spawn(body).unwrap(), line!());
            let id = blocker.id();
            let ticked = blocker.await.unwrap();
            stop.store(true, SeqCst);
            for t in tickers {
                t.await.unwrap();
            }
            (id, spawn_line, ticked)
        });
        // Every callback under way is done once the runtime (its monitor) is.
        drop(rt);
        assert!(
            after > before,
            "no task ticked while the blocker held its worker ({before} -> {after})"
        );
        let reports = reports.lock().unwrap();
        let of_blocker: Vec<&Stall> = reports
            .iter()
            .filter(|s| s.task.as_ref().is_some_and(|t| t.id() == blocker_id))
            .collect();
        assert_eq!(
            of_blocker.len(),
            1,
            "one report for the blocking poll, got: {reports:#?}"
        );
        let stall = of_blocker[0];
        let task = stall.task.as_ref().unwrap();
        assert_eq!(task.name(), Some("blocker"), "{stall}");
        let at = task.spawned_at().expect("the spawn location");
        assert!(at.file().ends_with("rt_stall_report.rs"), "{stall}");
        assert_eq!(at.line(), spawn_line, "{stall}");
        assert!(stall.worker < 4, "{stall}");
        assert!(stall.elapsed >= Duration::from_millis(10), "{stall}");
        let text = stall.to_string();
        assert!(text.contains("'blocker'"), "{text}");
        let frames = stall.backtrace.symbols().join("\n");
        assert!(
            frames.contains("sleep_inside_a_poll"),
            "the backtrace misses the user's function:\n{text}"
        );
        assert!(
            frames.contains("std::thread::sleep")
                || frames.contains("thread::functions::sleep")
                || frames.contains("nanosleep"),
            "the backtrace misses the sleep:\n{text}"
        );
    })
}
