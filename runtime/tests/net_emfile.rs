//! `accept` hands EMFILE (out of file descriptors) to the caller instead of swallowing it
//! or spinning, and works again once a descriptor is free. Runs in a child process with a
//! small `ulimit -n`, so exhausting descriptors cannot disturb other tests.
#![cfg(not(loom))]
#![cfg(target_os = "linux")]

#[macro_use]
mod support;

use support::watchdog;

use std::fs::File;
use std::process::Command;
use std::time::Duration;

use runtime::net::TcpListener;
use runtime::time::timeout;

const EMFILE: i32 = 24;
const CHILD_ENV: &str = "RUNTIME_NET_EMFILE_CHILD";

#[test]
fn accept_returns_emfile_instead_of_spinning() {
    watchdog(
        "the accepts at the descriptor limit (or the child process running them)",
        || {
            if std::env::var_os(CHILD_ENV).is_some() {
                return child();
            }
            let exe = std::env::current_exe().unwrap();
            let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -n 256 && exec \"$0\" accept_returns_emfile_instead_of_spinning --exact --nocapture --test-threads=1")
        .arg(&exe)
        .env(CHILD_ENV, "1")
        .output()
        .unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(out.status.success(), "child failed:\n{text}");
            assert!(
                text.contains("1 passed"),
                "child did not run the test:\n{text}"
            );
        },
    )
}

fn child() {
    let rt = runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut files = Vec::new();
        loop {
            match File::open("/dev/null") {
                Ok(f) => files.push(f),
                Err(e) if e.raw_os_error() == Some(EMFILE) => break,
                Err(e) => panic!("unexpected error filling the fd table: {e}"),
            }
        }
        // One descriptor for the client; the accepted socket will find none.
        files.pop();
        let _client = std::net::TcpStream::connect(addr).unwrap();
        for _ in 0..3 {
            let err = timeout(Duration::from_secs(60), listener.accept())
                .await
                .expect("accept hung instead of reporting EMFILE")
                .unwrap_err();
            assert_eq!(err.raw_os_error(), Some(EMFILE), "{err}");
        }
        files.pop();
        let (sock, peer) = timeout(Duration::from_secs(60), listener.accept())
            .await
            .expect("accept hung after a descriptor was freed")
            .unwrap();
        assert_eq!(peer, _client.local_addr().unwrap());
        drop(sock);
    });
}
