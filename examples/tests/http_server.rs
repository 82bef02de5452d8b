//! The hyper-like server (`examples::http`) against a raw HTTP/1.1 client over real sockets:
//! keep-alive, pipelining, bodies in both framings, and the limits (400, 413, 431, 500, the
//! header timeout).
#![cfg(not(loom))]

mod http_common;

use std::time::Duration;

use examples::http::Server;
use http::StatusCode;
use http_common::{runtime, start, Client};

#[test]
fn keep_alive_serves_two_requests_on_one_connection() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    let mut c = Client::connect(addr);
    for path in ["/first", "/second"] {
        let r = c.get(path);
        assert_eq!(r.status, StatusCode::OK);
        assert_eq!(r.body_str(), "Hello, World!");
        assert_eq!(r.header("x-path"), Some(path));
        assert_eq!(r.header("content-length"), Some("13"));
        assert!(r.header("date").is_some_and(|d| d.ends_with("GMT")));
        assert_eq!(r.header("connection"), None);
    }
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    let mut c = Client::connect(addr);
    // One write carrying three requests; the middle one's handler is not ready at once.
    c.send(b"GET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /c HTTP/1.1\r\nHost: t\r\n\r\n");
    let paths: Vec<String> = (0..3)
        .map(|_| c.response().header("x-path").unwrap().to_string())
        .collect();
    assert_eq!(paths, ["/a", "/slow", "/c"]);
    // The connection is still usable afterwards.
    assert_eq!(c.get("/d").header("x-path"), Some("/d"));
}

#[test]
fn chunked_request_body_is_echoed() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    let mut c = Client::connect(addr);
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n");
    c.send(b"5\r\nHello\r\n");
    c.send(b"2;ext=x\r\n, \r\n6\r\nWor");
    c.send(b"ld!\r\n0\r\nX-Trailer: yes\r\n\r\n");
    let r = c.response();
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body_str(), "Hello, World!");
    // The trailer was consumed: the next request parses cleanly.
    assert_eq!(c.get("/after").header("x-path"), Some("/after"));
}

#[test]
fn content_length_bodies_small_and_larger_than_the_buffer() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    let mut c = Client::connect(addr);
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello");
    assert_eq!(c.response().body_str(), "hello");

    let big: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    c.send(
        format!(
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
            big.len()
        )
        .as_bytes(),
    );
    c.send(&big);
    let r = c.response();
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body == big, "300 KB body echoed intact");
}

#[test]
fn expect_continue_gets_an_interim_response() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    let mut c = Client::connect(addr);
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
    assert_eq!(c.response().status, StatusCode::CONTINUE);
    c.send(b"body");
    assert_eq!(c.response().body_str(), "body");
}

#[test]
fn streamed_response_is_chunked() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    let mut c = Client::connect(addr);
    let r = c.get("/stream");
    assert_eq!(r.header("transfer-encoding"), Some("chunked"));
    assert_eq!(r.body_str(), "one,two,three");
    assert_eq!(c.get("/").status, StatusCode::OK);
}

#[test]
fn http10_closes_unless_keep_alive_is_asked_for() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    let mut c = Client::connect(addr);
    c.send(b"GET /ka HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    let r = c.response();
    assert_eq!(r.header("connection"), Some("keep-alive"));
    c.send(b"GET /stream HTTP/1.0\r\n\r\n");
    let r = c.response(); // no length, no chunking: the body ends at EOF
    assert_eq!(r.header("connection"), Some("close"));
    assert_eq!(r.body_str(), "one,two,three");
}

#[test]
fn connection_close_is_honoured() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    let mut c = Client::connect(addr);
    c.send(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    let r = c.response();
    assert_eq!(r.header("connection"), Some("close"));
    assert!(c.closed());
}

#[test]
fn garbage_gets_400_and_the_connection_closes() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    let mut c = Client::connect(addr);
    c.send(b"THIS IS NOT HTTP\r\n\r\n");
    let r = c.response();
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.header("connection"), Some("close"));
    assert!(c.closed());

    // Conflicting framing is refused the same way.
    let mut c = Client::connect(addr);
    c.send(
        b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    assert_eq!(c.response().status, StatusCode::BAD_REQUEST);
    assert!(c.closed());
}

