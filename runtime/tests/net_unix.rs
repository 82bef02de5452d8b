//! Unix domain stream sockets: echo through a listener on a socket file, half-close on a
//! `pair`, halves, and a peer dropped while a read waits.
#![cfg(not(loom))]
#![cfg(unix)]

#[macro_use]
mod support;

use support::*;

use std::future::{poll_fn, Future};
use std::net::Shutdown;
use std::path::PathBuf;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::task::Poll;

use futures::io::{AsyncReadExt, AsyncWriteExt};
use runtime::net::{UnixListener, UnixSocket, UnixStream};
use runtime::time::timeout;
use runtime::Builder;

/// A fresh socket path, removed when dropped.
struct SockPath(PathBuf);

impl SockPath {
    fn new() -> SockPath {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "runtime-net-unix-{}-{}.sock",
            std::process::id(),
            N.fetch_add(1, SeqCst)
        ));
        let _ = std::fs::remove_file(&p);
        SockPath(p)
    }
}

impl Drop for SockPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

rt_test! {
    #[test]
    fn echo_through_a_socket_file() {
        watchdog("the unix echo", || {
            let rt = rt();
            rt.block_on(async {
                let path = SockPath::new();
                let listener = UnixListener::bind(&path.0).unwrap();
                assert_eq!(
                    listener.local_addr().unwrap().as_pathname(),
                    Some(path.0.as_path())
                );
                const N: usize = 50;
                let server = runtime::spawn(async move {
                    for _ in 0..N {
                        let (mut s, _) = listener.accept().await.unwrap();
                        let _echo = runtime::spawn(async move {
                            let (mut r, mut w) = UnixStream::split(&mut s);
                            futures::io::copy(&mut r, &mut w).await.unwrap();
                            w.close().await.unwrap();
                        });
                    }
                });
                let clients: Vec<_> = (0..N)
                    .map(|i| {
                        let p = path.0.clone();
                        runtime::spawn(async move {
                            let mut s = UnixStream::connect(&p).await.unwrap();
                            assert_eq!(s.peer_addr().unwrap().as_pathname(), Some(p.as_path()));
                            let msg = format!("message {i}").repeat(i + 1);
                            s.write_all(msg.as_bytes()).await.unwrap();
                            s.close().await.unwrap();
                            let mut back = String::new();
                            s.read_to_string(&mut back).await.unwrap();
                            assert_eq!(back, msg);
                        })
                    })
                    .collect();
                for c in clients {
                    timeout(GENEROUS, c).await.unwrap().unwrap();
                }
                timeout(GENEROUS, server).await.unwrap().unwrap();
            });
        })
    }
}

#[runtime::test]
async fn pair_half_close_and_owned_halves() {
    let _watchdog = abort_after("the unix pair");
    let (a, mut b) = UnixStream::pair().unwrap();
    let (mut ar, mut aw) = a.into_split();
    aw.write_all(b"to b").await.unwrap();
    aw.close().await.unwrap();
    let mut got = Vec::new();
    timeout(GENEROUS, b.read_to_end(&mut got))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got, b"to b");
    b.write_all(b"to a").await.unwrap();
    b.shutdown_std(Shutdown::Both).unwrap();
    let mut back = Vec::new();
    timeout(GENEROUS, ar.read_to_end(&mut back))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(back, b"to a");
    let a = ar.reunite(aw).unwrap();
    assert!(a.local_addr().unwrap().is_unnamed());
}

#[runtime::test(flavor = "multi_thread", worker_threads = 2)]
async fn peer_dropped_while_a_read_waits() {
    let _watchdog = abort_after("the read after the peer dropped");
    let (mut a, b) = UnixStream::pair().unwrap();
    let mut buf = [0u8; 4];
    let mut read = pin!(a.read(&mut buf));
    let first = poll_fn(|cx| Poll::Ready(read.as_mut().poll(cx))).await;
    assert!(first.is_pending());
    drop(b);
    let n = timeout(GENEROUS, read).await.expect("read hung").unwrap();
    assert_eq!(n, 0);
}

#[test]
fn connect_to_a_missing_path_fails() {
    watchdog("the failing unix connect", || {
        let rt = Builder::new_current_thread().enable_io().build().unwrap();
        rt.block_on(async {
            let path = SockPath::new();
            assert!(UnixStream::connect(&path.0).await.is_err());
        });
    })
}

/// As tokio's `try_read_write` (uds_stream): write readiness stays until a `WouldBlock`,
/// so after each successful `try_write` `writable()` is ready at once. Small writes, so
/// that filling the socket buffer takes more of them than a task's budget holds.
#[test]
fn writable_stays_ready_after_a_successful_try_write() {
    watchdog("the Unix pair", || {
        for rt in runtimes() {
            rt.block_on(async {
                const DATA: &[u8] = &[2u8; 16];
                let (client, _server) = UnixStream::pair().unwrap();
                timeout(GENEROUS, client.writable()).await.unwrap().unwrap();
                let mut blocked = false;
                for i in 0..10_000_000 {
                    let mut writable = pin!(client.writable());
                    assert!(
                        matches!(futures::poll!(writable.as_mut()), Poll::Ready(Ok(()))),
                        "writable() not ready after successful try_write number {i}"
                    );
                    match client.try_write(DATA) {
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            blocked = true;
                            break;
                        }
                        Err(e) => panic!("try_write: {e}"),
                    }
                }
                assert!(blocked, "the socket buffer never filled");
                let mut writable = pin!(client.writable());
                assert!(futures::poll!(writable.as_mut()).is_pending());
            });
        }
    })
}

