//! Dumps taken over realistic programs (an echo server with clients, a pipeline of
//! channels, locks, semaphores and timers) while they run, on both flavors: no task is
//! ever reported unwakeable and no deadlock is reported, and an idle echo connection shows
//! its socket's descriptor.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use runtime::dump::{Dump, IoDirection, WaitsOn};
use runtime::io::{AsyncReadExt, AsyncWriteExt};
use runtime::net::{TcpListener, TcpStream};
use runtime::sync::{mpsc, watch, Mutex, Notify, Semaphore};
use runtime::task::JoinSet;
use runtime::{Handle, Runtime};
use support::{flavors, watchdog};

/// Fails when the dump reports what a healthy program never has.
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

/// Dumps from a thread of its own, over and over, until told to stop; each dump must be
/// healthy. Returns how many dumps it took.
fn dump_while(
    what: &'static str,
    h: Handle,
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

async fn echo_server(listener: TcpListener) {
    loop {
        let Ok((mut s, _)) = listener.accept().await else {
            return;
        };
        runtime::spawn(async move {
            let mut buf = [0u8; 1024];
            loop {
                match s.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => {
                        if s.write_all(&buf[..n]).await.is_err() {
                            return;
                        }
                    }
                }
            }
        });
    }
}

fn echo_with_clients(rt: &Runtime) {
    let h = rt.handle().clone();
    let stop = Arc::new(AtomicBool::new(false));
    let dumper = dump_while("echo", h.clone(), stop.clone());
    let (listener_fd, clients) = rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let fd = listener.as_raw_fd();
        runtime::spawn(echo_server(listener));
        let mut set = JoinSet::new();
        for i in 0..32u32 {
            set.spawn(async move {
                let mut c = TcpStream::connect(addr).await.unwrap();
                for round in 0..20u32 {
                    let msg = format!("client {i} round {round}");
                    c.write_all(msg.as_bytes()).await.unwrap();
                    let mut got = vec![0u8; msg.len()];
                    c.read_exact(&mut got).await.unwrap();
                    assert_eq!(got, msg.as_bytes());
                    if round % 5 == 0 {
                        runtime::time::sleep(Duration::from_millis(1)).await;
                    }
                }
                c
            });
        }
        let mut clients = Vec::new();
        while let Some(c) = set.join_next().await {
            clients.push(c.unwrap());
        }
        (fd, clients)
    });
    stop.store(true, SeqCst);
    let dumps = dumper.join().expect("a dump during the echo run failed");
    assert!(dumps > 0);

    // Every connection idle now: the server's tasks wait to read, the acceptor to accept.
    let d = loop {
        let d = h.dump();
        let reading = d
            .tasks()
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
            .count();
        if reading == clients.len() + 1 {
            break d;
        }
        // Drives a current-thread runtime meanwhile.
        rt.block_on(runtime::time::sleep(Duration::from_millis(5)));
    };
    assert_healthy("echo, idle", &d);
    let acceptor = WaitsOn::Io {
        fd: listener_fd,
        direction: IoDirection::Read,
    };
    assert!(
        d.tasks().iter().any(|t| t.waits_on().contains(&acceptor)),
        "the acceptor is not shown waiting on fd {listener_fd}:\n{d}"
    );
    drop(clients);
}

fn pipeline(rt: &Runtime) {
    let h = rt.handle().clone();
    let stop = Arc::new(AtomicBool::new(false));
    let dumper = dump_while("pipeline", h, stop.clone());
    rt.block_on(async {
        let (tx, mut rx) = mpsc::channel::<u64>(2);
        let (wtx, mut wrx) = watch::channel(0u64);
        let state = Arc::new(Mutex::new(0u64));
        let permits = Arc::new(Semaphore::new(3));
        let done = Arc::new(Notify::new());
        let mut producers = JoinSet::new();
        for p in 0..8u64 {
            let (tx, state, permits) = (tx.clone(), state.clone(), permits.clone());
            producers.spawn(async move {
                for i in 0..200u64 {
                    let _permit = permits.acquire().await.unwrap();
                    *state.lock().await += 1;
                    if i % 50 == 0 {
                        runtime::time::sleep(Duration::from_millis(1)).await;
                    }
                    tx.send(p * 1000 + i).await.unwrap();
                }
            });
        }
        drop(tx);
        let watcher = {
            let done = done.clone();
            runtime::spawn(async move {
                while wrx.changed().await.is_ok() {
                    if *wrx.borrow() == 1600 {
                        done.notify_one();
                    }
                }
            })
        };
        let consumer = runtime::spawn(async move {
            let mut n = 0u64;
            while rx.recv().await.is_some() {
                n += 1;
                wtx.send(n).unwrap();
            }
            n
        });
        while let Some(r) = producers.join_next().await {
            r.unwrap();
        }
        done.notified().await;
        assert_eq!(consumer.await.unwrap(), 1600);
        assert_eq!(*state.lock().await, 1600);
        watcher.await.unwrap();
    });
    stop.store(true, SeqCst);
    assert!(dumper.join().expect("a dump during the pipeline failed") > 0);
}

#[test]
fn dumps_of_an_echo_server_with_clients_find_nothing_wrong() {
    watchdog("an echo server dumped while it serves", || {
        for (name, rt) in flavors() {
            eprintln!("{name}");
            echo_with_clients(&rt);
        }
    });
}

#[test]
fn dumps_of_a_channel_and_lock_pipeline_find_nothing_wrong() {
    watchdog("a pipeline dumped while it runs", || {
        for (name, rt) in flavors() {
            eprintln!("{name}");
            pipeline(&rt);
        }
    });
}
