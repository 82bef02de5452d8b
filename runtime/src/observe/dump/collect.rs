//! Gathering a dump: the leaves' waiters first, then the queues' never-parked tasks (the
//! workers' own queues, claimed and requeued, then the global queues and the `LocalSet`s'
//! remote queues), then the owned lists, then the blocking pool, one lock at a time (the
//! order and what each step may see: the module doc of `dump`).
//!
//! Every callback that runs under a leaf's or a shard's lock only reads the waker's task
//! id (an atomic, possibly assigning the id with a CAS), or the waits in a task's own
//! slots (atomic loads), and pushes into a local `Vec`: it takes no other lock, wakes
//! nothing and drops no waker.

use std::collections::{HashMap, HashSet};
use std::ptr::NonNull;

use task::{Header, TaskState, TaskView};

use super::{graph, Dump, IoDirection, TaskDump, WaitsOn};
use crate::observe::runtime_metrics::RuntimeMetrics;
use crate::scheduler;
use task::Id;

/// Dumps the runtime behind `handle`.
pub(crate) fn collect(handle: &scheduler::Handle) -> Dump {
    let waits = leaf_waits(handle);
    let mut tasks = Vec::new();
    // The waits written in the tasks' own slots (`task::waits::inline`), read as the walk
    // passes each idle task.
    let mut inline: Vec<(Id, WaitsOn)> = Vec::new();
    // Lock holders are known by header address: resolved against the tasks found alive.
    let mut by_header: HashMap<usize, Id> = HashMap::new();
    let mut on_task = |local_set, view: &TaskView<'_>| {
        let meta = view.meta();
        by_header.insert(view.header().as_ptr() as usize, meta.id());
        if view.state() == TaskState::Idle {
            view.for_each_inline_wait(|w| inline.push((meta.id(), inline_wait(w))));
        }
        tasks.push(TaskDump {
            id: meta.id(),
            meta,
            state: view.state(),
            waits: Vec::new(),
            unwakeable: view.is_unwakeable(),
            local_set,
            unpolled: !view.is_bound(),
        })
    };
    // A queued task that never parked, of the runtime (`local_set` None) or of a set.
    let mut on_queued = |local_set, ptr: NonNull<Header>| {
        // SAFETY: the caller holds the queue's reference to the task (a queue's lock, held
        // for its walk, or a `Notified` claimed off a worker's queue) for this call.
        let view = unsafe { TaskView::queued(ptr) };
        // A bound task is in the owned list, walked below.
        if !view.is_bound() {
            on_task(local_set, &view);
        }
    };
    match handle {
        scheduler::Handle::MultiThread(h) => {
            // First, so that the tasks it moves to `inject` are seen there too if no
            // worker took them meanwhile (the duplicates go below).
            h.claim_worker_queues(|task| on_queued(None, header_of(task)));
            h.shared.inject.for_each_node(|p| on_queued(None, p));
            h.shared.overflow.for_each_node(|p| on_queued(None, p));
        }
        scheduler::Handle::CurrentThread(h) => {
            h.shared.inject.for_each_node(|p| on_queued(None, p))
        }
    }
    let sets = crate::task::local_dump::driven_by(handle.id());
    for set in &sets {
        let id = Some(set.id());
        set.remote().for_each_node(|p| on_queued(id, p));
    }
    match handle {
        scheduler::Handle::MultiThread(h) => h.shared.owned.for_each_task(|v| on_task(None, v)),
        scheduler::Handle::CurrentThread(h) => h.shared.owned.for_each_task(|v| on_task(None, v)),
    }
    for set in &sets {
        let id = Some(set.id());
        set.owned().for_each_task(|v| on_task(id, v));
    }
    // A queued task that parked between two walks is in both: keep the list's entry. One
    // seen in two queues (claimed, then found in `inject`) is listed once.
    let bound: HashSet<Id> = tasks.iter().filter(|t| !t.unpolled).map(|t| t.id).collect();
    let mut queued = HashSet::new();
    tasks.retain(|t| !t.unpolled || (!bound.contains(&t.id) && queued.insert(t.id)));
    // A task in its first poll is in no list: the workers polling one say which.
    if let scheduler::Handle::MultiThread(h) = handle {
        let listed: HashSet<Id> = tasks.iter().map(|t| t.id).collect();
        for meta in scheduler::multi_thread::monitor::running_tasks(h) {
            if !listed.contains(&meta.id()) {
                tasks.push(TaskDump {
                    id: meta.id(),
                    meta,
                    state: TaskState::Running,
                    waits: Vec::new(),
                    unwakeable: false,
                    local_set: None,
                    unpolled: false,
                });
            }
        }
    }
    let own = tasks.iter().filter(|t| t.local_set.is_none()).count();
    let alive = RuntimeMetrics::new(handle.clone())
        .num_alive_tasks()
        .max(own);
    let blocking = handle.blocking().dump();
    let mut by_id: HashMap<Id, Vec<WaitsOn>> = HashMap::new();
    for (id, wait, holder) in waits {
        let wait = match (wait, holder) {
            (
                WaitsOn::Sync {
                    kind, object, at, ..
                },
                Some(addr),
            ) => WaitsOn::Sync {
                kind,
                object,
                holder: by_header.get(&addr).copied(),
                at,
            },
            (wait, _) => wait,
        };
        by_id.entry(id).or_default().push(wait);
    }
    for (id, wait) in inline {
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
        blocking,
    }
}

/// What a wait read from a task's own slots is, as a dump names it.
fn inline_wait(w: task::waits::inline::InlineWait) -> WaitsOn {
    match w.target() {
        Some(task) => WaitsOn::Join { task },
        None => WaitsOn::Sync {
            kind: w.kind.name(),
            object: w.object,
            holder: None,
            at: None,
        },
    }
}

/// The header of a task a run queue's reference (`Notified`) stands for.
fn header_of(task: &scheduler::RunTask) -> NonNull<Header> {
    NonNull::new(task.addr() as *mut Header).expect("a task's header is never null")
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
        let wait = match (r.wait.target, r.wait.kind) {
            (Some(task), _) => WaitsOn::Join { task },
            // Its record's word is the set's task count (task::waits).
            (None, task::waits::WaitKind::JoinSet) => WaitsOn::JoinSet {
                object: r.wait.object,
                tasks: r.holder.unwrap_or(0),
            },
            (None, task::waits::WaitKind::Signal) => WaitsOn::Signal {
                signal: r.wait.object as i32,
            },
            (None, kind) => WaitsOn::Sync {
                kind: kind.name(),
                object: r.wait.object,
                holder: None,
                at: r.wait.at,
            },
        };
        // Only a lock's word names a holder.
        let holder = r.holder.filter(|_| matches!(wait, WaitsOn::Sync { .. }));
        out.push((id, wait, holder));
    }
    out
}
