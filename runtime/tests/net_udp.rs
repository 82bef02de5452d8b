//! UDP: round trips with `send_to`/`recv_from` and with `connect`/`send`/`recv`, on both
//! flavors; a receiver waiting in one task while another sends; readiness API.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::io;
use std::sync::Arc;

use runtime::net::UdpSocket;
use runtime::time::timeout;
use runtime::Builder;

rt_test! {
    #[test]
    fn send_to_recv_from_round_trip() {
        watchdog("the UDP round trip", || {
            let rt = rt();
            rt.block_on(async {
                let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                let a_addr = a.local_addr().unwrap();
                let b_addr = b.local_addr().unwrap();
                let echo = runtime::spawn(async move {
                    let mut buf = [0u8; 64];
                    let (n, from) = b.recv_from(&mut buf).await.unwrap();
                    assert_eq!(from, a_addr);
                    let reply: Vec<u8> = buf[..n].iter().rev().copied().collect();
                    b.send_to(&reply, from).await.unwrap();
                });
                assert_eq!(a.send_to(b"datagram", b_addr).await.unwrap(), 8);
                let mut buf = [0u8; 64];
                let (n, from) = timeout(GENEROUS, a.recv_from(&mut buf))
                    .await
                    .unwrap()
                    .unwrap();
                assert_eq!(from, b_addr);
                assert_eq!(&buf[..n], b"margatad");
                timeout(GENEROUS, echo).await.unwrap().unwrap();
            });
        })
    }

    #[test]
    fn connected_send_recv_and_peer_addr() {
        watchdog("the connected UDP round trip", || {
            let rt = rt();
            rt.block_on(async {
                let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                assert!(a.peer_addr().is_err());
                a.connect(b.local_addr().unwrap()).await.unwrap();
                b.connect(a.local_addr().unwrap()).await.unwrap();
                assert_eq!(a.peer_addr().unwrap(), b.local_addr().unwrap());
                for i in 0..100u32 {
                    a.send(&i.to_le_bytes()).await.unwrap();
                    let mut buf = [0u8; 4];
                    let n = timeout(GENEROUS, b.recv(&mut buf)).await.unwrap().unwrap();
                    assert_eq!(n, 4);
                    assert_eq!(u32::from_le_bytes(buf), i);
                }
            });
        })
    }
}

#[test]
fn shared_socket_receiver_task_and_sender_task() {
    watchdog("the receiver task on the shared socket", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let server = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
            let client = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            client.connect(server.local_addr().unwrap()).await.unwrap();
            const N: usize = 200;
            let rx = server.clone();
            // One task receives and forwards to a channel; this task sends back on the same
            // socket: receive and send wait on different directions.
            let (tx, mut chan) = futures::channel::mpsc::unbounded();
            let receiver = runtime::spawn(async move {
                let mut buf = [0u8; 16];
                for _ in 0..N {
                    let (n, from) = rx.recv_from(&mut buf).await.unwrap();
                    tx.unbounded_send((buf[..n].to_vec(), from)).unwrap();
                }
            });
            use futures::StreamExt;
            for i in 0..N {
                client.send(&(i as u64).to_le_bytes()).await.unwrap();
                let (msg, from) = timeout(GENEROUS, chan.next()).await.unwrap().unwrap();
                server.send_to(&msg, from).await.unwrap();
                let mut back = [0u8; 16];
                let n = timeout(GENEROUS, client.recv(&mut back))
                    .await
                    .unwrap()
                    .unwrap();
                assert_eq!(u64::from_le_bytes(back[..n].try_into().unwrap()), i as u64);
            }
            timeout(GENEROUS, receiver).await.unwrap().unwrap();
        });
    })
}

#[runtime::test]
async fn readable_then_try_recv() {
    let _watchdog = abort_after("the readable socket");
    let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let mut buf = [0u8; 8];
    assert_eq!(
        b.try_recv_from(&mut buf).unwrap_err().kind(),
        io::ErrorKind::WouldBlock
    );
    a.writable().await.unwrap();
    a.try_send_to(b"x", b.local_addr().unwrap()).unwrap();
    loop {
        timeout(GENEROUS, b.readable()).await.unwrap().unwrap();
        match b.try_recv_from(&mut buf) {
            Ok((n, from)) => {
                assert_eq!(&buf[..n], b"x");
                assert_eq!(from, a.local_addr().unwrap());
                break;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
            Err(e) => panic!("{e}"),
        }
    }
    let std = b.into_std().unwrap();
    assert!(std.local_addr().is_ok());
}
