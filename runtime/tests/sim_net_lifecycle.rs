//! The deterministic mode's in-memory network over a socket's life: cancelled and
//! timed-out waits, several acceptors on one listener, bulk transfers both ways, the
//! PCT strategy, and runtime shutdown with sockets still waiting or still held.
#![cfg(all(feature = "deterministic", not(loom)))]

#[macro_use]
mod support;

use std::io;
use std::sync::Arc;
use std::time::Duration;

use runtime::io::{AsyncReadExt, AsyncWriteExt};
use runtime::net::{TcpListener, TcpStream};
use runtime::sim::{Options, Strategy};
use runtime::Builder;
use support::*;

async fn connected() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let c = TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    let (s, _) = listener.accept().await.unwrap();
    (c, s)
}

#[test]
fn a_timed_out_read_leaves_the_stream_usable() {
    run("a read under a timeout", 1, || async {
        let (mut c, mut s) = connected().await;
        let start = runtime::time::Instant::now();
        let mut buf = [0u8; 4];
        let r = runtime::time::timeout(Duration::from_secs(3600), s.read(&mut buf)).await;
        assert!(r.is_err(), "nothing was sent: the read times out");
        assert!(
            start.elapsed() >= Duration::from_secs(3600),
            "virtual time moved"
        );
        c.write_all(b"late").await.unwrap();
        s.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"late");
    });
}

#[test]
fn a_cancelled_accept_and_select_keep_the_listener_usable() {
    run("a cancelled accept", 2, || async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        runtime::select! {
            _ = listener.accept() => panic!("no connection yet"),
            _ = runtime::time::sleep(Duration::from_millis(5)) => {}
        }
        let c = runtime::spawn(TcpStream::connect(addr));
        let (_s, peer) = listener.accept().await.unwrap();
        assert_eq!(peer, c.await.unwrap().unwrap().local_addr().unwrap());
    });
}

#[test]
fn several_acceptors_share_a_listener() {
    run("shared acceptors", 3, || async {
        let listener = Arc::new(TcpListener::bind("127.0.0.1:0").await.unwrap());
        let addr = listener.local_addr().unwrap();
        let (tx, mut rx) = runtime::sync::mpsc::unbounded_channel();
        for worker in 0..4 {
            let listener = listener.clone();
            let tx = tx.clone();
            runtime::spawn(async move {
                loop {
                    let (mut s, _) = listener.accept().await.unwrap();
                    let mut b = [0u8; 1];
                    s.read_exact(&mut b).await.unwrap();
                    tx.send((worker, b[0])).unwrap();
                }
            });
        }
        let mut clients = Vec::new();
        for i in 0..20u8 {
            let mut c = TcpStream::connect(addr).await.unwrap();
            c.write_all(&[i]).await.unwrap();
            clients.push(c);
        }
        let mut got: Vec<u8> = Vec::new();
        for _ in 0..20 {
            got.push(rx.recv().await.unwrap().1);
        }
        got.sort_unstable();
        assert_eq!(got, (0..20).collect::<Vec<_>>());
    });
}

#[test]
fn bulk_transfers_both_ways_at_once() {
    run("bulk transfers", 4, || async {
        let (c, s) = connected().await;
        let data: Vec<u8> = (0..700_000u32).map(|i| (i % 251) as u8).collect();
        let (mut cr, mut cw) = c.into_split();
        let (mut sr, mut sw) = s.into_split();
        let up = {
            let data = data.clone();
            runtime::spawn(async move {
                cw.write_all(&data).await.unwrap();
                cw.shutdown().await.unwrap();
            })
        };
        let down = {
            let data = data.clone();
            runtime::spawn(async move {
                sw.write_all(&data).await.unwrap();
                sw.shutdown().await.unwrap();
            })
        };
        let mut at_server = Vec::new();
        let mut at_client = Vec::new();
        let (a, b) = runtime::join!(
            sr.read_to_end(&mut at_server),
            cr.read_to_end(&mut at_client)
        );
        a.unwrap();
        b.unwrap();
        up.await.unwrap();
        down.await.unwrap();
        assert!(at_server == data && at_client == data);
    });
}

#[test]
fn pct_runs_the_network_deterministically() {
    let once = |seed| {
        watchdog("a PCT run", move || {
            let options = Options {
                strategy: Strategy::Pct {
                    depth: 3,
                    steps: 2_000,
                },
                ..Options::default()
            };
            let rt = Builder::new_multi_thread()
                .enable_all()
                .deterministic_options(seed, options)
                .build()
                .unwrap();
            let n = rt.block_on(async {
                let (mut c, mut s) = connected().await;
                let echo = runtime::spawn(async move {
                    let mut buf = vec![0u8; 1000];
                    s.read_exact(&mut buf).await.unwrap();
                    s.write_all(&buf).await.unwrap();
                });
                c.write_all(&[9u8; 1000]).await.unwrap();
                let mut back = vec![0u8; 1000];
                c.read_exact(&mut back).await.unwrap();
                echo.await.unwrap();
                back.iter().map(|&b| usize::from(b)).sum::<usize>()
            });
            (n, rt.trace_hash())
        })
    };
    let a = once(3);
    assert_eq!(a.0, 9000);
    assert_eq!(a, once(3));
}

#[test]
fn shutdown_with_a_waiting_reader_and_a_held_stream() {
    let held = watchdog("shutdown under a waiting read", || {
        let rt = sim(6);
        let held = rt.block_on(async {
            let (c, mut s) = connected().await;
            runtime::spawn(async move {
                let mut buf = [0u8; 1];
                let _ = s.read(&mut buf).await;
            });
            runtime::task::yield_now().await;
            c
        });
        drop(rt);
        held
    });
    // The stream outlives its runtime; dropping it afterwards is quiet.
    drop(held);
}

#[test]
fn reads_after_the_peer_resets_report_it_once() {
    run("a reset seen by a waiting reader", 7, || async {
        let (c, mut s) = connected().await;
        c.set_linger(Some(Duration::ZERO)).unwrap();
        let reader = runtime::spawn(async move {
            let mut buf = [0u8; 8];
            let first = s.read(&mut buf).await;
            let second = s.read(&mut buf).await;
            (first.map_err(|e| e.kind()), second.map_err(|e| e.kind()))
        });
        runtime::task::yield_now().await;
        drop(c);
        let (first, second) = reader.await.unwrap();
        assert_eq!(first, Err(io::ErrorKind::ConnectionReset));
        assert_eq!(second, Ok(0));
    });
}
