//! Single-threaded tests of the `Local` ring and its `Steal` handle: FIFO order, overflow
//! into the inject queue, index wrap-around, stealing half, and dropping remaining items.

#![cfg(not(loom))]

mod common;

use common::{ids, Item, Tracker};
use queue::{local, local_with_start, Inject, CAPACITY};

const HALF: usize = CAPACITY / 2;

#[test]
fn fifo_order_and_len() {
    let (steal, mut q) = local::<Item>();
    let inject = Inject::new();
    assert!(q.is_empty() && steal.is_empty() && q.has_room());
    assert!(q.pop().is_none());
    for i in 0..CAPACITY {
        assert_eq!(q.push_back(Item::new(i), &inject), 0);
        assert_eq!(q.len(), i + 1);
        assert_eq!(steal.len(), i + 1);
    }
    assert!(!q.has_room());
    assert!(inject.is_empty());
    for i in 0..CAPACITY {
        assert_eq!(q.pop().unwrap().id(), i);
        assert_eq!(q.len(), CAPACITY - i - 1);
    }
    assert!(q.pop().is_none());
    assert!(q.is_empty() && q.has_room());
}

#[test]
fn last_node_is_the_last_push_while_it_is_queued_and_takes_nothing() {
    let tracker = Tracker::new(3);
    let (_steal, mut q) = local::<Item>();
    let inject = Inject::new();
    assert!(q.last_node().is_none());
    let mut addrs = Vec::new();
    for i in 0..3 {
        let item = tracker.item(i);
        addrs.push(item.addr());
        q.push_back(item, &inject);
        assert_eq!(q.last_node().unwrap().as_ptr().cast_const(), addrs[i]);
    }
    assert_eq!(q.pop().unwrap().id(), 0);
    assert_eq!(q.last_node().unwrap().as_ptr().cast_const(), addrs[2]);
    drop(q.pop());
    drop(q.pop());
    assert!(q.last_node().is_none());
    tracker.assert_each_dropped_once(0..3);
}

#[test]
fn interleaved_push_pop_keeps_fifo() {
    let (_steal, mut q) = local::<Item>();
    let inject = Inject::new();
    let (mut next_in, mut next_out) = (0, 0);
    // Many laps around the ring, never full.
    for round in 0..20 * CAPACITY {
        for _ in 0..(round % 3) + 1 {
            if q.has_room() {
                assert_eq!(q.push_back(Item::new(next_in), &inject), 0);
                next_in += 1;
            }
        }
        for _ in 0..(round % 2) + 1 {
            if let Some(item) = q.pop() {
                assert_eq!(item.id(), next_out);
                next_out += 1;
            }
        }
    }
    while let Some(item) = q.pop() {
        assert_eq!(item.id(), next_out);
        next_out += 1;
    }
    assert_eq!(next_in, next_out);
    assert!(inject.is_empty());
}

#[test]
fn overflow_moves_half_plus_one_in_order() {
    let (_steal, mut q) = local::<Item>();
    let inject = Inject::new();
    for i in 0..CAPACITY {
        assert_eq!(q.push_back(Item::new(i), &inject), 0);
    }
    assert_eq!(q.push_back(Item::new(CAPACITY), &inject), HALF + 1);
    assert_eq!(inject.len(), HALF + 1);
    assert_eq!(q.len(), CAPACITY - HALF);
    assert!(q.has_room());
    // The oldest half, then the new item, in order.
    let mut expect: Vec<usize> = (0..HALF).collect();
    expect.push(CAPACITY);
    assert_eq!(ids(inject.pop_n(usize::MAX)), expect);
    // The ring keeps the newer half, in order.
    let rest: Vec<usize> = std::iter::from_fn(|| q.pop()).map(|i| i.id()).collect();
    assert_eq!(rest, (HALF..CAPACITY).collect::<Vec<_>>());
}

