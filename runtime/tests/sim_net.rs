//! The deterministic mode's in-memory network, TCP: `runtime::net`'s TCP types in a
//! runtime built with `Builder::deterministic` live in memory, on loopback addresses,
//! with tokio's semantics (ephemeral ports, `AddrInUse`, `ConnectionRefused`, backlog,
//! bounded windows and partial writes, half-close, resets, peeks, readiness, halves,
//! `TcpSocket`), deliveries take virtual time, and a run with its network replays from
//! the seed. UDP and Unix streams: sim_net_udp_unix.rs; misuse: sim_net_misuse.rs.
//!
//! Every run is bounded by the watchdog: a lost wake-up on the network fails the test
//! (the stepper reports a deadlock, or the watchdog fires) instead of hanging it.
#![cfg(all(feature = "deterministic", not(loom)))]

#[macro_use]
mod support;

use std::collections::HashSet;
use std::future::{poll_fn, Future};
use std::io;
use std::net::Ipv4Addr;
use std::sync::{Arc, Mutex};
use std::task::Poll;

use runtime::io::{AsyncReadExt, AsyncWriteExt, Interest};
use runtime::net::{TcpListener, TcpSocket, TcpStream, UdpSocket};
use runtime::Builder;
use support::*;

/// Connection `i`'s bytes: distinct per connection, longer than one window for some.
fn payload(i: usize) -> Vec<u8> {
    let len = 1 + (i * 7919) % 150_000;
    (0..len)
        .map(|j| (i.wrapping_mul(31) ^ j.wrapping_mul(7)) as u8)
        .collect()
}

/// An echo server and `clients` clients; returns the log of completions (client,
/// local port, bytes) and the trace hash.
fn echo(seed: u64, clients: usize) -> (Vec<(usize, u16, usize)>, u64) {
    let rt = sim(seed);
    let log = Arc::new(Mutex::new(Vec::new()));
    let log2 = log.clone();
    rt.block_on(async move {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        runtime::spawn(async move {
            loop {
                let (mut sock, _) = listener.accept().await.unwrap();
                runtime::spawn(async move {
                    let (mut r, mut w) = sock.split();
                    runtime::io::copy(&mut r, &mut w).await.unwrap();
                    w.shutdown().await.unwrap();
                });
            }
        });
        let mut handles = Vec::new();
        for i in 0..clients {
            let log = log2.clone();
            handles.push(runtime::spawn(async move {
                let stream = TcpStream::connect(addr).await.unwrap();
                let port = stream.local_addr().unwrap().port();
                assert_eq!(stream.peer_addr().unwrap(), addr);
                let (mut r, mut w) = stream.into_split();
                let data = payload(i);
                let writer = runtime::spawn({
                    let data = data.clone();
                    async move {
                        for chunk in data.chunks(10_007) {
                            w.write_all(chunk).await.unwrap();
                        }
                        w.shutdown().await.unwrap();
                    }
                });
                let mut back = Vec::new();
                r.read_to_end(&mut back).await.unwrap();
                writer.await.unwrap();
                assert!(back == data, "client {i} got other bytes back");
                log.lock().unwrap().push((i, port, back.len()));
            }));
        }
        for h in handles {
            h.await.unwrap();
        }
    });
    let hash = rt.trace_hash();
    drop(rt);
    let log = log.lock().unwrap().clone();
    (log, hash)
}

#[test]
fn echo_many_clients_replays_from_the_seed() {
    watchdog("echo runs", || {
        for seed in [0, 7, u64::MAX] {
            let a = echo(seed, 24);
            assert_eq!(a.0.len(), 24);
            assert_eq!(a, echo(seed, 24), "seed {seed} ran two ways");
        }
    });
}

#[test]
fn seeds_explore_network_interleavings() {
    watchdog("echo runs of many seeds", || {
        let mut hashes = HashSet::new();
        let mut orders = HashSet::new();
        for seed in 0..20 {
            let (log, hash) = echo(seed, 8);
            assert_eq!(log.len(), 8, "seed {seed} lost a client");
            hashes.insert(hash);
            orders.insert(log.iter().map(|e| e.0).collect::<Vec<_>>());
        }
        assert!(hashes.len() >= 15, "only {} distinct traces", hashes.len());
        assert!(orders.len() >= 5, "only {} distinct orders", orders.len());
    });
}

