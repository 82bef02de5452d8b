//! `hyper_auto` (hyper 1.x through hyper-util's `TokioIo` and `auto::Builder` on our
//! runtime, with our executor and timer): keep-alive HTTP/1.1 requests on one
//! connection, and HTTP/2 (the auto builder's other branch): the server's first frame
//! after the preface, and a full request through hyper's own h2 client, itself running
//! on our runtime through `TokioIo`.

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

#[test]
fn http2_request_from_hyper_client_on_our_runtime() {
    use bytes::Bytes;
    use http_body_util::{BodyExt, Empty};
    use hyper_util::rt::TokioIo;
    use runtime::hyper_compat::{HyperExecutor, HyperTimer};

    let server = Server::start(env!("CARGO_BIN_EXE_hyper_auto"), &["127.0.0.1:0"]);
    let addr = server.addr;
    let rt = runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let exchange = async move {
            let stream = runtime::net::TcpStream::connect(addr).await.unwrap();
            let (mut sender, conn) = hyper::client::conn::http2::Builder::new(HyperExecutor)
                .timer(HyperTimer)
                .handshake(TokioIo::new(stream))
                .await
                .unwrap();
            runtime::spawn(async move {
                let _ = conn.await;
            });
            for path in ["/h2", "/again"] {
                let req = hyper::Request::builder()
                    .uri(format!("http://{addr}{path}"))
                    .body(Empty::<Bytes>::new())
                    .unwrap();
                let res = sender.send_request(req).await.unwrap();
                assert_eq!(res.status(), 200);
                assert_eq!(res.version(), hyper::Version::HTTP_2);
                let body = res.into_body().collect().await.unwrap().to_bytes();
                assert_eq!(body, format!("Hello, World! (HTTP/2.0 {path})\n"));
            }
        };
        runtime::time::timeout(common::TIMEOUT, exchange)
            .await
            .expect("the h2 exchange timed out");
    });
}
