//! A full ring spills into the overflow queue, which workers take before the queue of
//! remote spawns: tasks already under way never wait behind a backlog of unstarted spawns
//! (timers fire on time under a load of remote spawns), and the spawns still get their
//! turn.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use runtime::Builder;

#[test]
fn overflowed_local_tasks_run_before_a_backlog_of_remote_spawns() {
    watchdog("the overflowed local tasks", || {
        const REMOTE: usize = 10_000;
        const LOCAL: usize = 600;
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        // 'L': a task spawned on the worker (so far more than its ring holds); 'R': a remote one.
        let order = Arc::new(Mutex::new(Vec::with_capacity(REMOTE + LOCAL)));
        let backlog_ready = Arc::new(AtomicBool::new(false));
        let (done_tx, done_rx) = mpsc::channel();
        let (o, ready) = (order.clone(), backlog_ready.clone());
        drop(rt.spawn(async move {
            // Wait (on the only worker) until the remote backlog is queued behind us.
            while !ready.load(SeqCst) {
                std::thread::yield_now();
            }
            for _ in 0..LOCAL {
                let o = o.clone();
                drop(runtime::spawn(async move { o.lock().unwrap().push('L') }));
            }
        }));
        for i in 0..REMOTE {
            let (o, done_tx) = (order.clone(), done_tx.clone());
            drop(rt.spawn(async move {
                o.lock().unwrap().push('R');
                if i == REMOTE - 1 {
                    done_tx.send(()).unwrap();
                }
            }));
        }
        backlog_ready.store(true, SeqCst);
        done_rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the remote tasks never all ran");
        // Let the local stragglers (if any) finish.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while order.lock().unwrap().len() < REMOTE + LOCAL {
            assert!(std::time::Instant::now() < deadline, "local tasks lost");
            std::thread::sleep(Duration::from_millis(1));
        }
        let order = order.lock().unwrap();
        let last_local = order.iter().rposition(|&c| c == 'L').unwrap();
        let remote_before = order[..last_local].iter().filter(|&&c| c == 'R').count();
        assert!(
            remote_before < REMOTE / 2,
            "{remote_before} of {REMOTE} remote spawns ran before the last local task: the \
         overflowed local tasks waited behind the remote backlog"
        );
    })
}
