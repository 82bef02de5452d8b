//! The rest of tokio's `net` surface, on both flavors: `TcpStream` options, readiness and
//! `try_*`/peek; `UdpSocket` peeks, `ready`, multicast and options; `TcpSocket`
//! (bind before connect, address/port reuse, buffer sizes, listen, `from_std_stream`);
//! Linux abstract Unix socket names; `UnixDatagram`.
#![cfg(all(unix, not(loom)))]

#[macro_use]
mod support;

use support::*;

use std::future::poll_fn;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use runtime::io::{AsyncReadExt, AsyncWriteExt, Interest, ReadBuf};
use runtime::net::{
    TcpListener, TcpSocket, TcpStream, UdpSocket, UnixDatagram, UnixListener, UnixStream,
};

async fn tcp_pair() -> (TcpStream, TcpStream) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let c = TcpStream::connect(l.local_addr().unwrap()).await.unwrap();
    let (s, _) = l.accept().await.unwrap();
    (c, s)
}

fn unique(tag: &str) -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "runtime-test-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

rt_test! {
    #[test]
    fn tcp_stream_options() {
        watchdog("the TCP connection", || {
            on_in_task(&rt(), || async {
                let (c, _s) = tcp_pair().await;
                assert_eq!(c.linger().unwrap(), None);
                c.set_linger(Some(Duration::from_secs(3))).unwrap();
                assert_eq!(c.linger().unwrap(), Some(Duration::from_secs(3)));
                c.set_linger(None).unwrap();
                assert_eq!(c.linger().unwrap(), None);
                c.set_ttl(33).unwrap();
                assert_eq!(c.ttl().unwrap(), 33);
                c.set_nodelay(true).unwrap();
                assert!(c.nodelay().unwrap());
                c.set_nodelay(false).unwrap();
                assert!(!c.nodelay().unwrap());
            });
        })
    }

    #[test]
    fn tcp_linger_zero_resets_the_peer() {
        watchdog("the reset to reach the peer", || {
            on_in_task(&rt(), || async {
                let (c, mut s) = tcp_pair().await;
                c.set_linger(Some(Duration::ZERO)).unwrap();
                drop(c);
                let mut buf = [0; 8];
                let err = s.read(&mut buf).await.unwrap_err();
                assert_eq!(err.kind(), io::ErrorKind::ConnectionReset);
            });
        })
    }

    #[test]
    fn tcp_readiness_try_io_and_peek() {
        watchdog("TCP readiness and peeks", || {
            on_in_task(&rt(), || async {
                let (c, s) = tcp_pair().await;
                c.writable().await.unwrap();
                assert_eq!(c.try_write(b"hello").unwrap(), 5);
                let bufs = [io::IoSlice::new(b" wor"), io::IoSlice::new(b"ld")];
                assert_eq!(c.try_write_vectored(&bufs).unwrap(), 6);
                // peek sees the data and leaves it queued, in both forms.
                let mut peeked = [0; 5];
                assert_eq!(s.peek(&mut peeked).await.unwrap(), 5);
                assert_eq!(&peeked, b"hello");
                let mut store = [0u8; 3];
                let mut rb = ReadBuf::new(&mut store);
                let n = poll_fn(|cx| s.poll_peek(cx, &mut rb)).await.unwrap();
                assert_eq!((n, rb.filled()), (3, &b"hel"[..]));
                // then read it all with try_read_vectored after readable().
                let mut got = Vec::new();
                while got.len() < 11 {
                    let ready = s.ready(Interest::READABLE).await.unwrap();
                    assert!(ready.is_readable());
                    let (mut a, mut b) = ([0u8; 4], [0u8; 16]);
                    let mut bufs = [io::IoSliceMut::new(&mut a), io::IoSliceMut::new(&mut b)];
                    match s.try_read_vectored(&mut bufs) {
                        Ok(n) => {
                            let all: Vec<u8> = a.iter().chain(b.iter()).copied().collect();
                            got.extend_from_slice(&all[..n]);
                        }
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                        Err(e) => panic!("{e}"),
                    }
                }
                assert_eq!(got, b"hello world");
                // Nothing left: try_read says WouldBlock, and readable() waits for new data.
                let mut one = [0; 1];
                assert_eq!(
                    s.try_read(&mut one).unwrap_err().kind(),
                    io::ErrorKind::WouldBlock
                );
                let waiter = {
                    let s = std::sync::Arc::new(s);
                    let s2 = s.clone();
                    (
                        runtime::spawn(async move {
                            s2.readable().await.unwrap();
                            let mut one = [0; 1];
                            s2.try_read(&mut one).unwrap();
                            one[0]
                        }),
                        s,
                    )
                };
                c.writable().await.unwrap();
                c.try_write(b"!").unwrap();
                assert_eq!(waiter.0.await.unwrap(), b'!');
            });
        })
    }

    #[test]
    fn udp_peeks_leave_the_datagram_queued() {
        watchdog("the UDP datagram", || {
            on_in_task(&rt(), || async {
                let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                let a_addr = a.local_addr().unwrap();
                let mut buf = [0; 16];
                assert_eq!(
                    b.try_peek_from(&mut buf).unwrap_err().kind(),
                    io::ErrorKind::WouldBlock
                );
                assert_eq!(
                    b.try_peek_sender().unwrap_err().kind(),
                    io::ErrorKind::WouldBlock
                );
                a.send_to(b"first", b.local_addr().unwrap()).await.unwrap();
                assert_eq!(b.peek_sender().await.unwrap(), a_addr);
                assert_eq!(b.peek_from(&mut buf).await.unwrap(), (5, a_addr));
                assert_eq!(b.try_peek_from(&mut buf).unwrap(), (5, a_addr));
                assert_eq!(b.try_peek_sender().unwrap(), a_addr);
                let mut store = [0u8; 16];
                let mut rb = ReadBuf::new(&mut store);
                let from = poll_fn(|cx| b.poll_peek_from(cx, &mut rb)).await.unwrap();
                assert_eq!((from, rb.filled()), (a_addr, &b"first"[..]));
                let mut rb = ReadBuf::new(&mut store);
                let from = poll_fn(|cx| b.poll_recv_from(cx, &mut rb)).await.unwrap();
                assert_eq!((from, rb.filled()), (a_addr, &b"first"[..]));
                // Consumed now.
                assert_eq!(
                    b.try_recv_from(&mut buf).unwrap_err().kind(),
                    io::ErrorKind::WouldBlock
                );
            });
        })
    }

    #[test]
    fn udp_connected_ready_and_try_io() {
        watchdog("connected UDP readiness", || {
            on_in_task(&rt(), || async {
                let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                a.connect(b.local_addr().unwrap()).await.unwrap();
                b.connect(a.local_addr().unwrap()).await.unwrap();
                let r = a.ready(Interest::WRITABLE).await.unwrap();
                assert!(r.is_writable());
                assert_eq!(a.try_send(b"x1").unwrap(), 2);
                a.send(b"x2").await.unwrap();
                let mut got = Vec::new();
                while got.len() < 2 {
                    let r = b
                        .ready(Interest::READABLE | Interest::WRITABLE)
                        .await
                        .unwrap();
                    if !r.is_readable() {
                        runtime::task::yield_now().await;
                        continue;
                    }
                    let mut buf = [0; 8];
                    match b.try_recv(&mut buf) {
                        Ok(n) => got.push(buf[..n].to_vec()),
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                        Err(e) => panic!("{e}"),
                    }
                }
                assert_eq!(got, vec![b"x1".to_vec(), b"x2".to_vec()]);
                let mut store = [0u8; 8];
                a.send(b"x3").await.unwrap();
                let mut rb = ReadBuf::new(&mut store);
                poll_fn(|cx| b.poll_recv(cx, &mut rb)).await.unwrap();
                assert_eq!(rb.filled(), b"x3");
                assert!(
                    futures::FutureExt::now_or_never(a.ready(Interest::ERROR)).is_none(),
                    "no error is pending: a wait on ERROR alone waits"
                );
            });
        })
    }

    #[test]
    fn udp_options_and_multicast() {
        watchdog("the UDP socket options", || {
            on_in_task(&rt(), || async {
                let s = UdpSocket::bind("0.0.0.0:0").await.unwrap();
                s.set_broadcast(true).unwrap();
                assert!(s.broadcast().unwrap());
                s.set_ttl(7).unwrap();
                assert_eq!(s.ttl().unwrap(), 7);
                s.set_multicast_ttl_v4(3).unwrap();
                assert_eq!(s.multicast_ttl_v4().unwrap(), 3);
                s.set_multicast_loop_v4(true).unwrap();
                assert!(s.multicast_loop_v4().unwrap());
                let group = Ipv4Addr::new(239, 255, 42, 99);
                s.join_multicast_v4(group, Ipv4Addr::LOCALHOST).unwrap();
                s.leave_multicast_v4(group, Ipv4Addr::LOCALHOST).unwrap();
                // Leaving a group not joined is an error, not a silent no-op.
                assert!(s.leave_multicast_v4(group, Ipv4Addr::LOCALHOST).is_err());

                // IPv6, where the machine has it: join on the loopback interface.
                if let Ok(s6) = UdpSocket::bind("[::1]:0").await {
                    // SAFETY: a NUL-terminated interface name.
                    let lo = unsafe { libc::if_nametoindex(c"lo".as_ptr()) };
                    let group6: std::net::Ipv6Addr = "ff02::1:ff00:42".parse().unwrap();
                    s6.join_multicast_v6(&group6, lo).unwrap();
                    s6.set_multicast_loop_v6(false).unwrap();
                    assert!(!s6.multicast_loop_v6().unwrap());
                    s6.leave_multicast_v6(&group6, lo).unwrap();
                    assert!(s6.leave_multicast_v6(&group6, lo).is_err());
                }
            });
        })
    }

    #[test]
    fn tcp_socket_bind_before_connect() {
        watchdog("the TcpSocket connection", || {
            on_in_task(&rt(), || async {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let sock = TcpSocket::new_v4().unwrap();
                sock.set_reuseaddr(true).unwrap();
                assert!(sock.reuseaddr().unwrap());
                sock.set_nodelay(true).unwrap();
                sock.set_keepalive(true).unwrap();
                assert!(sock.keepalive().unwrap());
                sock.set_linger(Some(Duration::from_secs(1))).unwrap();
                assert_eq!(sock.linger().unwrap(), Some(Duration::from_secs(1)));
                sock.bind("127.0.0.1:0".parse().unwrap()).unwrap();
                let local = sock.local_addr().unwrap();
                assert_ne!(local.port(), 0);
                let mut stream = sock.connect(listener.local_addr().unwrap()).await.unwrap();
                assert_eq!(stream.local_addr().unwrap(), local);
                assert!(stream.nodelay().unwrap());
                let (mut server, peer) = listener.accept().await.unwrap();
                assert_eq!(
                    peer, local,
                    "the server sees the address bound before connect"
                );
                stream.write_all(b"via TcpSocket").await.unwrap();
                let mut buf = [0; 13];
                server.read_exact(&mut buf).await.unwrap();
                assert_eq!(&buf, b"via TcpSocket");
            });
        })
    }

    #[test]
    fn tcp_socket_connect_refused_is_an_error() {
        watchdog("the refused connect", || {
            on_in_task(&rt(), || async {
                // A port with nothing listening: bind, note the port, close.
                let port = std::net::TcpListener::bind("127.0.0.1:0")
                    .unwrap()
                    .local_addr()
                    .unwrap()
                    .port();
                let sock = TcpSocket::new_v4().unwrap();
                let err = sock
                    .connect(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
                    .await
                    .unwrap_err();
                assert_eq!(err.kind(), io::ErrorKind::ConnectionRefused);
            });
        })
    }

    #[test]
    fn tcp_socket_buffers_reuseport_and_listen() {
        watchdog("the TcpSocket listener", || {
            on_in_task(&rt(), || async {
                let a = TcpSocket::new_v4().unwrap();
                a.set_send_buffer_size(64 * 1024).unwrap();
                a.set_recv_buffer_size(64 * 1024).unwrap();
                // Linux doubles the request for bookkeeping; it is at least what was asked.
                assert!(a.send_buffer_size().unwrap() >= 64 * 1024);
                assert!(a.recv_buffer_size().unwrap() >= 64 * 1024);
                a.set_reuseport(true).unwrap();
                assert!(a.reuseport().unwrap());
                a.bind("127.0.0.1:0".parse().unwrap()).unwrap();
                let addr = a.local_addr().unwrap();
                // A second socket shares the port thanks to SO_REUSEPORT on both.
                let b = TcpSocket::new_v4().unwrap();
                b.set_reuseport(true).unwrap();
                b.bind(addr).unwrap();
                let la = a.listen(16).unwrap();
                let lb = b.listen(16).unwrap();
                assert_eq!(la.local_addr().unwrap(), addr);
                assert_eq!(lb.local_addr().unwrap(), addr);
                // Without reuseport a third bind is refused.
                let c = TcpSocket::new_v4().unwrap();
                assert_eq!(c.bind(addr).unwrap_err().kind(), io::ErrorKind::AddrInUse);
                // Connections land on one of the two listeners.
                let _client = TcpStream::connect(addr).await.unwrap();
                poll_fn(|cx| {
                    if let std::task::Poll::Ready(r) = la.poll_accept(cx) {
                        return std::task::Poll::Ready(r);
                    }
                    lb.poll_accept(cx)
                })
                .await
                .unwrap();
            });
        })
    }

    #[test]
    fn tcp_socket_v6_and_from_std_stream() {
        watchdog("the v6 connection", || {
            on_in_task(&rt(), || async {
                if let Ok(l) = TcpListener::bind("[::1]:0").await {
                    let s = TcpSocket::new_v6().unwrap();
                    let stream = s.connect(l.local_addr().unwrap()).await.unwrap();
                    assert!(stream.local_addr().unwrap().is_ipv6());
                }
                let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                let std = std::net::TcpStream::connect(l.local_addr().unwrap()).unwrap();
                let sock = TcpSocket::from_std_stream(std);
                sock.set_nodelay(true).unwrap();
                assert!(sock.nodelay().unwrap());
            });
        })
    }

    #[test]
    fn abstract_unix_stream_names() {
        watchdog("the abstract-name unix connection", || {
            on_in_task(&rt(), || async {
                let name = format!("\0{}", unique("abstract-stream"));
                let listener = UnixListener::bind(&name).unwrap();
                assert!(
                    !std::path::Path::new(&name[1..]).exists(),
                    "no file is created"
                );
                let mut client = UnixStream::connect(&name).await.unwrap();
                let (mut server, _) = listener.accept().await.unwrap();
                {
                    use std::os::linux::net::SocketAddrExt;
                    let local = listener.local_addr().unwrap();
                    assert_eq!(local.as_abstract_name(), Some(&name.as_bytes()[1..]));
                }
                client.write_all(b"abstract").await.unwrap();
                let mut buf = [0; 8];
                server.read_exact(&mut buf).await.unwrap();
                assert_eq!(&buf, b"abstract");
                // Nothing bound under another abstract name: refused, not hung.
                let nobody = format!("\0{}", unique("abstract-nobody"));
                assert_eq!(
                    UnixStream::connect(&nobody).await.unwrap_err().kind(),
                    io::ErrorKind::ConnectionRefused
                );
                // A second bind of the same name is refused while the first lives.
                assert_eq!(
                    UnixListener::bind(&name).unwrap_err().kind(),
                    io::ErrorKind::AddrInUse
                );
            });
        })
    }

    #[test]
    fn unix_datagram_pair_send_recv() {
        watchdog("the unix datagram pair", || {
            on_in_task(&rt(), || async {
                let (a, b) = UnixDatagram::pair().unwrap();
                a.send(b"one").await.unwrap();
                a.send(b"two").await.unwrap();
                let mut buf = [0; 8];
                assert_eq!(b.recv(&mut buf).await.unwrap(), 3);
                assert_eq!(&buf[..3], b"one");
                let mut store = [0u8; 8];
                let mut rb = ReadBuf::new(&mut store);
                poll_fn(|cx| b.poll_recv(cx, &mut rb)).await.unwrap();
                assert_eq!(rb.filled(), b"two");
                assert_eq!(
                    b.try_recv(&mut buf).unwrap_err().kind(),
                    io::ErrorKind::WouldBlock
                );
                // try_send after writable; readable then try_recv on the other side.
                a.writable().await.unwrap();
                assert_eq!(a.try_send(b"three").unwrap(), 5);
                loop {
                    b.readable().await.unwrap();
                    match b.try_recv(&mut buf) {
                        Ok(n) => {
                            assert_eq!(&buf[..n], b"three");
                            break;
                        }
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                        Err(e) => panic!("{e}"),
                    }
                }
                assert!(a.peer_addr().unwrap().is_unnamed());
                let r = a.ready(Interest::WRITABLE).await.unwrap();
                assert!(r.is_writable());
            });
        })
    }

    #[test]
    fn unix_datagram_bind_connect_send_to_recv_from() {
        watchdog("the unix datagrams", || {
            on_in_task(&rt(), || async {
                let dir = std::env::temp_dir().join(unique("dgram"));
                std::fs::create_dir_all(&dir).unwrap();
                let server_path = dir.join("server.sock");
                let client_path = dir.join("client.sock");
                let server = UnixDatagram::bind(&server_path).unwrap();
                let client = UnixDatagram::bind(&client_path).unwrap();
                assert_eq!(
                    server.local_addr().unwrap().as_pathname(),
                    Some(server_path.as_path())
                );
                client.send_to(b"hello", &server_path).await.unwrap();
                let mut buf = [0; 16];
                let (n, from) = server.recv_from(&mut buf).await.unwrap();
                assert_eq!(&buf[..n], b"hello");
                assert_eq!(from.as_pathname(), Some(client_path.as_path()));
                // Reply with try_send_to / receive with poll_recv_from.
                server.writable().await.unwrap();
                server.try_send_to(b"back", &client_path).unwrap();
                let mut store = [0u8; 16];
                let mut rb = ReadBuf::new(&mut store);
                let from = poll_fn(|cx| client.poll_recv_from(cx, &mut rb))
                    .await
                    .unwrap();
                assert_eq!(
                    (rb.filled(), from.as_pathname()),
                    (&b"back"[..], Some(server_path.as_path()))
                );
                // Connected: send/recv without an address.
                client.connect(&server_path).unwrap();
                assert_eq!(
                    client.peer_addr().unwrap().as_pathname(),
                    Some(server_path.as_path())
                );
                client.send(b"conn").await.unwrap();
                let (n, _) = server.recv_from(&mut buf).await.unwrap();
                assert_eq!(&buf[..n], b"conn");
                assert_eq!(
                    server.try_recv_from(&mut buf).unwrap_err().kind(),
                    io::ErrorKind::WouldBlock
                );
                // An unbound socket can send to a path.
                let lone = UnixDatagram::unbound().unwrap();
                lone.send_to(b"anon", &server_path).await.unwrap();
                let (n, from) = server.recv_from(&mut buf).await.unwrap();
                assert_eq!(&buf[..n], b"anon");
                assert!(from.is_unnamed());
                // Sending to a path where nothing is bound fails.
                assert!(lone.send_to(b"x", dir.join("nobody.sock")).await.is_err());
                drop((server, client));
                std::fs::remove_dir_all(&dir).unwrap();
            });
        })
    }

    #[test]
    fn unix_datagram_abstract_names_and_std_round_trip() {
        watchdog("the abstract-name unix datagrams", || {
            on_in_task(&rt(), || async {
                let name = format!("\0{}", unique("abstract-dgram"));
                let server = UnixDatagram::bind(&name).unwrap();
                let client = UnixDatagram::unbound().unwrap();
                client.connect(&name).unwrap();
                client.send(b"abs").await.unwrap();
                let mut buf = [0; 8];
                assert_eq!(server.recv(&mut buf).await.unwrap(), 3);
                client.send_to(b"abs2", &name).await.unwrap();
                assert_eq!(server.recv(&mut buf).await.unwrap(), 4);
                // into_std / from_std keep the socket working.
                let std = server.into_std().unwrap();
                let server = UnixDatagram::from_std(std).unwrap();
                client.send(b"again").await.unwrap();
                assert_eq!(server.recv(&mut buf).await.unwrap(), 5);
            });
        })
    }
}
