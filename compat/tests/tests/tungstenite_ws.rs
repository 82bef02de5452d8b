//! A tokio-tungstenite websocket echo server (one task per connection, `accept_async` on
//! each accepted `TcpStream`) and clients (`connect_async`) exchanging text, binary, ping and
//! close frames.

use compat_tests::{assert_on_runtime, bounded, note_thread};
use futures::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_util::task::TaskTracker;

/// Echoes every text and binary message back until the peer's close handshake completes.
async fn echo(stream: TcpStream) -> Result<usize, tokio_tungstenite::tungstenite::Error> {
    note_thread();
    let mut ws = tokio_tungstenite::accept_async(stream).await?;
    let mut echoed = 0;
    while let Some(msg) = ws.next().await {
        let msg = msg?;
        match msg {
            Message::Text(_) | Message::Binary(_) => {
                ws.send(msg).await?;
                echoed += 1;
            }
            // Pings are answered and the close reply is queued by tungstenite itself; reading
            // on after a Close flushes that reply, and the stream then ends.
            _ => {}
        }
    }
    Ok(echoed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_server_and_clients() {
    bounded("tokio-tungstenite", async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}/echo", listener.local_addr().unwrap());
        const CLIENTS: usize = 4;

        let server = tokio::spawn(async move {
            let tracker = TaskTracker::new();
            let mut handlers = Vec::new();
            for _ in 0..CLIENTS {
                let (stream, _) = listener.accept().await.unwrap();
                handlers.push(tracker.spawn(echo(stream)));
            }
            tracker.close();
            tracker.wait().await;
            let mut total = 0;
            for h in handlers {
                total += h.await.unwrap().unwrap();
            }
            total
        });

        let clients: Vec<_> = (0..CLIENTS)
            .map(|c| {
                let url = url.clone();
                tokio::spawn(async move {
                    note_thread();
                    let (mut ws, response) = tokio_tungstenite::connect_async(url).await.unwrap();
                    assert_eq!(response.status(), http::StatusCode::SWITCHING_PROTOCOLS);
                    for i in 0..10 {
                        let text = format!("client {c} message {i}");
                        ws.send(Message::text(text.clone())).await.unwrap();
                        assert_eq!(ws.next().await.unwrap().unwrap(), Message::text(text));
                    }
                    let blob: Vec<u8> = (0..=255u8).cycle().take(64 * 1024).collect();
                    ws.send(Message::binary(blob.clone())).await.unwrap();
                    assert_eq!(ws.next().await.unwrap().unwrap(), Message::binary(blob));

                    ws.send(Message::Ping(b"are you there".to_vec().into()))
                        .await
                        .unwrap();
                    match ws.next().await.unwrap().unwrap() {
                        Message::Pong(payload) => assert_eq!(&payload[..], b"are you there"),
                        other => panic!("expected a pong, got {other:?}"),
                    }
                    ws.close(None).await.unwrap();
                    // The close handshake completes: the stream ends.
                    while let Some(msg) = ws.next().await {
                        match msg {
                            Ok(Message::Close(_)) => {}
                            Ok(other) => panic!("unexpected message after close: {other:?}"),
                            Err(e) => panic!("close handshake failed: {e}"),
                        }
                    }
                })
            })
            .collect();
        for client in clients {
            client.await.unwrap();
        }
        assert_eq!(server.await.unwrap(), CLIENTS * 11);

        assert_on_runtime().await;
    })
    .await;
}
