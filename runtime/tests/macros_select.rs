//! `select!`: every grammar form (`biased;`, preconditions, refutable patterns, `else`,
//! block and expression handlers), the disabled-branch semantics, cancellation of the
//! losers, control flow in handlers, random and seeded branch order, on both flavors.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::cell::Cell;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use runtime::sync::oneshot;
use runtime::{Builder, RngSeed};

/// A future that is ready at once with `v` and counts its polls.
struct Ready<'a, T> {
    v: Option<T>,
    polls: &'a Cell<u32>,
}

impl<T: Unpin> Future for Ready<'_, T> {
    type Output = T;
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<T> {
        self.polls.set(self.polls.get() + 1);
        Poll::Ready(self.v.take().expect("polled after completion"))
    }
}

fn ready<T>(v: T, polls: &Cell<u32>) -> Ready<'_, T> {
    Ready { v: Some(v), polls }
}

/// Pending forever; counts its polls and drops.
struct Never<'a> {
    polls: &'a Cell<u32>,
    drops: &'a Cell<u32>,
}

impl Future for Never<'_> {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        self.polls.set(self.polls.get() + 1);
        Poll::Pending
    }
}

impl Drop for Never<'_> {
    fn drop(&mut self) {
        self.drops.set(self.drops.get() + 1);
    }
}

/// Polled only to fail: a future of a disabled branch must never be polled.
struct MustNotPoll;
impl Future for MustNotPoll {
    type Output = u32;
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u32> {
        panic!("the future of a disabled branch was polled");
    }
}

/// A type that is not a future but converts into one.
struct Seven;
impl IntoFuture for Seven {
    type Output = u32;
    type IntoFuture = std::future::Ready<u32>;
    fn into_future(self) -> Self::IntoFuture {
        std::future::ready(7)
    }
}

/// A source whose `next` future borrows it mutably.
struct Counter(u32);
impl Counter {
    async fn next(&mut self) -> Option<u32> {
        runtime::task::yield_now().await;
        self.0 += 1;
        (self.0 <= 3).then_some(self.0)
    }
}

async fn question_mark(fail: bool) -> Result<u32, String> {
    let v = runtime::select! {
        r = async move { if fail { Err("bad".to_string()) } else { Ok(2) } } => r?,
    };
    Ok(v * 10)
}

#[allow(clippy::needless_return)]
async fn early_return() -> u32 {
    runtime::select! {
        v = async { 5 } => return v + 1,
    }
}

rt_test! {
    #[test]
    fn first_ready_branch_wins_and_losers_are_dropped() {
        watchdog("select! on the sender's value", || {
            rt().block_on(async {
                let (polls, drops) = (Cell::new(0), Cell::new(0));
                let (tx, rx) = oneshot::channel::<u32>();
                drop(runtime::spawn(async move {
                    runtime::time::sleep(Duration::from_millis(5)).await;
                    tx.send(3).unwrap();
                }));
                let got = within("the sender", async {
                    runtime::select! {
                        v = rx => v.unwrap(),
                        _ = Never { polls: &polls, drops: &drops } => unreachable!(),
                    }
                })
                .await;
                assert_eq!(got, 3);
                assert!(polls.get() >= 1);
                assert_eq!(drops.get(), 1, "the losing future was not dropped");
            });
        })
    }

    #[test]
    fn non_matching_output_disables_only_its_branch() {
        watchdog("select! after a non-matching branch", || {
            rt().block_on(async {
                let (tx, rx) = oneshot::channel::<u32>();
                drop(runtime::spawn(async move {
                    runtime::time::sleep(Duration::from_millis(5)).await;
                    tx.send(9).unwrap();
                }));
                let got = within("the sender", async {
                    runtime::select! {
                        Some(v) = async { None::<u32> } => v,
                        Ok(v) = rx => v + 100,
                    }
                })
                .await;
                assert_eq!(got, 109);
            });
        })
    }

    #[test]
    fn loop_over_a_borrowed_source_until_else() {
        watchdog("the select! loop to reach else", || {
            rt().block_on(async {
                let mut src = Counter(0);
                let mut seen = Vec::new();
                loop {
                    runtime::select! {
                        Some(v) = src.next() => {
                            // The branch's future (borrowing `src`) is gone by now.
                            assert_eq!(src.0, v);
                            seen.push(v);
                            if v == 2 {
                                continue;
                            }
                        }
                        else => break,
                    }
                }
                assert_eq!(seen, [1, 2, 3]);
            });
        })
    }
}

