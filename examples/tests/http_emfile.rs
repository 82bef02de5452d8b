//! The accept loop survives running out of file descriptors: while accept fails with
//! EMFILE the server backs off (it does not exit or spin), and once descriptors are free
//! again it accepts the waiting client and answers it. Its own test binary, because it
//! lowers the process's descriptor limit.
#![cfg(all(not(loom), target_os = "linux"))]

mod http_common;

use std::fs::File;
use std::time::Duration;

use examples::http::Server;
use http::StatusCode;
use http_common::{runtime, start, Client};

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

fn nofile() -> libc::rlimit {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` writes one `rlimit` through a valid, exclusive pointer.
    assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) }, 0);
    lim
}

fn set_nofile(lim: libc::rlimit) {
    // SAFETY: `setrlimit` only reads the `rlimit` behind a valid pointer.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) }, 0);
}

#[test]
fn accept_backs_off_on_emfile_and_recovers() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    // Warm up: one full exchange, so the server holds every descriptor it needs.
    assert_eq!(Client::connect(addr).get("/").status, StatusCode::OK);

    let saved = nofile();
    set_nofile(libc::rlimit {
        rlim_cur: (open_fds() + 32) as libc::rlim_t,
        rlim_max: saved.rlim_max,
    });
    // Take every descriptor left, then give back one for the client's socket: the server's
    // accept of that client finds the table full (the client takes the free slot in
    // `socket()`, before it connects, so the server cannot get there first).
    let mut hog = Vec::new();
    loop {
        match File::open("/dev/null") {
            Ok(f) => hog.push(f),
            Err(e) if e.raw_os_error() == Some(libc::EMFILE) => break,
            Err(e) => panic!("unexpected error while filling the table: {e}"),
        }
    }
    assert!(!hog.is_empty());
    hog.pop();
    let mut client = Client::connect(addr);
    client.send(b"GET /after-emfile HTTP/1.1\r\nHost: t\r\n\r\n");
    // Let the server meet EMFILE a few times (it sleeps 10..100 ms between tries).
    std::thread::sleep(Duration::from_millis(150));

    drop(hog);
    set_nofile(saved);
    let r = client.response();
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header("x-path"), Some("/after-emfile"));
    // And the server goes on accepting.
    assert_eq!(Client::connect(addr).get("/").status, StatusCode::OK);
}
