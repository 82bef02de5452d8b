//! Gathering a dump: the leaves' waiters first, then the owned list, one lock at a time
//! (the order and what each step may see: the module doc of `dump`).
//!
//! Every callback that runs under a leaf's or a shard's lock only reads the waker's task
//! id (an atomic, possibly assigning the id with a CAS) and pushes into a local `Vec`: it
//! takes no other lock, wakes nothing and drops no waker.

use std::collections::HashMap;

use task::{TaskState, TaskView};

use super::{graph, Dump, IoDirection, TaskDump, WaitsOn};
use crate::scheduler;
use crate::task::Id;

/// Dumps the runtime behind `handle`.
pub(crate) fn collect(handle: &scheduler::Handle) -> Dump {
    let waits = leaf_waits(handle);
    let mut tasks = Vec::new();
    // Lock holders are known by header address: resolved against the tasks found alive.
    let mut by_header: HashMap<usize, Id> = HashMap::new();
    let on_task = |view: &TaskView<'_>| {
        let meta = view.meta();
        by_header.insert(view.header().as_ptr() as usize, meta.id());
        tasks.push(TaskDump {
            id: meta.id(),
            meta,
            state: view.state(),
            waits: Vec::new(),
            unwakeable: view.is_unwakeable(),
        })
    };
    match handle {
        scheduler::Handle::MultiThread(h) => h.shared.owned.for_each_task(on_task),
        scheduler::Handle::CurrentThread(h) => h.shared.owned.for_each_task(on_task),
    }
    let alive = handle.metrics().num_alive_tasks().max(tasks.len());
    let mut by_id: HashMap<Id, Vec<WaitsOn>> = HashMap::new();
    for (id, wait, holder) in waits {
        let wait = match (wait, holder) {
            (WaitsOn::Sync { kind, object, .. }, Some(addr)) => WaitsOn::Sync {
                kind,
                object,
                holder: by_header.get(&addr).copied(),
            },
            (wait, _) => wait,
        };
        by_id.entry(id).or_default().push(wait);
    }
    for t in &mut tasks {
        // Only an idle task waits; a scheduled or running one left its waits behind.
        if t.state == TaskState::Idle {
            if let Some(w) = by_id.remove(&t.id) {
                t.waits = w;
            }
        }
    }
    tasks.sort_by_key(|t| t.id);
    let cycles = graph::cycles(&tasks);
    Dump {
        tasks,
        alive,
        cycles,
    }
}

/// Every waiter the leaves hold, as (task, what it waits on, the lock holder's header
/// address if any).
fn leaf_waits(handle: &scheduler::Handle) -> Vec<(Id, WaitsOn, Option<usize>)> {
    let mut out = Vec::new();
    let driver = handle.driver();
    if let Some(time) = driver.time_handle_opt() {
        time.for_each_timer_waiter(|deadline, waker| {
            if let Some(id) = task::waker_task_id(waker) {
                out.push((id, WaitsOn::Sleep { deadline }, None));
            }
        });
    }
    if let Some(io) = driver.io_handle_opt() {
        io.for_each_io_waiter(|fd, dir, waker| {
            if let Some(id) = task::waker_task_id(waker) {
                let direction = match dir {
                    io_driver::Direction::Read => IoDirection::Read,
                    io_driver::Direction::Write => IoDirection::Write,
                };
                out.push((id, WaitsOn::Io { fd, direction }, None));
            }
        });
    }
    for r in task::waits::snapshot() {
        let Some(id) = r.waiter else { continue };
        let wait = match r.wait.target {
            Some(task) => WaitsOn::Join { task },
            None => WaitsOn::Sync {
                kind: r.wait.kind,
                object: r.wait.object,
                holder: None,
            },
        };
        out.push((id, wait, r.holder));
    }
    out
}
