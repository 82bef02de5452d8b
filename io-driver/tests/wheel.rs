//! The timer wheel as a pure data structure, driven by a manual millisecond clock.

mod common;

use std::collections::BTreeMap;

use common::Rng;
use io_driver::wheel::{EntryState, Key, Wheel};

/// Advance to `now`, returning the fired `(key, when)` pairs in firing order.
fn advance(wheel: &mut Wheel, now: u64) -> Vec<(Key, u64)> {
    let mut fired = Vec::new();
    wheel.advance(now, |key, when, _| fired.push((key, when)));
    fired
}

#[test]
fn random_deadlines_fire_in_order_never_early_never_late() {
    let mut rng = Rng::new(0x5eed);
    let mut wheel = Wheel::new();
    let mut whens = BTreeMap::new();
    for _ in 0..5_000 {
        // Spread over every level: up to ~64^5 ms.
        let span = 1u64 << (6 * (1 + rng.below(5)));
        let when = 1 + rng.below(span);
        let key = wheel.insert(when, None);
        whens.insert(key, when);
    }
    let mut now = 0;
    let mut last_fired = 0;
    let mut fired_total = 0;
    while !whens.is_empty() {
        // Random steps, sometimes tiny, sometimes huge.
        now += match rng.below(4) {
            0 => rng.below(3),
            1 => rng.below(200),
            2 => rng.below(50_000),
            _ => rng.below(5_000_000),
        };
        for (key, when) in advance(&mut wheel, now) {
            assert_eq!(
                whens.remove(&key),
                Some(when),
                "fired a key twice or unknown"
            );
            assert!(when <= now, "fired early: when {when} > now {now}");
            assert!(
                when >= last_fired,
                "out of order: {when} after {last_fired}"
            );
            last_fired = when;
            fired_total += 1;
            assert_eq!(wheel.state(key), EntryState::Fired);
        }
        // Never late: nothing due is still waiting.
        if let Some((_, &w)) = whens.iter().min_by_key(|(_, &w)| w) {
            assert!(w > now, "entry due at {w} not fired by {now}");
            let next = wheel
                .next_expiration()
                .expect("pending entries have an expiration");
            assert!(next <= w && next > now);
        }
        assert_eq!(wheel.elapsed(), now);
    }
    assert_eq!(fired_total, 5_000);
    assert_eq!(wheel.pending(), 0);
    assert_eq!(wheel.next_expiration(), None);
}

#[test]
fn same_millisecond_fires_together() {
    let mut wheel = Wheel::new();
    let a = wheel.insert(70, None);
    let b = wheel.insert(70, None);
    let c = wheel.insert(71, None);
    assert_eq!(
        wheel.next_expiration(),
        Some(64),
        "level-1 slot starts at 64"
    );
    assert!(advance(&mut wheel, 69).is_empty());
    assert_eq!(wheel.next_expiration(), Some(70));
    let mut fired: Vec<_> = advance(&mut wheel, 70).into_iter().map(|f| f.0).collect();
    fired.sort();
    assert_eq!(fired, vec![a, b]);
    assert_eq!(advance(&mut wheel, 71), vec![(c, 71)]);
}

#[test]
fn far_future_hours_cascade_through_levels() {
    let mut wheel = Wheel::new();
    wheel.advance(12_345, |_, _, _| panic!("nothing to fire"));
    // 5 h (level 4) and 3 years (beyond the 64^6 ms span: overflow list).
    let hours = 12_345 + 5 * 3_600_000 + 7;
    let years = 12_345 + 3 * 365 * 86_400_000 + 3;
    let kh = wheel.insert(hours, None);
    let ky = wheel.insert(years, None);
    // Walk by next_expiration only, as a parked driver would: each stop either fires or
    // cascades; the walk is short and never fires anything early.
    let mut steps = 0;
    let mut fired = Vec::new();
    while let Some(t) = wheel.next_expiration() {
        steps += 1;
        assert!(steps < 100, "too many wheel stops");
        for (key, when) in advance(&mut wheel, t) {
            assert!(when <= t);
            fired.push((key, when, t));
        }
    }
    assert_eq!(fired, vec![(kh, hours, hours), (ky, years, years)]);

    // The same deadlines hit with a single jump past them, and just before them.
    let mut wheel = Wheel::new();
    let kh = wheel.insert(hours, None);
    let ky = wheel.insert(years, None);
    assert!(advance(&mut wheel, hours - 1).is_empty());
    assert_eq!(advance(&mut wheel, hours), vec![(kh, hours)]);
    assert!(advance(&mut wheel, years - 1).is_empty());
    assert_eq!(wheel.state(ky), EntryState::Pending);
    assert_eq!(advance(&mut wheel, years + 1000), vec![(ky, years)]);
}

