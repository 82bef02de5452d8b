//! TCP: echo under 1,000 concurrent connections, half-close, halves, readiness API, peers
//! vanishing while a task waits, runtime shutdown under a waiting task, the cooperative
//! budget, and EMFILE from `accept`. Every wait is bounded by a generous timeout so a bug
//! fails the test instead of hanging it.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::future::{poll_fn, Future};
use std::io;
use std::net::{Shutdown, SocketAddr};
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use futures::io::{AsyncReadExt, AsyncWriteExt};
use runtime::net::{TcpListener, TcpStream};
use runtime::time::timeout;

/// Distinct, connection-specific bytes of a connection-specific length.
fn payload(i: usize) -> Vec<u8> {
    let len = 1 + (i * 7919) % 20_000;
    (0..len)
        .map(|j| (i.wrapping_mul(31) ^ j.wrapping_mul(7)) as u8)
        .collect()
}

/// A connected (client, server) pair through a fresh listener.
async fn pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (client, accepted) = futures::join!(TcpStream::connect(addr), listener.accept());
    let client = client.unwrap();
    let (server, peer) = accepted.unwrap();
    assert_eq!(peer, client.local_addr().unwrap());
    assert_eq!(server.local_addr().unwrap(), addr);
    (client, server)
}

/// Echoes everything it reads, then closes its write side when the client does.
async fn echo(mut sock: TcpStream) -> io::Result<u64> {
    // Not `sock.split()`: with `AsyncReadExt` in scope that is the futures by-value split.
    let (mut r, mut w) = TcpStream::split(&mut sock);
    let n = futures::io::copy(&mut r, &mut w).await?;
    w.close().await?;
    Ok(n)
}

#[test]
fn echo_1000_concurrent_connections() {
    watchdog("1000 echo connections", || {
        const N: usize = 1000;
        let rt = multi_thread(2);
        rt.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let server = runtime::spawn(async move {
                let mut conns = Vec::with_capacity(N);
                for _ in 0..N {
                    let (sock, _) = listener.accept().await.unwrap();
                    conns.push(runtime::spawn(echo(sock)));
                }
                let mut total = 0;
                for c in conns {
                    total += c.await.unwrap().unwrap();
                }
                total
            });
            let clients: Vec<_> = (0..N)
                .map(|i| {
                    runtime::spawn(async move {
                        let data = payload(i);
                        let mut sock = TcpStream::connect(addr).await.unwrap();
                        // Not `sock.split()`: with `AsyncReadExt` in scope that is the futures
                        // by-value split.
                        let (mut r, mut w) = TcpStream::split(&mut sock);
                        let write = async {
                            w.write_all(&data).await.unwrap();
                            w.close().await.unwrap();
                        };
                        let read = async {
                            let mut back = Vec::new();
                            r.read_to_end(&mut back).await.unwrap();
                            back
                        };
                        let ((), back) = futures::join!(write, read);
                        assert!(back == data, "connection {i}: echo differs");
                        data.len() as u64
                    })
                })
                .collect();
            let run = async {
                let mut sent = 0;
                for c in clients {
                    sent += c.await.unwrap();
                }
                let echoed = server.await.unwrap();
                assert_eq!(sent, echoed);
            };
            timeout(Duration::from_secs(300), run)
                .await
                .expect("1,000-connection echo did not finish");
        });
    })
}