#[test]
fn many_overflow_rounds_lose_nothing() {
    const N: usize = 50 * CAPACITY + 7;
    let tracker = Tracker::new(N);
    let (_steal, mut q) = local::<Item>();
    let inject = Inject::new();
    let mut seen = vec![0u32; N];
    let mut overflows = 0;
    for id in 0..N {
        match q.push_back(tracker.item(id), &inject) {
            0 => {}
            moved => {
                assert_eq!(moved, HALF + 1);
                overflows += 1;
            }
        }
        // Pop one item every third push so the ring fills up slowly.
        if id % 3 == 0 {
            let item = q.pop().unwrap();
            seen[item.id()] += 1;
        }
        // Drain the inject queue now and then, as a worker would.
        if id % 97 == 0 {
            for item in inject.pop_n(HALF) {
                seen[item.id()] += 1;
            }
        }
    }
    assert!(overflows > 10, "only {overflows} overflows");
    for item in std::iter::from_fn(|| q.pop()).chain(inject.pop_n(usize::MAX)) {
        seen[item.id()] += 1;
    }
    for (id, n) in seen.iter().enumerate() {
        assert_eq!(*n, 1, "item {id} seen {n} times");
    }
    tracker.assert_each_dropped_once(0..N);
}

#[test]
fn wrap_around_past_u32_max() {
    for start in [u32::MAX - 10, u32::MAX - CAPACITY as u32 + 1, u32::MAX] {
        let (steal, mut q) = local_with_start::<Item>(start);
        let inject = Inject::new();
        let mut next_out = 0;
        // Push to full across the wrap, overflow, and keep going for several laps.
        for id in 0..4 * CAPACITY {
            q.push_back(Item::new(id), &inject);
            assert!(q.len() <= CAPACITY);
            assert_eq!(steal.len(), q.len());
        }
        // Everything is still there, in order, across ring and inject.
        let mut from_inject = ids(inject.pop_n(usize::MAX));
        let from_ring: Vec<usize> = std::iter::from_fn(|| q.pop()).map(|i| i.id()).collect();
        from_inject.extend(&from_ring);
        from_inject.sort_unstable();
        assert_eq!(from_inject, (0..4 * CAPACITY).collect::<Vec<_>>());
        // Ring order is FIFO even across the wrap.
        assert!(from_ring.windows(2).all(|w| w[0] < w[1]));

        // Plain push/pop laps across the wrap.
        for id in 0..3 * CAPACITY {
            assert_eq!(q.push_back(Item::new(id), &inject), 0);
            if q.len() > HALF {
                assert_eq!(q.pop().unwrap().id(), next_out);
                next_out += 1;
            }
        }
        // Steal across the wrap.
        let (_s2, mut dst) = local::<Item>();
        let before = q.len();
        let got = steal.steal_into(&mut dst).unwrap();
        assert_eq!(got.id(), next_out);
        let n = before - before / 2;
        assert_eq!(dst.len(), n - 1);
        assert_eq!(q.len(), before - n);
        assert!(inject.is_empty());
    }
}

#[test]
fn steal_half_rounded_up() {
    for count in 1..=CAPACITY {
        let (steal, mut src) = local::<Item>();
        let (_s, mut dst) = local::<Item>();
        let inject = Inject::new();
        for i in 0..count {
            src.push_back(Item::new(i), &inject);
        }
        let n = count - count / 2;
        // The oldest item is returned, the next n - 1 land in dst in order.
        assert_eq!(steal.steal_into(&mut dst).unwrap().id(), 0);
        assert_eq!(dst.len(), n - 1);
        assert_eq!(src.len(), count - n);
        assert_eq!(steal.len(), count - n);
        let got: Vec<usize> = std::iter::from_fn(|| dst.pop()).map(|i| i.id()).collect();
        assert_eq!(got, (1..n).collect::<Vec<_>>());
        let left: Vec<usize> = std::iter::from_fn(|| src.pop()).map(|i| i.id()).collect();
        assert_eq!(left, (n..count).collect::<Vec<_>>());
        // The ring is usable to full capacity after a steal (steal == real again).
        for i in 0..CAPACITY {
            assert_eq!(src.push_back(Item::new(i), &inject), 0);
        }
        assert!(!src.has_room());
    }
}