#[test]
fn headers_over_8_kib_get_431_and_the_connection_closes() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    // Just under the limit is fine...
    let mut c = Client::connect(addr);
    let value = "v".repeat(7 * 1024);
    c.send(format!("GET /head-size HTTP/1.1\r\nHost: t\r\nX-Big: {value}\r\n\r\n").as_bytes());
    let r = c.response();
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body_str(), (value.len() + 1).to_string());
    // ...over it is not, whether or not the head ever ends.
    let value = "v".repeat(9 * 1024);
    c.send(format!("GET / HTTP/1.1\r\nHost: t\r\nX-Big: {value}\r\n\r\n").as_bytes());
    let r = c.response();
    assert_eq!(r.status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    assert!(c.closed());
}

#[test]
fn body_over_the_limit_gets_413() {
    let rt = runtime();
    let addr = start(&rt, Server::new().max_body_size(1000));
    let mut c = Client::connect(addr);
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1001\r\n\r\n");
    assert_eq!(c.response().status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(c.closed());

    let mut c = Client::connect(addr);
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3E9\r\n");
    assert_eq!(c.response().status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(c.closed());
}

#[test]
fn panicking_handler_gets_500_and_the_connection_goes_on() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    let mut c = Client::connect(addr);
    let r = c.get("/panic");
    assert_eq!(r.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(r.header("connection"), None, "the 500 does not close");
    let r = c.get("/next");
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header("x-path"), Some("/next"));
    // A handler error is a 500 for that request too.
    assert_eq!(c.get("/error").status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(c.get("/last").status, StatusCode::OK);
}

#[test]
fn header_timeout_drops_a_stalled_client() {
    let rt = runtime();
    let addr = start(
        &rt,
        Server::new().header_read_timeout(Duration::from_millis(200)),
    );
    // A complete request first: the timeout does not hurt a prompt client.
    let mut c = Client::connect(addr);
    assert_eq!(c.get("/").status, StatusCode::OK);
    // Then half a head, and silence: the server hangs up (well within the read bound).
    c.send(b"GET / HTTP/1.1\r\nHost: t\r\n");
    assert!(c.closed(), "the stalled connection was closed");

    // A client trickling bytes is dropped too: the deadline is for the whole head. Its
    // writes start failing once the server has hung up (or the read sees the close).
    let mut c = Client::connect(addr);
    c.send(b"GET / HTTP/1.1\r\nX-Slow: ");
    let mut dropped = false;
    for _ in 0..200 {
        if c.try_send(b"x").is_err() {
            dropped = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(dropped || c.closed(), "the trickling client was dropped");
}

#[test]
fn unknown_transfer_coding_before_chunked_gets_501() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    // RFC 9112 section 6.1: a coding the server does not implement is 501, even with the
    // final `chunked` that frames the body; in one header line or spread over several.
    for te in [
        "Transfer-Encoding: gzip, chunked\r\n",
        "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding: x-custom ,chunked\r\n",
    ] {
        let mut c = Client::connect(addr);
        c.send(
            format!("POST /echo HTTP/1.1\r\nHost: t\r\n{te}\r\n5\r\nHello\r\n0\r\n\r\n").as_bytes(),
        );
        let r = c.response();
        assert_eq!(r.status, StatusCode::NOT_IMPLEMENTED, "{te:?}");
        assert_eq!(r.header("connection"), Some("close"), "{te:?}");
        assert!(c.closed(), "{te:?}");
    }
    // `chunked` applied twice, or not last, is a framing error: 400.
    for te in ["chunked, chunked", "chunked, gzip", "gzip"] {
        let mut c = Client::connect(addr);
        c.send(
            format!("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: {te}\r\n\r\n").as_bytes(),
        );
        assert_eq!(c.response().status, StatusCode::BAD_REQUEST, "{te:?}");
        assert!(c.closed(), "{te:?}");
    }
    // Empty list elements are ignored (RFC 9110 section 5.6.1).
    let mut c = Client::connect(addr);
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: , chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n");
    assert_eq!(c.response().body_str(), "ok");
}