rt_test! {
    #[test]
    fn half_close_peer_reads_eof_and_still_answers() {
        watchdog("the half-closed echo", || {
            let rt = rt();
            rt.block_on(async {
                let (mut client, mut server) = pair().await;
                let srv = runtime::spawn(async move {
                    let mut got = Vec::new();
                    server.read_to_end(&mut got).await.unwrap();
                    assert_eq!(got, b"question");
                    // Our read side saw EOF, our write side still works.
                    server.write_all(b"answer").await.unwrap();
                    server.shutdown_std(Shutdown::Write).unwrap();
                });
                client.write_all(b"question").await.unwrap();
                client.shutdown_std(Shutdown::Write).unwrap();
                let mut back = Vec::new();
                timeout(GENEROUS, client.read_to_end(&mut back))
                    .await
                    .unwrap()
                    .unwrap();
                assert_eq!(back, b"answer");
                timeout(GENEROUS, srv).await.unwrap().unwrap();
            });
        })
    }

    #[test]
    fn peer_dropped_while_a_read_waits_returns_eof() {
        watchdog("the read's EOF after the peer dropped", || {
            let rt = rt();
            rt.block_on(async {
                let (mut a, b) = pair().await;
                let mut buf = [0u8; 16];
                let mut read = pin!(a.read(&mut buf));
                // The read is registered and waiting.
                let first = poll_fn(|cx| Poll::Ready(read.as_mut().poll(cx))).await;
                assert!(first.is_pending());
                drop(b);
                let res = timeout(GENEROUS, read)
                    .await
                    .expect("read hung after peer drop");
                assert_eq!(res.unwrap(), 0);
            });
        })
    }
}

#[test]
fn poll_close_shuts_down_the_write_half() {
    watchdog("the peer's EOF after poll_close", || {
        let rt = multi_thread(2);
        rt.block_on(async {
            let (mut client, mut server) = pair().await;
            client.write_all(b"bye").await.unwrap();
            client.close().await.unwrap();
            let mut got = Vec::new();
            timeout(GENEROUS, server.read_to_end(&mut got))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(got, b"bye");
            // The client can still read what the server sends after its close.
            server.write_all(b"late").await.unwrap();
            drop(server);
            let mut back = Vec::new();
            client.read_to_end(&mut back).await.unwrap();
            assert_eq!(back, b"late");
        });
    })
}

#[test]
fn echo_on_both_flavors_with_vectored_io_and_addresses() {
    watchdog("the vectored echo", || {
        for rt in [current_thread(), multi_thread(1), multi_thread(4)] {
            rt.block_on(async {
                let (mut client, server) = pair().await;
                assert_eq!(client.peer_addr().unwrap(), server.local_addr().unwrap());
                assert_eq!(server.peer_addr().unwrap(), client.local_addr().unwrap());
                client.set_nodelay(true).unwrap();
                assert!(client.nodelay().unwrap());
                client.set_nodelay(false).unwrap();
                assert!(!client.nodelay().unwrap());
                let srv = runtime::spawn(echo(server));
                let bufs = [io::IoSlice::new(b"hello "), io::IoSlice::new(b"world")];
                let n = poll_fn(|cx| client.poll_write_vectored(cx, &bufs))
                    .await
                    .unwrap();
                assert_eq!(n, 11);
                let mut back = [0u8; 11];
                timeout(GENEROUS, client.read_exact(&mut back))
                    .await
                    .unwrap()
                    .unwrap();
                assert_eq!(&back, b"hello world");
                client.close().await.unwrap();
                assert_eq!(timeout(GENEROUS, srv).await.unwrap().unwrap().unwrap(), 11);
            });
        }
    })
}

#[test]
fn owned_halves_on_two_tasks_and_reunite() {
    watchdog("the owned halves' tasks", || {
        let rt = multi_thread(2);
        rt.block_on(async {
            let (client, server) = pair().await;
            let srv = runtime::spawn(echo(server));
            let (mut r, mut w) = client.into_split();
            assert_eq!(r.peer_addr().unwrap(), w.peer_addr().unwrap());
            let data = payload(424_242);
            let expect = data.clone();
            let reader = runtime::spawn(async move {
                let mut back = vec![0; expect.len()];
                r.read_exact(&mut back).await.unwrap();
                assert!(back == expect);
                r
            });
            w.write_all(&data).await.unwrap();
            let r = timeout(GENEROUS, reader).await.unwrap().unwrap();
            let client = r.reunite(w).expect("halves of one stream reunite");
            drop(client);
            timeout(GENEROUS, srv).await.unwrap().unwrap().unwrap();

            // Halves of different streams refuse.
            let (a, _a2) = pair().await;
            let (b, _b2) = pair().await;
            let (ar, _aw) = a.into_split();
            let (_br, bw) = b.into_split();
            let err = ar.reunite(bw).unwrap_err();
            assert!(err.to_string().contains("not from the same socket"));
        });
    })
}