fn block_on<F: Future>(f: F) -> F::Output {
    Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

#[test]
fn precondition_disables_a_branch_but_its_future_is_still_evaluated() {
    watchdog("select! with a disabled branch", || {
        block_on(async {
            let evaluated = Cell::new(0);
            let make = || {
                evaluated.set(evaluated.get() + 1);
                MustNotPoll
            };
            let p = Cell::new(0);
            let v = runtime::select! {
                v = make(), if false => v,
                v = ready(4u32, &p) => v,
            };
            assert_eq!(v, 4);
            assert_eq!(
                evaluated.get(),
                1,
                "a disabled branch's expression is evaluated"
            );
        });
    })
}

#[test]
fn every_branch_disabled_runs_else() {
    watchdog("select! with every branch disabled", || {
        block_on(async {
            // By preconditions: no future is polled.
            let v = runtime::select! {
                v = MustNotPoll, if false => v,
                v = MustNotPoll, if 1 > 2 => v,
                else => 42,
            };
            assert_eq!(v, 42);
            // By outputs that do not match.
            let p = Cell::new(0);
            let v = runtime::select! {
                Some(v) = ready(None::<u32>, &p) => v,
                Err(e) = ready(Ok::<u32, u32>(1), &p) => e,
                else => { 7 }
            };
            assert_eq!(v, 7);
            assert_eq!(p.get(), 2, "each branch is polled once, then disabled");
        });
    })
}

#[test]
#[should_panic(expected = "all branches are disabled and there is no else branch")]
fn every_branch_disabled_without_else_panics() {
    watchdog("select! with every branch disabled and no else", || {
        block_on(async {
            let p = Cell::new(0);
            runtime::select! {
                Some(v) = ready(None::<u32>, &p) => v,
                v = MustNotPoll, if false => v,
            }
        });
    })
}

#[test]
fn biased_polls_in_order() {
    watchdog("the biased select!", || {
        block_on(async {
            for _ in 0..50 {
                let (p0, p1) = (Cell::new(0), Cell::new(0));
                let v = runtime::select! {
                    biased;
                    v = ready(0, &p0) => v,
                    v = ready(1, &p1) => v,
                };
                assert_eq!(v, 0);
                assert_eq!(p1.get(), 0, "biased select polled the second branch first");
            }
            // A disabled first branch lets the second win.
            let (p0, p1) = (Cell::new(0), Cell::new(0));
            let v = runtime::select! {
                biased;
                Some(v) = ready(None, &p0) => v,
                v = ready(1, &p1) => v,
            };
            assert_eq!(v, 1);
        });
    })
}

#[test]
fn unbiased_order_is_random() {
    watchdog("the unbiased select!s", || {
        block_on(async {
            let mut wins = [0u32; 3];
            for _ in 0..300 {
                let p = Cell::new(0);
                let v: usize = runtime::select! {
                    v = ready(0, &p) => v,
                    v = ready(1, &p) => v,
                    v = ready(2, &p) => v,
                };
                wins[v] += 1;
            }
            assert!(
                wins.iter().all(|&w| w > 0),
                "some branch never went first: {wins:?}"
            );
        });
    })
}

fn picks(seed: Option<&RngSeed>) -> Vec<u8> {
    let mut b = Builder::new_current_thread();
    if let Some(seed) = seed {
        b.rng_seed(seed.clone());
    }
    b.build().unwrap().block_on(async {
        let p = Cell::new(0);
        let mut out = Vec::new();
        for _ in 0..64 {
            out.push(runtime::select! {
                v = ready(0u8, &p) => v,
                v = ready(1u8, &p) => v,
                v = ready(2u8, &p) => v,
                v = ready(3u8, &p) => v,
            });
        }
        out
    })
}

#[test]
fn seeded_runtime_makes_the_same_choices() {
    let a = RngSeed::from_bytes(b"one");
    let b = RngSeed::from_bytes(b"two");
    assert_eq!(picks(Some(&a)), picks(Some(&a)));
    assert_ne!(picks(Some(&a)), picks(Some(&b)));
    assert_ne!(picks(None), picks(None), "unseeded runtimes should differ");
}

#[test]
fn patterns_with_mut_ref_and_alternatives() {
    watchdog("select! with patterns", || {
        block_on(async {
            let p = Cell::new(0);
            let s = runtime::select! {
                Some(mut s) = ready(Some(String::from("ab")), &p) => { s.push('c'); s }
            };
            assert_eq!(s, "abc");
            let n = runtime::select! {
                (ref a, mut b) = ready((String::from("x"), 1), &p) => { b += 1; a.len() + b }
            };
            assert_eq!(n, 3);
            let n = runtime::select! {
                Ok(v) | Err(v) = ready(Err::<u32, u32>(5), &p) => v,
            };
            assert_eq!(n, 5);
            let n = runtime::select! {
                v @ 1..=9 = ready(4, &p) => v,
                else => 0,
            };
            assert_eq!(n, 4);
        });
    })
}

#[test]
#[allow(clippy::never_loop)] // the inner loop is left by the handler's labeled jumps
fn handlers_use_the_callers_control_flow() {
    watchdog("select! handlers that break and return", || {
        block_on(async {
            assert_eq!(question_mark(false).await, Ok(20));
            assert_eq!(question_mark(true).await, Err("bad".to_string()));
            assert_eq!(early_return().await, 6);
            let mut n = 0;
            'outer: loop {
                n += 1;
                for _ in 0..3 {
                    runtime::select! {
                        _ = async {} => if n == 3 { break 'outer } else { continue 'outer },
                    }
                }
            }
            assert_eq!(n, 3);
            // A handler may await.
            let v = runtime::select! {
                v = async { 1 } => { runtime::task::yield_now().await; v + 1 }
            };
            assert_eq!(v, 2);
        });
    })
}