/// As tokio's `uds_socket::datagram_echo_server`: two `UnixSocket::new_datagram` sockets
/// bound to files, converted with `datagram()`, echo through each other's paths.
#[runtime::test]
async fn unix_socket_datagram_echo() {
    let _watchdog = abort_after("the UnixSocket datagram echo");
    let (server_path, client_path) = (SockPath::new(), SockPath::new());
    let server = UnixSocket::new_datagram().unwrap();
    server.bind(&server_path.0).unwrap();
    let server = server.datagram().unwrap();
    assert_eq!(
        server.local_addr().unwrap().as_pathname(),
        Some(server_path.0.as_path())
    );
    let echo = runtime::spawn(async move {
        let mut buf = [0u8; 64];
        let (n, peer) = server.recv_from(&mut buf).await.unwrap();
        let peer = peer.as_pathname().unwrap().to_path_buf();
        server.send_to(&buf[..n], &peer).await.unwrap();
        peer
    });
    let client = UnixSocket::new_datagram().unwrap();
    client.bind(&client_path.0).unwrap();
    let client = client.datagram().unwrap();
    client.connect(&server_path.0).unwrap();
    client.send(b"ECHO").await.unwrap();
    let mut buf = [0u8; 16];
    let n = timeout(GENEROUS, client.recv(&mut buf))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&buf[..n], b"ECHO");
    assert_eq!(echo.await.unwrap(), client_path.0);
}

/// As tokio's `uds_socket::listen_and_stream`: a listener from `UnixSocket::listen` and a
/// client bound to its own path before `connect`; the server sees that path as the peer.
#[runtime::test]
async fn unix_socket_listen_and_connect() {
    let _watchdog = abort_after("the UnixSocket stream");
    let (sock_path, peer_path) = (SockPath::new(), SockPath::new());
    let listener = {
        let sock = UnixSocket::new_stream().unwrap();
        sock.bind(&sock_path.0).unwrap();
        sock.listen(1024).unwrap()
    };
    let connect = {
        let sock = UnixSocket::new_stream().unwrap();
        sock.bind(&peer_path.0).unwrap();
        sock.connect(&sock_path.0)
    };
    let ((mut server, _), mut client) = timeout(
        GENEROUS,
        futures::future::try_join(listener.accept(), connect),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(
        server.peer_addr().unwrap().as_pathname(),
        Some(peer_path.0.as_path())
    );
    client.write_all(b"hello").await.unwrap();
    drop(client);
    let mut got = Vec::new();
    server.read_to_end(&mut got).await.unwrap();
    assert_eq!(got, b"hello");
}

/// As tokio's `uds_socket::assert_usage`: the conversions refuse the wrong socket type
/// with tokio's error text.
#[runtime::test]
async fn unix_socket_refuses_the_wrong_conversion() {
    let err = UnixSocket::new_datagram()
        .unwrap()
        .connect("invalid.sock")
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "connect cannot be called on a datagram socket"
    );
    let err = UnixSocket::new_datagram()
        .unwrap()
        .listen(1024)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "listen cannot be called on a datagram socket"
    );
    let err = UnixSocket::new_stream().unwrap().datagram().unwrap_err();
    assert_eq!(
        err.to_string(),
        "datagram cannot be called on a stream socket"
    );
}

/// A `UnixSocket` bound to an abstract name (`"\0name"`), as `UnixListener::bind` takes.
#[cfg(target_os = "linux")]
#[runtime::test]
async fn unix_socket_binds_an_abstract_name() {
    let _watchdog = abort_after("the abstract UnixSocket");
    let name = format!("\0runtime-net-unix-socket-{}", std::process::id());
    let sock = UnixSocket::new_stream().unwrap();
    sock.bind(&name).unwrap();
    let listener = sock.listen(8).unwrap();
    let client = UnixSocket::new_stream()
        .unwrap()
        .connect(&name)
        .await
        .unwrap();
    let (server, _) = listener.accept().await.unwrap();
    assert!(server.local_addr().unwrap().as_pathname().is_none());
    drop(client);
}

/// `UnixListener::bind_addr` and `UnixStream::connect_addr` take a std `SocketAddr`: a
/// path and (on Linux) an abstract name.
#[runtime::test]
async fn bind_addr_and_connect_addr() {
    let _watchdog = abort_after("bind_addr / connect_addr");
    let path = SockPath::new();
    let addr = std::os::unix::net::SocketAddr::from_pathname(&path.0).unwrap();
    let listener = UnixListener::bind_addr(&addr).unwrap();
    assert_eq!(
        listener.local_addr().unwrap().as_pathname(),
        Some(path.0.as_path())
    );
    let mut client = UnixStream::connect_addr(&addr).await.unwrap();
    let (mut server, _) = listener.accept().await.unwrap();
    client.write_all(b"by addr").await.unwrap();
    drop(client);
    let mut got = Vec::new();
    server.read_to_end(&mut got).await.unwrap();
    assert_eq!(got, b"by addr");

    #[cfg(target_os = "linux")]
    {
        use std::os::linux::net::SocketAddrExt;
        let name = format!("runtime-net-unix-addr-{}", std::process::id());
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
        let listener = UnixListener::bind_addr(&addr).unwrap();
        let _client = UnixStream::connect_addr(&addr).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        assert_eq!(
            server.local_addr().unwrap().as_abstract_name(),
            Some(name.as_bytes())
        );
    }
}