#[test]
fn dropping_owned_write_half_sends_eof() {
    watchdog("the EOF after the write half is dropped", || {
        let rt = current_thread();
        rt.block_on(async {
            let (client, mut server) = pair().await;
            let (_r, w) = client.into_split();
            drop(w);
            let mut got = Vec::new();
            timeout(GENEROUS, server.read_to_end(&mut got))
                .await
                .unwrap()
                .unwrap();
            assert!(got.is_empty());
        });
    })
}

#[test]
fn readable_try_read_and_writable_try_write() {
    watchdog("readable and writable", || {
        let rt = multi_thread(2);
        rt.block_on(async {
            let (client, server) = pair().await;
            let mut buf = [0u8; 64];
            // Nothing sent yet.
            let e = server.try_read(&mut buf).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
            timeout(GENEROUS, client.writable()).await.unwrap().unwrap();
            assert_eq!(client.try_write(b"ping").unwrap(), 4);
            let mut got = Vec::new();
            while got.len() < 4 {
                timeout(GENEROUS, server.readable()).await.unwrap().unwrap();
                match server.try_read(&mut buf) {
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("{e}"),
                }
            }
            assert_eq!(got, b"ping");
            // Drained: the next try_read says WouldBlock, and readable() waits for new data.
            assert_eq!(
                server.try_read(&mut buf).unwrap_err().kind(),
                io::ErrorKind::WouldBlock
            );
            let mut readable = pin!(server.readable());
            let first = poll_fn(|cx| Poll::Ready(readable.as_mut().poll(cx))).await;
            assert!(
                first.is_pending(),
                "readiness was not cleared after WouldBlock"
            );
            client.try_write(b"!").unwrap();
            timeout(GENEROUS, readable).await.unwrap().unwrap();
            // peek leaves the byte for read.
            assert_eq!(server.peek(&mut buf).await.unwrap(), 1);
            assert_eq!(server.try_read(&mut buf).unwrap(), 1);
            assert_eq!(buf[0], b'!');
        });
    })
}

#[test]
fn peer_reset_while_a_read_waits_returns_an_error() {
    watchdog("the read's error after the peer reset", || {
        let rt = multi_thread(2);
        rt.block_on(async {
            let (mut a, b) = pair().await;
            // Data b never reads: closing b then sends a reset instead of a FIN.
            a.write_all(b"unread").await.unwrap();
            let reader = runtime::spawn(async move {
                let mut buf = [0u8; 16];
                a.read(&mut buf).await
            });
            // Make sure b has the bytes queued before it goes away.
            let mut one = [0u8; 1];
            b.peek(&mut one).await.unwrap();
            drop(b);
            let res = timeout(GENEROUS, reader)
                .await
                .expect("read hung after peer reset")
                .unwrap();
            match res {
                Err(e) => assert_eq!(e.kind(), io::ErrorKind::ConnectionReset),
                Ok(n) => assert_eq!(n, 0, "unexpected data"),
            }
        });
    })
}

