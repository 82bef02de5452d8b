//! tokio's `sync` surface beyond the core of each primitive, through tokio's names at
//! tokio's paths, on both flavors: unsized lock values and guards mapped to unsized parts,
//! the RwLock write guard's `downgrade_map` / `try_downgrade_map` / `into_mapped` and
//! `const_with_max_readers`, `Display` on guards, the semaphore's blocking acquires and
//! `SemaphorePermit::semaphore`, `SetOnce`, `sync::futures::{Notified, OwnedNotified}`,
//! `broadcast::Receiver::is_closed`, `watch::Sender: Default`, and
//! `mpsc::Sender::reserve_owned`'s `SendError<()>`.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::fmt::Display;
use std::sync::Arc;

use runtime::sync::{
    broadcast, mpsc, watch, MappedMutexGuard, Mutex, MutexGuard, OwnedMutexGuard,
    OwnedRwLockWriteGuard, RwLock, RwLockReadGuard, RwLockWriteGuard, Semaphore, SetOnce,
    SetOnceError,
};
use support::*;

trait Shape: Send {
    fn area(&self) -> u32;
    fn grow(&mut self);
}

struct Square(u32);

impl Shape for Square {
    fn area(&self) -> u32 {
        self.0 * self.0
    }
    fn grow(&mut self) {
        self.0 += 1;
    }
}

