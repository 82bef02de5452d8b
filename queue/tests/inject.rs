//! Tests of the `Inject` queue: FIFO push/pop, batches in and out, close semantics, and
//! dropping remaining items exactly once (queue, chain, refused batch, panicking batch).

#![cfg(not(loom))]

mod common;

use common::{ids, Item, Tracker};
use queue::Inject;

#[test]
fn push_pop_fifo_and_len() {
    let q = Inject::new();
    assert!(q.is_empty());
    assert!(q.pop().is_none());
    for i in 0..10 {
        q.push(Item::new(i)).ok().unwrap();
        assert_eq!(q.len(), i + 1);
    }
    for i in 0..10 {
        assert_eq!(q.pop().unwrap().id(), i);
        assert_eq!(q.len(), 9 - i);
    }
    assert!(q.is_empty());
    assert!(q.pop().is_none());
    // The tail was reset: the queue works again after emptying.
    q.push(Item::new(42)).ok().unwrap();
    q.push(Item::new(43)).ok().unwrap();
    assert_eq!(ids(q.pop_n(5)), vec![42, 43]);
}

#[test]
fn push_batch_appends_in_order() {
    let q = Inject::new();
    q.push(Item::new(0)).ok().unwrap();
    q.push_batch((1..5).map(Item::new)).ok().unwrap();
    assert_eq!(q.len(), 5);
    q.push_batch(std::iter::empty()).ok().unwrap();
    assert_eq!(q.len(), 5);
    q.push_batch([Item::new(5)]).ok().unwrap();
    q.push(Item::new(6)).ok().unwrap();
    assert_eq!(q.len(), 7);
    assert_eq!(
        ids(std::iter::from_fn(|| q.pop())),
        (0..7).collect::<Vec<_>>()
    );
}

#[test]
fn fifo_across_interleaved_pushes_and_pops() {
    // Pushes land on the lock-free stack and pops move it to the locked list only when the
    // list runs short: items pushed while older ones still wait in the list come after them.
    let q = Inject::new();
    q.push_batch((0..3).map(Item::new)).ok().unwrap();
    assert_eq!(q.pop().unwrap().id(), 0); // moves 1, 2 to the list
    q.push(Item::new(3)).ok().unwrap();
    q.push_batch((4..6).map(Item::new)).ok().unwrap();
    assert_eq!(q.len(), 5);
    assert_eq!(ids(q.pop_n(2)), vec![1, 2]); // the list alone
    q.push(Item::new(6)).ok().unwrap();
    assert_eq!(ids(q.pop_n(2)), vec![3, 4]); // list empty: the stack, reversed
    q.push_batch((7..9).map(Item::new)).ok().unwrap();
    assert_eq!(ids(q.pop_n(3)), vec![5, 6, 7]); // list remainder, then the stack
    assert_eq!(q.len(), 1);
    assert_eq!(ids(q.pop_n(9)), vec![8]);
    assert!(q.is_empty());
}

#[test]
fn pop_n_detaches_front() {
    let q = Inject::new();
    q.push_batch((0..10).map(Item::new)).ok().unwrap();
    let c = q.pop_n(0);
    assert_eq!(c.len(), 0);
    drop(c);
    let mut c = q.pop_n(3);
    assert_eq!(c.len(), 3);
    assert_eq!(q.len(), 7);
    assert_eq!(c.next().unwrap().id(), 0);
    assert_eq!(c.len(), 2);
    assert_eq!(ids(c), vec![1, 2]);
    // Exactly the rest.
    assert_eq!(ids(q.pop_n(7)), (3..10).collect::<Vec<_>>());
    assert!(q.is_empty());
    // The tail was reset by taking everything.
    q.push(Item::new(10)).ok().unwrap();
    q.push_batch((11..13).map(Item::new)).ok().unwrap();
    // More than there is: takes all.
    let c = q.pop_n(100);
    assert_eq!(c.len(), 3);
    assert_eq!(ids(c), vec![10, 11, 12]);
    assert_eq!(q.pop_n(4).len(), 0);
}

