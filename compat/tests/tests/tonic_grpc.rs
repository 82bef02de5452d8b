//! A tonic gRPC service with one unary method and one server-streaming method, served by
//! `tonic::transport::Server` on a local listener and called through a `Channel`.
//!
//! The messages and the service glue are written by hand the way tonic-build would emit them
//! from this definition, so no protoc is needed:
//!
//! ```proto
//! package compat;
//! message HelloRequest { string name = 1; }
//! message HelloReply { string message = 1; uint32 served = 2; }
//! message CountRequest { uint32 from = 1; }
//! message Tick { uint32 value = 1; }
//! service Greeter {
//!   rpc SayHello(HelloRequest) returns (HelloReply);
//!   rpc Countdown(CountRequest) returns (stream Tick);
//! }
//! ```

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use compat_tests::{assert_on_runtime, bounded, note_thread};
use futures::{Stream, StreamExt};
use tokio::net::TcpListener;
use tokio_stream::wrappers::{ReceiverStream, TcpListenerStream};
use tonic::{Request, Response, Status};

#[derive(Clone, PartialEq, prost::Message)]
pub struct HelloRequest {
    #[prost(string, tag = "1")]
    pub name: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct HelloReply {
    #[prost(string, tag = "1")]
    pub message: String,
    #[prost(uint32, tag = "2")]
    pub served: u32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct CountRequest {
    #[prost(uint32, tag = "1")]
    pub from: u32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Tick {
    #[prost(uint32, tag = "1")]
    pub value: u32,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;
type TickStream = Pin<Box<dyn Stream<Item = Result<Tick, Status>> + Send + 'static>>;

/// The service's state: how many greetings it has served.
#[derive(Clone, Default)]
struct Greeter {
    served: Arc<AtomicU32>,
}

impl Greeter {
    async fn say_hello(&self, request: HelloRequest) -> Result<HelloReply, Status> {
        note_thread();
        if request.name.is_empty() {
            return Err(Status::invalid_argument("name must not be empty"));
        }
        let served = self.served.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(HelloReply {
            message: format!("Hello, {}!", request.name),
            served,
        })
    }

    /// Streams `from, from-1, ..., 1` from a spawned producer through an mpsc channel.
    async fn countdown(&self, request: CountRequest) -> Result<TickStream, Status> {
        note_thread();
        let (tx, rx) = tokio::sync::mpsc::channel(2);
        tokio::spawn(async move {
            note_thread();
            for value in (1..=request.from).rev() {
                tokio::time::sleep(Duration::from_millis(1)).await;
                if tx.send(Ok(Tick { value })).await.is_err() {
                    return;
                }
            }
        });
        Ok(Box::pin(ReceiverStream::new(rx)))
    }
}

// --- server glue, in the shape tonic-build generates ---------------------------------------

struct SayHelloSvc(Greeter);

impl tonic::server::UnaryService<HelloRequest> for SayHelloSvc {
    type Response = HelloReply;
    type Future = BoxFuture<Result<Response<HelloReply>, Status>>;
    fn call(&mut self, request: Request<HelloRequest>) -> Self::Future {
        let greeter = self.0.clone();
        Box::pin(async move {
            greeter
                .say_hello(request.into_inner())
                .await
                .map(Response::new)
        })
    }
}

struct CountdownSvc(Greeter);

impl tonic::server::ServerStreamingService<CountRequest> for CountdownSvc {
    type Response = Tick;
    type ResponseStream = TickStream;
    type Future = BoxFuture<Result<Response<TickStream>, Status>>;
    fn call(&mut self, request: Request<CountRequest>) -> Self::Future {
        let greeter = self.0.clone();
        Box::pin(async move {
            greeter
                .countdown(request.into_inner())
                .await
                .map(Response::new)
        })
    }
}

#[derive(Clone)]
struct GreeterServer(Greeter);

impl tonic::server::NamedService for GreeterServer {
    const NAME: &'static str = "compat.Greeter";
}

impl tower::Service<http::Request<tonic::body::Body>> for GreeterServer {
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        let greeter = self.0.clone();
        match request.uri().path() {
            "/compat.Greeter/SayHello" => Box::pin(async move {
                let mut grpc = tonic::server::Grpc::new(tonic_prost::ProstCodec::default());
                Ok(grpc.unary(SayHelloSvc(greeter), request).await)
            }),
            "/compat.Greeter/Countdown" => Box::pin(async move {
                let mut grpc = tonic::server::Grpc::new(tonic_prost::ProstCodec::default());
                Ok(grpc.server_streaming(CountdownSvc(greeter), request).await)
            }),
            _ => Box::pin(async { Ok(Status::unimplemented("no such method").into_http()) }),
        }
    }
}

// --- client glue, in the shape tonic-build generates ---------------------------------------

#[derive(Clone)]
struct GreeterClient {
    inner: tonic::client::Grpc<tonic::transport::Channel>,
}

impl GreeterClient {
    async fn connect(url: String) -> Result<Self, tonic::transport::Error> {
        let channel = tonic::transport::Endpoint::from_shared(url)?
            .connect()
            .await?;
        Ok(Self {
            inner: tonic::client::Grpc::new(channel),
        })
    }

    async fn say_hello(&mut self, request: HelloRequest) -> Result<Response<HelloReply>, Status> {
        self.inner
            .ready()
            .await
            .map_err(|e| Status::unknown(format!("Service was not ready: {e}")))?;
        let path = http::uri::PathAndQuery::from_static("/compat.Greeter/SayHello");
        self.inner
            .unary(
                Request::new(request),
                path,
                tonic_prost::ProstCodec::default(),
            )
            .await
    }

    async fn countdown(
        &mut self,
        request: CountRequest,
    ) -> Result<Response<tonic::codec::Streaming<Tick>>, Status> {
        self.inner
            .ready()
            .await
            .map_err(|e| Status::unknown(format!("Service was not ready: {e}")))?;
        let path = http::uri::PathAndQuery::from_static("/compat.Greeter/Countdown");
        self.inner
            .server_streaming(
                Request::new(request),
                path,
                tonic_prost::ProstCodec::default(),
            )
            .await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unary_and_server_stream() {
    bounded("tonic", async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let greeter = Greeter::default();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(GreeterServer(greeter.clone()))
                .serve_with_incoming_shutdown(TcpListenerStream::new(listener), async {
                    let _ = stopped.await;
                }),
        );

        let mut client = GreeterClient::connect(url).await.unwrap();
        for (i, name) in ["Ada", "Grace", "Edsger"].into_iter().enumerate() {
            let reply = client
                .say_hello(HelloRequest { name: name.into() })
                .await
                .unwrap();
            let reply = reply.into_inner();
            assert_eq!(reply.message, format!("Hello, {name}!"));
            assert_eq!(reply.served, i as u32 + 1);
        }
        let err = client
            .say_hello(HelloRequest {
                name: String::new(),
            })
            .await
            .unwrap_err();
        assert_eq!(err.code(), tonic::Code::InvalidArgument);
        assert_eq!(err.message(), "name must not be empty");

        // Several calls at once on clones of one channel (HTTP/2 multiplexing).
        let calls: Vec<_> = (0..8)
            .map(|i| {
                let mut client = client.clone();
                tokio::spawn(async move {
                    client
                        .say_hello(HelloRequest {
                            name: format!("caller {i}"),
                        })
                        .await
                })
            })
            .collect();
        for call in calls {
            call.await.unwrap().unwrap();
        }
        assert_eq!(greeter.served.load(Ordering::SeqCst), 11);

        let mut ticks = client
            .countdown(CountRequest { from: 5 })
            .await
            .unwrap()
            .into_inner();
        let mut seen = Vec::new();
        while let Some(tick) = ticks.next().await {
            seen.push(tick.unwrap().value);
        }
        assert_eq!(seen, vec![5, 4, 3, 2, 1]);

        drop(ticks);
        drop(client);
        stop.send(()).unwrap();
        server.await.unwrap().expect("server failed");

        assert_on_runtime().await;
    })
    .await;
}