#[test]
fn cancel_leaves_the_wheel_empty() {
    let mut rng = Rng::new(7);
    let mut wheel = Wheel::new();
    let keys: Vec<_> = (0..1000)
        .map(|_| wheel.insert(1 + rng.below(10_000_000), None))
        .collect();
    assert_eq!(wheel.len(), 1000);
    let (gone, kept) = keys.split_at(500);
    for &k in gone {
        wheel.remove(k);
    }
    assert_eq!(wheel.len(), 500);
    assert_eq!(wheel.pending(), 500);
    let fired = advance(&mut wheel, u64::MAX / 2);
    let mut fired: Vec<_> = fired.into_iter().map(|f| f.0).collect();
    fired.sort();
    let mut kept = kept.to_vec();
    kept.sort();
    assert_eq!(fired, kept, "exactly the kept entries fire");
    for k in kept {
        wheel.remove(k);
    }
    assert!(wheel.is_empty());
    assert_eq!(wheel.next_expiration(), None);
    // Freed nodes are reused.
    let k = wheel.insert(u64::MAX / 2 + 5, None);
    assert!(keys.contains(&k));
}

#[test]
fn reset_earlier_and_later() {
    let mut wheel = Wheel::new();
    let k = wheel.insert(100_000, None);
    wheel.reset(k, 50);
    assert_eq!(wheel.next_expiration(), Some(50));
    assert_eq!(advance(&mut wheel, 50), vec![(k, 50)]);
    // Re-arm a fired entry, then push it later.
    wheel.reset(k, 200);
    assert_eq!(wheel.state(k), EntryState::Pending);
    wheel.reset(k, 5_000);
    assert!(advance(&mut wheel, 4_999).is_empty());
    assert_eq!(advance(&mut wheel, 5_000), vec![(k, 5_000)]);
    assert_eq!(wheel.pending(), 0);
}

#[test]
fn past_deadlines_fire_on_next_advance() {
    let mut wheel = Wheel::new();
    wheel.advance(1_000, |_, _, _| unreachable!());
    let k = wheel.insert(10, None);
    let j = wheel.insert(1_000, None);
    assert_eq!(wheel.next_expiration(), Some(1_000));
    let mut fired: Vec<_> = advance(&mut wheel, 1_000)
        .into_iter()
        .map(|f| f.0)
        .collect();
    fired.sort();
    assert_eq!(fired, vec![k, j]);
    // `fire` (the poll-side shortcut) also takes it out of the wheel.
    let l = wheel.insert(5_000, None);
    wheel.fire(l);
    assert_eq!(wheel.state(l), EntryState::Fired);
    assert_eq!(wheel.next_expiration(), None);
}

#[test]
fn shutdown_fires_everything_as_shutdown() {
    let mut wheel = Wheel::new();
    let a = wheel.insert(5, None);
    let b = wheel.insert(1 << 40, None);
    let done = wheel.insert(1, None);
    advance(&mut wheel, 1);
    let mut hit = Vec::new();
    wheel.shutdown(|k, _| hit.push(k));
    hit.sort();
    assert_eq!(hit, vec![a, b]);
    assert_eq!(wheel.state(a), EntryState::Shutdown);
    assert_eq!(wheel.state(done), EntryState::Fired);
    let c = wheel.insert(10, None);
    assert_eq!(wheel.state(c), EntryState::Shutdown);
    wheel.reset(c, 20);
    assert_eq!(wheel.state(c), EntryState::Shutdown);
    assert_eq!(wheel.next_expiration(), None);
}

