//! `line_client` (`io::stdin` and `io::stdout` on our blocking pool, `copy` from a socket
//! half): run the binary with piped stdin against an echo server; what it prints is what
//! it was fed, and it exits 0 once stdin ends and the server closes.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::thread;

/// A blocking echo server for one connection: echoes until EOF, then closes.
fn echo_once() -> (std::net::SocketAddr, thread::JoinHandle<usize>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let h = thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        s.set_read_timeout(Some(common::TIMEOUT)).unwrap();
        let mut buf = [0; 4096];
        let mut total = 0;
        loop {
            let n = s.read(&mut buf).unwrap();
            if n == 0 {
                return total;
            }
            total += n;
            s.write_all(&buf[..n]).unwrap();
        }
    });
    (addr, h)
}

#[test]
fn piped_stdin_lines_come_back_on_stdout() {
    let (addr, server) = echo_once();
    let mut child = Command::new(env!("CARGO_BIN_EXE_line_client"))
        .arg(addr.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let input: String = (0..500).map(|i| format!("line number {i}\n")).collect();
    let mut stdin = child.stdin.take().unwrap();
    let fed = input.clone();
    let feeder = thread::spawn(move || {
        stdin.write_all(fed.as_bytes()).unwrap();
        // Dropping stdin closes the pipe: the client reads EOF.
    });
    let mut stdout = child.stdout.take().unwrap();
    let reader = thread::spawn(move || {
        let mut out = String::new();
        stdout.read_to_string(&mut out).unwrap();
        out
    });
    let status = common::wait_with_timeout(&mut child, "line_client");
    assert!(status.success(), "line_client exited with {status}");
    feeder.join().unwrap();
    assert_eq!(reader.join().unwrap(), input);
    assert_eq!(server.join().unwrap(), input.len());
}
