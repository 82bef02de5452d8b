//! `proxy` (`io::copy_bidirectional` between two of our `TcpStream`s): bytes pass both
//! ways, in bulk, and a half-close travels through (the client's EOF reaches the server,
//! whose reply and close come back).

mod common;

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener};
use std::thread;

use common::Server;

/// A blocking upstream that reads to EOF, then answers `got N bytes` plus the bytes
/// reversed, and closes.
fn upstream() -> (std::net::SocketAddr, thread::JoinHandle<()>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let h = thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        s.set_read_timeout(Some(common::TIMEOUT)).unwrap();
        let mut all = Vec::new();
        s.read_to_end(&mut all).unwrap();
        writeln!(s, "got {} bytes", all.len()).unwrap();
        all.reverse();
        s.write_all(&all).unwrap();
    });
    (addr, h)
}

#[test]
fn bytes_and_half_close_pass_both_ways() {
    let (up, up_thread) = upstream();
    let server = Server::start(
        env!("CARGO_BIN_EXE_proxy"),
        &["127.0.0.1:0", &up.to_string()],
    );
    let mut c = server.connect();
    let payload: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    let mut w = c.try_clone().unwrap();
    let sent = payload.clone();
    let writer = thread::spawn(move || {
        w.write_all(&sent).unwrap();
        w.shutdown(Shutdown::Write).unwrap();
    });
    let mut back = Vec::new();
    c.read_to_end(&mut back).unwrap();
    writer.join().unwrap();
    up_thread.join().unwrap();
    let head = format!("got {} bytes\n", payload.len());
    assert!(
        back.starts_with(head.as_bytes()),
        "reply starts {:?}",
        &back[..back.len().min(40)]
    );
    let mut rev = payload;
    rev.reverse();
    assert_eq!(&back[head.len()..], &rev[..]);
}
