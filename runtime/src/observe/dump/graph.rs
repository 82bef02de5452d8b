//! The wait-for graph of a dump and its cycles.
//!
//! Nodes are the idle listed tasks; an edge goes from a task to the lock holder it waits
//! for (`WaitsOn::Sync` with a holder) and to the task whose `JoinHandle` it awaits. Only
//! idle tasks have edges: a scheduled or running task is making progress. A cycle is a
//! deadlock: every task in it waits for the next, none can run. Found by an iterative
//! depth-first search (three colors; a back edge closes a cycle, read off the path), each
//! cycle reported once, rotated to start at its smallest id.

use std::collections::HashMap;

use super::{TaskDump, WaitsOn};
use task::Id;
use task::TaskState;

/// The deadlock cycles among `tasks`.
pub(crate) fn cycles(tasks: &[TaskDump]) -> Vec<Vec<Id>> {
    let edges: HashMap<Id, Vec<Id>> = tasks
        .iter()
        .filter(|t| t.state == TaskState::Idle)
        .map(|t| {
            let out = t
                .waits
                .iter()
                .filter_map(|w| match w {
                    WaitsOn::Sync {
                        holder: Some(h), ..
                    } => Some(*h),
                    WaitsOn::Join { task } => Some(*task),
                    _ => None,
                })
                .filter(|to| *to != t.id)
                .collect::<Vec<_>>();
            (t.id, out)
        })
        .filter(|(_, out)| !out.is_empty())
        .collect();
    let mut found: Vec<Vec<Id>> = Vec::new();
    // 1: on the current path; 2: finished.
    let mut color: HashMap<Id, u8> = HashMap::new();
    let mut starts: Vec<Id> = edges.keys().copied().collect();
    starts.sort();
    for start in starts {
        if color.contains_key(&start) {
            continue;
        }
        // The path, each node with the index of its next edge to try.
        let mut path: Vec<(Id, usize)> = vec![(start, 0)];
        color.insert(start, 1);
        while let Some(&mut (node, ref mut next)) = path.last_mut() {
            let out = edges.get(&node).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(&to) = out.get(*next) {
                *next += 1;
                match color.get(&to) {
                    None => {
                        color.insert(to, 1);
                        path.push((to, 0));
                    }
                    Some(1) => {
                        let at = path.iter().position(|(n, _)| *n == to).unwrap_or(0);
                        found.push(normalize(path[at..].iter().map(|(n, _)| *n).collect()));
                    }
                    _ => {}
                }
            } else {
                color.insert(node, 2);
                path.pop();
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The cycle rotated to start at its smallest id.
fn normalize(mut cycle: Vec<Id>) -> Vec<Id> {
    if let Some(min) = (0..cycle.len()).min_by_key(|&i| cycle[i]) {
        cycle.rotate_left(min);
    }
    cycle
}

#[cfg(test)]
mod tests {
    use super::*;

    use task::TaskMeta;

    /// The identities of `n` real tasks, by id.
    fn metas(n: usize) -> Vec<TaskMeta> {
        let rt = crate::Builder::new_current_thread().build().unwrap();
        let mut metas: Vec<TaskMeta> = (0..n)
            .map(|_| {
                let j = rt.spawn(async { ::task::current_meta().unwrap() });
                rt.block_on(j).unwrap()
            })
            .collect();
        metas.sort_by_key(|m| m.id());
        metas
    }

    fn ids(n: usize) -> Vec<Id> {
        METAS.with(|m| {
            let mut m = m.borrow_mut();
            *m = metas(n);
            m.iter().map(|m| m.id()).collect()
        })
    }

    std::thread_local! {
        static METAS: std::cell::RefCell<Vec<TaskMeta>> = const { std::cell::RefCell::new(Vec::new()) };
    }

    fn task(id: Id, state: TaskState, waits: Vec<WaitsOn>) -> TaskDump {
        let meta = METAS.with(|m| m.borrow().iter().find(|m| m.id() == id).cloned().unwrap());
        TaskDump {
            id,
            meta,
            state,
            waits,
            unwakeable: false,
            local_set: None,
            unpolled: false,
        }
    }

    fn lock_held_by(h: Id) -> WaitsOn {
        WaitsOn::Sync {
            kind: "Mutex",
            object: 1,
            holder: Some(h),
            at: None,
        }
    }

    #[test]
    fn a_three_task_cycle_through_a_join_is_one_deadlock_from_its_smallest_id() {
        let mut id = ids(4);
        id.sort();
        let (a, b, c, d) = (id[0], id[1], id[2], id[3]);
        let tasks = vec![
            task(c, TaskState::Idle, vec![lock_held_by(a)]),
            task(a, TaskState::Idle, vec![WaitsOn::Join { task: b }]),
            task(b, TaskState::Idle, vec![lock_held_by(c)]),
            // Waits on the cycle without being in it.
            task(d, TaskState::Idle, vec![lock_held_by(b)]),
        ];
        assert_eq!(cycles(&tasks), vec![vec![a, b, c]]);
    }

    #[test]
    fn a_chain_or_a_running_link_is_no_deadlock() {
        let id = ids(3);
        let chain = vec![
            task(id[0], TaskState::Idle, vec![lock_held_by(id[1])]),
            task(id[1], TaskState::Idle, vec![lock_held_by(id[2])]),
        ];
        assert!(cycles(&chain).is_empty());
        let running = vec![
            task(id[0], TaskState::Idle, vec![lock_held_by(id[1])]),
            task(id[1], TaskState::Running, vec![lock_held_by(id[0])]),
        ];
        assert!(cycles(&running).is_empty());
    }

    #[test]
    fn two_cycles_sharing_no_task_are_both_reported() {
        let mut id = ids(4);
        id.sort();
        let tasks = vec![
            task(id[0], TaskState::Idle, vec![lock_held_by(id[1])]),
            task(id[1], TaskState::Idle, vec![lock_held_by(id[0])]),
            task(id[2], TaskState::Idle, vec![lock_held_by(id[3])]),
            task(id[3], TaskState::Idle, vec![lock_held_by(id[2])]),
        ];
        assert_eq!(cycles(&tasks), vec![vec![id[0], id[1]], vec![id[2], id[3]]]);
    }
}
