//! `runtime::sync::Barrier`: everyone is released together, one leader per generation,
//! and the barrier is reusable.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use runtime::sync::Barrier;
use support::*;

rt_test! {
    #[test]
    fn releases_all_with_one_leader_per_generation() {
        watchdog("the barrier's generations", || {
            on(&rt(), || async {
                let n = 8;
                let barrier = Arc::new(Barrier::new(n));
                let arrived = Arc::new(AtomicUsize::new(0));
                let mut tasks = Vec::new();
                for _ in 0..n {
                    let (b, a) = (barrier.clone(), arrived.clone());
                    tasks.push(runtime::spawn(async move {
                        let mut leaders = 0;
                        for round in 0..5 {
                            a.fetch_add(1, SeqCst);
                            let r = b.wait().await;
                            // Nobody passes before all n of this round arrived.
                            assert!(a.load(SeqCst) >= (round + 1) * n);
                            leaders += r.is_leader() as usize;
                        }
                        leaders
                    }));
                }
                let mut leaders = 0;
                for t in tasks {
                    leaders += t.await.unwrap();
                }
                assert_eq!(leaders, 5, "one leader per generation");
            });
        })
    }
}

#[test]
fn a_waiter_is_not_released_before_n_arrive() {
    watchdog("the barrier's release", || {
        let b = Barrier::new(2);
        let mut first = Box::pin(b.wait());
        assert!(poll_noop(first.as_mut()).is_pending());
        assert!(poll_noop(first.as_mut()).is_pending());
        let mut second = Box::pin(b.wait());
        let leader = match poll_noop(second.as_mut()) {
            std::task::Poll::Ready(r) => r.is_leader(),
            std::task::Poll::Pending => panic!("the last arrival waited"),
        };
        assert!(leader);
        match poll_noop(first.as_mut()) {
            std::task::Poll::Ready(r) => assert!(!r.is_leader()),
            std::task::Poll::Pending => panic!("the first waiter was not released"),
        }
    })
}

#[test]
fn zero_acts_as_one() {
    watchdog("the barrier of zero", || {
        let b = Barrier::new(0);
        assert!(futures::executor::block_on(b.wait()).is_leader());
    })
}
