//! Shared by the `http_*` tests: a runtime, the test service, and a raw blocking client that
//! speaks HTTP/1.1 by hand over `std::net::TcpStream` (so the server is tested against bytes,
//! not against another implementation of the same parser).
#![allow(dead_code)]

use std::convert::Infallible;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use bytes::Bytes;
use examples::http::{service_fn, Body, Server, Service};
use http::{Request, Response, StatusCode};

/// How long the raw client waits for any one read before failing the test (a generous
/// bound against hangs, not a timing assertion).
pub const READ_BOUND: Duration = Duration::from_secs(20);

pub fn runtime() -> runtime::Runtime {
    runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// Starts `server` with the test service on a fresh port; the server lives as long as `rt`.
pub fn start(rt: &runtime::Runtime, server: Server) -> SocketAddr {
    start_with(rt, server, test_service())
}

/// Starts `server` with `service` on a fresh port; the server lives as long as `rt`.
pub fn start_with<S: Service>(rt: &runtime::Runtime, server: Server, service: S) -> SocketAddr {
    let listener = rt
        .block_on(runtime::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let addr = listener.local_addr().expect("local_addr");
    drop(rt.spawn(async move { server.serve(listener, service).await }));
    addr
}

/// Routes: `/echo` echoes the body; `/panic` panics; `/error` returns an error; `/slow`
/// answers after a short sleep; `/stream` streams three chunks; `/head-size` reports the
/// total size of the request's header values; anything else says hello. Every response
/// carries `x-path` with the request's path, so tests can check the order.
pub fn test_service() -> impl Service {
    service_fn(|req: Request<Body>| async move {
        let path = req.uri().path().to_string();
        let mut resp = match path.as_str() {
            "/echo" => {
                let body = req.into_body().collect().await.expect("request body");
                Response::new(Body::from(body))
            }
            "/panic" => panic!("handler panicked on purpose (test)"),
            "/error" => return Err(io::Error::other("handler failed on purpose (test)")),
            "/slow" => {
                runtime::time::sleep(Duration::from_millis(20)).await;
                Response::new(Body::from("slow"))
            }
            "/stream" => {
                let chunks = ["one,", "two,", "three"].map(|s| Ok::<_, Infallible>(Bytes::from(s)));
                Response::new(Body::from_stream(futures::stream::iter(chunks)))
            }
            "/head-size" => {
                let n: usize = req.headers().values().map(|v| v.len()).sum();
                Response::new(Body::from(n.to_string()))
            }
            _ => Response::new(Body::from("Hello, World!")),
        };
        resp.headers_mut()
            .insert("x-path", path.parse().expect("header value"));
        Ok::<_, io::Error>(resp)
    })
}

/// A parsed response as the raw client saw it.
#[derive(Debug)]
pub struct RawResponse {
    pub status: StatusCode,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn body_str(&self) -> &str {
        std::str::from_utf8(&self.body).expect("utf-8 body")
    }
}

/// A blocking HTTP/1.1 client that writes raw bytes and parses responses by hand.
///
/// One descriptor per client: writes go straight to the socket under the read buffer.
pub struct Client {
    reader: BufReader<TcpStream>,
}

impl Client {
    pub fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_read_timeout(Some(READ_BOUND)).unwrap();
        stream.set_nodelay(true).unwrap();
        Client {
            reader: BufReader::new(stream),
        }
    }

    pub fn send(&mut self, bytes: &[u8]) {
        self.reader.get_mut().write_all(bytes).expect("send");
    }

    pub fn try_send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.reader.get_mut().write_all(bytes)
    }

    pub fn get(&mut self, path: &str) -> RawResponse {
        self.send(format!("GET {path} HTTP/1.1\r\nHost: test\r\n\r\n").as_bytes());
        self.response()
    }

    fn line(&mut self) -> String {
        let mut line = String::new();
        let n = self.reader.read_line(&mut line).expect("read line");
        assert!(n > 0, "connection closed while a response was expected");
        assert!(line.ends_with("\r\n"), "line not ended by CRLF: {line:?}");
        line.truncate(line.len() - 2);
        line
    }

    /// Reads one response (content-length, chunked, or -- without either -- to EOF).
    pub fn response(&mut self) -> RawResponse {
        let status_line = self.line();
        let mut parts = status_line.splitn(3, ' ');
        assert_eq!(
            parts.next(),
            Some("HTTP/1.1"),
            "status line {status_line:?}"
        );
        let status: u16 = parts.next().unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            let line = self.line();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').expect("header line");
            headers.push((name.to_string(), value.trim().to_string()));
        }
        let mut resp = RawResponse {
            status: StatusCode::from_u16(status).unwrap(),
            headers,
            body: Vec::new(),
        };
        if resp.status.is_informational() {
            return resp;
        }
        if let Some(len) = resp.header("content-length") {
            let mut body = vec![0; len.parse().unwrap()];
            self.reader.read_exact(&mut body).expect("body");
            resp.body = body;
        } else if resp.header("transfer-encoding") == Some("chunked") {
            loop {
                let size = usize::from_str_radix(&self.line(), 16).expect("chunk size");
                let mut chunk = vec![0; size + 2];
                self.reader.read_exact(&mut chunk).expect("chunk");
                assert_eq!(&chunk[size..], b"\r\n");
                if size == 0 {
                    break;
                }
                resp.body.extend_from_slice(&chunk[..size]);
            }
        } else {
            self.reader
                .read_to_end(&mut resp.body)
                .expect("body to EOF");
        }
        resp
    }

    /// Whether the server closed the connection: the next read sees EOF (or a reset).
    /// Fails the test if the server neither sends nor closes within `READ_BOUND`.
    pub fn closed(&mut self) -> bool {
        let mut byte = [0u8; 1];
        match self.reader.read(&mut byte) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => true,
            Err(e) => panic!("neither data nor close within {READ_BOUND:?}: {e}"),
        }
    }
}