#[test]
fn steal_appends_after_dst_items() {
    let (steal, mut src) = local::<Item>();
    let (_s, mut dst) = local::<Item>();
    let inject = Inject::new();
    for i in 0..8 {
        src.push_back(Item::new(i), &inject);
    }
    for i in 100..103 {
        dst.push_back(Item::new(i), &inject);
    }
    assert_eq!(steal.steal_into(&mut dst).unwrap().id(), 0);
    let got: Vec<usize> = std::iter::from_fn(|| dst.pop()).map(|i| i.id()).collect();
    assert_eq!(got, vec![100, 101, 102, 1, 2, 3]);
}

#[test]
fn steal_refuses_too_full_dst_empty_src_and_self() {
    let (steal, mut src) = local::<Item>();
    let (dst_steal, mut dst) = local::<Item>();
    let inject = Inject::new();
    // Empty source.
    assert!(steal.steal_into(&mut dst).is_none());
    for i in 0..CAPACITY {
        src.push_back(Item::new(i), &inject);
    }
    // Stealing into itself is refused.
    assert!(steal.steal_into(&mut src).is_none());
    assert_eq!(src.len(), CAPACITY);
    // dst more than half full: refused, nothing moves.
    for i in 0..=HALF {
        dst.push_back(Item::new(1000 + i), &inject);
    }
    assert!(steal.steal_into(&mut dst).is_none());
    assert_eq!(src.len(), CAPACITY);
    assert_eq!(dst.len(), HALF + 1);
    // Exactly half full is allowed, and a full source's half fits.
    dst.pop().unwrap();
    assert_eq!(steal.steal_into(&mut dst).unwrap().id(), 0);
    assert_eq!(dst.len(), HALF + HALF - 1);
    assert_eq!(src.len(), CAPACITY - HALF);
    assert_eq!(dst_steal.len(), dst.len());
    assert!(inject.is_empty());
}

#[test]
fn drop_local_drops_remaining_once() {
    let tracker = Tracker::new(CAPACITY + 10);
    let inject = Inject::new();
    let (steal, mut q) = local::<Item>();
    for i in 0..CAPACITY {
        q.push_back(tracker.item(i), &inject);
    }
    drop(q.pop());
    drop(q.pop());
    assert_eq!(tracker.total(), 2);
    drop(q);
    tracker.assert_each_dropped_once(0..CAPACITY);
    // The steal handle outlives the ring and finds nothing.
    let (_s, mut dst) = local::<Item>();
    assert!(steal.is_empty());
    assert!(steal.steal_into(&mut dst).is_none());
    drop(steal);
    assert_eq!(tracker.total(), CAPACITY);
}

#[test]
fn steal_handle_dropped_first_keeps_items() {
    let tracker = Tracker::new(8);
    let inject = Inject::new();
    let (steal, mut q) = local::<Item>();
    for i in 0..8 {
        q.push_back(tracker.item(i), &inject);
    }
    drop(steal.clone());
    drop(steal);
    assert_eq!(tracker.total(), 0);
    assert_eq!(q.pop().unwrap().id(), 0);
    drop(q);
    tracker.assert_each_dropped_once(0..8);
}

#[test]
fn overflow_into_closed_inject_drops_items_once() {
    let tracker = Tracker::new(CAPACITY + 1);
    let inject = Inject::new();
    let (_steal, mut q) = local::<Item>();
    for i in 0..CAPACITY {
        q.push_back(tracker.item(i), &inject);
    }
    assert!(inject.close());
    // Nothing went to inject: the oldest half and the new item are dropped.
    assert_eq!(q.push_back(tracker.item(CAPACITY), &inject), 0);
    assert!(inject.is_empty());
    assert_eq!(tracker.total(), HALF + 1);
    tracker.assert_each_dropped_once((0..HALF).chain([CAPACITY]));
    assert_eq!(q.len(), CAPACITY - HALF);
    assert_eq!(q.pop().unwrap().id(), HALF);
    drop(q);
    tracker.assert_each_dropped_once(0..=CAPACITY);
}

#[test]
fn local_is_send_steal_is_send_sync() {
    fn send<T: Send>() {}
    fn sync<T: Sync>() {}
    send::<queue::Local<Item>>();
    send::<queue::Steal<Item>>();
    sync::<queue::Steal<Item>>();
    send::<Inject<Item>>();
    sync::<Inject<Item>>();
    send::<queue::Chain<Item>>();
}