#[test]
fn full_window_gives_partial_writes_and_would_block() {
    run("writes into a full window", 1, || async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (mut server, _) = listener.accept().await.unwrap();
        let big = vec![7u8; 1 << 20];
        let first = client.try_write(&big).unwrap();
        assert!(first > 0 && first < big.len(), "a partial write: {first}");
        let again = client.try_write(&big).unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::WouldBlock);
        // A pending write waits for the reader to free room.
        let mut write = Box::pin(async {
            client.writable().await.unwrap();
            client.try_write(&big[first..]).unwrap()
        });
        assert!(poll_fn(|cx| Poll::Ready(write.as_mut().poll(cx).is_pending())).await);
        let mut got = vec![0u8; first];
        server.read_exact(&mut got).await.unwrap();
        let second = write.await;
        assert!(second > 0);
        let mut rest = vec![0u8; second];
        server.read_exact(&mut rest).await.unwrap();
        assert!(got.iter().chain(&rest).all(|&b| b == 7));
    });
}

#[test]
fn shutdown_gives_the_peer_eof_and_keeps_reading() {
    run("a half-closed connection", 2, || async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = runtime::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut got = Vec::new();
            s.read_to_end(&mut got).await.unwrap();
            s.write_all(b"bye").await.unwrap();
            got
        });
        let mut c = TcpStream::connect(addr).await.unwrap();
        c.write_all(b"hello").await.unwrap();
        c.shutdown().await.unwrap();
        let err = c.write(b"more").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(server.await.unwrap(), b"hello");
        let mut back = Vec::new();
        c.read_to_end(&mut back).await.unwrap();
        assert_eq!(back, b"bye");
    });
}

#[test]
fn drop_with_unread_data_resets_the_peer() {
    run("a reset connection", 3, || async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut c = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (s, _) = listener.accept().await.unwrap();
        c.write_all(b"unread").await.unwrap();
        s.readable().await.unwrap();
        drop(s);
        let mut buf = [0u8; 8];
        let err = c.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionReset);
        assert_eq!(c.read(&mut buf).await.unwrap(), 0, "EOF after the reset");
        let err = c.write(b"x").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    });
}

#[test]
fn drop_without_unread_data_is_eof_then_writes_reset() {
    run("a closed peer", 4, || async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut c = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (s, _) = listener.accept().await.unwrap();
        drop(s);
        let mut buf = [0u8; 8];
        assert_eq!(c.read(&mut buf).await.unwrap(), 0);
        // Data to the closed side is answered with a reset.
        c.write_all(b"late").await.unwrap();
        let err = loop {
            c.writable().await.unwrap();
            match c.try_write(b"x") {
                Ok(_) => runtime::time::sleep(std::time::Duration::from_millis(1)).await,
                Err(e) => break e,
            }
        };
        assert_eq!(err.kind(), io::ErrorKind::ConnectionReset);
    });
}

#[test]
fn connect_without_listener_is_refused() {
    run("a refused connect", 5, || async {
        let err = TcpStream::connect("127.0.0.1:4000").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionRefused);
        // A listener dropped before the SYN arrives refuses too.
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let connect = runtime::spawn(TcpStream::connect(addr));
        runtime::task::yield_now().await;
        drop(listener);
        let res = connect.await.unwrap();
        // The SYN may have arrived first: then the queued connection is reset.
        match res {
            Err(e) => assert_eq!(e.kind(), io::ErrorKind::ConnectionRefused),
            Ok(mut s) => {
                let mut buf = [0u8; 1];
                let e = s.read(&mut buf).await.unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::ConnectionReset);
            }
        }
    });
}

#[test]
fn binding_a_bound_address_is_addr_in_use() {
    run("binds", 6, || async {
        let a = TcpListener::bind("127.0.0.1:5000").await.unwrap();
        let err = TcpListener::bind("127.0.0.1:5000").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AddrInUse);
        let err = TcpListener::bind("0.0.0.0:5000").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AddrInUse);
        // Another loopback address, another family, another protocol: free.
        let _b = TcpListener::bind("127.0.0.2:5000").await.unwrap();
        let _c = TcpListener::bind("[::1]:5000").await.unwrap();
        let _u = UdpSocket::bind("127.0.0.1:5000").await.unwrap();
        let err = UdpSocket::bind("127.0.0.1:5000").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AddrInUse);
        drop(a);
        let _a = TcpListener::bind("127.0.0.1:5000").await.unwrap();
    });
}

#[test]
fn ephemeral_ports_are_deterministic() {
    let ports = |seed| {
        run("ephemeral binds", seed, || async {
            let a = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let b = TcpListener::bind("0.0.0.0:0").await.unwrap();
            let c = TcpStream::connect(a.local_addr().unwrap()).await.unwrap();
            let u = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            assert_eq!(b.local_addr().unwrap().ip(), Ipv4Addr::UNSPECIFIED);
            vec![
                a.local_addr().unwrap().port(),
                b.local_addr().unwrap().port(),
                c.local_addr().unwrap().port(),
                u.local_addr().unwrap().port(),
            ]
        })
    };
    let first = ports(0);
    assert!(first.iter().all(|&p| p >= 49152), "{first:?}");
    let distinct: HashSet<_> = first[..3].iter().collect();
    assert_eq!(distinct.len(), 3, "TCP ports are distinct: {first:?}");
    assert_eq!(ports(1), first);
    assert_eq!(ports(99), first);
}

