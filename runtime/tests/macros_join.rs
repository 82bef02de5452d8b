//! `join!`: outputs in argument order, futures polled concurrently on one task, `biased;`
//! polling in order where the default rotates, `IntoFuture` arguments, on both flavors.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::cell::RefCell;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use runtime::sync::oneshot;
use runtime::Builder;

/// Pending for `n` polls (waking itself), recording each poll's id in `log`.
struct Steps<'a> {
    id: u8,
    n: u32,
    log: &'a RefCell<Vec<u8>>,
}

impl Future for Steps<'_> {
    type Output = u8;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u8> {
        self.log.borrow_mut().push(self.id);
        if self.n == 0 {
            return Poll::Ready(self.id);
        }
        self.n -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

struct Seven;
impl IntoFuture for Seven {
    type Output = u32;
    type IntoFuture = std::future::Ready<u32>;
    fn into_future(self) -> Self::IntoFuture {
        std::future::ready(7)
    }
}

rt_test! {
    #[test]
    fn outputs_in_argument_order() {
        watchdog("join! of a sleeping branch", || {
            rt().block_on(async {
                let (a, b, c) = runtime::join!(
                    async {
                        runtime::time::sleep(Duration::from_millis(3)).await;
                        1u8
                    },
                    async { "two" },
                    Seven,
                );
                assert_eq!((a, b, c), (1, "two", 7));
                let (x,) = runtime::join!(async { 'x' });
                assert_eq!(x, 'x');
                let () = runtime::join!();
            });
        })
    }

    #[test]
    fn futures_run_concurrently_on_one_task() {
        watchdog("join! of branches that wait on each other", || {
            rt().block_on(async {
                // Each side waits for the other: only concurrent polling completes.
                let (tx_a, rx_a) = oneshot::channel::<u32>();
                let (tx_b, rx_b) = oneshot::channel::<u32>();
                let (a, b) = within("the ping-pong", async {
                    runtime::join!(
                        async move {
                            tx_a.send(1).unwrap();
                            rx_b.await.unwrap()
                        },
                        async move {
                            let v = rx_a.await.unwrap();
                            tx_b.send(v + 1).unwrap();
                            v
                        },
                    )
                })
                .await;
                assert_eq!((a, b), (2, 1));
            });
        })
    }
}

fn block_on<F: Future>(f: F) -> F::Output {
    Builder::new_current_thread().build().unwrap().block_on(f)
}

#[test]
fn biased_polls_in_order_and_default_rotates() {
    watchdog("the biased and rotating join!", || {
        block_on(async {
            let log = RefCell::new(Vec::new());
            let out = runtime::join!(
                biased;
                Steps { id: 0, n: 2, log: &log },
                Steps { id: 1, n: 2, log: &log },
                Steps { id: 2, n: 2, log: &log },
            );
            assert_eq!(out, (0, 1, 2));
            assert_eq!(*log.borrow(), [0, 1, 2, 0, 1, 2, 0, 1, 2]);

            let log = RefCell::new(Vec::new());
            let out = runtime::join!(
                Steps {
                    id: 0,
                    n: 2,
                    log: &log
                },
                Steps {
                    id: 1,
                    n: 2,
                    log: &log
                },
                Steps {
                    id: 2,
                    n: 2,
                    log: &log
                },
            );
            assert_eq!(out, (0, 1, 2));
            // Each poll starts one further along: 0 1 2, then 1 2 0, then 2 0 1.
            assert_eq!(*log.borrow(), [0, 1, 2, 1, 2, 0, 2, 0, 1]);
        });
    })
}

#[test]
fn a_finished_future_is_not_polled_again() {
    watchdog("join! after one branch finished", || {
        block_on(async {
            let log = RefCell::new(Vec::new());
            let out = runtime::join!(
                biased;
                Steps { id: 0, n: 0, log: &log },
                Steps { id: 1, n: 2, log: &log },
            );
            assert_eq!(out, (0, 1));
            assert_eq!(*log.borrow(), [0, 1, 1, 1]);
        });
    })
}

#[test]
fn sixty_four_futures() {
    watchdog("join! of 64 futures", || {
        block_on(async {
            let out = runtime::join!(
                async { 0u32 },
                async { 1u32 },
                async { 2u32 },
                async { 3u32 },
                async { 4u32 },
                async { 5u32 },
                async { 6u32 },
                async { 7u32 },
                async { 8u32 },
                async { 9u32 },
                async { 10u32 },
                async { 11u32 },
                async { 12u32 },
                async { 13u32 },
                async { 14u32 },
                async { 15u32 },
                async { 16u32 },
                async { 17u32 },
                async { 18u32 },
                async { 19u32 },
                async { 20u32 },
                async { 21u32 },
                async { 22u32 },
                async { 23u32 },
                async { 24u32 },
                async { 25u32 },
                async { 26u32 },
                async { 27u32 },
                async { 28u32 },
                async { 29u32 },
                async { 30u32 },
                async { 31u32 },
                async { 32u32 },
                async { 33u32 },
                async { 34u32 },
                async { 35u32 },
                async { 36u32 },
                async { 37u32 },
                async { 38u32 },
                async { 39u32 },
                async { 40u32 },
                async { 41u32 },
                async { 42u32 },
                async { 43u32 },
                async { 44u32 },
                async { 45u32 },
                async { 46u32 },
                async { 47u32 },
                async { 48u32 },
                async { 49u32 },
                async { 50u32 },
                async { 51u32 },
                async { 52u32 },
                async { 53u32 },
                async { 54u32 },
                async { 55u32 },
                async { 56u32 },
                async { 57u32 },
                async { 58u32 },
                async { 59u32 },
                async { 60u32 },
                async { 61u32 },
                async { 62u32 },
                async { 63u32 }
            );
            assert_eq!((out.0, out.31, out.63), (0, 31, 63));
            let res: Result<_, ()> = runtime::try_join!(
                async { Ok(0u32) },
                async { Ok(1u32) },
                async { Ok(2u32) },
                async { Ok(3u32) },
                async { Ok(4u32) },
                async { Ok(5u32) },
                async { Ok(6u32) },
                async { Ok(7u32) },
                async { Ok(8u32) },
                async { Ok(9u32) },
                async { Ok(10u32) },
                async { Ok(11u32) },
                async { Ok(12u32) },
                async { Ok(13u32) },
                async { Ok(14u32) },
                async { Ok(15u32) },
                async { Ok(16u32) },
                async { Ok(17u32) },
                async { Ok(18u32) },
                async { Ok(19u32) },
                async { Ok(20u32) },
                async { Ok(21u32) },
                async { Ok(22u32) },
                async { Ok(23u32) },
                async { Ok(24u32) },
                async { Ok(25u32) },
                async { Ok(26u32) },
                async { Ok(27u32) },
                async { Ok(28u32) },
                async { Ok(29u32) },
                async { Ok(30u32) },
                async { Ok(31u32) },
                async { Ok(32u32) },
                async { Ok(33u32) },
                async { Ok(34u32) },
                async { Ok(35u32) },
                async { Ok(36u32) },
                async { Ok(37u32) },
                async { Ok(38u32) },
                async { Ok(39u32) },
                async { Ok(40u32) },
                async { Ok(41u32) },
                async { Ok(42u32) },
                async { Ok(43u32) },
                async { Ok(44u32) },
                async { Ok(45u32) },
                async { Ok(46u32) },
                async { Ok(47u32) },
                async { Ok(48u32) },
                async { Ok(49u32) },
                async { Ok(50u32) },
                async { Ok(51u32) },
                async { Ok(52u32) },
                async { Ok(53u32) },
                async { Ok(54u32) },
                async { Ok(55u32) },
                async { Ok(56u32) },
                async { Ok(57u32) },
                async { Ok(58u32) },
                async { Ok(59u32) },
                async { Ok(60u32) },
                async { Ok(61u32) },
                async { Ok(62u32) },
                async { Ok(63u32) }
            );
            assert_eq!(res.unwrap().63, 63);
        });
    })
}

/// `join!(biased; ..)` carries no rotation counter: its future is smaller than the
/// rotating one over the same futures.
#[test]
fn biased_join_carries_no_rotation_counter() {
    let biased = std::mem::size_of_val(&async {
        runtime::join!(biased; std::future::ready(1u8), std::future::ready(2u8))
    });
    let rotating = std::mem::size_of_val(&async {
        runtime::join!(std::future::ready(1u8), std::future::ready(2u8))
    });
    assert!(
        biased < rotating,
        "biased {biased} bytes, rotating {rotating}"
    );
}
