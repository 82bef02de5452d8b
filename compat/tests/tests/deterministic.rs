//! tokio's ecosystem on a deterministic runtime, under tokio's names: a tokio-util
//! `Framed` line codec over `tokio::net` (the in-memory network), a `CancellationToken`
//! and `tokio::sync::mpsc`, explored over seeds with `#[tokio::test(deterministic)]`, and
//! replayed by hand with `Builder::deterministic`.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::{Framed, LinesCodec};
use tokio_util::sync::CancellationToken;

/// Eight clients send numbered lines to an upper-casing line server; a token stops it.
async fn lines_workload() -> Vec<String> {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let server = tokio::spawn({
        let stop = stop.clone();
        async move {
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    accepted = listener.accept() => {
                        let (socket, _) = accepted.unwrap();
                        tokio::spawn(async move {
                            let mut lines = Framed::new(socket, LinesCodec::new());
                            while let Some(Ok(line)) = lines.next().await {
                                lines.send(line.to_uppercase()).await.unwrap();
                            }
                        });
                    }
                }
            }
        }
    });
    let (tx, mut rx) = tokio::sync::mpsc::channel(8);
    for client in 0..8 {
        let tx = tx.clone();
        tokio::spawn(async move {
            let socket = TcpStream::connect(addr).await.unwrap();
            let mut lines = Framed::new(socket, LinesCodec::new());
            for i in 0..5 {
                tokio::time::sleep(Duration::from_millis(client % 3)).await;
                lines
                    .send(format!("client {client} line {i}"))
                    .await
                    .unwrap();
                let back = lines.next().await.unwrap().unwrap();
                tx.send(back).await.unwrap();
            }
        });
    }
    drop(tx);
    let mut got = Vec::new();
    while let Some(line) = rx.recv().await {
        got.push(line);
    }
    stop.cancel();
    server.await.unwrap();
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4, deterministic, seeds = 20)]
async fn a_framed_line_server_under_20_seeds() {
    let got = lines_workload().await;
    assert_eq!(got.len(), 40);
    assert!(got.iter().all(|l| l.starts_with("CLIENT ")), "{got:?}");
}

#[test]
fn a_seed_replays_and_seeds_differ() {
    let run = |seed| {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .enable_all()
            .deterministic(seed)
            .build()
            .unwrap();
        let got = rt.block_on(lines_workload());
        (got, rt.trace_hash())
    };
    let a = run(3);
    assert_eq!(a, run(3), "seed 3 ran two ways");
    let distinct: std::collections::BTreeSet<u64> = (0..10).map(|s| run(s).1).collect();
    assert!(
        distinct.len() > 5,
        "10 seeds gave {} traces",
        distinct.len()
    );
}
