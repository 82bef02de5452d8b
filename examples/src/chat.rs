//! A line-based chat server in tokio's style: one task per client, a room task, and
//! `broadcast` + `mpsc` + `select!` between them.
//!
//! Protocol (text lines, `\n`-terminated): a client's first line is its name. The server
//! answers `* welcome NAME (N online)`, then every later line `L` the client sends reaches
//! every *other* client as `NAME: L`; joins and leaves are announced to the others as
//! `* NAME joined` / `* NAME left`. A client that falls more than `HISTORY` lines behind
//! is told `* missed K lines` and goes on from the oldest line still kept.
//!
//! Structure:
//! - the **room** task owns the roster. Client tasks send it `Event`s over an `mpsc`
//!   channel (join, line, leave); it fans each one out on a `broadcast` channel as a
//!   `Message` tagged with the sender's id (so a client skips its own lines), and answers a
//!   join (over a `oneshot`) only once the client's `broadcast` receiver exists, so a
//!   welcomed client sees everything said after its welcome;
//! - each **client** task `select!`s between the next line from its socket and the next
//!   message from the room, writing the latter to its socket.
//!
//! The room ends when every client task and the acceptor are gone (its `mpsc` closes).

use std::collections::HashMap;
use std::io;
use std::sync::Arc;

use runtime::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use runtime::net::{TcpListener, TcpStream};
use runtime::sync::{broadcast, mpsc, oneshot};

/// Lines a slow client may fall behind before it misses some.
pub const HISTORY: usize = 1024;

/// What a client task tells the room.
enum Event {
    /// `subscribed` is the client's receiver, created before the join is announced;
    /// `welcome` carries the count of clients online, itself included.
    Join {
        id: u64,
        name: String,
        welcome: oneshot::Sender<usize>,
    },
    Line {
        id: u64,
        text: String,
    },
    Leave {
        id: u64,
    },
}

/// What the room broadcasts: a ready-to-send line, and who caused it (not sent back to
/// them).
#[derive(Clone, Debug)]
struct Message {
    from: u64,
    line: Arc<str>,
}

/// Accepts clients on `listener` forever, one task each. Returns only on an accept error.
///
/// ```no_run
/// # runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
/// let listener = runtime::net::TcpListener::bind("127.0.0.1:7000").await.unwrap();
/// examples::chat::serve(listener).await.unwrap();
/// # });
/// ```
pub async fn serve(listener: TcpListener) -> io::Result<()> {
    let (events, inbox) = mpsc::channel::<Event>(HISTORY);
    let (fanout, _) = broadcast::channel::<Message>(HISTORY);
    runtime::spawn(room(inbox, fanout.clone()));
    let mut next_id = 0u64;
    loop {
        let (stream, _) = listener.accept().await?;
        next_id += 1;
        let id = next_id;
        let events = events.clone();
        let subscribe = fanout.clone();
        runtime::spawn(async move {
            // A client's I/O error only ends that client.
            let _ = client(id, stream, events, subscribe).await;
        });
    }
}

/// Owns the roster and turns events into broadcast lines.
async fn room(mut inbox: mpsc::Receiver<Event>, fanout: broadcast::Sender<Message>) {
    let mut names: HashMap<u64, String> = HashMap::new();
    while let Some(event) = inbox.recv().await {
        let (from, line) = match event {
            Event::Join { id, name, welcome } => {
                let line = format!("* {name} joined");
                names.insert(id, name);
                // The client may have gone already; nothing to do then.
                let _ = welcome.send(names.len());
                (id, line)
            }
            Event::Line { id, text } => {
                let name = names.get(&id).map_or("?", String::as_str);
                (id, format!("{name}: {text}"))
            }
            Event::Leave { id } => match names.remove(&id) {
                Some(name) => (id, format!("* {name} left")),
                None => continue,
            },
        };
        // No receiver at all is fine (nobody online).
        let _ = fanout.send(Message {
            from,
            line: line.into(),
        });
    }
}

/// One client: its name, then lines in both directions until it hangs up.
async fn client(
    id: u64,
    stream: TcpStream,
    events: mpsc::Sender<Event>,
    fanout: broadcast::Sender<Message>,
) -> io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    let Some(name) = lines.next_line().await? else {
        return Ok(());
    };
    let name = name.trim().to_string();
    // Subscribed before the room announces us: we see every line after our welcome.
    let mut inbox = fanout.subscribe();
    let (welcome, welcomed) = oneshot::channel();
    let joined = Event::Join {
        id,
        name: name.clone(),
        welcome,
    };
    if events.send(joined).await.is_err() {
        return Ok(());
    }
    let Ok(online) = welcomed.await else {
        return Ok(());
    };
    write
        .write_all(format!("* welcome {name} ({online} online)\n").as_bytes())
        .await?;

    let result = async {
        loop {
            runtime::select! {
                line = lines.next_line() => match line? {
                    Some(text) => {
                        if events.send(Event::Line { id, text }).await.is_err() {
                            return Ok(());
                        }
                    }
                    None => return Ok(()),
                },
                msg = inbox.recv() => match msg {
                    Ok(msg) if msg.from == id => {}
                    Ok(msg) => {
                        write.write_all(msg.line.as_bytes()).await?;
                        write.write_all(b"\n").await?;
                    }
                    Err(broadcast::error::RecvError::Lagged(k)) => {
                        write.write_all(format!("* missed {k} lines\n").as_bytes()).await?;
                    }
                    Err(broadcast::error::RecvError::Closed) => return Ok(()),
                },
            }
        }
    }
    .await;
    let _ = events.send(Event::Leave { id }).await;
    result
}
