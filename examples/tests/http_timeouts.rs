//! The server's timeouts once a request head is complete: a body that stops arriving gets
//! 408 (`body_read_timeout`), a client that stops reading its responses is dropped
//! (`write_timeout`). Both count from the last byte that moved, so a slow client that keeps
//! moving is served. Waits are bounded by watchdogs that fail the test instead of hanging.
#![cfg(not(loom))]

mod http_common;

use std::sync::mpsc;
use std::time::Duration;

use bytes::Bytes;
use examples::http::duplex::duplex;
use examples::http::{service_fn, Body, Server};
use futures::io::{AsyncReadExt, AsyncWriteExt};
use http::{Request, Response, StatusCode};
use http_common::{runtime, start, start_with, Client};

/// A generous bound on how long a timed-out connection may take to be dropped.
const WATCHDOG: Duration = Duration::from_secs(10);

#[test]
fn body_read_timeout_is_progress_based() {
    let rt = runtime();
    let addr = start(&rt, Server::new().body_read_timeout(Duration::from_secs(2)));
    let mut c = Client::connect(addr);
    // A body trickling in a byte every 250 ms, 3 s in all: longer than the timeout, but it
    // never stops moving, so it is served.
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 12\r\n\r\n");
    for &b in b"hello, world" {
        std::thread::sleep(Duration::from_millis(250));
        c.send(&[b]);
    }
    let r = c.response();
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body_str(), "hello, world");

    // The next body stops after three bytes: 408, and the connection closes.
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 12\r\n\r\nhel");
    let r = c.response();
    assert_eq!(r.status, StatusCode::REQUEST_TIMEOUT);
    assert_eq!(r.header("connection"), Some("close"));
    assert!(c.closed(), "the stalled connection was closed");
}

#[test]
fn body_read_timeout_covers_chunked_bodies() {
    let rt = runtime();
    let addr = start(
        &rt,
        Server::new().body_read_timeout(Duration::from_millis(200)),
    );
    // Stalled inside a chunk's data, and inside a chunk-size line.
    for stall in ["5\r\nhel", "5"] {
        let mut c = Client::connect(addr);
        c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n");
        c.send(stall.as_bytes());
        let r = c.response();
        assert_eq!(
            r.status,
            StatusCode::REQUEST_TIMEOUT,
            "stalled at {stall:?}"
        );
        assert!(
            c.closed(),
            "stalled at {stall:?}: the connection was closed"
        );
    }
}

/// Sends `()` on the channel when dropped.
struct DropSignal(mpsc::Sender<()>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

static CHUNK: [u8; 64 * 1024] = [b'x'; 64 * 1024];

#[test]
fn write_timeout_drops_a_client_that_never_reads() {
    let rt = runtime();
    let (dropped_tx, dropped_rx) = mpsc::channel();
    // An endless streamed response whose stream says when the server lets go of it.
    let svc = service_fn(move |_req: Request<Body>| {
        let guard = DropSignal(dropped_tx.clone());
        async move {
            let chunks = futures::stream::repeat_with(move || {
                let _keep = &guard;
                Ok::<_, std::convert::Infallible>(Bytes::from_static(&CHUNK))
            });
            Ok::<_, std::convert::Infallible>(Response::new(Body::from_stream(chunks)))
        }
    });
    let addr = start_with(
        &rt,
        Server::new().write_timeout(Duration::from_millis(200)),
        svc,
    );
    let mut c = Client::connect(addr);
    c.send(b"GET /forever HTTP/1.1\r\nHost: t\r\n\r\n");
    // The client reads nothing: once the socket buffers are full the server's writes make
    // no progress, and it must give the connection (and so the stream) up.
    dropped_rx
        .recv_timeout(WATCHDOG)
        .expect("the server still holds a connection whose client reads nothing");
    drop(c);
}

#[test]
fn write_timeout_is_progress_based() {
    let rt = runtime();
    let big = Bytes::from(vec![b'y'; 64 * 1024]);
    let svc = service_fn(move |_req: Request<Body>| {
        let big = big.clone();
        async move { Ok::<_, std::convert::Infallible>(Response::new(Body::from(big))) }
    });
    rt.block_on(async move {
        // A 4 KiB pipe: a 64 KiB response needs sixteen reads by the client.
        let (mut client, server_io) = duplex(4096);
        let server = runtime::spawn(async move {
            Server::new()
                .write_timeout(Duration::from_secs(1))
                .serve_connection(server_io, &svc)
                .await
        });

        // A reader taking 4 KiB every 100 ms (1.6 s in all, longer than the timeout) keeps
        // the response moving: it arrives whole.
        client
            .write_all(b"GET /a HTTP/1.1\r\nHost: t\r\n\r\n")
            .await
            .unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        let want = loop {
            runtime::time::sleep(Duration::from_millis(100)).await;
            let n = runtime::time::timeout(WATCHDOG, client.read(&mut buf))
                .await
                .expect("the response stopped coming")
                .unwrap();
            assert!(n > 0, "the server closed a connection that kept reading");
            got.extend_from_slice(&buf[..n]);
            if let Some(head) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                if got.len() >= head + 4 + 64 * 1024 {
                    break head + 4 + 64 * 1024;
                }
            }
        };
        assert!(got.starts_with(b"HTTP/1.1 200 OK\r\n"));
        assert_eq!(got.len(), want, "nothing after the response");

        // The next response is never read: the server gives up on the connection.
        client
            .write_all(b"GET /b HTTP/1.1\r\nHost: t\r\n\r\n")
            .await
            .unwrap();
        let ended = runtime::time::timeout(WATCHDOG, server)
            .await
            .expect("the server still holds a connection whose client reads nothing")
            .unwrap();
        let err = ended.expect_err("a write timeout is an error of the connection");
        assert_eq!(err.kind(), std::io::ErrorKind::TimedOut);
        drop(client);
    });
}
