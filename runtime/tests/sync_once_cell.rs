//! `runtime::sync::OnceCell`: one initializer runs, concurrent callers wait and share its
//! value, a failed or cancelled initializer lets the next one run, `set` errors, and the
//! value is dropped exactly once.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use runtime::sync::{OnceCell, SetError};
use support::*;

rt_test! {
    #[test]
    fn one_initializer_runs_and_everyone_gets_its_value() {
        watchdog("the initialized value", || {
            on(&rt(), || async {
                let cell = Arc::new(OnceCell::new());
                let runs = Arc::new(AtomicUsize::new(0));
                let mut tasks = Vec::new();
                for i in 0..20 {
                    let (cell, runs) = (cell.clone(), runs.clone());
                    tasks.push(runtime::spawn(async move {
                        *cell
                            .get_or_init(|| async {
                                runs.fetch_add(1, SeqCst);
                                runtime::task::yield_now().await;
                                i
                            })
                            .await
                    }));
                }
                let mut values = Vec::new();
                for t in tasks {
                    values.push(t.await.unwrap());
                }
                assert_eq!(runs.load(SeqCst), 1);
                assert!(values.iter().all(|v| *v == values[0]));
                assert_eq!(cell.get(), Some(&values[0]));
            });
        })
    }
}

#[test]
fn a_failed_initializer_lets_the_next_one_run() {
    watchdog("the next initializer", || {
        futures::executor::block_on(async {
            let cell = OnceCell::new();
            assert_eq!(
                cell.get_or_try_init(|| async { Err("no") }).await,
                Err("no")
            );
            assert!(!cell.initialized());
            assert_eq!(
                cell.get_or_try_init(|| async { Ok::<_, &str>(3) }).await,
                Ok(&3)
            );
            assert_eq!(cell.get_or_try_init(|| async { Err("late") }).await, Ok(&3));
        });
    })
}

#[test]
fn a_cancelled_initializer_lets_the_waiting_one_run() {
    let cell = OnceCell::new();
    let mut first = Box::pin(cell.get_or_init(std::future::pending::<u8>));
    assert!(poll_noop(first.as_mut()).is_pending());
    let (c, w) = counting_waker();
    let mut second = Box::pin(cell.get_or_init(|| async { 2 }));
    assert!(poll(second.as_mut(), &w).is_pending());
    // `set` sees the initialization in progress.
    assert_eq!(cell.set(9), Err(SetError::InitializingError(9)));
    drop(first);
    assert_eq!(c.count(), 1, "the waiting initializer was not woken");
    match poll(second.as_mut(), &w) {
        std::task::Poll::Ready(v) => assert_eq!(*v, 2),
        std::task::Poll::Pending => panic!("the second initializer did not run"),
    }
}

#[test]
fn set_get_take_into_inner() {
    let mut cell = OnceCell::new();
    assert_eq!(cell.get(), None);
    assert!(cell.set(1).is_ok());
    let err = cell.set(2).unwrap_err();
    assert!(err.is_already_init_err());
    assert_eq!(err.to_string(), "AlreadyInitializedError");
    *cell.get_mut().unwrap() += 10;
    assert_eq!(cell.take(), Some(11));
    assert!(!cell.initialized());
    assert!(cell.set(3).is_ok());
    assert_eq!(cell.clone().into_inner(), Some(3));
    assert_eq!(OnceCell::<u8>::new().into_inner(), None);
    assert_eq!(OnceCell::from(4), OnceCell::new_with(Some(4)));
    assert_eq!(
        format!("{:?}", OnceCell::from(4)),
        "OnceCell { value: Some(4) }"
    );
}

#[test]
fn the_value_is_dropped_exactly_once() {
    struct Tracked(Arc<AtomicUsize>);
    impl Drop for Tracked {
        fn drop(&mut self) {
            self.0.fetch_add(1, SeqCst);
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    drop(OnceCell::new_with(Some(Tracked(drops.clone()))));
    assert_eq!(drops.load(SeqCst), 1);
    let mut c = OnceCell::new();
    assert!(c.set(Tracked(drops.clone())).is_ok());
    let v = c.take();
    assert_eq!(drops.load(SeqCst), 1);
    drop(v);
    drop(c);
    assert_eq!(drops.load(SeqCst), 2);
    let c = OnceCell::new();
    let _ = c.set(Tracked(drops.clone()));
    drop(c.into_inner());
    assert_eq!(drops.load(SeqCst), 3);
}

#[test]
fn statics() {
    watchdog("the static cell", || {
        static A: OnceCell<u32> = OnceCell::const_new();
        static B: OnceCell<u32> = OnceCell::const_new_with(5);
        assert_eq!(
            futures::executor::block_on(A.get_or_init(|| async { 1 })),
            &1
        );
        assert_eq!(B.get(), Some(&5));
        assert!(B.set(6).unwrap_err().is_already_init_err());
    })
}
