//! loom suite for `fs::File`'s async lock (`runtime/src/fs/lock.rs`, the shipping code
//! through the shim): two tasks on two threads contending, and a waiter that registers and
//! is then cancelled while a third waits. Each asserts that every task gets the lock and
//! sees the other's write (a lost wake-up leaves `block_on` blocked forever, which loom
//! reports as a deadlock); loom checks the value cell for data races.
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 3 when unset.

#![cfg(loom)]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll};

use loom::future::block_on;
use loom::thread;
use runtime::loom_fs_lock::AsyncLock;
use shim::sync::Arc;

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound.get_or_insert(3);
    builder.check(f);
}

#[test]
fn two_threads_contend() {
    model(|| {
        let lock = Arc::new(AsyncLock::new(0usize));
        let other = lock.clone();
        let th = thread::spawn(move || {
            block_on(async {
                let mut g = other.lock().await;
                *g += 1;
            })
        });
        block_on(async {
            let mut g = lock.lock().await;
            *g += 1;
        });
        th.join().unwrap();
        assert_eq!(*block_on(lock.lock()), 2);
    });
}

#[test]
fn a_cancelled_waiter_does_not_swallow_the_hand_off() {
    model(|| {
        let lock = Arc::new(AsyncLock::new(0usize));
        let held = block_on(lock.lock());
        // A waiter registers its waker, then is dropped (cancelled).
        {
            let mut fut = pin!(lock.lock());
            let waker = futures::task::noop_waker();
            assert!(matches!(
                fut.as_mut().poll(&mut Context::from_waker(&waker)),
                Poll::Pending
            ));
        }
        let other = lock.clone();
        let th = thread::spawn(move || {
            block_on(async {
                let mut g = other.lock().await;
                *g += 1;
            })
        });
        drop(held);
        th.join().unwrap();
        assert_eq!(*block_on(lock.lock()), 1);
    });
}
