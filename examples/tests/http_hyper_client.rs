//! Our hyper-like server checked by an independent HTTP/1.1 implementation: hyper's client
//! (on our runtime) sends plain, length-delimited and chunked requests and reads plain and
//! chunked responses over one keep-alive connection.
#![cfg(not(loom))]

mod http_common;

use std::convert::Infallible;

use bytes::Bytes;
use examples::http::Server;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Body as _, Frame};
use hyper::client::conn::http1;
use hyper::{header, Method, Request, StatusCode};
use runtime::hyper_compat::HyperIo;
use runtime::net::TcpStream;

async fn send<B>(sender: &mut http1::SendRequest<B>, req: Request<B>) -> (StatusCode, Bytes, bool)
where
    B: hyper::body::Body + 'static,
{
    sender.ready().await.unwrap();
    let resp = sender.send_request(req).await.unwrap();
    let status = resp.status();
    let chunked = resp.headers().get(header::TRANSFER_ENCODING).is_some();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    (status, body, chunked)
}

#[test]
fn hyper_client_against_our_server() {
    let rt = http_common::runtime();
    let addr = http_common::start(&rt, Server::new());
    rt.block_on(async {
        let stream = TcpStream::connect(addr).await.unwrap();
        let (mut sender, conn) = http1::handshake(HyperIo::new(stream)).await.unwrap();
        let conn = runtime::spawn(conn);
        type B = http_body_util::combinators::BoxBody<Bytes, Infallible>;
        let req = |method: Method, path: &str, body: B| {
            Request::builder()
                .method(method)
                .uri(path)
                .header(header::HOST, "localhost")
                .body(body)
                .unwrap()
        };

        let (status, body, _) =
            send(&mut sender, req(Method::GET, "/", Full::default().boxed())).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, "Hello, World!");

        let full = Full::new(Bytes::from_static(b"length-delimited body")).boxed();
        let (_, body, _) = send(&mut sender, req(Method::POST, "/echo", full)).await;
        assert_eq!(body, "length-delimited body");

        // A body of unknown length: hyper sends it chunked.
        let chunks = ["chunked ", "request ", "body"]
            .map(|s| Ok::<_, Infallible>(Frame::data(Bytes::from(s))));
        let streamed = StreamBody::new(futures::stream::iter(chunks));
        assert!(streamed.size_hint().exact().is_none());
        let (_, body, _) = send(&mut sender, req(Method::POST, "/echo", streamed.boxed())).await;
        assert_eq!(body, "chunked request body");

        let (_, body, chunked) = send(
            &mut sender,
            req(Method::GET, "/stream", Full::default().boxed()),
        )
        .await;
        assert!(chunked);
        assert_eq!(body, "one,two,three");

        let (status, _, _) = send(
            &mut sender,
            req(Method::GET, "/panic", Full::default().boxed()),
        )
        .await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        let (status, _, _) =
            send(&mut sender, req(Method::HEAD, "/", Full::default().boxed())).await;
        assert_eq!(status, StatusCode::OK);
        let (status, body, _) =
            send(&mut sender, req(Method::GET, "/", Full::default().boxed())).await;
        assert_eq!((status, &body[..]), (StatusCode::OK, &b"Hello, World!"[..]));

        drop(sender);
        conn.await.unwrap().unwrap();
    });
}