rt_test! {
    #[test]
    fn mutex_of_dyn_trait_is_shared_by_tasks() {
        watchdog("the tasks growing a dyn Shape", || {
            on(&rt(), || async {
                let shape: Arc<Mutex<dyn Shape>> = Arc::new(Mutex::new(Square(1)));
                let mut tasks = Vec::new();
                for _ in 0..4 {
                    let shape = shape.clone();
                    tasks.push(runtime::spawn(async move {
                        let mut g = shape.lock().await;
                        g.grow();
                        runtime::task::yield_now().await; // held across an await
                        g.area()
                    }));
                }
                let mut areas = Vec::new();
                for t in tasks {
                    areas.push(within("a grower", t).await.unwrap());
                }
                areas.sort();
                assert_eq!(areas, [4, 9, 16, 25], "each grow saw the one before it");
                let owned: OwnedMutexGuard<dyn Shape> = shape.clone().lock_owned().await;
                assert_eq!(owned.area(), 25);
            });
        });
    }

    #[test]
    fn mutex_guards_map_to_unsized_parts() {
        watchdog("the mapped guards", || {
            on(&rt(), || async {
                let m = Arc::new(Mutex::new((String::from("ab"), vec![1, 2, 3])));
                let mut s: MappedMutexGuard<'_, str> =
                    MutexGuard::map(m.lock().await, |v| v.0.as_mut_str());
                s.make_ascii_uppercase();
                assert!(m.try_lock().is_err(), "the mapped guard holds the lock");
                drop(s);
                let mut tail = OwnedMutexGuard::map(m.clone().lock_owned().await, |v| {
                    &mut v.1[1..]
                });
                tail[0] = 20;
                let tail = runtime::sync::OwnedMappedMutexGuard::map(tail, |t| &mut t[1..]);
                assert_eq!(&*tail, [3]);
                drop(tail);
                let g = m.lock().await;
                assert_eq!((g.0.as_str(), g.1.as_slice()), ("AB", &[1, 20, 3][..]));
            });
        });
    }

    #[test]
    fn rwlock_of_a_slice_and_its_downgrades() {
        watchdog("the RwLock guards", || {
            on(&rt(), || async {
                let l: Arc<RwLock<[u8]>> = Arc::new(RwLock::new([1, 2, 3]));
                let mut w = l.write().await;
                w[0] = 10;
                let r = RwLockWriteGuard::downgrade_map(w, |v| &v[..1]);
                assert_eq!(*r, [10]);
                assert!(l.try_read().is_ok(), "a reader enters beside the downgrade");
                assert!(l.try_write().is_err(), "no writer while it reads");
                drop(r);

                let w = l.write().await;
                let w = RwLockWriteGuard::try_downgrade_map(w, |v| v.get(9..)).unwrap_err();
                assert!(l.try_read().is_err(), "a declined downgrade still writes");
                let mut m = RwLockWriteGuard::into_mapped(w);
                m[2] = 30;
                drop(m);
                let r = RwLockReadGuard::map(l.read().await, |v| &v[2..]);
                assert_eq!(*r, [30]);
                drop(r);

                let w = l.clone().write_owned().await;
                let r = OwnedRwLockWriteGuard::try_downgrade_map(w, |v| v.first()).unwrap();
                assert_eq!(*r, 10);
                assert!(l.try_write().is_err());
                drop(r);
                let w = OwnedRwLockWriteGuard::try_map(l.clone().write_owned().await, |v| {
                    v.get_mut(1..)
                })
                .unwrap();
                assert_eq!(&*w, [2, 30]);
                assert!(std::ptr::eq(
                    &**runtime::sync::OwnedRwLockMappedWriteGuard::rwlock(&w),
                    &*l
                ));
                drop(w);
                let mut whole = OwnedRwLockWriteGuard::into_mapped(l.clone().write_owned().await);
                whole[1] = 0;
                drop(whole);
                assert_eq!(&*l.read().await, [10, 0, 30]);
            });
        });
    }

    #[test]
    fn semaphore_blocking_acquires_from_spawn_blocking() {
        watchdog("the blocking acquires", || {
            on(&rt(), || async {
                let s = Arc::new(Semaphore::new(1));
                let held = s.clone().acquire_owned().await.unwrap();
                let s2 = s.clone();
                let blocked = runtime::task::spawn_blocking(move || {
                    let a = s2.blocking_acquire().unwrap().num_permits();
                    let b = s2.clone().blocking_acquire_owned().unwrap().num_permits();
                    let c = s2.blocking_acquire_many(1).unwrap().num_permits();
                    let d = s2.blocking_acquire_many_owned(1).unwrap().num_permits();
                    a + b + c + d
                });
                // The blocked thread waits for the permit the task holds.
                runtime::task::yield_now().await;
                drop(held);
                assert_eq!(within("the blocking acquirer", blocked).await.unwrap(), 4);
                assert_eq!(s.available_permits(), 1);
                s.close();
                let s2 = s.clone();
                let closed = runtime::task::spawn_blocking(move || s2.blocking_acquire().is_err());
                assert!(within("the closed acquire", closed).await.unwrap());
            });
        });
    }

    #[test]
    fn semaphore_blocking_acquire_panics_inside_the_runtime() {
        let rt = rt();
        let err = rt
            .block_on(async {
                runtime::spawn(async {
                    let s = Semaphore::new(1);
                    let _ = s.blocking_acquire();
                })
                .await
            })
            .unwrap_err();
        let msg = panic_message(err.into_panic());
        assert!(msg.contains("acquire().await"), "{msg}");
    }

    #[test]
    fn set_once_wakes_every_waiter() {
        watchdog("the SetOnce waiters", || {
            on(&rt(), || async {
                let cell = Arc::new(SetOnce::<String>::new());
                let mut waiters = Vec::new();
                for _ in 0..8 {
                    let cell = cell.clone();
                    waiters.push(runtime::spawn(async move { cell.wait().await.len() }));
                }
                for _ in 0..4 {
                    runtime::task::yield_now().await; // let some of them register
                }
                assert!(!cell.initialized());
                assert_eq!(cell.set("four".into()), Ok(()));
                assert_eq!(cell.set("x".into()), Err(SetOnceError("x".into())));
                for w in waiters {
                    assert_eq!(within("a SetOnce waiter", w).await.unwrap(), 4);
                }
                assert_eq!(cell.get().map(String::as_str), Some("four"));
                assert_eq!(cell.wait().await, "four", "ready at once when set");
            });
        });
    }

    #[test]
    fn set_once_racing_setters_one_wins_and_losers_see_it() {
        watchdog("the racing setters", || {
            on(&rt(), || async {
                let cell = Arc::new(SetOnce::new());
                let mut setters = Vec::new();
                for i in 0..8u32 {
                    let cell = cell.clone();
                    setters.push(runtime::spawn(async move {
                        match cell.set(i) {
                            Ok(()) => Some(i),
                            Err(SetOnceError(v)) => {
                                assert_eq!(v, i, "the offered value comes back");
                                assert!(cell.get().is_some(), "a failed set sees the value");
                                None
                            }
                        }
                    }));
                }
                let mut winners = Vec::new();
                for s in setters {
                    winners.extend(within("a setter", s).await.unwrap());
                }
                assert_eq!(winners.len(), 1, "exactly one set succeeds");
                assert_eq!(cell.get(), Some(&winners[0]));
            });
        });
    }

    #[test]
    fn broadcast_receiver_is_closed_when_the_senders_leave() {
        watchdog("the broadcast close", || {
            on(&rt(), || async {
                let (tx, mut rx) = broadcast::channel(4);
                let tx2 = tx.clone();
                tx.send(1u8).unwrap();
                assert!(!rx.is_closed());
                drop(tx);
                assert!(!rx.is_closed(), "one sender remains");
                runtime::spawn(async move { drop(tx2) }).await.unwrap();
                assert!(rx.is_closed());
                assert_eq!(rx.recv().await, Ok(1), "buffered values still arrive");
                assert!(rx.recv().await.is_err());
            });
        });
    }

    #[test]
    fn broadcast_of_a_send_only_value_reaches_receivers_in_tasks() {
        watchdog("the Cell broadcast", || {
            on(&rt(), || async {
                use std::cell::Cell;
                // Room for every value: no receiver can lag.
                let (tx, _) = broadcast::channel::<Cell<u32>>(32);
                let mut readers = Vec::new();
                for _ in 0..4 {
                    let mut rx = tx.subscribe();
                    readers.push(runtime::spawn(async move {
                        let mut sum = 0;
                        while let Ok(c) = rx.recv().await {
                            c.set(c.get() + 1); // this receiver's own clone
                            sum += c.get();
                        }
                        sum
                    }));
                }
                let tx = runtime::spawn(async move {
                    for i in 0..20 {
                        tx.send(Cell::new(i)).unwrap();
                        runtime::task::yield_now().await;
                    }
                });
                within("the sender", tx).await.unwrap();
                for r in readers {
                    // Each receiver got every value once, as its own clone.
                    assert_eq!(within("a reader", r).await.unwrap(), (1..=20).sum::<u32>());
                }
            });
        });
    }

    #[test]
    fn notified_futures_at_tokios_path() {
        watchdog("the notified futures", || {
            on(&rt(), || async {
                let n = Arc::new(runtime::sync::Notify::new());
                let a: runtime::sync::futures::Notified<'_> = n.notified();
                let b: runtime::sync::futures::OwnedNotified = n.clone().notified_owned();
                n.notify_waiters();
                within("the borrowed Notified", a).await;
                within("the OwnedNotified", b).await;
            });
        });
    }

    #[test]
    fn reserve_owned_on_a_closed_channel_is_a_unit_send_error() {
        watchdog("the owned reserve", || {
            on(&rt(), || async {
                let (tx, mut rx) = mpsc::channel::<u8>(1);
                let permit = tx.clone().reserve_owned().await.unwrap();
                let tx = permit.send(3);
                assert_eq!(rx.recv().await, Some(3));
                drop(rx);
                let err: mpsc::error::SendError<()> = tx.reserve_owned().await.unwrap_err();
                assert_eq!(err.to_string(), "channel closed");
            });
        });
    }
}

