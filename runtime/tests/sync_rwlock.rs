//! `runtime::sync::RwLock`: readers share, writers exclude, a waiting writer holds back
//! later readers (no writer starvation), downgrade, max readers, owned and mapped guards,
//! cancellation, blocking use.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::Poll;

use runtime::sync::{
    OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock, RwLockMappedWriteGuard, RwLockReadGuard,
    RwLockWriteGuard,
};
use support::*;

rt_test! {
    #[test]
    fn readers_share_and_writers_exclude_under_contention() {
        watchdog("the contending readers and writers", || {
            on(&rt(), || async {
                let lock = Arc::new(RwLock::new(0u64));
                let readers = Arc::new(AtomicUsize::new(0));
                let mut tasks = Vec::new();
                for i in 0..40 {
                    let (lock, readers) = (lock.clone(), readers.clone());
                    tasks.push(runtime::spawn(async move {
                        for _ in 0..10 {
                            if i % 4 == 0 {
                                let mut w = lock.write().await;
                                assert_eq!(
                                    readers.load(SeqCst),
                                    0,
                                    "a reader inside with a writer"
                                );
                                *w += 1;
                                runtime::task::yield_now().await;
                            } else {
                                let r = lock.clone().read_owned().await;
                                readers.fetch_add(1, SeqCst);
                                let _ = *r;
                                runtime::task::yield_now().await;
                                readers.fetch_sub(1, SeqCst);
                            }
                        }
                    }));
                }
                for t in tasks {
                    t.await.unwrap();
                }
                assert_eq!(*lock.read().await, 100);
            });
        })
    }
}

#[test]
fn a_waiting_writer_holds_back_later_readers() {
    let lock = RwLock::new(1);
    let r1 = lock.try_read().unwrap();
    let mut w = Box::pin(lock.write());
    assert!(poll_noop(w.as_mut()).is_pending());
    // A reader that comes after the writer waits (writer is not starved).
    assert!(lock.try_read().is_err());
    let mut r2 = Box::pin(lock.read());
    assert!(poll_noop(r2.as_mut()).is_pending());
    drop(r1);
    let mut g = match poll_noop(w.as_mut()) {
        Poll::Ready(g) => g,
        Poll::Pending => panic!("the writer was not served when the reader left"),
    };
    *g = 2;
    assert!(poll_noop(r2.as_mut()).is_pending());
    drop(g);
    match poll_noop(r2.as_mut()) {
        Poll::Ready(r) => assert_eq!(*r, 2),
        Poll::Pending => panic!("the reader was not served after the writer"),
    };
}

#[test]
fn a_cancelled_writer_gives_back_the_read_permits_it_gathered() {
    let lock = RwLock::with_max_readers(0, 4);
    let r = lock.try_read().unwrap();
    let mut w = Box::pin(lock.write());
    assert!(poll_noop(w.as_mut()).is_pending());
    assert!(lock.try_read().is_err());
    drop(w);
    let more: Vec<_> = (0..3).map(|_| lock.try_read().unwrap()).collect();
    assert!(lock.try_read().is_err(), "max readers is 4");
    drop(more);
    drop(r);
    assert!(lock.try_write().is_ok());
}

#[test]
fn downgrade_lets_readers_in_but_no_writer() {
    watchdog("the readers after downgrade", || {
        futures::executor::block_on(async {
            let lock = RwLock::new(1);
            let mut w = lock.write().await;
            *w = 5;
            let r = w.downgrade();
            assert_eq!(*lock.try_read().unwrap(), 5);
            assert!(lock.try_write().is_err());
            drop(r);
            assert!(lock.try_write().is_ok());

            let lock = Arc::new(RwLock::new(1));
            let r = lock.clone().write_owned().await.downgrade();
            assert!(Arc::ptr_eq(OwnedRwLockReadGuard::rwlock(&r), &lock));
            assert!(lock.try_read().is_ok());
            assert!(lock.try_write().is_err());
        });
    })
}

#[test]
fn mapped_guards() {
    watchdog("the uncontended read and write locks", || {
        futures::executor::block_on(async {
            let lock = RwLock::new((1, vec![2, 3]));
            let r = RwLockReadGuard::map(lock.read().await, |v| &v.1);
            assert_eq!(*r, [2, 3]);
            assert!(RwLockReadGuard::try_map(r, |v| v.get(7)).is_err());
            {
                let w = RwLockWriteGuard::map(lock.write().await, |v| &mut v.1);
                let mut w = RwLockMappedWriteGuard::map(w, |v| &mut v[0]);
                *w = 20;
                assert!(lock.try_read().is_err());
            }
            assert!(RwLockWriteGuard::try_map(lock.write().await, |v| v.1.get_mut(5)).is_err());
            assert_eq!(*lock.read().await, (1, vec![20, 3]));

            let lock = Arc::new(RwLock::new((1, 2)));
            let r = OwnedRwLockReadGuard::map(lock.clone().read_owned().await, |v| &v.1);
            assert_eq!(*r, 2);
            drop(r);
            let mut w = lock.clone().try_write_owned().unwrap();
            w.0 = 9;
            assert!(Arc::ptr_eq(OwnedRwLockWriteGuard::rwlock(&w), &lock));
            drop(w);
            assert_eq!(*lock.clone().try_read_owned().unwrap(), (9, 2));
        });
    })
}

#[test]
fn max_readers_is_enforced() {
    let lock = RwLock::with_max_readers((), 2);
    let a = lock.try_read().unwrap();
    let _b = lock.try_read().unwrap();
    assert!(lock.try_read().is_err());
    drop(a);
    assert!(lock.try_read().is_ok());
}

#[test]
#[should_panic(expected = "max_reads")]
fn zero_max_readers_panics() {
    let _ = RwLock::with_max_readers((), 0);
}

#[test]
fn blocking_read_and_write_from_threads() {
    watchdog("blocking_read and blocking_write on plain threads", || {
        let lock = Arc::new(RwLock::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let lock = lock.clone();
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        *lock.blocking_write() += 1;
                        let _ = *lock.blocking_read();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*lock.blocking_read(), 200);
    })
}

#[test]
#[should_panic(expected = "`.write().await`")]
fn blocking_write_inside_a_runtime_panics() {
    watchdog("the refused blocking_write", || {
        let rt = runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async {
            let _ = RwLock::new(0).blocking_write();
        });
    })
}

#[test]
fn accessors_and_debug() {
    static L: RwLock<u8> = RwLock::const_new(1);
    assert_eq!(*L.try_read().unwrap(), 1);
    let mut lock = RwLock::new(vec![1]);
    lock.get_mut().push(2);
    assert_eq!(format!("{lock:?}"), "RwLock { data: [1, 2] }");
    let w = lock.try_write().unwrap();
    drop(w);
    assert_eq!(lock.into_inner(), [1, 2]);
}

#[test]
fn owned_mapped_guards_unlock_on_drop() {
    watchdog("the owned guards' release", || {
        use runtime::sync::OwnedRwLockMappedWriteGuard;
        futures::executor::block_on(async {
            let lock = Arc::new(RwLock::new((1, (2, 3))));
            let w = OwnedRwLockWriteGuard::map(lock.clone().write_owned().await, |v| &mut v.1);
            let mut w = OwnedRwLockMappedWriteGuard::map(w, |v| &mut v.0);
            *w = 20;
            assert!(lock.try_read().is_err());
            drop(w);
            let r = OwnedRwLockReadGuard::try_map(lock.clone().read_owned().await, |v| Some(&v.1));
            assert_eq!(*r.unwrap(), (20, 3));
            assert!(lock.try_write().is_ok());
        });
    })
}
