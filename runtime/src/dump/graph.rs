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
use crate::task::Id;
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
