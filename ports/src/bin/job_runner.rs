//! A job runner: runs the command given on its command line, streams the child's stdout
//! line by line as it comes (numbered, through `tokio_util::codec::FramedRead` and
//! `LinesCodec`), forwards its stderr the same way from a second task, and exits with the
//! child's exit code after a summary line. The child is killed if the runner goes away.
//!
//! Ported from tokio by renaming `tokio::` to `runtime::`; nothing else changed.

use futures::StreamExt;
use runtime::process::Command;
use tokio_util::codec::{FramedRead, LinesCodec};

use std::env;
use std::error::Error;
use std::process::Stdio;

#[runtime::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let mut args = env::args().skip(1);
    let program = args.next().ok_or("usage: job_runner PROGRAM [ARGS...]")?;

    let mut child = Command::new(&program)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;

    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");

    let errors = runtime::spawn(async move {
        let mut lines = FramedRead::new(stderr, LinesCodec::new());
        let mut count = 0usize;
        while let Some(line) = lines.next().await {
            count += 1;
            eprintln!("[err {count}] {}", line?);
        }
        Ok::<_, tokio_util::codec::LinesCodecError>(count)
    });

    let mut lines = FramedRead::new(stdout, LinesCodec::new_with_max_length(64 * 1024));
    let mut count = 0usize;
    while let Some(line) = lines.next().await {
        count += 1;
        println!("[out {count}] {}", line?);
    }

    let status = child.wait().await?;
    let err_lines = errors.await??;
    match status.code() {
        Some(code) => {
            println!("{program} exited with {code} ({count} lines out, {err_lines} lines err)");
            std::process::exit(code);
        }
        None => {
            println!("{program} was killed by a signal ({status})");
            std::process::exit(128);
        }
    }
}
