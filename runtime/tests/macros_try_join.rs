//! `try_join!`: `Ok` with every value in order, or the first `Err` at once, with the other
//! futures dropped; `biased;`; both flavors.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use runtime::sync::oneshot;
use runtime::Builder;

async fn uses_question_mark() -> Result<u32, String> {
    let (a, b) = runtime::try_join!(async { Ok::<_, String>(1) }, async { Ok(2) })?;
    Ok(a + b)
}

rt_test! {
    #[test]
    fn all_ok_gives_every_value_in_order() {
        watchdog("try_join! of a sleeping branch", || {
            rt().block_on(async {
                let res: Result<(u8, &str, u64), ()> = runtime::try_join!(
                    async {
                        runtime::time::sleep(Duration::from_millis(3)).await;
                        Ok(1)
                    },
                    async { Ok("two") },
                    async { Ok(3) },
                );
                assert_eq!(res, Ok((1, "two", 3)));
                assert_eq!(uses_question_mark().await, Ok(3));
            });
        })
    }

    #[test]
    fn first_error_returns_at_once_and_drops_the_rest() {
        watchdog("try_join! to return the first error", || {
            rt().block_on(async {
                let drops = Arc::new(AtomicUsize::new(0));
                let guard = CountDrop(drops.clone());
                let (tx, rx) = oneshot::channel::<()>();
                drop(runtime::spawn(async move {
                    runtime::time::sleep(Duration::from_millis(3)).await;
                    let _ = tx.send(());
                }));
                let res: Result<((), u32), String> = within("the error", async {
                    runtime::try_join!(
                        async move {
                            let _g = guard;
                            std::future::pending::<Result<(), String>>().await
                        },
                        async move {
                            rx.await.unwrap();
                            Err("late failure".to_string())
                        },
                    )
                })
                .await;
                assert_eq!(res, Err("late failure".to_string()));
                assert_eq!(drops.load(SeqCst), 1, "the pending future was not dropped");
            });
        })
    }
}

#[test]
fn biased_checks_in_order_and_empty_is_ok() {
    watchdog("the biased try_join!", || {
        Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(async {
                let polled_second = std::cell::Cell::new(false);
                let res: Result<(u8, u8), &str> = runtime::try_join!(
                    biased;
                    async { Err("first") },
                    async {
                        polled_second.set(true);
                        Ok(2)
                    },
                );
                assert_eq!(res, Err("first"));
                assert!(
                    !polled_second.get(),
                    "biased try_join! polled past the first error"
                );
                let res: Result<(), String> = runtime::try_join!();
                assert_eq!(res, Ok(()));
            });
    })
}

/// As tokio's `empty_try_join`: with no futures the error type is inferred from the use.
#[runtime::test]
async fn empty_try_join_infers_the_error_type() {
    assert_eq!(runtime::try_join!() as Result<_, ()>, Ok(()));
    assert_eq!(runtime::try_join!(biased;) as Result<_, ()>, Ok(()));
    let res: Result<(), std::io::Error> = runtime::try_join!();
    assert!(res.is_ok());
}

/// As tokio's `uninhabited_ok_type` / `uninhabited_err_type` (tokio#7031): an
/// uninhabited value or error type makes no code of the caller unreachable.
#[deny(unreachable_code)]
#[runtime::test]
async fn uninhabited_value_or_error_types() {
    use std::convert::Infallible;
    let res = runtime::try_join!(async { Err::<Infallible, _>(1) }, async { Ok(2) });
    assert_eq!(res, Err(1));
    let res =
        runtime::try_join!(biased; async { Ok::<_, i32>(1) }, async { Err::<Infallible, _>(2) });
    assert_eq!(res, Err(2));
    let res = runtime::try_join!(async { Ok::<_, Infallible>(1) }, async { Ok(2) });
    assert_eq!(res, Ok((1, 2)));
    let res = runtime::try_join!(biased; async { Ok::<_, Infallible>(1) });
    assert_eq!(res, Ok((1,)));
}

fn ok<T>(val: T) -> Result<T, ()> {
    Ok(val)
}

/// A `try_join!` future is no larger than tokio's for the same futures (tokio's
/// `try_join_size` and `try_join_size_biased`).
#[test]
fn try_join_future_is_no_larger_than_tokios() {
    use futures::future::ready;
    let ours = [
        std::mem::size_of_val(&async {
            let r = ready(ok(0i32));
            runtime::try_join!(r)
        }),
        std::mem::size_of_val(&async {
            let (r1, r2) = (ready(ok(0i32)), ready(ok(0i32)));
            runtime::try_join!(r1, r2)
        }),
        std::mem::size_of_val(&async {
            let r = ready(ok(0i32));
            runtime::try_join!(biased; r)
        }),
        std::mem::size_of_val(&async {
            let (r1, r2) = (ready(ok(0i32)), ready(ok(0i32)));
            runtime::try_join!(biased; r1, r2)
        }),
    ];
    let tokio = [
        std::mem::size_of_val(&async {
            let r = ready(ok(0i32));
            tokio::try_join!(r)
        }),
        std::mem::size_of_val(&async {
            let (r1, r2) = (ready(ok(0i32)), ready(ok(0i32)));
            tokio::try_join!(r1, r2)
        }),
        std::mem::size_of_val(&async {
            let r = ready(ok(0i32));
            tokio::try_join!(biased; r)
        }),
        std::mem::size_of_val(&async {
            let (r1, r2) = (ready(ok(0i32)), ready(ok(0i32)));
            tokio::try_join!(biased; r1, r2)
        }),
    ];
    let cases = ["one", "two", "biased one", "biased two"];
    for ((case, o), t) in cases.iter().zip(ours).zip(tokio) {
        assert!(o <= t, "{case}: ours {o} bytes, tokio's {t}");
    }
}
