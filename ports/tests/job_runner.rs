//! `job_runner` (`process::Command` with piped streams, `FramedRead` + `LinesCodec` on a
//! `ChildStdout`): a line the child prints arrives while the child still runs (it waits on
//! its stdin for the next one), stderr is forwarded, the exit code is the child's, and a
//! missing program is an error exit.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;

/// The lines of `r`, one at a time, through a channel (so that each wait is bounded).
fn lines_of(r: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    rx
}

fn next(rx: &mpsc::Receiver<String>, what: &str) -> String {
    rx.recv_timeout(common::TIMEOUT)
        .unwrap_or_else(|e| panic!("no {what} within {:?}: {e}", common::TIMEOUT))
}

#[test]
fn lines_stream_while_the_child_runs_and_its_exit_code_comes_back() {
    // The child prints a line, then waits for a line on its stdin (the runner's, which
    // it inherits) before printing the next: the first must arrive before we answer.
    let mut runner = Command::new(env!("CARGO_BIN_EXE_job_runner"))
        .args([
            "sh",
            "-c",
            "echo first; echo warn >&2; read x; echo \"second $x\"; exit 3",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines_of(runner.stdout.take().unwrap());
    let err = lines_of(runner.stderr.take().unwrap());
    assert_eq!(next(&out, "the first line"), "[out 1] first");
    assert_eq!(next(&err, "the stderr line"), "[err 1] warn");
    let mut stdin = runner.stdin.take().unwrap();
    writeln!(stdin, "please").unwrap();
    drop(stdin);
    assert_eq!(next(&out, "the second line"), "[out 2] second please");
    assert_eq!(
        next(&out, "the summary"),
        "sh exited with 3 (2 lines out, 1 lines err)"
    );
    let status = common::wait_with_timeout(&mut runner, "job_runner");
    assert_eq!(status.code(), Some(3));
}

#[test]
fn many_lines_arrive_in_order() {
    let runner = Command::new(env!("CARGO_BIN_EXE_job_runner"))
        .args([
            "sh",
            "-c",
            "i=0; while [ $i -lt 2000 ]; do echo line $i; i=$((i+1)); done",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut runner = runner;
    let out = lines_of(runner.stdout.take().unwrap());
    for i in 0..2000 {
        assert_eq!(next(&out, "a line"), format!("[out {}] line {i}", i + 1));
    }
    assert_eq!(
        next(&out, "the summary"),
        "sh exited with 0 (2000 lines out, 0 lines err)"
    );
    assert!(common::wait_with_timeout(&mut runner, "job_runner").success());
}

#[test]
fn a_missing_program_fails_the_runner() {
    let mut runner = Command::new(env!("CARGO_BIN_EXE_job_runner"))
        .arg("/nonexistent/program")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = lines_of(runner.stderr.take().unwrap());
    let status = common::wait_with_timeout(&mut runner, "job_runner");
    assert!(!status.success());
    let msg = next(&err, "the error");
    assert!(msg.contains("No such file"), "{msg}");
}
