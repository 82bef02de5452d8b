//! Shared by the ports tests: start a ported server binary, learn its address from its
//! first line (`Listening on: ADDR`), and kill it when the test ends. Every wait is
//! bounded: a server that prints nothing, or a socket that stays silent, fails the test
//! after `TIMEOUT` instead of hanging it.

#![allow(dead_code)] // each test file uses a part

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

pub const TIMEOUT: Duration = Duration::from_secs(10);

/// A running server binary, killed on drop.
pub struct Server {
    pub child: Child,
    pub addr: SocketAddr,
    /// The rest of its stdout, kept open so its prints never hit a closed pipe.
    _stdout: thread::JoinHandle<()>,
}

impl Server {
    /// Starts `bin` with `args` and waits (at most `TIMEOUT`) for `Listening on: ADDR`.
    pub fn start(bin: &str, args: &[&str]) -> Server {
        let mut child = Command::new(bin)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("could not start {bin}: {e}"));
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        let reader = thread::spawn(move || drain(stdout, tx));
        let line = match rx.recv_timeout(TIMEOUT) {
            Ok(line) => line,
            Err(_) => {
                let _ = child.kill();
                panic!("{bin} printed no `Listening on:` line within {TIMEOUT:?}");
            }
        };
        let addr = line
            .strip_prefix("Listening on: ")
            .unwrap_or_else(|| panic!("unexpected first line from {bin}: {line:?}"))
            .trim()
            .parse()
            .expect("a socket address");
        Server {
            child,
            addr,
            _stdout: reader,
        }
    }

    /// A blocking client connection with `TIMEOUT` on reads and writes.
    pub fn connect(&self) -> TcpStream {
        connect(self.addr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn drain(stdout: ChildStdout, first: mpsc::Sender<String>) {
    let mut lines = BufReader::new(stdout).lines();
    if let Some(Ok(line)) = lines.next() {
        let _ = first.send(line);
    }
    for _ in lines {}
}

/// A blocking connection to `addr` with `TIMEOUT` on reads and writes.
pub fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect_timeout(&addr, TIMEOUT).expect("connect");
    s.set_read_timeout(Some(TIMEOUT)).unwrap();
    s.set_write_timeout(Some(TIMEOUT)).unwrap();
    s
}

/// Waits for `child` to exit, at most `TIMEOUT`; kills it and panics past that.
pub fn wait_with_timeout(child: &mut Child, what: &str) -> std::process::ExitStatus {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("{what} did not exit within {TIMEOUT:?}");
        }
        thread::sleep(Duration::from_millis(10));
    }
}