#[test]
fn rwlock_const_with_max_readers_in_a_static() {
    static L: RwLock<u8> = RwLock::const_with_max_readers(7, 2);
    let a = L.try_read().unwrap();
    let b = L.try_read().unwrap();
    assert!(L.try_read().is_err(), "a third reader exceeds max_readers");
    assert_eq!(*a + *b, 14);
}

#[test]
#[should_panic(expected = "max_reads must be in 1..=u32::MAX >> 3")]
fn rwlock_const_with_zero_readers_panics() {
    let _ = RwLock::const_with_max_readers(0u8, 0);
}

#[test]
fn set_once_constructors_and_into_inner() {
    static S: SetOnce<u8> = SetOnce::const_new();
    static T: SetOnce<u8> = SetOnce::const_new_with(9);
    assert_eq!(S.get(), None);
    assert_eq!(T.get(), Some(&9));
    assert_eq!(SetOnce::new_with(Some(1)).into_inner(), Some(1));
    assert_eq!(SetOnce::<u8>::new_with(None).into_inner(), None);
    assert_eq!(SetOnce::from(2).get(), Some(&2));
    assert_eq!(SetOnce::<u8>::default().get(), None);
    assert_eq!(SetOnce::from(3).clone(), SetOnce::from(3));
    // The value's destructor runs once, whether the cell is dropped or consumed.
    let counted = Arc::new(());
    let cell = SetOnce::new();
    cell.set(counted.clone()).unwrap();
    drop(cell);
    assert_eq!(Arc::strong_count(&counted), 1);
}

