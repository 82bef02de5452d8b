//! `ready(Interest)` as tokio's: a hang-up shows as read-closed / write-closed, a pending
//! error as `ERROR`, urgent TCP data as `PRIORITY`, and a wait on `ERROR` or `PRIORITY`
//! alone waits for exactly that. Each test runs on both flavors under a watchdog, so a
//! wait that never ends fails by name.
#![cfg(all(unix, not(loom)))]

#[macro_use]
mod support;

use support::*;

use std::io;
use std::os::fd::AsRawFd;

use runtime::io::{Interest, Ready};
use runtime::net::{TcpListener, TcpStream, UdpSocket, UnixDatagram, UnixStream};

async fn tcp_pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (client, accepted) = futures::join!(TcpStream::connect(addr), listener.accept());
    (client.unwrap(), accepted.unwrap().0)
}

rt_test! {
    /// As tokio's: an accepted stream starts out assumed readable and writable (its first
    /// read tries the socket; a read that finds nothing clears the guess), and both ends
    /// of a fresh pair start out writable, not readable. No driver turn is needed.
    #[test]
    fn fresh_sockets_start_with_the_readiness_tokio_assumes() {
        use futures::FutureExt;
        watchdog("the fresh sockets' readiness", || {
            on(&rt(), || async {
                let (_client, accepted) = tcp_pair().await;
                assert!(accepted.readable().now_or_never().is_some(), "assumed readable");
                let err = accepted.try_read(&mut [0; 8]).unwrap_err();
                assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
                assert!(
                    accepted.readable().now_or_never().is_none(),
                    "the WouldBlock cleared the guess"
                );
                assert_eq!(accepted.try_write(b"early").unwrap(), 5);

                let path = std::env::temp_dir()
                    .join(format!("runtime-net-ready-{}-{FLAVOR}", std::process::id()));
                let _ = std::fs::remove_file(&path);
                let listener = runtime::net::UnixListener::bind(&path).unwrap();
                let (_client, accepted) = futures::join!(
                    UnixStream::connect(&path),
                    listener.accept()
                );
                let (accepted, _) = accepted.unwrap();
                assert!(accepted.readable().now_or_never().is_some());
                assert!(accepted.writable().now_or_never().is_some());
                let _ = std::fs::remove_file(&path);

                let (a, b) = UnixStream::pair().unwrap();
                assert!(a.writable().now_or_never().is_some(), "a fresh pair is writable");
                assert!(b.readable().now_or_never().is_none(), "and not readable");
                let (a, b) = UnixDatagram::pair().unwrap();
                let waker = futures::task::noop_waker();
                let mut cx = std::task::Context::from_waker(&waker);
                assert!(a.poll_send_ready(&mut cx).is_ready());
                assert!(b.poll_recv_ready(&mut cx).is_pending());
            });
        });
    }

    /// The loop a tokio user writes to drain a connection until the peer hangs up: with
    /// readiness that never says read-closed it spins on `WouldBlock` forever.
    #[test]
    fn a_readable_loop_sees_the_peer_hang_up() {
        watchdog("read-closed from ready(READABLE)", || {
            on(&rt(), || async {
                let (a, b) = tcp_pair().await;
                b.try_write(b"last words").unwrap();
                b.shutdown_std(std::net::Shutdown::Write).unwrap();
                let mut got = Vec::new();
                let ready = within("the hang-up", async {
                    loop {
                        let r = a.ready(Interest::READABLE).await.unwrap();
                        assert!(!r.is_writable(), "only what was asked: {r:?}");
                        let mut buf = [0; 4];
                        match a.try_read(&mut buf) {
                            Ok(n) => got.extend_from_slice(&buf[..n]),
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                            Err(e) => panic!("{e}"),
                        }
                        if r.is_read_closed() {
                            break r;
                        }
                    }
                })
                .await;
                assert!(ready.is_readable(), "read-closed counts as readable");
                // Drained to EOF.
                let mut rest = [0; 16];
                while let Ok(n) = a.try_read(&mut rest) {
                    if n == 0 {
                        break;
                    }
                    got.extend_from_slice(&rest[..n]);
                }
                assert_eq!(got, b"last words");
                // Sticky: asked again, it answers at once.
                assert!(a.ready(Interest::READABLE).await.unwrap().is_read_closed());
            });
        });
    }

    #[test]
    fn a_dropped_unix_peer_shows_both_directions_closed() {
        watchdog("write-closed from ready(WRITABLE)", || {
            on(&rt(), || async {
                let (a, b) = UnixStream::pair().unwrap();
                // Writable now, nothing closed.
                let r = a.ready(Interest::WRITABLE).await.unwrap();
                assert_eq!(r, Ready::WRITABLE);
                drop(b);
                let r = within("the hang-up", async {
                    loop {
                        let r = a
                            .ready(Interest::READABLE | Interest::WRITABLE)
                            .await
                            .unwrap();
                        if r.is_write_closed() {
                            break r;
                        }
                        runtime::task::yield_now().await;
                    }
                })
                .await;
                assert!(r.is_read_closed(), "{r:?}");
                let mut buf = [0; 4];
                assert_eq!(a.try_read(&mut buf).unwrap(), 0, "EOF");
            });
        });
    }

    #[test]
    fn error_alone_waits_for_the_error_and_reports_it() {
        watchdog("ERROR from ready(ERROR)", || {
            on(&rt(), || async {
                // A port nobody listens on: bind, note it, close.
                let gone = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
                let dead = gone.local_addr().unwrap();
                drop(gone);
                let s = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                s.connect(dead).await.unwrap();
                // Nothing pending yet: a wait on errors alone waits.
                assert!(futures::FutureExt::now_or_never(s.ready(Interest::ERROR)).is_none());
                // The ICMP port-unreachable comes back as a socket error (EPOLLERR).
                s.send(b"anyone?").await.unwrap();
                let r = within("the socket error", s.ready(Interest::ERROR))
                    .await
                    .unwrap();
                assert_eq!(r, Ready::ERROR, "only what was asked");
                let err = s.take_error().unwrap().expect("a pending error");
                assert_eq!(err.kind(), io::ErrorKind::ConnectionRefused);
            });
        });
    }

    #[test]
    fn priority_alone_waits_for_urgent_data() {
        watchdog("PRIORITY from ready(PRIORITY)", || {
            on(&rt(), || async {
                let (a, b) = tcp_pair().await;
                assert!(futures::FutureExt::now_or_never(a.ready(Interest::PRIORITY)).is_none());
                // SAFETY: `b` is a connected TCP socket alive for the call; the buffer is one
                // readable byte.
                let sent = unsafe {
                    libc::send(b.as_raw_fd(), b"!".as_ptr().cast(), 1, libc::MSG_OOB)
                };
                assert_eq!(sent, 1, "{}", io::Error::last_os_error());
                let r = within("urgent data", a.ready(Interest::PRIORITY))
                    .await
                    .unwrap();
                assert!(r.is_priority(), "{r:?}");
                assert!(!r.is_readable() && !r.is_writable(), "only what was asked: {r:?}");
            });
        });
    }

    #[test]
    fn unix_datagram_error_alone_waits() {
        watchdog("a datagram's ready(ERROR)", || {
            on(&rt(), || async {
                let (a, b) = UnixDatagram::pair().unwrap();
                assert!(futures::FutureExt::now_or_never(a.ready(Interest::ERROR)).is_none());
                b.send(b"x").await.unwrap();
                let r = a
                    .ready(Interest::READABLE | Interest::ERROR)
                    .await
                    .unwrap();
                assert!(r.is_readable() && !r.is_error(), "{r:?}");
            });
        });
    }
}