#[test]
fn peek_leaves_the_data_queued() {
    run("peeks", 8, || async {
        let listener = TcpListener::bind("localhost:0").await.unwrap();
        let mut c = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (mut s, peer) = listener.accept().await.unwrap();
        assert_eq!(peer, c.local_addr().unwrap());
        c.write_all(b"abcdef").await.unwrap();
        let mut buf = [0u8; 3];
        assert_eq!(s.peek(&mut buf).await.unwrap(), 3);
        assert_eq!(&buf, b"abc");
        let mut all = [0u8; 6];
        s.read_exact(&mut all).await.unwrap();
        assert_eq!(&all, b"abcdef");
        let (mut r, _w) = s.split();
        c.write_all(b"xy").await.unwrap();
        let mut two = [0u8; 2];
        assert_eq!(r.peek(&mut two).await.unwrap(), 2);
        assert_eq!(&two, b"xy");
    });
}

#[test]
fn readiness_and_try_calls() {
    run("readiness", 9, || async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let c = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (s, _) = listener.accept().await.unwrap();
        let mut buf = [0u8; 16];
        assert_eq!(
            s.try_read(&mut buf).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        let r = c.ready(Interest::WRITABLE).await.unwrap();
        assert!(r.is_writable());
        c.writable().await.unwrap();
        assert_eq!(c.try_write(b"ping").unwrap(), 4);
        let r = s
            .ready(Interest::READABLE | Interest::WRITABLE)
            .await
            .unwrap();
        assert!(r.is_writable());
        s.readable().await.unwrap();
        assert_eq!(s.try_read(&mut buf).unwrap(), 4);
        assert_eq!(&buf[..4], b"ping");
        let mut v = Vec::with_capacity(8);
        c.try_write(b"buf").unwrap();
        s.readable().await.unwrap();
        assert_eq!(s.try_read_buf(&mut v).unwrap(), 3);
        assert_eq!(v, b"buf");
        drop(c);
        let r = s.ready(Interest::READABLE).await.unwrap();
        assert!(r.is_read_closed());
        assert_eq!(s.try_read(&mut buf).unwrap(), 0);
    });
}

#[test]
fn owned_halves_and_reunite() {
    run("owned halves", 10, || async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let c = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (s, _) = listener.accept().await.unwrap();
        let (mut cr, mut cw) = c.into_split();
        let (sr, sw) = s.into_split();
        cw.write_all(b"one").await.unwrap();
        let mut s = sr.reunite(sw).unwrap();
        let mut buf = [0u8; 3];
        s.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"one");
        drop(cw);
        let mut rest = Vec::new();
        s.read_to_end(&mut rest).await.unwrap();
        assert!(rest.is_empty(), "the write half's drop is EOF");
        s.write_all(b"two").await.unwrap();
        drop(s);
        let mut back = Vec::new();
        cr.read_to_end(&mut back).await.unwrap();
        assert_eq!(back, b"two");
    });
}

#[test]
fn tcp_socket_binds_connects_and_listens() {
    run("TcpSocket", 11, || async {
        let server = TcpSocket::new_v4().unwrap();
        server.set_reuseaddr(true).unwrap();
        server.bind("127.0.0.1:6000".parse().unwrap()).unwrap();
        let listener = server.listen(16).unwrap();
        assert_eq!(listener.local_addr().unwrap().port(), 6000);
        let client = TcpSocket::new_v4().unwrap();
        client.set_nodelay(true).unwrap();
        client.bind("127.0.0.1:6001".parse().unwrap()).unwrap();
        let c = client
            .connect("127.0.0.1:6000".parse().unwrap())
            .await
            .unwrap();
        assert!(c.nodelay().unwrap());
        assert_eq!(c.local_addr().unwrap().port(), 6001);
        let (_s, peer) = listener.accept().await.unwrap();
        assert_eq!(peer.port(), 6001);
        let err = TcpListener::bind("127.0.0.1:6001").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AddrInUse);
    });
}

