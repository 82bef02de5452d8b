//! loom models for `JoinSet`'s completion list (`runtime::task::ReadyList`, the shipping
//! code through the shim): entry wakers firing from other threads (tasks completing on
//! workers) race the set taking the ready indices and installing its waker. Each model
//! asserts that every completion is seen exactly once and that the set is woken for it
//! (a lost wake-up leaves `block_on` parked forever, which loom reports as a deadlock).
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 3 when unset.

#![cfg(loom)]

use std::future::poll_fn;
use std::task::Poll;

use loom::future::block_on;
use loom::thread;
use runtime::task::ReadyList;

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound.get_or_insert(3);
    builder.check(f);
}

/// Waits, as `JoinSet::poll_join_next` does, until `n` distinct indices were taken;
/// panics on a duplicate.
fn join_all(list: &ReadyList, n: usize) -> Vec<usize> {
    let mut seen = Vec::new();
    let mut batch = Vec::new();
    block_on(poll_fn(|cx| loop {
        list.take(&mut batch, Some(cx.waker()));
        if batch.is_empty() {
            return if seen.len() == n {
                Poll::Ready(())
            } else {
                Poll::Pending
            };
        }
        for i in batch.drain(..) {
            assert!(!seen.contains(&i), "index {i} taken twice");
            seen.push(i);
        }
    }));
    seen.sort();
    seen
}

/// Two tasks complete on two workers while the set waits for both.
#[test]
fn two_completions_racing_the_set() {
    model(|| {
        let list = ReadyList::new();
        let wakers: Vec<_> = (0..2).map(|i| ReadyList::entry_waker(&list, i)).collect();
        let threads: Vec<_> = wakers
            .into_iter()
            .map(|w| thread::spawn(move || w.wake()))
            .collect();
        assert_eq!(join_all(&list, 2), [0, 1]);
        for t in threads {
            t.join().unwrap();
        }
    });
}

/// The set polls with one waker, then waits with another (a `JoinSet` moved to another
/// task) while a completion arrives: the wake must reach the new waker.
#[test]
fn waker_replaced_while_a_completion_arrives() {
    model(|| {
        let list = ReadyList::new();
        let w = ReadyList::entry_waker(&list, 3);
        let t = thread::spawn(move || w.wake_by_ref());
        let mut batch = Vec::new();
        list.take(&mut batch, Some(std::task::Waker::noop()));
        let mut seen = batch.clone();
        if seen.is_empty() {
            seen = join_all(&list, 1);
        }
        assert_eq!(seen, [3]);
        t.join().unwrap();
    });
}
