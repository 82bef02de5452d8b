//! The rest of tokio's socket surface: `try_io`/`async_io` (on TCP, Unix streams, UDP,
//! Unix datagrams), `BufMut` reads (`try_read_buf`, `recv_buf`, `recv_buf_from`,
//! `try_recv_buf(_from)`), `lookup_host`, `peer_cred`, and the socket options
//! `set_zero_linger`, `quickack`, `tos_v4`, `tclass_v6`, `bind_device`. Both flavors,
//! every test under a watchdog.
#![cfg(all(target_os = "linux", not(loom)))]

#[macro_use]
mod support;

use support::*;

use std::cell::Cell;
use std::io;
use std::os::fd::{AsRawFd, RawFd};

use futures::FutureExt;
use runtime::io::Interest;
use runtime::net::{TcpListener, TcpSocket, TcpStream, UdpSocket, UnixDatagram, UnixStream};

async fn tcp_pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (client, accepted) = futures::join!(TcpStream::connect(addr), listener.accept());
    (client.unwrap(), accepted.unwrap().0)
}

/// `recv(2)` on a raw descriptor, non-blocking.
fn recv_raw(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `buf` is a live, writable buffer of `buf.len()` bytes.
    let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), libc::MSG_DONTWAIT) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// What every socket type's `try_io`/`async_io` must do, given its readiness wait and a
/// way to make it readable: not ready, `try_io` answers `WouldBlock` without calling the
/// closure; `async_io` waits, then reads; a `WouldBlock` from the closure clears the
/// readiness, so the next `ready()` waits.
macro_rules! check_try_io {
    ($sock:expr, $make_readable:expr) => {{
        let sock = &$sock;
        let fd = sock.as_raw_fd();
        let called = Cell::new(false);
        let e = sock
            .try_io(Interest::READABLE, || {
                called.set(true);
                recv_raw(fd, &mut [0; 8])
            })
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
        assert!(
            !called.get(),
            "try_io called its closure on a socket that is not ready"
        );
        $make_readable;
        let mut buf = [0; 8];
        let n = within(
            "async_io",
            sock.async_io(Interest::READABLE, || recv_raw(fd, &mut buf)),
        )
        .await
        .unwrap();
        assert_eq!(&buf[..n], b"data");
        // Drained: the closure's WouldBlock clears the readiness.
        let e = sock
            .try_io(Interest::READABLE, || recv_raw(fd, &mut [0; 8]))
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
        assert!(
            sock.ready(Interest::READABLE).now_or_never().is_none(),
            "readiness was not cleared"
        );
    }};
}

