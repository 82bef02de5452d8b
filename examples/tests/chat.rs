//! Drives the chat server (`examples::chat`) with 20 clients on both runtime flavors:
//! after every client is welcomed, each sends 5 lines; every client must see every other
//! client's lines (in each sender's order) and none of its own, and hear about the others
//! leaving. Every read is bounded by a 10 s timeout that panics with what it waited for.
#![cfg(not(loom))]

use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;

use runtime::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use runtime::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use runtime::net::{TcpListener, TcpStream};
use runtime::Builder;

const CLIENTS: usize = 20;
const LINES: usize = 5;

async fn within<F: Future>(what: &str, fut: F) -> F::Output {
    match runtime::time::timeout(Duration::from_secs(10), fut).await {
        Ok(v) => v,
        Err(_) => panic!("timed out after 10 s waiting for {what}"),
    }
}

struct Client {
    name: String,
    lines: Lines<BufReader<OwnedReadHalf>>,
    write: OwnedWriteHalf,
}

impl Client {
    async fn connect(addr: std::net::SocketAddr, name: String) -> Client {
        let stream = TcpStream::connect(addr).await.unwrap();
        let (read, mut write) = stream.into_split();
        write
            .write_all(format!("{name}\n").as_bytes())
            .await
            .unwrap();
        Client {
            name,
            lines: BufReader::new(read).lines(),
            write,
        }
    }

    async fn line(&mut self, what: &str) -> String {
        let what = format!("{what} (client {})", self.name);
        within(&what, self.lines.next_line())
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("connection closed while waiting for {what}"))
    }
}

fn chat_with_20_clients(rt: runtime::Runtime) {
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = runtime::spawn(examples::chat::serve(listener));

        // Join one by one: client i is welcomed with i + 1 online.
        let mut clients = Vec::new();
        for i in 0..CLIENTS {
            let mut c = Client::connect(addr, format!("c{i}")).await;
            let welcome = c.line("the welcome").await;
            assert_eq!(welcome, format!("* welcome c{i} ({} online)", i + 1));
            clients.push(c);
        }
        // Each client sends its lines and reads everyone else's, concurrently.
        let mut tasks = Vec::new();
        for mut c in clients {
            tasks.push(runtime::spawn(async move {
                for j in 0..LINES {
                    let line = format!("line {j} from {}", c.name);
                    c.write
                        .write_all(format!("{line}\n").as_bytes())
                        .await
                        .unwrap();
                }
                // name -> next expected line index
                let mut next: HashMap<String, usize> = HashMap::new();
                let mut got = 0;
                while got < (CLIENTS - 1) * LINES {
                    let line = c.line("the others' lines").await;
                    if line.starts_with("* ") {
                        // Joins of later clients, announced after our welcome.
                        assert!(line.ends_with(" joined"), "unexpected notice {line:?}");
                        continue;
                    }
                    let (from, text) = line.split_once(": ").expect("NAME: LINE");
                    assert_ne!(from, c.name, "a client got its own line back");
                    let j = next.entry(from.to_string()).or_insert(0);
                    assert_eq!(text, format!("line {j} from {from}"), "order from {from}");
                    *j += 1;
                    got += 1;
                }
                assert_eq!(next.len(), CLIENTS - 1);
                assert!(next.values().all(|&n| n == LINES));
                c
            }));
        }
        let mut clients = Vec::new();
        for t in tasks {
            clients.push(within("a client's task", t).await.unwrap());
        }
        // The first client hangs up; everyone else hears it.
        let first = clients.remove(0);
        drop(first);
        for c in &mut clients {
            loop {
                let line = c.line("the leave notice").await;
                if line == "* c0 left" {
                    break;
                }
                assert!(line.starts_with("* "), "unexpected line {line:?}");
            }
        }
        server.abort();
    });
}

#[test]
fn twenty_clients_multi_thread() {
    chat_with_20_clients(
        Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap(),
    );
}

#[test]
fn twenty_clients_current_thread() {
    chat_with_20_clients(Builder::new_current_thread().enable_all().build().unwrap());
}