#[test]
fn permits_name_their_semaphore() {
    let s = Semaphore::new(2);
    let p = s.try_acquire().unwrap();
    assert!(std::ptr::eq(p.semaphore(), &s));
    let s = Arc::new(Semaphore::new(1));
    let p = s.clone().try_acquire_owned().unwrap();
    assert!(Arc::ptr_eq(p.semaphore(), &s));
}

#[test]
fn watch_sender_defaults_to_the_default_value() {
    let tx: watch::Sender<Vec<u8>> = Default::default();
    assert!(tx.borrow().is_empty());
    let rx = tx.subscribe();
    tx.send(vec![1]).unwrap();
    assert_eq!(*rx.borrow(), [1]);
}

fn shown(v: impl Display) -> String {
    v.to_string()
}

#[test]
fn guards_display_their_value() {
    let m = Arc::new(Mutex::new(5u8));
    assert_eq!(shown(m.try_lock().unwrap()), "5");
    assert_eq!(shown(m.clone().try_lock_owned().unwrap()), "5");
    assert_eq!(shown(MutexGuard::map(m.try_lock().unwrap(), |v| v)), "5");
    assert_eq!(
        shown(OwnedMutexGuard::map(
            m.clone().try_lock_owned().unwrap(),
            |v| v
        )),
        "5"
    );
    let l = Arc::new(RwLock::new(String::from("s")));
    assert_eq!(shown(l.try_read().unwrap()), "s");
    assert_eq!(shown(l.try_write().unwrap()), "s");
    assert_eq!(
        shown(RwLockWriteGuard::into_mapped(l.try_write().unwrap())),
        "s"
    );
    assert_eq!(shown(l.clone().try_read_owned().unwrap()), "s");
    assert_eq!(shown(l.clone().try_write_owned().unwrap()), "s");
    assert_eq!(
        shown(OwnedRwLockWriteGuard::into_mapped(
            l.clone().try_write_owned().unwrap()
        )),
        "s"
    );
}

/// tokio's auto-trait bounds: a broadcast channel of a `Send` value (not `Sync`: a
/// `Cell`) crosses threads; a lock of a `dyn Trait + Send` is `Send + Sync`.
#[test]
fn auto_traits_match_tokio() {
    fn send_sync<T: Send + Sync + ?Sized>() {}
    send_sync::<broadcast::Sender<std::cell::Cell<u8>>>();
    send_sync::<broadcast::Receiver<std::cell::Cell<u8>>>();
    send_sync::<Mutex<dyn Shape>>();
    send_sync::<RwLock<[u8]>>();
    send_sync::<SetOnce<u8>>();
}
