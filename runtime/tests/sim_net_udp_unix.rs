//! The deterministic mode's in-memory network: UDP datagrams (bind, `send_to`/
//! `recv_from`, connect, peeks, truncation, readiness, unspecified binds) and Unix
//! streams (a path namespace of the network's own, `connect`, `pair`, halves) and
//! datagrams (bind, unbound, pair, connect, flow control instead of drops).
#![cfg(all(feature = "deterministic", not(loom)))]

#[macro_use]
mod support;

use std::io;
use std::net::{Ipv4Addr, SocketAddr};

use runtime::io::{AsyncReadExt, AsyncWriteExt, Interest};
use runtime::net::UdpSocket;
use support::*;

#[test]
fn udp_round_trip() {
    run("datagrams", 13, || async {
        let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let (aa, ba) = (a.local_addr().unwrap(), b.local_addr().unwrap());
        assert_eq!(a.send_to(b"ping", ba).await.unwrap(), 4);
        let mut buf = [0u8; 16];
        assert_eq!(b.peek_from(&mut buf).await.unwrap(), (4, aa));
        assert_eq!(b.peek_sender().await.unwrap(), aa);
        assert_eq!(b.recv_from(&mut buf).await.unwrap(), (4, aa));
        assert_eq!(&buf[..4], b"ping");
        assert_eq!(
            b.try_recv_from(&mut buf).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        // Connected: send/recv, and datagrams from others are dropped.
        b.connect(aa).await.unwrap();
        a.connect(ba).await.unwrap();
        assert_eq!(b.peer_addr().unwrap(), aa);
        let c = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        c.send_to(b"stranger", ba).await.unwrap();
        a.send(b"pong").await.unwrap();
        assert_eq!(b.recv(&mut buf).await.unwrap(), 4);
        assert_eq!(&buf[..4], b"pong");
        // Truncation to the buffer, as a kernel's.
        b.send(b"a long datagram").await.unwrap();
        let mut small = [0u8; 4];
        assert_eq!(a.recv(&mut small).await.unwrap(), 4);
        assert_eq!(&small, b"a lo");
        // Readiness.
        b.send(b"r").await.unwrap();
        a.readable().await.unwrap();
        let r = a.ready(Interest::READABLE).await.unwrap();
        assert!(r.is_readable());
        let mut v = Vec::with_capacity(4);
        assert_eq!(a.try_recv_buf(&mut v).unwrap(), 1);
        // Unspecified binds receive what is sent to loopback.
        let any = UdpSocket::bind("0.0.0.0:0").await.unwrap();
        let to = SocketAddr::from((Ipv4Addr::LOCALHOST, any.local_addr().unwrap().port()));
        c.send_to(b"any", to).await.unwrap();
        let (n, from) = any.recv_from(&mut buf).await.unwrap();
        assert_eq!((n, from), (3, c.local_addr().unwrap()));
    });
}

#[test]
fn unix_streams_in_memory() {
    run("Unix streams", 19, || async {
        use runtime::net::{UnixListener, UnixStream};
        let path = "/nonexistent-dir/sim.sock";
        let listener = UnixListener::bind(path).unwrap();
        assert!(!std::path::Path::new(path).exists(), "no file is created");
        assert_eq!(
            listener.local_addr().unwrap().as_pathname(),
            Some(std::path::Path::new(path))
        );
        let err = UnixListener::bind(path).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AddrInUse);
        let err = UnixStream::connect("/nowhere.sock").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        let mut c = UnixStream::connect(path).await.unwrap();
        let (mut s, peer) = listener.accept().await.unwrap();
        assert!(peer.is_unnamed());
        assert!(c.local_addr().unwrap().is_unnamed());
        assert_eq!(
            c.peer_addr().unwrap().as_pathname(),
            Some(std::path::Path::new(path))
        );
        c.write_all(b"over unix").await.unwrap();
        c.shutdown().await.unwrap();
        let mut got = String::new();
        s.read_to_string(&mut got).await.unwrap();
        assert_eq!(got, "over unix");
        drop(listener);
        let _again = UnixListener::bind(path).unwrap();
        // A pair: connected at once, unnamed, halves work.
        let (a, mut b) = UnixStream::pair().unwrap();
        let (_ar, mut aw) = a.into_split();
        aw.write_all(b"pair").await.unwrap();
        let mut four = [0u8; 4];
        b.read_exact(&mut four).await.unwrap();
        assert_eq!(&four, b"pair");
        drop(aw);
        assert_eq!(b.read(&mut four).await.unwrap(), 0);
    });
}

