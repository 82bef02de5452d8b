//! The deterministic mode's in-memory network, misuse: a non-loopback address, a real
//! resource (`from_std`, a descriptor, `AsyncFd`, a process, a signal, a Unix datagram
//! socket, a pipe) and a host name other than `localhost` in a deterministic runtime
//! panic (or fail) with a message that names the call site and says what to do instead.
#![cfg(all(feature = "deterministic", not(loom)))]

#[macro_use]
mod support;

use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};

use runtime::net::{TcpListener, TcpStream, UdpSocket};
use support::*;

fn panic_text(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("the call panicked");
    panic_message(payload)
}

#[test]
fn non_loopback_bind_panics_naming_the_caller() {
    let msg = watchdog("a non-loopback bind", || {
        panic_text(|| {
            sim(14).block_on(async {
                let _ = TcpListener::bind("10.1.2.3:80").await;
            })
        })
    });
    assert!(msg.contains("TcpListener::bind(10.1.2.3:80)"), "{msg}");
    assert!(msg.contains("sim_net_misuse.rs"), "names the caller: {msg}");
    assert!(msg.contains("127.0.0.1"), "says what to do: {msg}");
    let msg = watchdog("a non-loopback send", || {
        panic_text(|| {
            sim(14).block_on(async {
                let s = UdpSocket::bind("127.0.0.1:0").await.unwrap();
                let _ = s.send_to(b"x", "192.168.0.1:53").await;
            })
        })
    });
    assert!(msg.contains("UdpSocket::send_to(192.168.0.1:53)"), "{msg}");
    assert!(msg.contains("sim_net_misuse.rs"), "{msg}");
    let msg = watchdog("a non-loopback connect", || {
        panic_text(|| {
            sim(14).block_on(async {
                let _ = TcpStream::connect("8.8.8.8:53").await;
            })
        })
    });
    assert!(msg.contains("TcpStream::connect(8.8.8.8:53)"), "{msg}");
    assert!(msg.contains("sim_net_misuse.rs"), "{msg}");
}

#[test]
fn real_resources_panic_naming_the_caller() {
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let msg = watchdog("from_std", move || {
        panic_text(move || {
            sim(15).block_on(async move {
                let _ = TcpListener::from_std(std_listener);
            })
        })
    });
    assert!(msg.contains("TcpListener::from_std at"), "{msg}");
    assert!(msg.contains("sim_net_misuse.rs"), "{msg}");
    assert!(msg.contains("TcpListener::bind"), "says what to do: {msg}");
    let msg = watchdog("a descriptor", || {
        panic_text(|| {
            sim(15).block_on(async {
                let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let _ = std::os::fd::AsRawFd::as_raw_fd(&l);
            })
        })
    });
    assert!(msg.contains("in-memory network"), "{msg}");
}

#[test]
fn descriptors_processes_and_signals_panic_naming_the_caller() {
    type Check = (&'static str, Box<dyn FnOnce() + Send>);
    let checks: Vec<Check> = vec![
        (
            "AsyncFd::new at",
            Box::new(|| {
                let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                sim(18).block_on(async move {
                    let _ = runtime::io::unix::AsyncFd::new(l);
                })
            }),
        ),
        (
            "process::Command::spawn at",
            Box::new(|| {
                sim(18).block_on(async {
                    let _ = runtime::process::Command::new("true").spawn();
                })
            }),
        ),
        (
            "signal::unix::signal at",
            Box::new(|| {
                sim(18).block_on(async {
                    let kind = runtime::signal::unix::SignalKind::user_defined1();
                    let _ = runtime::signal::unix::signal(kind);
                })
            }),
        ),
    ];
    for (what, f) in checks {
        let msg = watchdog(what, move || panic_text(f));
        assert!(msg.contains(what), "{msg}");
        assert!(msg.contains("sim_net_misuse.rs"), "names the caller: {msg}");
        assert!(msg.contains("deterministic"), "{msg}");
    }
    let msg = watchdog("ctrl_c", || {
        panic_text(|| {
            sim(18).block_on(async {
                let _ = runtime::signal::ctrl_c().await;
            })
        })
    });
    assert!(msg.contains("signal::ctrl_c"), "{msg}");
}

#[test]
fn unix_std_sockets_and_pipes_panic_naming_the_caller() {
    let (std_a, _std_b) = std::os::unix::net::UnixDatagram::pair().unwrap();
    let msg = watchdog("a std Unix datagram", move || {
        panic_text(move || {
            sim(20).block_on(async move {
                let _ = runtime::net::UnixDatagram::from_std(std_a);
            })
        })
    });
    assert!(msg.contains("UnixDatagram::from_std at"), "{msg}");
    assert!(msg.contains("sim_net_misuse.rs"), "{msg}");
    assert!(msg.contains("UnixDatagram::bind"), "says what to do: {msg}");
    let msg = watchdog("a UnixSocket", || {
        panic_text(|| {
            sim(20).block_on(async {
                let _ = runtime::net::UnixSocket::new_stream();
            })
        })
    });
    assert!(msg.contains("UnixSocket::new at"), "{msg}");
    assert!(msg.contains("sim_net_misuse.rs"), "{msg}");
    let msg = watchdog("a pipe", || {
        panic_text(|| {
            sim(20).block_on(async {
                let _ = runtime::net::unix::pipe::pipe();
            })
        })
    });
    assert!(msg.contains("pipe at"), "{msg}");
    assert!(msg.contains("sim_net_misuse.rs"), "{msg}");
}

#[test]
fn unknown_host_names_do_not_resolve() {
    run("a lookup", 16, || async {
        let err = TcpStream::connect("example.com:80").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert!(err.to_string().contains("localhost"), "{err}");
    });
}
