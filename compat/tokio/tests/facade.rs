//! The patch crate seen from a crate that names only `tokio`: the attributes expand to
//! `::tokio` paths, the macros resolve, tokio's module paths hold runtime's items, and the
//! I/O trait family is the one every I/O type implements.

use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// The worker threads are runtime's, not tokio's ("tokio-runtime-worker").
fn on_a_runtime_worker() -> bool {
    std::thread::current().name() == Some("runtime-worker")
}

#[tokio::test]
async fn test_attribute_runs_on_a_current_thread_runtime() {
    let flavor = tokio::runtime::Handle::current().runtime_flavor();
    assert_eq!(flavor, tokio::runtime::RuntimeFlavor::CurrentThread);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spawned_tasks_run_on_runtime_workers() {
    let on_worker = tokio::spawn(async { on_a_runtime_worker() }).await.unwrap();
    assert!(on_worker, "a spawned task ran off runtime's worker threads");
    assert_eq!(tokio::runtime::Handle::current().metrics().num_workers(), 2);
}

#[tokio::test(start_paused = true)]
async fn paused_time_advances_by_itself() {
    let start = tokio::time::Instant::now();
    tokio::time::sleep(Duration::from_secs(3600)).await;
    assert!(start.elapsed() >= Duration::from_secs(3600));
}

#[tokio::test]
async fn macros_resolve_through_tokio() {
    tokio::task_local! { static ID: u32; }
    let (a, b) = tokio::join!(async { 1 }, async { 2 });
    assert_eq!(a + b, 3);
    let r: Result<(i32, i32), ()> = tokio::try_join!(async { Ok(1) }, async { Ok(2) });
    assert_eq!(r, Ok((1, 2)));
    let fut = async { 7 };
    tokio::pin!(fut);
    let got = tokio::select! {
        v = &mut fut => v,
        _ = tokio::time::sleep(Duration::from_secs(30)) => 0,
    };
    assert_eq!(got, 7);
    assert_eq!(ID.scope(5, async { ID.get() }).await, 5);
}

#[tokio::test]
async fn sockets_speak_the_one_trait_family() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (sock, _) = listener.accept().await.unwrap();
        let (rd, mut wr) = sock.into_split();
        let mut lines = BufReader::new(rd).lines();
        while let Some(line) = lines.next_line().await.unwrap() {
            wr.write_all(format!("{line}!\n").as_bytes()).await.unwrap();
        }
    });
    let mut client = TcpStream::connect(addr).await.unwrap();
    client.write_all(b"hello\n").await.unwrap();
    let mut back = [0; 7];
    tokio::time::timeout(Duration::from_secs(10), client.read_exact(&mut back))
        .await
        .expect("the echo did not come back within 10 s")
        .unwrap();
    assert_eq!(&back, b"hello!\n");
    drop(client);
    server.await.unwrap();
}

/// Generic code over tokio's traits takes runtime's types: the trait is one.
fn assert_io<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin>() {}

#[test]
fn runtime_types_implement_tokio_traits() {
    assert_io::<TcpStream>();
    assert_io::<tokio::io::DuplexStream>();
    assert_io::<tokio::fs::File>();
}

#[test]
fn a_runtime_built_through_tokios_path() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let on_worker = rt.block_on(async { tokio::spawn(async { on_a_runtime_worker() }).await });
    assert!(on_worker.unwrap());
}