#[test]
fn unix_datagrams_in_memory() {
    run("Unix datagrams", 22, || async {
        use runtime::net::{UnixDatagram, UnixListener};
        let a = UnixDatagram::bind("/sim/a.sock").unwrap();
        let b = UnixDatagram::bind("/sim/b.sock").unwrap();
        assert_eq!(
            UnixDatagram::bind("/sim/a.sock").unwrap_err().kind(),
            io::ErrorKind::AddrInUse
        );
        // Streams and datagrams share the path namespace.
        assert_eq!(
            UnixListener::bind("/sim/a.sock").unwrap_err().kind(),
            io::ErrorKind::AddrInUse
        );
        assert_eq!(a.send_to(b"one", "/sim/b.sock").await.unwrap(), 3);
        let mut buf = [0u8; 8];
        let (n, from) = b.recv_from(&mut buf).await.unwrap();
        assert_eq!(
            (&buf[..n], from.as_pathname()),
            (&b"one"[..], Some(std::path::Path::new("/sim/a.sock")))
        );
        let err = a.send_to(b"x", "/sim/nobody.sock").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        // Unbound senders are unnamed.
        let u = UnixDatagram::unbound().unwrap();
        u.send_to(b"anon", "/sim/b.sock").await.unwrap();
        let (n, from) = b.recv_from(&mut buf).await.unwrap();
        assert_eq!(n, 4);
        assert!(from.is_unnamed());
        // Connected: send/recv and peer_addr.
        u.connect("/sim/b.sock").unwrap();
        assert_eq!(
            u.peer_addr().unwrap().as_pathname(),
            Some(std::path::Path::new("/sim/b.sock"))
        );
        u.send(b"hi").await.unwrap();
        assert_eq!(b.recv(&mut buf).await.unwrap(), 2);
        // A pair; a full queue makes the sender wait instead of dropping.
        let (p, q) = UnixDatagram::pair().unwrap();
        let big = vec![1u8; 60_000];
        let mut sent = 0;
        while p.try_send(&big).is_ok() {
            sent += 1;
        }
        assert!(sent >= 1);
        assert_eq!(
            p.try_send(&big).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        let waiting = runtime::spawn(async move {
            p.send(&big).await.unwrap();
            p
        });
        let mut got = vec![0u8; 70_000];
        for _ in 0..=sent {
            assert_eq!(q.recv(&mut got).await.unwrap(), 60_000);
        }
        let p = waiting.await.unwrap();
        drop(q);
        let err = p.send(b"gone").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionRefused);
    });
}

#[test]
fn a_full_udp_receive_queue_drops_datagrams() {
    run("a full receive queue", 23, || async {
        let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let to = b.local_addr().unwrap();
        let big = vec![5u8; 60_000];
        // Sends never wait: 10 datagrams of 60 kB, far past the receiver's queue.
        for _ in 0..10 {
            assert_eq!(a.try_send_to(&big, to).unwrap(), big.len());
        }
        runtime::time::sleep(std::time::Duration::from_millis(1)).await;
        let mut got = 0;
        let mut buf = vec![0u8; 65_536];
        while b.try_recv(&mut buf).is_ok() {
            got += 1;
        }
        assert!(got > 0 && got < 10, "{got} of 10 datagrams kept");
        // A datagram to a port nobody bound is dropped, not an error.
        a.send_to(b"void", "127.0.0.1:9").await.unwrap();
    });
}