#[test]
fn close_refuses_pushes_and_drains() {
    let q = Inject::new();
    q.push_batch((0..3).map(Item::new)).ok().unwrap();
    assert!(!q.is_closed());
    assert!(q.close());
    assert!(!q.close());
    assert!(q.is_closed());
    // A refused item comes back, and so does a refused batch, in order.
    assert_eq!(q.push(Item::new(7)).err().unwrap().id(), 7);
    let back = q.push_batch((10..14).map(Item::new)).err().unwrap();
    assert_eq!(back.len(), 4);
    assert_eq!(ids(back), vec![10, 11, 12, 13]);
    assert_eq!(q.len(), 3);
    // Pops still drain.
    assert_eq!(q.pop().unwrap().id(), 0);
    assert_eq!(ids(q.pop_n(10)), vec![1, 2]);
    assert!(q.pop().is_none());
}

#[test]
fn drop_inject_drops_remaining_once() {
    let t = Tracker::new(10);
    let q = Inject::new();
    q.push_batch((0..6).map(|i| t.item(i))).ok().unwrap();
    q.push(t.item(6)).ok().unwrap();
    drop(q.pop());
    assert_eq!(t.total(), 1);
    drop(q);
    t.assert_each_dropped_once(0..7);
    assert_eq!(t.drops(7), 0);
}

#[test]
fn drop_chain_drops_remaining_once() {
    let t = Tracker::new(10);
    let q = Inject::new();
    q.push_batch((0..10).map(|i| t.item(i))).ok().unwrap();
    let mut c = q.pop_n(6);
    let first = c.next().unwrap();
    drop(c);
    t.assert_each_dropped_once(1..6);
    assert_eq!(t.drops(0), 0);
    drop(first);
    assert_eq!(t.total(), 6);
    // A refused batch drops its items once too.
    q.close();
    let t2 = Tracker::new(3);
    drop(q.push_batch((0..3).map(|i| t2.item(i))).err().unwrap());
    t2.assert_each_dropped_once(0..3);
    drop(q);
    t.assert_each_dropped_once(0..10);
}

#[test]
fn panicking_batch_iterator_drops_linked_items() {
    let t = Tracker::new(5);
    let q = Inject::new();
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let items = (0..5).map(|i| {
            if i == 3 {
                panic!("boom");
            }
            t.item(i)
        });
        let _ = q.push_batch(items);
    }));
    assert!(res.is_err());
    assert!(q.is_empty());
    t.assert_each_dropped_once(0..3);
}

#[test]
fn concurrent_producers_and_consumers() {
    use shim::sync::atomic::{AtomicBool, Ordering::SeqCst};
    use shim::sync::Arc;
    const PRODUCERS: usize = 4;
    const PER: usize = 20_000;
    let q = Arc::new(Inject::new());
    let done = Arc::new(AtomicBool::new(false));
    let producers: Vec<_> = (0..PRODUCERS)
        .map(|p| {
            let q = q.clone();
            std::thread::spawn(move || {
                let mut i = 0;
                while i < PER {
                    let id = p * PER + i;
                    if i % 3 == 0 && i + 5 <= PER {
                        q.push_batch((id..id + 5).map(Item::new)).ok().unwrap();
                        i += 5;
                    } else {
                        q.push(Item::new(id)).ok().unwrap();
                        i += 1;
                    }
                }
            })
        })
        .collect();
    let consumers: Vec<_> = (0..2)
        .map(|c| {
            let (q, done) = (q.clone(), done.clone());
            std::thread::spawn(move || {
                // Each consumer sees each producer's items in increasing order.
                let mut last = [None::<usize>; PRODUCERS];
                let mut got = Vec::new();
                loop {
                    let finished = done.load(SeqCst);
                    let batch: Vec<Item> = if c == 0 {
                        q.pop().into_iter().collect()
                    } else {
                        q.pop_n(7).collect()
                    };
                    if batch.is_empty() && finished {
                        break got;
                    }
                    for item in batch {
                        let id = item.id();
                        let p = id / PER;
                        assert!(last[p].is_none_or(|l| l < id), "out of order");
                        last[p] = Some(id);
                        got.push(id);
                    }
                }
            })
        })
        .collect();
    for p in producers {
        p.join().unwrap();
    }
    done.store(true, SeqCst);
    let mut seen = vec![0u8; PRODUCERS * PER];
    for c in consumers {
        for id in c.join().unwrap() {
            seen[id] += 1;
        }
    }
    assert!(seen.iter().all(|&n| n == 1));
    assert!(q.is_empty());
}
