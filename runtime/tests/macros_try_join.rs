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
                let res = runtime::try_join!();
                assert_eq!(res, Ok(()));
            });
    })
}