/// Random interleaving of insert / remove / reset / advance against a BTreeMap model.
#[test]
fn matches_a_reference_model() {
    for seed in 1..=20u64 {
        let mut rng = Rng::new(seed * 0x9e37_79b9);
        let mut wheel = Wheel::new();
        let mut model: BTreeMap<Key, u64> = BTreeMap::new(); // pending entries
        let mut fired_keys: Vec<Key> = Vec::new();
        let mut now = 0u64;
        for _ in 0..3_000 {
            match rng.below(10) {
                0..=3 => {
                    let bits = 6 * (1 + rng.below(6));
                    let when = now + rng.below(1 << bits);
                    let when = if rng.below(20) == 0 {
                        now.saturating_sub(5)
                    } else {
                        when
                    };
                    model.insert(wheel.insert(when, None), when);
                }
                4 if !model.is_empty() => {
                    let k = *model
                        .keys()
                        .nth(rng.below(model.len() as u64) as usize)
                        .unwrap();
                    model.remove(&k);
                    wheel.remove(k);
                }
                5 if !model.is_empty() => {
                    let k = *model
                        .keys()
                        .nth(rng.below(model.len() as u64) as usize)
                        .unwrap();
                    let when = now + 1 + rng.below(100_000);
                    model.insert(k, when);
                    wheel.reset(k, when);
                }
                6 if !fired_keys.is_empty() => {
                    let k = fired_keys.swap_remove(rng.below(fired_keys.len() as u64) as usize);
                    wheel.remove(k);
                }
                _ => {
                    let bits = 3 * (1 + rng.below(6));
                    let before = now;
                    now += rng.below(1 << bits);
                    let fired = advance(&mut wheel, now);
                    let mut expect: Vec<_> = model
                        .iter()
                        .filter(|(_, &w)| w <= now)
                        .map(|(&k, &w)| (k, w))
                        .collect();
                    let mut got = fired.clone();
                    got.sort();
                    expect.sort();
                    assert_eq!(got, expect, "seed {seed} now {now}");
                    // Deadline order; entries inserted already overdue (when <= the
                    // previous now) fire first, among themselves in any order.
                    let in_order = |a: u64, b: u64| a <= b || (a <= before && b <= before);
                    assert!(
                        fired.windows(2).all(|p| in_order(p[0].1, p[1].1)),
                        "order: {fired:?}"
                    );
                    for (k, _) in fired {
                        model.remove(&k);
                        fired_keys.push(k);
                    }
                }
            }
            assert_eq!(wheel.pending(), model.len());
            assert_eq!(wheel.len(), model.len() + fired_keys.len());
            if let Some(min) = model.values().min() {
                let next = wheel.next_expiration().unwrap();
                assert!(next <= (*min).max(now), "next {next} after earliest {min}");
            } else {
                assert_eq!(wheel.next_expiration(), None);
            }
        }
    }
}