#[test]
fn runtime_shutdown_wakes_a_waiting_read_with_an_error() {
    watchdog("the waiting read to be woken by shutdown", || {
        let io_rt = multi_thread(1);
        let (client, mut server) = io_rt.block_on(pair());
        // The stream is registered with `io_rt`'s driver but waited on from another runtime.
        let other = multi_thread(1);
        let (tx, rx) = std::sync::mpsc::channel();
        let registered = Arc::new(AtomicBool::new(false));
        let flag = registered.clone();
        let _reader = other.spawn(async move {
            let mut buf = [0u8; 8];
            let mut read = pin!(server.read(&mut buf));
            let first = poll_fn(|cx| Poll::Ready(read.as_mut().poll(cx))).await;
            assert!(first.is_pending());
            flag.store(true, SeqCst);
            let _ = tx.send(read.await);
        });
        let deadline = std::time::Instant::now() + GENEROUS;
        while !registered.load(SeqCst) {
            assert!(std::time::Instant::now() < deadline, "reader never started");
            std::thread::sleep(Duration::from_millis(1));
        }
        drop(io_rt);
        let res = rx
            .recv_timeout(GENEROUS)
            .expect("waiting read not woken by the driver's shutdown");
        let err = res.unwrap_err();
        assert!(err.to_string().contains("shutting down"), "{err}");
        drop(client);
    })
}

#[test]
fn connect_to_a_closed_port_fails() {
    watchdog("the refused connect", || {
        let rt = current_thread();
        rt.block_on(async {
            let addr = {
                let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                l.local_addr().unwrap()
            };
            let err = timeout(GENEROUS, TcpStream::connect(addr))
                .await
                .unwrap()
                .unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::ConnectionRefused);
        });
    })
}

#[test]
fn connect_resolves_host_names_and_address_forms() {
    watchdog("the connects by name", || {
        let rt = multi_thread(2);
        rt.block_on(async {
            let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
            let port = listener.local_addr().unwrap().port();
            let accept = runtime::spawn(async move {
                for _ in 0..3 {
                    listener.accept().await.unwrap();
                }
            });
            // A host name goes through the blocking pool's resolver.
            let s = TcpStream::connect(format!("localhost:{port}")).await;
            // "localhost" may resolve to ::1 first; the loop over addresses must find 127.0.0.1.
            s.unwrap();
            TcpStream::connect(("127.0.0.1", port)).await.unwrap();
            let addrs = [SocketAddr::from(([127, 0, 0, 1], port))];
            TcpStream::connect(&addrs[..]).await.unwrap();
            timeout(GENEROUS, accept).await.unwrap().unwrap();
            let err = TcpStream::connect("no such host.invalid:80")
                .await
                .unwrap_err();
            assert!(!err.to_string().is_empty());
        });
    })
}

#[test]
fn from_std_and_into_std_round_trip() {
    watchdog("the std round-tripped sockets", || {
        let rt = multi_thread(2);
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = std_listener.local_addr().unwrap();
        rt.block_on(async {
            let listener = TcpListener::from_std(std_listener).unwrap();
            let std_client = std::net::TcpStream::connect(addr).unwrap();
            let (server, _) = timeout(GENEROUS, listener.accept()).await.unwrap().unwrap();
            let mut client = TcpStream::from_std(std_client).unwrap();
            let srv = runtime::spawn(echo(server));
            client.write_all(b"std").await.unwrap();
            let mut back = [0u8; 3];
            client.read_exact(&mut back).await.unwrap();
            assert_eq!(&back, b"std");
            let std_back = client.into_std().unwrap();
            std_back.set_nonblocking(false).unwrap();
            std_back.shutdown(Shutdown::Write).unwrap();
            timeout(GENEROUS, srv).await.unwrap().unwrap().unwrap();
        });
    })
}

