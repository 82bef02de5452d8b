//! The connection loop over the in-memory duplex stream, where the test can count the
//! server's writes: a batch of pipelined requests is answered with ONE write, and a handler
//! that has to wait lets the responses before it go out first.
#![cfg(not(loom))]

mod http_common;

use examples::http::duplex::{duplex, DuplexStream};
use examples::http::Server;
use futures::io::{AsyncReadExt, AsyncWriteExt};
use http_common::{runtime, test_service};

/// Sends `requests` in one write, serves the connection, reads `n` responses; returns the
/// `x-path` of each, in order, and how many writes the server made.
async fn exchange(requests: &[u8], n: usize) -> (Vec<String>, usize) {
    let (mut client, server_io): (DuplexStream, DuplexStream) = duplex(1 << 20);
    client.write_all(requests).await.unwrap();
    let server = runtime::spawn(async move {
        let svc = test_service();
        Server::new().serve_connection(server_io, &svc).await
    });

    let mut buf = Vec::new();
    let mut paths = Vec::new();
    let mut chunk = [0u8; 4096];
    while paths.len() < n {
        let got = client.read(&mut chunk).await.unwrap();
        assert!(got > 0, "server closed early");
        buf.extend_from_slice(&chunk[..got]);
        // Take every complete response off the front.
        loop {
            let mut headers = [httparse::EMPTY_HEADER; 16];
            let mut resp = httparse::Response::new(&mut headers);
            let Ok(httparse::Status::Complete(head)) = resp.parse(&buf) else {
                break;
            };
            let header = |name: &str| {
                resp.headers
                    .iter()
                    .find(|h| h.name.eq_ignore_ascii_case(name))
                    .map(|h| std::str::from_utf8(h.value).unwrap().to_string())
            };
            let len: usize = header("content-length").unwrap().parse().unwrap();
            if buf.len() < head + len {
                break;
            }
            paths.push(header("x-path").unwrap());
            buf.drain(..head + len);
        }
    }
    let writes = client.peer_writes();
    client.close().await.unwrap();
    server.await.unwrap().unwrap();
    (paths, writes)
}

#[test]
fn three_pipelined_requests_one_write() {
    let rt = runtime();
    let (paths, writes) = rt.block_on(exchange(
        b"GET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n\r\nGET /c HTTP/1.1\r\nHost: t\r\n\r\n",
        3,
    ));
    assert_eq!(paths, ["/a", "/b", "/c"]);
    assert_eq!(writes, 1, "all three responses in one write");
}

#[test]
fn a_waiting_handler_lets_earlier_responses_go_first() {
    let rt = runtime();
    let (paths, writes) = rt.block_on(exchange(
        b"GET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /c HTTP/1.1\r\nHost: t\r\n\r\n",
        3,
    ));
    assert_eq!(paths, ["/a", "/slow", "/c"]);
    assert_eq!(
        writes, 2,
        "/a before waiting on /slow, then /slow and /c together"
    );
}

#[test]
fn hundred_pipelined_requests_in_order() {
    let rt = runtime();
    let requests: String = (0..100)
        .map(|i| format!("GET /r{i} HTTP/1.1\r\nHost: t\r\n\r\n"))
        .collect();
    let (paths, writes) = rt.block_on(exchange(requests.as_bytes(), 100));
    let want: Vec<String> = (0..100).map(|i| format!("/r{i}")).collect();
    assert_eq!(paths, want);
    assert_eq!(writes, 1);
}
