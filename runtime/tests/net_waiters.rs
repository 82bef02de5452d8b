//! Any number of tasks may wait on one direction of one socket: several accept loops on one
//! `Arc<TcpListener>`, several receivers on one `Arc<UdpSocket>`, several `readable()`
//! callers; a waiter dropped mid-wait does not take the others' wake-up with it. On both
//! flavors. Each test first makes sure every waiter is registered (its first poll returned)
//! before the event that must wake them arrives, and bounds every wait with a watchdog.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::future::{poll_fn, Future};
use std::io::{Read, Write};
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use runtime::net::{TcpListener, TcpStream, UdpSocket};
use runtime::time::timeout;

const WATCHDOG: Duration = Duration::from_secs(20);
const WAITERS: usize = 4;

/// Runs `fut`, adding one to `polled` once its first poll has returned (so the waiter it
/// registered, if it had to wait, is in place).
async fn counting_first_poll<F: Future>(fut: F, polled: &AtomicUsize) -> F::Output {
    let mut fut = pin!(fut);
    let mut first = true;
    poll_fn(|cx| {
        let out = fut.as_mut().poll(cx);
        if std::mem::take(&mut first) {
            polled.fetch_add(1, Ordering::SeqCst);
        }
        out
    })
    .await
}

/// Waits (yielding, under the watchdog) until `polled` reaches `n`.
async fn until_polled(polled: &AtomicUsize, n: usize, what: &str) {
    timeout(WATCHDOG, async {
        while polled.load(Ordering::SeqCst) < n {
            runtime::time::sleep(Duration::from_millis(1)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{what}: the waiters never got polled"));
}

rt_test! {
    #[test]
    fn every_accept_waiter_on_one_listener_gets_a_connection() {
        watchdog("every accept waiter's connection", || {
            let (flavor, rt) = (FLAVOR, rt());
            rt.block_on(async {
                let listener = Arc::new(TcpListener::bind("127.0.0.1:0").await.unwrap());
                let addr = listener.local_addr().unwrap();
                let polled = Arc::new(AtomicUsize::new(0));
                let acceptors: Vec<_> = (0..WAITERS)
                    .map(|_| {
                        let (listener, polled) = (listener.clone(), polled.clone());
                        runtime::spawn(async move {
                            let (mut s, _) = counting_first_poll(listener.accept(), &polled)
                                .await
                                .unwrap();
                            let mut byte = [0u8; 1];
                            use futures::io::{AsyncReadExt, AsyncWriteExt};
                            s.read_exact(&mut byte).await.unwrap();
                            s.write_all(&byte).await.unwrap();
                        })
                    })
                    .collect();
                until_polled(&polled, WAITERS, flavor).await;

                // All four wait; four clients arrive: each waiter takes one.
                let clients = runtime::task::spawn_blocking(move || {
                    (0..WAITERS as u8)
                        .map(|i| {
                            let mut c = std::net::TcpStream::connect(addr).unwrap();
                            c.set_read_timeout(Some(WATCHDOG)).unwrap();
                            c.write_all(&[i]).unwrap();
                            c
                        })
                        .collect::<Vec<_>>()
                });
                for (i, acceptor) in acceptors.into_iter().enumerate() {
                    timeout(WATCHDOG, acceptor)
                        .await
                        .unwrap_or_else(|_| {
                            panic!("{flavor}: accept waiter {i} never woke for its connection")
                        })
                        .unwrap();
                }
                let mut clients = clients.await.unwrap();
                for (i, c) in clients.iter_mut().enumerate() {
                    let mut byte = [0u8; 1];
                    c.read_exact(&mut byte).unwrap();
                    assert_eq!(byte[0], i as u8, "{flavor}: echo");
                }
            });
        })
    }

    #[test]
    fn accept_loops_sharing_a_listener_each_take_a_connection_of_every_wave() {
        watchdog("the accept loops' waves", || {
            let (flavor, rt) = (FLAVOR, rt());
            rt.block_on(async {
                let listener = Arc::new(TcpListener::bind("127.0.0.1:0").await.unwrap());
                let addr = listener.local_addr().unwrap();
                // Which loop took each connection of the current wave; how many waves are done.
                let took = Arc::new(std::sync::Mutex::new(Vec::new()));
                let waves_done = Arc::new(AtomicUsize::new(0));
                let loops: Vec<_> = (0..WAITERS)
                    .map(|id| {
                        let (listener, took, waves_done) =
                            (listener.clone(), took.clone(), waves_done.clone());
                        runtime::spawn(async move {
                            for wave in 0.. {
                                let (mut s, _) = listener.accept().await.unwrap();
                                use futures::io::AsyncWriteExt;
                                s.write_all(b"hi").await.unwrap();
                                took.lock().unwrap().push(id);
                                // One connection per loop per wave: the others must be taken
                                // by the other loops.
                                while waves_done.load(Ordering::SeqCst) <= wave {
                                    runtime::time::sleep(Duration::from_millis(1)).await;
                                }
                            }
                        })
                    })
                    .collect();
                for wave in 0..3 {
                    let clients = runtime::task::spawn_blocking(move || {
                        (0..WAITERS)
                            .map(|_| std::net::TcpStream::connect(addr).unwrap())
                            .collect::<Vec<_>>()
                    });
                    let clients = clients.await.unwrap();
                    timeout(WATCHDOG, async {
                        while took.lock().unwrap().len() < WAITERS {
                            runtime::time::sleep(Duration::from_millis(1)).await;
                        }
                    })
                    .await
                    .unwrap_or_else(|_| {
                        panic!(
                            "{flavor}: wave {wave}: only loops {:?} took a connection",
                            took.lock().unwrap()
                        )
                    });
                    let mut ids = std::mem::take(&mut *took.lock().unwrap());
                    ids.sort_unstable();
                    assert_eq!(ids, [0, 1, 2, 3], "{flavor}: wave {wave}");
                    drop(clients);
                    waves_done.fetch_add(1, Ordering::SeqCst);
                }
                for l in loops {
                    l.abort();
                }
            });
        })
    }

    #[test]
    fn every_udp_receiver_on_one_socket_receives() {
        watchdog("every UDP receiver's datagram", || {
            let (flavor, rt) = (FLAVOR, rt());
            rt.block_on(async {
                let socket = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
                let addr = socket.local_addr().unwrap();
                let polled = Arc::new(AtomicUsize::new(0));
                let receivers: Vec<_> = (0..WAITERS)
                    .map(|_| {
                        let (socket, polled) = (socket.clone(), polled.clone());
                        runtime::spawn(async move {
                            let mut buf = [0u8; 16];
                            let (n, _) = counting_first_poll(socket.recv_from(&mut buf), &polled)
                                .await
                                .unwrap();
                            buf[..n].to_vec()
                        })
                    })
                    .collect();
                until_polled(&polled, WAITERS, flavor).await;

                let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
                for i in 0..WAITERS as u8 {
                    sender.send_to(&[i], addr).unwrap();
                }
                let mut got = Vec::new();
                for (i, r) in receivers.into_iter().enumerate() {
                    let datagram = timeout(WATCHDOG, r)
                        .await
                        .unwrap_or_else(|_| panic!("{flavor}: receiver {i} never woke"))
                        .unwrap();
                    got.extend(datagram);
                }
                got.sort_unstable();
                assert_eq!(got, [0, 1, 2, 3], "{flavor}: each datagram to one receiver");
            });
        })
    }

    #[test]
    fn every_readable_caller_is_woken_by_one_event() {
        watchdog("every readable() caller's wake-up", || {
            let (flavor, rt) = (FLAVOR, rt());
            rt.block_on(async {
                // On a UDP socket...
                let socket = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
                let addr = socket.local_addr().unwrap();
                let polled = Arc::new(AtomicUsize::new(0));
                let waiters: Vec<_> = (0..WAITERS)
                    .map(|_| {
                        let (socket, polled) = (socket.clone(), polled.clone());
                        runtime::spawn(async move {
                            counting_first_poll(socket.readable(), &polled).await
                        })
                    })
                    .collect();
                until_polled(&polled, WAITERS, flavor).await;
                // ONE datagram: readiness is not consumed by `readable()`, so all must see it.
                let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
                sender.send_to(b"x", addr).unwrap();
                for (i, w) in waiters.into_iter().enumerate() {
                    timeout(WATCHDOG, w)
                        .await
                        .unwrap_or_else(|_| {
                            panic!("{flavor}: udp readable() caller {i} never woke")
                        })
                        .unwrap()
                        .unwrap();
                }

                // ...and on a TCP stream.
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr = listener.local_addr().unwrap();
                let mut client = std::net::TcpStream::connect(addr).unwrap();
                let (stream, _) = listener.accept().await.unwrap();
                let stream: Arc<TcpStream> = Arc::new(stream);
                let polled = Arc::new(AtomicUsize::new(0));
                let waiters: Vec<_> = (0..WAITERS)
                    .map(|_| {
                        let (stream, polled) = (stream.clone(), polled.clone());
                        runtime::spawn(async move {
                            counting_first_poll(stream.readable(), &polled).await
                        })
                    })
                    .collect();
                until_polled(&polled, WAITERS, flavor).await;
                client.write_all(b"x").unwrap();
                for (i, w) in waiters.into_iter().enumerate() {
                    timeout(WATCHDOG, w)
                        .await
                        .unwrap_or_else(|_| {
                            panic!("{flavor}: tcp readable() caller {i} never woke")
                        })
                        .unwrap()
                        .unwrap();
                }
            });
        })
    }

    #[test]
    fn a_waiter_dropped_mid_wait_does_not_take_the_wake_up_with_it() {
        watchdog("the surviving waiter's wake-up", || {
            let (flavor, rt) = (FLAVOR, rt());
            rt.block_on(async {
                let listener = Arc::new(TcpListener::bind("127.0.0.1:0").await.unwrap());
                let addr = listener.local_addr().unwrap();
                // The patient waiter registers first...
                let polled = Arc::new(AtomicUsize::new(0));
                let patient = {
                    let (listener, polled) = (listener.clone(), polled.clone());
                    runtime::spawn(async move {
                        counting_first_poll(listener.accept(), &polled)
                            .await
                            .map(|_| ())
                    })
                };
                until_polled(&polled, 1, flavor).await;
                // ...then another task registers and gives up (its accept future is dropped
                // while waiting, as a timed-out or `select!`-losing accept would be).
                let quitter = {
                    let listener = listener.clone();
                    runtime::spawn(async move {
                        let mut accept = Box::pin(listener.accept());
                        poll_fn(|cx| {
                            assert!(
                                accept.as_mut().poll(cx).is_pending(),
                                "nothing to accept yet"
                            );
                            Poll::Ready(())
                        })
                        .await;
                        drop(accept);
                    })
                };
                timeout(WATCHDOG, quitter).await.unwrap().unwrap();

                let _client = std::net::TcpStream::connect(addr).unwrap();
                timeout(WATCHDOG, patient)
                    .await
                    .unwrap_or_else(|_| {
                        panic!("{flavor}: the remaining waiter never woke for the connection")
                    })
                    .unwrap()
                    .unwrap();

                // The same on one task's timed-out `readable()` beside another task's wait.
                let socket = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
                let addr = socket.local_addr().unwrap();
                let polled = Arc::new(AtomicUsize::new(0));
                let patient = {
                    let (socket, polled) = (socket.clone(), polled.clone());
                    runtime::spawn(
                        async move { counting_first_poll(socket.readable(), &polled).await },
                    )
                };
                until_polled(&polled, 1, flavor).await;
                let quitter = {
                    let socket = socket.clone();
                    runtime::spawn(async move {
                        timeout(Duration::from_millis(10), socket.readable())
                            .await
                            .expect_err("nothing was sent yet");
                    })
                };
                timeout(WATCHDOG, quitter).await.unwrap().unwrap();
                let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
                sender.send_to(b"x", addr).unwrap();
                timeout(WATCHDOG, patient)
                    .await
                    .unwrap_or_else(|_| panic!("{flavor}: the remaining readable() never woke"))
                    .unwrap()
                    .unwrap();
            });
        })
    }
}
