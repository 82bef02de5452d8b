//! hyper's client on our runtime talks to the `hyper_server` example (hyper's server on our
//! runtime), both through `runtime::hyper_compat`: keep-alive requests on one connection,
//! then a clean shutdown when the client lets go.
#![cfg(not(loom))]

#[path = "../examples/hyper_server.rs"]
mod hyper_server;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::client::conn::http1;
use hyper::{header, Request, StatusCode};
use runtime::hyper_compat::{HyperExecutor, HyperIo};
use runtime::net::{TcpListener, TcpStream};

fn rt() -> runtime::Runtime {
    runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

async fn client_round_trips(with_timer: bool) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(runtime::spawn(hyper_server::serve(listener, with_timer)));

    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) = http1::handshake(HyperIo::new(stream)).await.unwrap();
    let conn = runtime::spawn(conn);
    for i in 0..3 {
        let req = Request::builder()
            .uri(format!("/req/{i}"))
            .header(header::HOST, "localhost")
            .body(Empty::<Bytes>::new())
            .unwrap();
        // The previous exchange may still be winding down on the connection task.
        sender.ready().await.unwrap();
        let resp = sender.send_request(req).await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        let body = resp.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(body, "Hello, World!");
    }
    drop(sender);
    conn.await
        .expect("connection task")
        .expect("connection closed cleanly");
}

#[test]
fn hyper_client_talks_to_hyper_server_on_our_runtime() {
    rt().block_on(client_round_trips(false));
}

#[test]
fn hyper_server_with_our_timer() {
    rt().block_on(client_round_trips(true));
}

#[test]
fn executor_runs_hyper_background_futures() {
    use hyper::rt::Executor as _;
    rt().block_on(async {
        let (tx, rx) = futures::channel::oneshot::channel();
        HyperExecutor.execute(async move { tx.send(7).unwrap() });
        let got = runtime::time::timeout(std::time::Duration::from_secs(20), rx).await;
        assert_eq!(got.expect("the spawned future ran").unwrap(), 7);
    });
}
