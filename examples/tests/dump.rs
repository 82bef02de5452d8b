//! Task dumps (`Handle::dump`) over the examples run in-process: the HTTP server with
//! keep-alive clients and the chat server with clients, dumped over and over from another
//! thread while they work and once they sit idle. A healthy program never shows an
//! unwakeable task or a deadlock, and its idle connections wait on their sockets.
#![cfg(not(loom))]

mod http_common;

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use examples::http::Server;
use http_common::{runtime, start, Client};
use runtime::dump::{Dump, IoDirection, WaitsOn};
use runtime::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use runtime::net::{TcpListener, TcpStream};

fn assert_healthy(what: &str, d: &Dump) {
    assert!(
        d.unwakeable().next().is_none(),
        "{what}: a task reported unwakeable:\n{d}"
    );
    assert!(
        d.deadlocks().is_empty(),
        "{what}: a deadlock reported:\n{d}"
    );
}

/// Dumps until `stop`, each dump checked; returns how many it took.
fn dumper(
    what: &'static str,
    h: runtime::Handle,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let mut n = 0;
        while !stop.load(SeqCst) || n == 0 {
            assert_healthy(what, &h.dump());
            n += 1;
            std::thread::yield_now();
        }
        n
    })
}

fn reading_tasks(d: &Dump) -> usize {
    d.tasks()
        .iter()
        .filter(|t| {
            t.waits_on().iter().any(|w| {
                matches!(
                    w,
                    WaitsOn::Io {
                        direction: IoDirection::Read,
                        ..
                    }
                )
            })
        })
        .count()
}

/// Dumps until at least `n` tasks wait to read (bounded: the connections go idle at once,
/// and the read bound of the clients is the test's own watchdog).
fn dump_until_reading(h: &runtime::Handle, n: usize) -> Dump {
    for _ in 0..4000 {
        let d = h.dump();
        if reading_tasks(&d) >= n {
            return d;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("fewer than {n} tasks ever waited to read:\n{}", h.dump());
}

#[test]
fn the_http_server_with_keep_alive_clients_dumps_healthy() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    let stop = Arc::new(AtomicBool::new(false));
    let dumps = dumper("http", rt.handle().clone(), stop.clone());
    let clients: Vec<_> = (0..8)
        .map(|i| {
            std::thread::spawn(move || {
                let mut c = Client::connect(addr);
                for j in 0..10 {
                    let path = if j % 3 == 0 {
                        "/slow".to_string()
                    } else {
                        format!("/c{i}/{j}")
                    };
                    assert_eq!(c.get(&path).header("x-path"), Some(path.as_str()));
                }
                c
            })
        })
        .map(|t| t.join().expect("a client failed"))
        .collect();
    stop.store(true, SeqCst);
    assert!(dumps.join().expect("a dump during the requests failed") > 0);
    // Idle keep-alive connections (and the acceptor) wait on their sockets.
    let d = dump_until_reading(rt.handle(), clients.len() + 1);
    assert_healthy("http, idle", &d);
    drop(clients);
}

#[test]
fn the_chat_server_with_clients_dumps_healthy() {
    let rt = runtime();
    let stop = Arc::new(AtomicBool::new(false));
    let dumps = dumper("chat", rt.handle().clone(), stop.clone());
    let clients = rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        runtime::spawn(examples::chat::serve(listener));
        let mut clients = Vec::new();
        for i in 0..6 {
            let s = TcpStream::connect(addr).await.unwrap();
            let (read, mut write) = s.into_split();
            write.write_all(format!("c{i}\n").as_bytes()).await.unwrap();
            let mut lines = BufReader::new(read).lines();
            // The welcome.
            runtime::time::timeout(Duration::from_secs(20), lines.next_line())
                .await
                .expect("a welcome within 20 s")
                .unwrap();
            clients.push((lines, write));
        }
        for (_, w) in clients.iter_mut() {
            w.write_all(b"hello\n").await.unwrap();
        }
        clients
    });
    stop.store(true, SeqCst);
    assert!(dumps.join().expect("a dump during the chat failed") > 0);
    let d = dump_until_reading(rt.handle(), clients.len() + 1);
    assert_healthy("chat, idle", &d);
    drop(clients);
}
