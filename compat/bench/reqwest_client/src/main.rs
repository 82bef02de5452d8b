//! A keep-alive HTTP load client on reqwest for the runtime comparison
//! (benches/scripts/axum_compare.sh), on two worker threads.
//!
//! `C` tasks each own a `reqwest::Client` (its own connection pool, one idle connection kept
//! per host), so the load runs on exactly `C` keep-alive connections; each task sends one
//! request at a time, reads the whole body, checks the status (and with `--post`, that the
//! echo matches what it sent) and sends the next, until `D` seconds have passed since the
//! first request. A request in flight at the deadline completes and counts.
//!
//! The same file builds against this runtime (the compat workspace, where `tokio` is the
//! patch crate) and against the registry's tokio (compat/bench/tokio-baseline), so the two
//! binaries differ only in the runtime.
//!
//! Usage: `reqwest_client URL [-c C] [-d SECS] [--post BYTES]` (defaults: 50 connections,
//! 5 s, `GET`; `--post` sends a JSON string body of BYTES bytes instead). Prints, one per
//! line: `worker thread: NAME`, `connections`, `requests` (completed and checked),
//! `errors`, `elapsed_s`, `req/s`, and `cpu_us_per_req` (this process's user + system CPU
//! over the load, from getrusage, divided by the requests).

use std::process::exit;
use std::time::{Duration, Instant};

/// The command line.
struct Args {
    url: String,
    conns: usize,
    duration: Duration,
    post: Option<usize>,
}

fn parse_args() -> Args {
    let usage = || -> ! {
        eprintln!("usage: reqwest_client URL [-c C] [-d SECS] [--post BYTES]");
        exit(2)
    };
    let mut args = std::env::args().skip(1);
    let url = args.next().unwrap_or_else(|| usage());
    let mut parsed = Args {
        url,
        conns: 50,
        duration: Duration::from_secs(5),
        post: None,
    };
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_else(|| usage());
        match flag.as_str() {
            "-c" => parsed.conns = value.parse().unwrap_or_else(|_| usage()),
            "-d" => {
                let secs: f64 = value.parse().unwrap_or_else(|_| usage());
                parsed.duration = Duration::from_secs_f64(secs);
            }
            "--post" => parsed.post = Some(value.parse().unwrap_or_else(|_| usage())),
            _ => usage(),
        }
    }
    if parsed.conns == 0 {
        usage();
    }
    parsed
}

/// This process's user + system CPU time so far (all threads), from getrusage(2).
fn cpu_time() -> Duration {
    // SAFETY: `rusage` is plain integers, for which all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF is a valid `who` and `usage` is a valid, writable rusage.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    assert_eq!(
        rc,
        0,
        "getrusage failed: {}",
        std::io::Error::last_os_error()
    );
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// One connection's load: requests back to back until `deadline`; returns (checked, failed).
async fn drive(url: String, body: Option<String>, deadline: Instant) -> (u64, u64) {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .build()
        .expect("building the reqwest client");
    let (mut ok, mut failed) = (0, 0);
    while Instant::now() < deadline {
        let request = match &body {
            Some(b) => client
                .post(&url)
                .header("content-type", "application/json")
                .body(b.clone()),
            None => client.get(&url),
        };
        let checked = match request.send().await {
            Ok(response) if response.status().is_success() => match response.bytes().await {
                Ok(got) => body.as_ref().is_none_or(|b| got == b.as_bytes()),
                Err(_) => false,
            },
            _ => false,
        };
        if checked {
            ok += 1;
        } else {
            failed += 1;
        }
    }
    (ok, failed)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args = parse_args();
    let worker = tokio::spawn(async {
        std::thread::current()
            .name()
            .unwrap_or("<unnamed>")
            .to_string()
    })
    .await
    .expect("the probe task");
    // A JSON string of exactly `n` bytes: the quotes and `n - 2` letters.
    let body = args
        .post
        .map(|n| format!("\"{}\"", "x".repeat(n.saturating_sub(2))));

    let cpu0 = cpu_time();
    let start = Instant::now();
    let deadline = start + args.duration;
    let tasks: Vec<_> = (0..args.conns)
        .map(|_| tokio::spawn(drive(args.url.clone(), body.clone(), deadline)))
        .collect();
    let (mut ok, mut failed) = (0, 0);
    for task in tasks {
        let (o, f) = task.await.expect("a load task panicked");
        ok += o;
        failed += f;
    }
    let elapsed = start.elapsed().as_secs_f64();
    let cpu = (cpu_time() - cpu0).as_secs_f64();

    println!("worker thread: {worker}");
    println!("connections: {}", args.conns);
    println!("requests: {ok}");
    println!("errors: {failed}");
    println!("elapsed_s: {elapsed:.3}");
    println!("req/s: {:.1}", ok as f64 / elapsed);
    println!("cpu_us_per_req: {:.2}", cpu * 1e6 / ok.max(1) as f64);
    if ok == 0 {
        eprintln!("reqwest_client: no request completed");
        exit(1);
    }
}
