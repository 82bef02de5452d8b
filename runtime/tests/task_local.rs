//! `task_local!`: values set by `scope`/`sync_scope` are visible only to the scoped code,
//! across its awaits and on whichever worker polls it, never to other tasks; scopes nest;
//! access outside a scope errors (`try_with`) or panics with advice (`with`, `get`).
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use runtime::task::{self, JoinSet};

runtime::task_local! {
    static NUMBER: u32;
    pub static NAME: String;
}

runtime::task_local! {
    static SOLO: u8
}

#[test]
fn sync_scope_nests_and_restores() {
    assert!(NUMBER.try_with(|_| ()).is_err());
    let v = NUMBER.sync_scope(1, || {
        assert_eq!(NUMBER.get(), 1);
        let inner = NUMBER.sync_scope(2, || NUMBER.get());
        assert_eq!(
            NUMBER.get(),
            1,
            "the outer value is restored after the inner scope"
        );
        inner * 10 + NUMBER.get()
    });
    assert_eq!(v, 21);
    assert!(NUMBER.try_with(|_| ()).is_err());
    assert_eq!(SOLO.sync_scope(3, || SOLO.get()), 3);
    assert_eq!(NAME.sync_scope("ab".into(), || NAME.with(|n| n.len())), 2);
}

#[test]
fn sync_scope_restores_on_panic() {
    let res = std::panic::catch_unwind(|| NUMBER.sync_scope(5, || panic!("inside")));
    assert!(res.is_err());
    assert!(
        NUMBER.try_with(|_| ()).is_err(),
        "the value leaked out of a panicking scope"
    );
}

#[test]
#[should_panic(expected = "without setting it first")]
fn with_outside_a_scope_panics() {
    NUMBER.with(|_| ());
}

#[test]
#[should_panic(expected = "while the task-local storage is borrowed")]
fn scope_inside_with_panics() {
    NUMBER.sync_scope(1, || NUMBER.with(|_| NUMBER.sync_scope(2, || ())));
}

#[test]
fn access_error_displays() {
    let err = NUMBER.try_with(|_| ()).unwrap_err();
    assert_eq!(err.to_string(), "task-local value not set");
}

rt_test! {
    flavors {
        current_thread => support::current_thread();
        multi_thread => support::multi_thread(4);
    }

    #[test]
    fn value_survives_awaits_and_stays_in_its_task() {
        watchdog("the scoped tasks", || {
            rt().block_on(async {
                let mut set = JoinSet::new();
                for i in 0..50u32 {
                    set.spawn(NUMBER.scope(i, async move {
                        for _ in 0..5 {
                            assert_eq!(NUMBER.get(), i);
                            task::yield_now().await;
                            runtime::time::sleep(Duration::from_micros(50)).await;
                        }
                        NUMBER.get()
                    }));
                }
                let mut seen = [false; 50];
                while let Some(res) = within("scoped tasks", set.join_next()).await {
                    seen[res.unwrap() as usize] = true;
                }
                assert!(seen.iter().all(|s| *s));
                // Not visible to block_on's own future, outside any scope.
                assert!(NUMBER.try_with(|_| ()).is_err());
            });
        })
    }

    #[test]
    fn scopes_nest_across_awaits() {
        watchdog("the nested scopes", || {
            rt().block_on(async {
                NAME.scope("outer".into(), async {
                    task::yield_now().await;
                    let inner = NAME
                        .scope("inner".into(), async {
                            task::yield_now().await;
                            NAME.get()
                        })
                        .await;
                    assert_eq!(inner, "inner");
                    assert_eq!(NAME.get(), "outer");
                })
                .await;
                assert!(NAME.try_with(|_| ()).is_err());
            });
        })
    }

    #[test]
    fn a_dropped_scoped_future_sees_its_value() {
        watchdog("the scoped future's drop", || {
            let seen = Arc::new(AtomicUsize::new(0));
            struct ReadOnDrop(Arc<AtomicUsize>);
            impl Drop for ReadOnDrop {
                fn drop(&mut self) {
                    let v = NUMBER.try_with(|v| *v as usize).unwrap_or(usize::MAX);
                    self.0.store(v, SeqCst);
                }
            }
            let rt = rt();
            let s = seen.clone();
            rt.block_on(async move {
                let guard = ReadOnDrop(s);
                let fut = NUMBER.scope(42, async move {
                    let _g = guard;
                    std::future::pending::<()>().await
                });
                // Poll once, then drop it pending.
                let _ = runtime::time::timeout(Duration::from_millis(1), fut).await;
            });
            assert_eq!(seen.load(SeqCst), 42);
        })
    }
}

/// As tokio's: a scoped future whose value was taken (`take_value`) still runs when polled,
/// with the key unset inside it, and a scope that completed gives its value back.
#[test]
fn polled_after_take_value_runs_with_the_key_unset() {
    watchdog("the scoped futures after take_value", || {
        current_thread().block_on(async {
            let mut fut = Box::pin(NUMBER.scope(1, async {
                assert!(NUMBER.try_get().is_err(), "the value was taken");
                assert!(NUMBER.try_with(|_| ()).is_err());
                5
            }));
            assert_eq!(fut.as_mut().take_value(), Some(1));
            assert_eq!(fut.as_mut().take_value(), None);
            assert_eq!(fut.as_mut().await, 5);

            let mut done = Box::pin(NUMBER.scope(2, async { NUMBER.get() }));
            assert_eq!(done.as_mut().await, 2);
            assert_eq!(done.as_mut().take_value(), Some(2));
        })
    })
}