/// A task whose reads are always ready still yields after its budget: another task gets
/// to run long before it has read everything.
#[test]
fn ready_reads_yield_to_other_tasks() {
    watchdog("the reading task to yield to the other task", || {
        const TOTAL: usize = 64 * 1024;
        let rt = current_thread();
        rt.block_on(async {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let mut writer = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
            let (reader, _) = listener.accept().unwrap();
            // Everything is in the kernel before the reader starts: every read is ready.
            io::Write::write_all(&mut writer, &vec![7u8; TOTAL]).unwrap();
            writer.shutdown(Shutdown::Write).unwrap();
            let mut reader = TcpStream::from_std(reader).unwrap();
            let count = Arc::new(AtomicUsize::new(0));
            let started = Arc::new(AtomicBool::new(false));
            let (c, s) = (count.clone(), started.clone());
            let hog = runtime::spawn(async move {
                let mut byte = [0u8; 1];
                // Wait until the bytes are readable, then read them one at a time.
                reader.read_exact(&mut byte).await.unwrap();
                c.fetch_add(1, SeqCst);
                s.store(true, SeqCst);
                while reader.read(&mut byte).await.unwrap() == 1 {
                    c.fetch_add(1, SeqCst);
                }
            });
            let (c, s) = (count.clone(), started.clone());
            let observer = runtime::spawn(async move {
                while !s.load(SeqCst) {
                    runtime::task::yield_now().await;
                }
                c.load(SeqCst)
            });
            let seen = timeout(GENEROUS, observer).await.unwrap().unwrap();
            assert!(
                seen < TOTAL,
                "the observer only ran after the hog read everything ({seen} bytes)"
            );
            timeout(GENEROUS, hog).await.unwrap().unwrap();
            assert_eq!(count.load(SeqCst), TOTAL);
        });
    })
}

#[runtime::test(flavor = "multi_thread", worker_threads = 2)]
async fn accept_loop_with_the_test_macro() {
    let _watchdog = abort_after("the accept loop");
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let clients: Vec<_> = (0..50)
        .map(|i| {
            runtime::spawn(async move {
                let mut s = TcpStream::connect(addr).await.unwrap();
                s.write_all(&[i as u8]).await.unwrap();
                s.close().await.unwrap();
            })
        })
        .collect();
    let mut seen = [false; 50];
    for _ in 0..50 {
        let (mut s, _) = timeout(GENEROUS, listener.accept()).await.unwrap().unwrap();
        let mut b = Vec::new();
        s.read_to_end(&mut b).await.unwrap();
        assert_eq!(b.len(), 1);
        assert!(!std::mem::replace(&mut seen[b[0] as usize], true));
    }
    for c in clients {
        c.await.unwrap();
    }
    assert!(seen.iter().all(|&s| s));
}

/// A `try_write` that hits `WouldBlock` clears the write readiness it saw, however it was
/// set (here by an earlier `write_all`, with no `writable()` in between): the next
/// `writable()` waits for a new event instead of reporting the stale one.
#[test]
fn try_write_would_block_clears_stale_readiness() {
    watchdog("the TCP pair", || {
        for rt in runtimes() {
            rt.block_on(async {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr = listener.local_addr().unwrap();
                let mut client = TcpStream::connect(addr).await.unwrap();
                let (_server, _) = listener.accept().await.unwrap();
                // Sets write readiness through the transfer path (nothing recorded).
                client.write_all(b"hello").await.unwrap();
                let chunk = vec![0u8; 64 * 1024];
                let mut blocked = false;
                for _ in 0..100_000 {
                    match client.try_write(&chunk) {
                        Ok(_) => {}
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                            blocked = true;
                            break;
                        }
                        Err(e) => panic!("try_write: {e}"),
                    }
                }
                assert!(blocked, "the socket buffer never filled");
                let mut writable = pin!(client.writable());
                assert!(
                    futures::poll!(writable.as_mut()).is_pending(),
                    "writable() reported the readiness try_write had just found stale"
                );
            });
        }
    })
}

