//! A hyper HTTP/1 server (`hyper_util::rt::{TokioIo, TokioTimer}`, one task per connection)
//! called through hyper-util's pooled legacy client (`TokioExecutor`), first in sequence to
//! show keep-alive reuse, then through tower's `Buffer` and `ConcurrencyLimit` wrapped around
//! that client.

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use compat_tests::{assert_on_runtime, bounded, note_thread};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Barrier;
use tower::{BoxError, Service, ServiceBuilder, ServiceExt};

#[derive(Default)]
struct Counters {
    connections: AtomicUsize,
    /// The most requests that one connection has carried.
    most_on_one_connection: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

/// Answers `/echo?...` with the request's body upper-cased, and `/pair` once a second
/// `/pair` request is in the handler too.
async fn handle(
    req: Request<Incoming>,
    counters: Arc<Counters>,
    pair: Arc<Barrier>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    note_thread();
    let now = counters.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    counters.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let path = req.uri().path().to_string();
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let reply = match path.as_str() {
        "/pair" => {
            pair.wait().await;
            Bytes::from("paired")
        }
        _ => Bytes::from(String::from_utf8_lossy(&body).to_uppercase()),
    };
    counters.in_flight.fetch_sub(1, Ordering::SeqCst);
    Ok(Response::new(Full::new(reply)))
}

async fn serve(listener: TcpListener, counters: Arc<Counters>) {
    let pair = Arc::new(Barrier::new(2));
    loop {
        let (stream, _) = listener.accept().await.unwrap();
        counters.connections.fetch_add(1, Ordering::SeqCst);
        let counters = counters.clone();
        let pair = pair.clone();
        tokio::spawn(async move {
            let on_this = Arc::new(AtomicUsize::new(0));
            let service = service_fn(move |req| {
                let n = on_this.fetch_add(1, Ordering::SeqCst) + 1;
                counters
                    .most_on_one_connection
                    .fetch_max(n, Ordering::SeqCst);
                handle(req, counters.clone(), pair.clone())
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_client_pool_and_tower_layers() {
    bounded("hyper-util + tower", async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let counters = Arc::new(Counters::default());
        let server = tokio::spawn(serve(listener, counters.clone()));

        let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .pool_timer(TokioTimer::new())
            .build_http();

        for i in 0..10 {
            let req = Request::post(format!("{base}/echo"))
                .body(Full::new(Bytes::from(format!("request {i}"))))
                .unwrap();
            let resp = client.request(req).await.unwrap();
            assert_eq!(resp.status(), hyper::StatusCode::OK);
            let body = resp.into_body().collect().await.unwrap().to_bytes();
            assert_eq!(body, format!("REQUEST {i}"));
        }
        // The pool hands a request an idle connection or a new one, whichever is ready first
        // (a connection becomes idle once its task has seen the previous body end), so the
        // count of connections is not fixed; reuse shows as one connection carrying several.
        assert!(
            counters.most_on_one_connection.load(Ordering::SeqCst) >= 2,
            "the pool never reused a keep-alive connection ({} connections for 10 requests)",
            counters.connections.load(Ordering::SeqCst)
        );

        // The client as a tower service, behind a buffer and a limit of two in flight. The
        // `/pair` handler waits until two requests are inside it at once, so this finishes only
        // if the limit lets two through, and `max_in_flight` shows it let no more through.
        let inner = tower::service_fn({
            let client = client.clone();
            move |req: Request<Full<Bytes>>| {
                let client = client.clone();
                async move {
                    let resp = client.request(req).await?;
                    let body = resp.into_body().collect().await?.to_bytes();
                    Ok::<Bytes, BoxError>(body)
                }
            }
        });
        let service = ServiceBuilder::new()
            .buffer(16)
            .concurrency_limit(2)
            .service(inner);
        let calls: Vec<_> = (0..10)
            .map(|_| {
                let mut service = service.clone();
                let url = format!("{base}/pair");
                tokio::spawn(async move {
                    note_thread();
                    let req = Request::get(url).body(Full::new(Bytes::new())).unwrap();
                    service.ready().await?.call(req).await
                })
            })
            .collect();
        for call in calls {
            assert_eq!(call.await.unwrap().unwrap(), "paired");
        }
        assert_eq!(counters.max_in_flight.load(Ordering::SeqCst), 2);
        assert_eq!(counters.in_flight.load(Ordering::SeqCst), 0);

        server.abort();
        assert!(server.await.unwrap_err().is_cancelled());
        assert_on_runtime().await;
    })
    .await;
}