#[test]
fn into_future_and_many_branches() {
    watchdog("select! over IntoFuture branches", || {
        block_on(async {
            let v = runtime::select! { v = Seven => v };
            assert_eq!(v, 7);
            let p = Cell::new(0);
            let v = runtime::select! {
                biased;
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(Some(11u32), &p) => v,
            };
            assert_eq!(v, 11);
            assert_eq!(p.get(), 12);
        });
    })
}

#[test]
fn select_in_spawned_tasks_is_send() {
    watchdog("select! in spawned tasks", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let done = Arc::new(AtomicUsize::new(0));
        rt.block_on(async {
            let mut handles = Vec::new();
            for i in 0..20u64 {
                let done = done.clone();
                handles.push(runtime::spawn(async move {
                    let (tx, rx) = oneshot::channel();
                    drop(runtime::spawn(async move { tx.send(i).unwrap() }));
                    let v = runtime::select! {
                        v = rx => v.unwrap(),
                        _ = runtime::time::sleep(Duration::from_secs(10)) => panic!("timed out"),
                    };
                    assert_eq!(v, i);
                    done.fetch_add(1, SeqCst);
                }));
            }
            for h in handles {
                h.await.unwrap();
            }
        });
        assert_eq!(done.load(SeqCst), 20);
    })
}

#[test]
fn sixty_four_branches() {
    watchdog("select! of 64 branches", || {
        block_on(async {
            let p = Cell::new(0);
            let v = runtime::select! {
                biased;
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                Some(v) = ready(None::<u32>, &p) => v,
                v = ready(64u32, &p) => v,
            };
            assert_eq!(v, 64);
            assert_eq!(p.get(), 64);
        });
    })
}