/// As tokio's `try_read_write`: write readiness stays until a `WouldBlock`, so after each
/// successful `try_write` (short or not) `writable()` is ready at once; once the buffer is
/// full it waits.
#[test]
fn writable_stays_ready_after_a_successful_try_write() {
    watchdog("the TCP pair", || {
        for rt in runtimes() {
            rt.block_on(async {
                const DATA: &[u8] = &[2u8; 4000];
                let (client, _server) = pair().await;
                timeout(GENEROUS, client.writable()).await.unwrap().unwrap();
                assert_eq!(client.try_write(DATA).unwrap(), DATA.len());
                let mut blocked = false;
                for i in 0..1_000_000 {
                    let mut writable = pin!(client.writable());
                    assert!(
                        matches!(futures::poll!(writable.as_mut()), Poll::Ready(Ok(()))),
                        "writable() not ready after successful try_write number {i}"
                    );
                    match client.try_write(DATA) {
                        Ok(_) => {}
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                            blocked = true;
                            break;
                        }
                        Err(e) => panic!("try_write: {e}"),
                    }
                }
                assert!(blocked, "the socket buffer never filled");
                let mut writable = pin!(client.writable());
                assert!(futures::poll!(writable.as_mut()).is_pending());

                // The same with vectored writes.
                let (client, _server) = pair().await;
                let bufs: Vec<_> = DATA.chunks(10).map(io::IoSlice::new).collect();
                timeout(GENEROUS, client.writable()).await.unwrap().unwrap();
                let mut blocked = false;
                for _ in 0..1_000_000 {
                    let mut writable = pin!(client.writable());
                    assert!(
                        matches!(futures::poll!(writable.as_mut()), Poll::Ready(Ok(()))),
                        "writable() not ready after a successful try_write_vectored"
                    );
                    match client.try_write_vectored(&bufs) {
                        Ok(_) => {}
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                            blocked = true;
                            break;
                        }
                        Err(e) => panic!("try_write_vectored: {e}"),
                    }
                }
                assert!(blocked, "the socket buffer never filled");
            });
        }
    })
}

/// As tokio's `shutdown_after_tcp_reset`: once the peer reset the connection (linger 0),
/// `shutdown` is `Ok` (the kernel's `NotConnected` is what a reset connection says).
#[test]
fn shutdown_after_tcp_reset_is_ok() {
    watchdog("the reset connection", || {
        for rt in runtimes() {
            rt.block_on(async {
                let (mut client, server) = pair().await;
                server.set_zero_linger().unwrap();
                drop(server);
                // The reset has arrived once a read reports it (or EOF).
                let mut buf = [0u8; 8];
                let read = timeout(
                    GENEROUS,
                    runtime::io::AsyncReadExt::read(&mut client, &mut buf),
                )
                .await
                .expect("the reset never arrived");
                assert!(
                    matches!(&read, Ok(0))
                        || matches!(&read, Err(e) if e.kind() == io::ErrorKind::ConnectionReset),
                    "{read:?}"
                );
                runtime::io::AsyncWriteExt::shutdown(&mut client)
                    .await
                    .unwrap();
                client.shutdown_std(Shutdown::Both).unwrap();
            });
        }
    })
}

/// As tokio's `tcp_split` peeks: `peek` on a borrowed and on an owned read half returns
/// the bytes without consuming them, so the next read sees them again; `poll_peek` adds
/// them to the `ReadBuf`'s filled part.
#[runtime::test]
async fn read_halves_peek_without_consuming() {
    let _watchdog = abort_after("the read halves' peek");
    let (mut client, server) = pair().await;
    client.write_all(b"hello").await.unwrap();

    let mut server = server;
    let (mut read, _write) = TcpStream::split(&mut server);
    let mut buf = [0u8; 5];
    let n = timeout(GENEROUS, read.peek(&mut buf))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&buf[..n], &b"hello"[..n]);
    let mut storage = [0u8; 5];
    let mut rb = runtime::io::ReadBuf::new(&mut storage);
    let peeked = poll_fn(|cx| read.poll_peek(cx, &mut rb)).await.unwrap();
    assert_eq!(rb.filled(), &b"hello"[..peeked]);

    let (mut read, write) = server.into_split();
    let mut buf = [0u8; 5];
    let n = timeout(GENEROUS, read.peek(&mut buf))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&buf[..n], &b"hello"[..n]);
    let mut got = [0u8; 5];
    read.read_exact(&mut got).await.unwrap();
    assert_eq!(&got, b"hello");
    drop((read, write));
}
