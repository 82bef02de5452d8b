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
use runtime::net::{UnixListener, UnixStream};
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
