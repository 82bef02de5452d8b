//! tokio-util and tokio-stream as services use them: a line protocol over `Framed<TcpStream,
//! LinesCodec>` accepted through `TcpListenerStream`, workers stopped by a `CancellationToken`
//! and awaited through a `TaskTracker`, a `DelayQueue` of expiring entries, and the stream
//! wrappers (`BroadcastStream`, `ReceiverStream`, `IntervalStream`) merged in a `StreamMap`.

use std::time::Duration;

use compat_tests::{assert_on_runtime, bounded, note_thread};
use futures::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::{BroadcastStream, IntervalStream, ReceiverStream, TcpListenerStream};
use tokio_stream::StreamMap;
use tokio_util::codec::{Framed, LinesCodec};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tokio_util::time::DelayQueue;

/// Serves one line-protocol connection: `ADD a b` answers the sum, `QUIT` ends it.
async fn session(stream: TcpStream, stop: CancellationToken) -> usize {
    note_thread();
    let mut lines = Framed::new(stream, LinesCodec::new_with_max_length(1024));
    let mut answered = 0;
    loop {
        let line = tokio::select! {
            _ = stop.cancelled() => {
                let _ = lines.send("BYE shutting down").await;
                return answered;
            }
            line = lines.next() => line,
        };
        let Some(Ok(line)) = line else {
            return answered;
        };
        let reply = match line.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["ADD", a, b] => match (a.parse::<i64>(), b.parse::<i64>()) {
                (Ok(a), Ok(b)) => format!("OK {}", a + b),
                _ => "ERR not a number".to_string(),
            },
            ["QUIT"] => {
                let _ = lines.send("BYE").await;
                return answered;
            }
            _ => format!("ERR unknown command {line:?}"),
        };
        lines.send(reply).await.unwrap();
        answered += 1;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn line_server_with_cancellation_and_tracker() {
    bounded("tokio-util line server", async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = CancellationToken::new();
        let tracker = TaskTracker::new();

        let acceptor = tracker.spawn({
            let stop = stop.clone();
            let tracker = tracker.clone();
            async move {
                note_thread();
                let mut incoming = TcpListenerStream::new(listener);
                let mut sessions = Vec::new();
                loop {
                    tokio::select! {
                        _ = stop.cancelled() => break,
                        conn = incoming.next() => {
                            let stream = conn.expect("listener stream ended").unwrap();
                            sessions.push(tracker.spawn(session(stream, stop.child_token())));
                        }
                    }
                }
                sessions
            }
        });

        // A client that finishes its conversation by itself.
        let mut a = Framed::new(TcpStream::connect(addr).await.unwrap(), LinesCodec::new());
        for (cmd, want) in [
            ("ADD 2 40", "OK 42"),
            ("ADD x 1", "ERR not a number"),
            ("PING", "ERR unknown command \"PING\""),
        ] {
            a.send(cmd).await.unwrap();
            assert_eq!(a.next().await.unwrap().unwrap(), want);
        }
        a.send("QUIT").await.unwrap();
        assert_eq!(a.next().await.unwrap().unwrap(), "BYE");
        assert!(
            a.next().await.is_none(),
            "server kept the connection after QUIT"
        );

        // A client still connected at shutdown is told so by its session.
        let mut b = Framed::new(TcpStream::connect(addr).await.unwrap(), LinesCodec::new());
        b.send("ADD -1 1").await.unwrap();
        assert_eq!(b.next().await.unwrap().unwrap(), "OK 0");

        tracker.close();
        assert!(!tracker.is_empty());
        stop.cancel();
        assert_eq!(b.next().await.unwrap().unwrap(), "BYE shutting down");
        tracker.wait().await;
        assert!(tracker.is_empty());

        let sessions = acceptor.await.unwrap();
        let mut answered = Vec::new();
        for s in sessions {
            answered.push(s.await.unwrap());
        }
        assert_eq!(answered, vec![3, 1]);

        assert_on_runtime().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delay_queue_expires_in_deadline_order() {
    bounded("DelayQueue", async {
        let done = tokio::spawn(async {
            note_thread();
            // Deadlines from one instant, so their order does not depend on scheduling.
            let start = tokio::time::Instant::now();
            let at = |ms| start + Duration::from_millis(ms);
            let mut queue = DelayQueue::new();
            queue.insert_at("third", at(60));
            queue.insert_at("first", at(20));
            let dropped = queue.insert_at("dropped", at(30));
            let moved = queue.insert_at("second", at(500));
            assert_eq!(queue.remove(&dropped).into_inner(), "dropped");
            queue.reset_at(&moved, at(40));
            assert_eq!(queue.len(), 3);

            let mut order = Vec::new();
            while let Some(expired) = queue.next().await {
                order.push(expired.into_inner());
            }
            assert!(queue.is_empty());
            order
        });
        assert_eq!(done.await.unwrap(), vec!["first", "second", "third"]);

        assert_on_runtime().await;
    })
    .await;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Source {
    Broadcast,
    Channel,
    Ticks,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_wrappers_merged_in_a_stream_map() {
    bounded("tokio-stream", async {
        let (btx, brx) = broadcast::channel::<u32>(16);
        let (mtx, mrx) = mpsc::channel::<u32>(4);

        let mut map: StreamMap<Source, std::pin::Pin<Box<dyn futures::Stream<Item = u32> + Send>>> =
            StreamMap::new();
        map.insert(
            Source::Broadcast,
            Box::pin(BroadcastStream::new(brx).map(|r| r.expect("broadcast receiver lagged"))),
        );
        map.insert(Source::Channel, Box::pin(ReceiverStream::new(mrx)));
        let interval = tokio::time::interval(Duration::from_millis(5));
        map.insert(
            Source::Ticks,
            Box::pin(IntervalStream::new(interval).take(3).map(|_| 0)),
        );
        assert_eq!(map.len(), 3);

        let producers = tokio::spawn(async move {
            note_thread();
            for i in 1..=5 {
                btx.send(i * 10).unwrap();
                mtx.send(i).await.unwrap();
            }
            // Dropping the senders ends those two streams.
        });

        let mut got: Vec<(Source, u32)> = Vec::new();
        while let Some(item) = map.next().await {
            got.push(item);
        }
        producers.await.unwrap();
        assert!(map.is_empty(), "StreamMap keeps ended streams");

        let of = |s: Source| {
            got.iter()
                .filter(|(k, _)| *k == s)
                .map(|(_, v)| *v)
                .collect::<Vec<_>>()
        };
        assert_eq!(of(Source::Broadcast), vec![10, 20, 30, 40, 50]);
        assert_eq!(of(Source::Channel), vec![1, 2, 3, 4, 5]);
        assert_eq!(of(Source::Ticks), vec![0, 0, 0]);

        assert_on_runtime().await;
    })
    .await;
}
