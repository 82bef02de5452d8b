//! `pin!`: both forms pin `!Unpin` futures on the stack so they can be polled by `&mut`,
//! e.g. across the iterations of a `select!` loop.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::time::Duration;

use runtime::Builder;

async fn not_unpin(v: u32) -> u32 {
    runtime::task::yield_now().await;
    v
}

rt_test! {
    #[test]
    fn pins_variables_and_lets() {
        watchdog("the pinned futures", || {
            let rt = rt();
            rt.block_on(async {
                let a = not_unpin(1);
                let b = not_unpin(2);
                runtime::pin!(a, b);
                assert_eq!((&mut a).await + b.as_mut().await, 3);

                runtime::pin! {
                    let c = not_unpin(3);
                    let d = not_unpin(4);
                }
                let _is_pinned: std::pin::Pin<&mut _> = c.as_mut();
                assert_eq!(c.await + d.await, 7);
            });
        })
    }
}

#[test]
fn a_pinned_future_survives_select_iterations() {
    watchdog("the pinned future across select! iterations", || {
        Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async {
                let slow = runtime::time::sleep(Duration::from_millis(20));
                runtime::pin!(slow);
                let mut ticks = 0u32;
                let done = runtime::time::timeout(Duration::from_secs(10), async {
                    loop {
                        runtime::select! {
                            biased;
                            _ = &mut slow => break ticks,
                            _ = runtime::time::sleep(Duration::from_millis(1)) => ticks += 1,
                        }
                    }
                })
                .await
                .expect("the pinned sleep never completed");
                assert!(
                    done >= 1,
                    "the loop never ticked before the pinned sleep fired"
                );
            });
    })
}
