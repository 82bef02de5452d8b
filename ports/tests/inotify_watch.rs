//! `inotify_watch` (an inotify descriptor driven by `io::unix::AsyncFd`): files created in
//! the watched directory are reported by name, in order, as they appear (each waits for
//! the previous report), and creating `stop` ends the program with success.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;

#[test]
fn created_files_are_reported_until_stop() {
    let dir = std::env::temp_dir().join(format!(
        "inotify-watch-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir(&dir).unwrap();
    let mut watcher = Command::new(env!("CARGO_BIN_EXE_inotify_watch"))
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = watcher.stdout.take().unwrap();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    let next = |what: &str| {
        rx.recv_timeout(common::TIMEOUT)
            .unwrap_or_else(|e| panic!("no {what} within {:?}: {e}", common::TIMEOUT))
    };
    assert_eq!(next("the banner"), format!("Watching: {}", dir.display()));
    for i in 0..20 {
        let name = format!("file-{i}");
        std::fs::write(dir.join(&name), b"x").unwrap();
        assert_eq!(next("a report"), format!("created {name}"));
    }
    std::fs::write(dir.join("stop"), b"").unwrap();
    assert_eq!(next("the stop"), "stopping");
    let status = common::wait_with_timeout(&mut watcher, "inotify_watch");
    assert!(status.success(), "{status}");
    std::fs::remove_dir_all(&dir).unwrap();
}