/// `advance_batch` with tiny budgets, with inserts, removes and resets between the batches
/// (what the driver allows by releasing the wheel lock): when it reports done, exactly the
/// entries due by `now` have fired, each once, none early.
#[test]
fn batched_advance_with_operations_between_batches_matches_a_model() {
    for seed in 1..=20u64 {
        let mut rng = Rng::new(seed * 0x51_7cc1_b727);
        let mut wheel = Wheel::new();
        let mut model: BTreeMap<Key, u64> = BTreeMap::new(); // pending entries
        let mut fired_keys: Vec<Key> = Vec::new();
        let mut now = 0u64;
        let random_op = |rng: &mut Rng,
                         wheel: &mut Wheel,
                         model: &mut BTreeMap<Key, u64>,
                         fired_keys: &mut Vec<Key>,
                         now: u64| match rng.below(4) {
            0 | 1 => {
                let bits = 6 * (1 + rng.below(3));
                let when = now.saturating_sub(3) + rng.below(1 << bits);
                model.insert(wheel.insert(when, None), when);
            }
            2 if !model.is_empty() => {
                let k = *model
                    .keys()
                    .nth(rng.below(model.len() as u64) as usize)
                    .unwrap();
                if rng.below(2) == 0 {
                    model.remove(&k);
                    wheel.remove(k);
                } else {
                    let when = now + rng.below(10_000);
                    model.insert(k, when);
                    wheel.reset(k, when);
                }
            }
            3 if !fired_keys.is_empty() => {
                let k = fired_keys.swap_remove(rng.below(fired_keys.len() as u64) as usize);
                wheel.remove(k);
            }
            _ => {}
        };
        for _ in 0..300 {
            for _ in 0..20 {
                random_op(&mut rng, &mut wheel, &mut model, &mut fired_keys, now);
            }
            let bits = 3 * (1 + rng.below(5));
            now += rng.below(1 << bits);
            let mut fired = Vec::new();
            let mut calls = 0;
            loop {
                calls += 1;
                assert!(calls < 1_000_000, "advance_batch never finishes");
                let max = 1 + rng.below(5) as usize;
                let done = wheel.advance_batch(now, max, |k, w, _| fired.push((k, w)));
                for (k, w) in fired.drain(..) {
                    assert!(w <= now, "fired early: {w} > {now}");
                    assert_eq!(model.remove(&k), Some(w), "seed {seed}: unknown or twice");
                    fired_keys.push(k);
                }
                if done {
                    break;
                }
                random_op(&mut rng, &mut wheel, &mut model, &mut fired_keys, now);
            }
            assert!(
                model.values().all(|&w| w > now),
                "seed {seed}: an entry due by {now} was not fired"
            );
            assert_eq!(wheel.pending(), model.len());
            assert_eq!(wheel.len(), model.len() + fired_keys.len());
            if let Some(min) = model.values().min() {
                assert!(wheel.next_expiration().unwrap() <= *min);
            }
        }
    }
}

/// A big cascade is handled in bounded steps: 10,000 entries in one level-1 slot take many
/// `advance_batch` calls of 64, and all of them fire at their millisecond.
#[test]
fn a_big_cascade_is_split_into_bounded_batches() {
    let mut wheel = Wheel::new();
    for i in 0..10_000u64 {
        wheel.insert(64 + i % 64, None);
    }
    let mut calls = 0;
    let mut fired = 0;
    for now in 64..128 {
        loop {
            calls += 1;
            let mut n = 0;
            let done = wheel.advance_batch(now, 64, |_, w, _| {
                assert_eq!(w, now);
                n += 1;
            });
            assert!(n <= 64);
            fired += n;
            if done {
                break;
            }
        }
    }
    assert_eq!(fired, 10_000);
    assert!(calls >= 2 * 10_000 / 64, "{calls} calls");
    assert_eq!(wheel.pending(), 0);
}

#[test]
fn for_each_waiting_lists_pending_entries_with_wakers_only() {
    use std::sync::Arc;
    use std::task::{Wake, Waker};
    struct Nop;
    impl Wake for Nop {
        fn wake(self: Arc<Self>) {}
    }
    let waker = Waker::from(Arc::new(Nop));
    let mut wheel = Wheel::new();
    wheel.insert(5, Some(waker.clone()));
    wheel.insert(700, Some(waker.clone()));
    // No waker: not a waiting task.
    wheel.insert(9, None);
    let mut seen = Vec::new();
    wheel.for_each_waiting(|when, _| seen.push(when));
    seen.sort();
    assert_eq!(seen, vec![5, 700]);
    // Once fired, an entry waits no more.
    let _ = advance(&mut wheel, 10);
    let mut seen = Vec::new();
    wheel.for_each_waiting(|when, _| seen.push(when));
    assert_eq!(seen, vec![700]);
}