rt_test! {
    #[test]
    fn try_io_and_async_io_on_every_socket_type() {
        watchdog("try_io / async_io", || {
            on(&rt(), || async {
                // The connecting end: an accepted one starts out assumed readable, as
                // tokio's (net_ready.rs).
                let (a, b) = tcp_pair().await;
                check_try_io!(a, b.try_write(b"data").unwrap());
                let (a, b) = UnixStream::pair().unwrap();
                check_try_io!(b, a.try_write(b"data").unwrap());
                let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                a.connect(b.local_addr().unwrap()).await.unwrap();
                check_try_io!(b, a.send(b"data").await.unwrap());
                let (a, b) = UnixDatagram::pair().unwrap();
                check_try_io!(b, a.send(b"data").await.unwrap());
            });
        });
    }

    #[test]
    fn bufmut_reads_fill_spare_capacity() {
        watchdog("BufMut reads", || {
            on(&rt(), || async {
                // Streams: try_read_buf, also through a half.
                let (a, b) = tcp_pair().await;
                a.try_write(b"hello").unwrap();
                b.readable().await.unwrap();
                let mut v = Vec::with_capacity(3);
                v.push(b'>');
                let n = within("try_read_buf", async {
                    loop {
                        match b.try_read_buf(&mut v) {
                            Ok(n) => break n,
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                                b.readable().await.unwrap()
                            }
                            Err(e) => panic!("{e}"),
                        }
                    }
                })
                .await;
                assert!(n >= 2, "{n}");
                let (rd, _wr) = b.into_split();
                while v.len() < 6 {
                    rd.readable().await.unwrap();
                    match rd.try_read_buf(&mut v) {
                        Ok(_) => {}
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                        Err(e) => panic!("{e}"),
                    }
                }
                assert_eq!(v, b">hello");
                let mut bytes = bytes::BytesMut::with_capacity(16);
                let (x, y) = UnixStream::pair().unwrap();
                x.try_write(b"unix").unwrap();
                y.readable().await.unwrap();
                assert_eq!(y.try_read_buf(&mut bytes).unwrap(), 4);
                assert_eq!(&bytes[..], b"unix");

                // UDP: recv_buf, recv_buf_from, and the try_ forms.
                let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                let (aa, ba) = (a.local_addr().unwrap(), b.local_addr().unwrap());
                a.send_to(b"one", ba).await.unwrap();
                let mut buf = Vec::with_capacity(32);
                let (n, from) = within("recv_buf_from", b.recv_buf_from(&mut buf)).await.unwrap();
                assert_eq!((n, from, &buf[..]), (3, aa, &b"one"[..]));
                b.connect(aa).await.unwrap();
                a.send_to(b"two", ba).await.unwrap();
                let n = within("recv_buf", b.recv_buf(&mut buf)).await.unwrap();
                assert_eq!((n, &buf[..]), (3, &b"onetwo"[..]));
                assert_eq!(
                    b.try_recv_buf(&mut buf).unwrap_err().kind(),
                    io::ErrorKind::WouldBlock
                );
                a.send_to(b"3", ba).await.unwrap();
                b.readable().await.unwrap();
                let (n, from) = b.try_recv_buf_from(&mut buf).unwrap();
                assert_eq!((n, from, &buf[..]), (1, aa, &b"onetwo3"[..]));
                let mut full = [0u8; 0];
                let e = b.try_recv_buf_from(&mut &mut full[..]).unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "a full buffer is refused");

                // Unix datagrams.
                let (x, y) = UnixDatagram::pair().unwrap();
                x.send(b"dgram").await.unwrap();
                let mut buf = Vec::with_capacity(8);
                let n = within("unix recv_buf", y.recv_buf(&mut buf)).await.unwrap();
                assert_eq!((n, &buf[..]), (5, &b"dgram"[..]));
                x.send(b"again").await.unwrap();
                // (A datagram is cut to the spare room there is: make room for it.)
                buf.reserve(16);
                let (n, from) = within("unix recv_buf_from", y.recv_buf_from(&mut buf))
                    .await
                    .unwrap();
                assert_eq!((n, &buf[..]), (5, &b"dgramagain"[..]));
                assert!(from.is_unnamed(), "a socketpair peer has no name");
                assert_eq!(
                    y.try_recv_buf(&mut buf).unwrap_err().kind(),
                    io::ErrorKind::WouldBlock
                );
                assert_eq!(
                    y.try_recv_buf_from(&mut buf).unwrap_err().kind(),
                    io::ErrorKind::WouldBlock
                );
            });
        });
    }

    #[test]
    fn lookup_host_resolves_names_and_literals() {
        watchdog("lookup_host", || {
            on(&rt(), || async {
                let lit: Vec<_> = runtime::net::lookup_host("127.0.0.1:80").await.unwrap().collect();
                assert_eq!(lit, ["127.0.0.1:80".parse().unwrap()]);
                let pair: Vec<_> = runtime::net::lookup_host(("::1", 443)).await.unwrap().collect();
                assert_eq!(pair, ["[::1]:443".parse().unwrap()]);
                let local: Vec<_> = within(
                    "localhost",
                    runtime::net::lookup_host("localhost:8080"),
                )
                .await
                .unwrap()
                .collect();
                assert!(
                    local.iter().all(|a| a.ip().is_loopback() && a.port() == 8080) && !local.is_empty(),
                    "{local:?}"
                );
                assert!(runtime::net::lookup_host("no port here").await.is_err());
            });
        });
    }

    #[test]
    fn peer_cred_names_this_process() {
        watchdog("peer_cred", || {
            on(&rt(), || async {
                let (a, _b) = UnixStream::pair().unwrap();
                let cred = a.peer_cred().unwrap();
                // SAFETY: no preconditions.
                let (uid, gid, pid) = unsafe { (libc::getuid(), libc::getgid(), libc::getpid()) };
                assert_eq!((cred.uid(), cred.gid(), cred.pid()), (uid, gid, Some(pid)));
            });
        });
    }

    #[test]
    fn socket_options_round_trip_and_zero_linger_resets() {
        watchdog("the socket options", || {
            on(&rt(), || async {
                let (a, b) = tcp_pair().await;
                a.set_quickack(true).unwrap();
                assert!(a.quickack().unwrap());
                a.set_quickack(false).unwrap();
                assert!(!a.quickack().unwrap());
                a.set_zero_linger().unwrap();
                assert_eq!(a.linger().unwrap(), Some(std::time::Duration::ZERO));
                drop(a);
                // The peer sees a reset, not an EOF.
                let mut buf = [0; 8];
                let res = within("the reset", async {
                    loop {
                        b.readable().await.unwrap();
                        match b.try_read(&mut buf) {
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                            other => break other,
                        }
                    }
                })
                .await;
                assert_eq!(res.unwrap_err().kind(), io::ErrorKind::ConnectionReset);

                let s = TcpSocket::new_v4().unwrap();
                s.set_tos_v4(0x10).unwrap();
                assert_eq!(s.tos_v4().unwrap(), 0x10);
                assert_eq!(s.tos().unwrap(), 0x10);
                s.set_zero_linger().unwrap();
                assert_eq!(s.linger().unwrap(), Some(std::time::Duration::ZERO));
                assert_eq!(s.device().unwrap(), None);
                match s.bind_device(Some(b"lo")) {
                    Ok(()) => assert_eq!(s.device().unwrap().as_deref(), Some(&b"lo"[..])),
                    Err(e) => assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}"),
                }
                if let Ok(s6) = TcpSocket::new_v6() {
                    s6.set_tclass_v6(0x20).unwrap();
                    assert_eq!(s6.tclass_v6().unwrap(), 0x20);
                }
                let u = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                u.set_tos(0x08).unwrap();
                assert_eq!(u.tos_v4().unwrap(), 0x08);
                assert_eq!(u.device().unwrap(), None);
                if let Ok(u6) = UdpSocket::bind("[::1]:0").await {
                    u6.set_tclass_v6(0x28).unwrap();
                    assert_eq!(u6.tclass_v6().unwrap(), 0x28);
                }
            });
        });
    }
}