/// A `select!` future is no larger than tokio's for the same branches: futures that live
/// in every task should not cost more memory than they do on tokio.
#[test]
fn select_future_is_no_larger_than_tokios() {
    let ours = [
        std::mem::size_of_val(&async {
            runtime::select! { v = std::future::ready(1i32) => v }
        }),
        std::mem::size_of_val(&async {
            runtime::select! {
                v = std::future::ready(1i32) => v,
                v = std::future::ready(2i32) => v,
            }
        }),
        std::mem::size_of_val(&async {
            runtime::select! {
                v = std::future::ready(1i32) => v,
                v = std::future::ready(2i32) => v,
                v = std::future::ready(3i32) => v,
            }
        }),
    ];
    let tokio = [
        std::mem::size_of_val(&async {
            tokio::select! { v = std::future::ready(1i32) => v }
        }),
        std::mem::size_of_val(&async {
            tokio::select! {
                v = std::future::ready(1i32) => v,
                v = std::future::ready(2i32) => v,
            }
        }),
        std::mem::size_of_val(&async {
            tokio::select! {
                v = std::future::ready(1i32) => v,
                v = std::future::ready(2i32) => v,
                v = std::future::ready(3i32) => v,
            }
        }),
    ];
    for (i, (o, t)) in ours.iter().zip(tokio.iter()).enumerate() {
        assert!(o <= t, "{} branch(es): ours {o} bytes, tokio's {t}", i + 1);
    }
}

/// As tokio's `no_branch_else_only` and `no_branch_else_only_biased`: a `select!` with only
/// an `else` branch evaluates it.
#[test]
fn else_only_evaluates_the_else() {
    watchdog("select! with only else", || {
        block_on(async {
            let v = runtime::select! {
                else => 1,
            };
            assert_eq!(v, 1);
            let v = runtime::select! {
                biased;
                else => 2
            };
            assert_eq!(v, 2);
            let v: String = runtime::select! { else => { String::from("e") } };
            assert_eq!(v, "e");
        });
    })
}

/// As tokio's `mut_on_left_hand_side` and `mut_ref_patterns`: `mut`, `ref` and `ref mut`
/// bindings, at the top of a pattern and inside it.
#[test]
fn mut_and_ref_bindings_as_tokios() {
    watchdog("select! with mut/ref bindings", || {
        block_on(async {
            let ok = std::pin::pin!(async { 1 });
            let mut ok = ok;
            let v = runtime::select! {
                mut a = &mut ok => {
                    a += 1;
                    a
                }
            };
            assert_eq!(v, 2);
            runtime::select! {
                Some(mut foo) = async { Some("1".to_string()) } => {
                    assert_eq!(foo, "1");
                    foo = "2".to_string();
                    assert_eq!(foo, "2");
                },
            };
            runtime::select! {
                Some(ref foo) = async { Some("1".to_string()) } => {
                    assert_eq!(*foo, "1");
                },
            };
            let got = runtime::select! {
                Some(ref mut foo) = async { Some("1".to_string()) } => {
                    assert_eq!(*foo, "1");
                    *foo = "2".to_string();
                    foo.clone()
                },
            };
            assert_eq!(got, "2");
            let got = runtime::select! {
                ref mut whole = async { 5u32 } => {
                    *whole += 1;
                    *whole
                }
            };
            assert_eq!(got, 6);
        });
    })
}

/// As tokio's `temporary_lifetime_extension` (tokio#6721): a branch's future expression
/// may borrow a temporary (`&mut std::future::ready(())`), which lives as long as the
/// `select!`.
#[test]
fn branch_future_may_borrow_a_temporary() {
    watchdog("select! on a borrowed temporary", || {
        block_on(async {
            let v = runtime::select! {
                () = &mut std::future::ready(()) => 1,
            };
            assert_eq!(v, 1);
            let v = runtime::select! {
                biased;
                x = &mut std::future::ready(3) => x,
                y = &mut std::future::ready(4), if false => y,
            };
            assert_eq!(v, 3);
        });
    })
}