#[test]
fn backlog_bounds_the_accept_queue() {
    run("a full backlog", 12, || async {
        let server = TcpSocket::new_v4().unwrap();
        server.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let listener = server.listen(2).unwrap();
        let addr = listener.local_addr().unwrap();
        let mut ok = 0;
        let mut refused = 0;
        let mut keep = Vec::new();
        for _ in 0..4 {
            match TcpStream::connect(addr).await {
                Ok(s) => {
                    ok += 1;
                    keep.push(s);
                }
                Err(e) => {
                    assert_eq!(e.kind(), io::ErrorKind::ConnectionRefused);
                    refused += 1;
                }
            }
        }
        assert_eq!((ok, refused), (2, 2));
        let _ = listener.accept().await.unwrap();
        TcpStream::connect(addr).await.unwrap();
    });
}

#[test]
fn deliveries_take_virtual_time() {
    run("virtual delays", 17, || async {
        let start = runtime::time::Instant::now();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut c = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (mut s, _) = listener.accept().await.unwrap();
        for _ in 0..50 {
            c.write_all(b"x").await.unwrap();
            let mut b = [0u8; 1];
            s.read_exact(&mut b).await.unwrap();
        }
        let took = start.elapsed();
        // 51 round trips of 0..=200 µs each: some virtual time, far from real time.
        assert!(took > std::time::Duration::ZERO, "{took:?}");
        assert!(
            took < std::time::Duration::from_millis(51 * 200 / 1000 + 1),
            "{took:?}"
        );
    });
}

#[test]
fn without_a_timer_driver_deliveries_are_immediate() {
    let run_once = |seed| {
        watchdog("a network without time", move || {
            let rt = Builder::new_multi_thread()
                .worker_threads(2)
                .enable_io()
                .deterministic(seed)
                .build()
                .unwrap();
            let got = rt.block_on(async {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr = listener.local_addr().unwrap();
                let server = runtime::spawn(async move {
                    let (mut s, _) = listener.accept().await.unwrap();
                    let mut buf = Vec::new();
                    s.read_to_end(&mut buf).await.unwrap();
                    buf
                });
                let mut c = TcpStream::connect(addr).await.unwrap();
                c.write_all(&payload(3)).await.unwrap();
                drop(c);
                server.await.unwrap()
            });
            (got, rt.trace_hash())
        })
    };
    let a = run_once(5);
    assert!(a.0 == payload(3));
    assert_eq!(a, run_once(5));
}

#[test]
fn unspecified_listeners_take_loopback_connects() {
    run("wildcard listeners", 21, || async {
        let any = TcpListener::bind("0.0.0.0:7000").await.unwrap();
        let v6 = TcpListener::bind("[::]:7000").await.unwrap();
        let c = TcpStream::connect("127.0.0.3:7000").await.unwrap();
        let (s, peer) = any.accept().await.unwrap();
        assert_eq!(s.local_addr().unwrap(), "127.0.0.3:7000".parse().unwrap());
        assert_eq!(peer, c.local_addr().unwrap());
        assert_eq!(peer.ip(), Ipv4Addr::new(127, 0, 0, 3));
        let c6 = TcpStream::connect("[::1]:7000").await.unwrap();
        let (_s6, peer6) = v6.accept().await.unwrap();
        assert_eq!(peer6, c6.local_addr().unwrap());
        assert!(peer6.is_ipv6());
        // Two loopback addresses on one port are two listeners.
        let one = TcpListener::bind("127.0.0.1:7001").await.unwrap();
        let two = TcpListener::bind("127.0.0.2:7001").await.unwrap();
        let _c = TcpStream::connect("127.0.0.2:7001").await.unwrap();
        let (s, _) = two.accept().await.unwrap();
        assert_eq!(s.local_addr().unwrap(), "127.0.0.2:7001".parse().unwrap());
        drop(one);
        // Connecting to the unspecified address reaches loopback, as on Linux.
        let _c = TcpStream::connect("0.0.0.0:7000").await.unwrap();
        let (s, _) = any.accept().await.unwrap();
        assert_eq!(s.local_addr().unwrap(), "127.0.0.1:7000".parse().unwrap());
    });
}

#[test]
fn futures_io_traits_and_lookup_host() {
    run("futures-io", 24, || async {
        let addrs: Vec<_> = runtime::net::lookup_host("localhost:8080")
            .await
            .unwrap()
            .collect();
        assert_eq!(
            addrs,
            ["127.0.0.1:8080".parse::<std::net::SocketAddr>().unwrap()]
        );
        let listener = TcpListener::bind(addrs[0]).await.unwrap();
        let mut c = TcpStream::connect("localhost:8080").await.unwrap();
        let (mut s, _) = listener.accept().await.unwrap();
        futures::io::AsyncWriteExt::write_all(&mut c, b"futures")
            .await
            .unwrap();
        futures::io::AsyncWriteExt::close(&mut c).await.unwrap();
        let mut got = Vec::new();
        futures::io::AsyncReadExt::read_to_end(&mut s, &mut got)
            .await
            .unwrap();
        assert_eq!(got, b"futures");
    });
}
