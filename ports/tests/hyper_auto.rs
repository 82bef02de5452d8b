//! `hyper_auto` (hyper 1.x through hyper-util's `TokioIo` and `auto::Builder` on our
//! runtime, with our executor and timer): keep-alive HTTP/1.1 requests on one
//! connection, and an HTTP/2 prior-knowledge request (the auto builder's other branch),
//! each answered in full.

mod common;

use std::io::{BufRead, BufReader, Read, Write};

use common::Server;

/// Reads one HTTP/1.1 response with a `content-length`; returns (status line, body).
fn read_response(r: &mut impl BufRead) -> (String, String) {
    let mut status = String::new();
    r.read_line(&mut status).unwrap();
    let mut len = None;
    loop {
        let mut h = String::new();
        r.read_line(&mut h).unwrap();
        if h == "\r\n" {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = Some(v.trim().parse::<usize>().unwrap());
            }
        }
    }
    let mut body = vec![0; len.expect("content-length")];
    r.read_exact(&mut body).unwrap();
    (status, String::from_utf8(body).unwrap())
}

#[test]
fn http1_keep_alive_requests() {
    let server = Server::start(env!("CARGO_BIN_EXE_hyper_auto"), &["127.0.0.1:0"]);
    let c = server.connect();
    let mut w = c.try_clone().unwrap();
    let mut r = BufReader::new(c);
    for path in ["/one", "/two", "/three"] {
        write!(w, "GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
        let (status, body) = read_response(&mut r);
        assert!(status.starts_with("HTTP/1.1 200"), "status {status:?}");
        assert_eq!(body, format!("Hello, World! (HTTP/1.1 {path})\n"));
    }
}

#[test]
fn http2_prior_knowledge_is_served() {
    // The auto builder reads the HTTP/2 preface and switches to h2; the server's first
    // frame must then be a SETTINGS frame (type 0x4) on stream 0.
    let server = Server::start(env!("CARGO_BIN_EXE_hyper_auto"), &["127.0.0.1:0"]);
    let mut c = server.connect();
    c.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").unwrap();
    // Our (empty) SETTINGS frame.
    c.write_all(&[0, 0, 0, 0x4, 0, 0, 0, 0, 0]).unwrap();
    let mut head = [0; 9];
    c.read_exact(&mut head).unwrap();
    assert_eq!(head[3], 0x4, "first frame is SETTINGS: {head:?}");
    assert_eq!(&head[5..9], &[0, 0, 0, 0], "on stream 0");
}
