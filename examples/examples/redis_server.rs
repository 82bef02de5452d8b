//! A Redis-protocol key-value server in tokio's mini-redis shape, the SAME code on our
//! runtime and on tokio: `cargo run --release --example redis_server -- [PORT] [--runtime
//! ours|tokio]` (default port 6379, runtime `ours`). It is what `benches/scripts/redis_cpu.sh`
//! drives with `redis-benchmark -t set,get`.
//!
//! Shape (mini-redis's): one task per connection; one database shared by every connection,
//! a `std::sync::Mutex<HashMap>` held only for the map operation (never across an
//! `.await`); per connection a read buffer that grows as needed and RESP frames parsed out
//! of it. Commands: `GET`, `SET key value`, `DEL`, `PING [msg]`, `ECHO`, `CONFIG GET`
//! (each parameter with an empty value, `appendonly` with `no`: what `redis-benchmark`
//! reads at start-up), `COMMAND` (an empty list); anything else is answered `-ERR unknown
//! command`. Requests are RESP arrays of bulk strings, or an inline command line. Every command complete in the buffer is answered, and the answers
//! to one read go out in one write (pipelined requests, `redis-benchmark -P`, cost one
//! write per read). A malformed frame gets `-ERR Protocol error: ...` and the connection
//! is closed, as Redis does.
//!
//! Per connection the code is generic over any `futures::io` stream; on tokio the stream is
//! wrapped in `examples::tokio_stream::TokioStream`, a pass-through adapter. Worker threads:
//! `RUNTIME_WORKER_THREADS` / `TOKIO_WORKER_THREADS`, or one per core. The address is
//! printed as `listening on redis://127.0.0.1:PORT`.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use examples::tokio_stream::TokioStream;
use futures::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The shared database.
type Db = Arc<Mutex<HashMap<Bytes, Bytes>>>;

/// The largest request frame accepted (Redis's own default limit for a bulk string is
/// 512 MB; this server's buffers are sized for benchmarks).
const MAX_FRAME: usize = 1 << 20;

/// Why a frame could not be parsed.
#[derive(Debug, PartialEq)]
enum Malformed {
    /// A length or count that is not a non-negative decimal number.
    BadNumber,
    /// A bulk string not followed by `\r\n`, or an array item that is not a bulk string.
    BadFrame,
    /// A frame past `MAX_FRAME`.
    TooLarge,
}

impl Malformed {
    fn text(&self) -> &'static str {
        match self {
            Malformed::BadNumber => "invalid length",
            Malformed::BadFrame => "expected a bulk string",
            Malformed::TooLarge => "frame too large",
        }
    }
}

/// A parsed command's arguments and how many bytes of the buffer its frame took.
type Parsed<'a> = (Vec<&'a [u8]>, usize);

/// Parses one command off the front of `buf`: `Ok(Some((args, used)))` when a whole frame
/// is there, `Ok(None)` when more bytes are needed.
fn parse(buf: &[u8]) -> Result<Option<Parsed<'_>>, Malformed> {
    let Some(first) = buf.first() else {
        return Ok(None);
    };
    if *first != b'*' {
        // An inline command: one line, arguments split on spaces.
        let Some(end) = line_end(buf) else {
            return if buf.len() > MAX_FRAME {
                Err(Malformed::TooLarge)
            } else {
                Ok(None)
            };
        };
        let args = buf[..end]
            .split(|b| *b == b' ')
            .filter(|a| !a.is_empty())
            .collect();
        return Ok(Some((args, end + 2)));
    }
    let Some(end) = line_end(buf) else {
        return Ok(None);
    };
    let count = number(&buf[1..end])?;
    let mut at = end + 2;
    let mut args = Vec::with_capacity(count.min(16));
    for _ in 0..count {
        let rest = &buf[at..];
        let Some(head) = line_end(rest) else {
            return Ok(None);
        };
        if rest[0] != b'$' {
            return Err(Malformed::BadFrame);
        }
        let len = number(&rest[1..head])?;
        let start = at + head + 2;
        if start + len > MAX_FRAME {
            return Err(Malformed::TooLarge);
        }
        if buf.len() < start + len + 2 {
            return Ok(None);
        }
        if &buf[start + len..start + len + 2] != b"\r\n" {
            return Err(Malformed::BadFrame);
        }
        args.push(&buf[start..start + len]);
        at = start + len + 2;
    }
    Ok(Some((args, at)))
}

/// Where the first `\r\n` of `buf` starts.
fn line_end(buf: &[u8]) -> Option<usize> {
    buf.windows(2).position(|w| w == b"\r\n")
}

fn number(digits: &[u8]) -> Result<usize, Malformed> {
    if digits.is_empty() || digits.len() > 9 || !digits.iter().all(u8::is_ascii_digit) {
        return Err(Malformed::BadNumber);
    }
    Ok(digits.iter().fold(0, |n, d| n * 10 + usize::from(d - b'0')))
}

fn bulk(out: &mut Vec<u8>, value: &[u8]) {
    out.push(b'$');
    out.extend_from_slice(itoa::Buffer::new().format(value.len()).as_bytes());
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(value);
    out.extend_from_slice(b"\r\n");
}

fn integer(out: &mut Vec<u8>, n: usize) {
    out.push(b':');
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// Runs one command against `db`, appending its answer to `out`.
fn execute(db: &Db, args: &[&[u8]], out: &mut Vec<u8>) {
    let Some(name) = args.first() else {
        return;
    };
    let wrong_args = |out: &mut Vec<u8>| {
        out.extend_from_slice(b"-ERR wrong number of arguments\r\n");
    };
    match name.to_ascii_uppercase().as_slice() {
        b"GET" => {
            let [_, key] = args else {
                return wrong_args(out);
            };
            let value = db.lock().unwrap().get(*key).cloned();
            match value {
                Some(v) => bulk(out, &v),
                None => out.extend_from_slice(b"$-1\r\n"),
            }
        }
        b"SET" => {
            let [_, key, value] = args else {
                return wrong_args(out);
            };
            let (key, value) = (Bytes::copy_from_slice(key), Bytes::copy_from_slice(value));
            db.lock().unwrap().insert(key, value);
            out.extend_from_slice(b"+OK\r\n");
        }
        b"DEL" => {
            let mut db = db.lock().unwrap();
            let removed = args[1..]
                .iter()
                .filter(|k| db.remove(**k).is_some())
                .count();
            drop(db);
            integer(out, removed);
        }
        b"PING" => match args {
            [_] => out.extend_from_slice(b"+PONG\r\n"),
            [_, msg] => bulk(out, msg),
            _ => wrong_args(out),
        },
        b"ECHO" => match args {
            [_, msg] => bulk(out, msg),
            _ => wrong_args(out),
        },
        b"CONFIG" => match args {
            // Each parameter asked for, with a default value (`redis-benchmark` reads
            // `save` and `appendonly` at start-up).
            [_, sub, params @ ..] if sub.eq_ignore_ascii_case(b"GET") => {
                out.push(b'*');
                out.extend_from_slice(itoa::Buffer::new().format(2 * params.len()).as_bytes());
                out.extend_from_slice(b"\r\n");
                for p in params {
                    bulk(out, p);
                    let value: &[u8] = if p.eq_ignore_ascii_case(b"appendonly") {
                        b"no"
                    } else {
                        b""
                    };
                    bulk(out, value);
                }
            }
            _ => out.extend_from_slice(b"-ERR unsupported CONFIG subcommand\r\n"),
        },
        b"COMMAND" => out.extend_from_slice(b"*0\r\n"),
        _ => out.extend_from_slice(b"-ERR unknown command\r\n"),
    }
}

/// Serves one connection until EOF or a protocol error.
async fn serve<S: AsyncRead + AsyncWrite + Unpin>(mut stream: S, db: Db) -> io::Result<()> {
    let mut buf = vec![0u8; 4096];
    let mut filled = 0;
    let mut out = Vec::with_capacity(4096);
    loop {
        if filled == buf.len() {
            if buf.len() > MAX_FRAME {
                // Only a frame that never ends fills the buffer past the largest one.
                stream
                    .write_all(b"-ERR Protocol error: frame too large\r\n")
                    .await?;
                return Ok(());
            }
            buf.resize(buf.len() * 2, 0);
        }
        let n = stream.read(&mut buf[filled..]).await?;
        if n == 0 {
            return Ok(());
        }
        filled += n;
        let mut start = 0;
        out.clear();
        let failed = loop {
            match parse(&buf[start..filled]) {
                Ok(Some((args, used))) => {
                    execute(&db, &args, &mut out);
                    start += used;
                }
                Ok(None) => break None,
                Err(e) => break Some(e),
            }
        };
        buf.copy_within(start..filled, 0);
        filled -= start;
        if let Some(e) = &failed {
            out.extend_from_slice(b"-ERR Protocol error: ");
            out.extend_from_slice(e.text().as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        if !out.is_empty() {
            stream.write_all(&out).await?;
        }
        if failed.is_some() {
            return Ok(());
        }
    }
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut which = "ours".to_string();
    let mut port = 6379u16;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runtime" => which = it.next().expect("--runtime ours|tokio").clone(),
            p => port = p.parse().expect("PORT must be a number"),
        }
    }
    let db = Db::default();
    match which.as_str() {
        "ours" => on_ours(port, db),
        "tokio" => on_tokio(port, db),
        other => panic!("--runtime must be `ours` or `tokio`, not {other:?}"),
    }
}

fn on_ours(port: u16, db: Db) -> io::Result<()> {
    let rt = runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async {
        let listener = runtime::net::TcpListener::bind(("127.0.0.1", port)).await?;
        println!(
            "redis_server (ours) listening on redis://{}",
            listener.local_addr()?
        );
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    drop(runtime::spawn(serve(stream, db.clone())));
                }
                Err(e) => {
                    eprintln!("redis_server: accept failed: {e}; retrying");
                    runtime::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    })
}

fn on_tokio(port: u16, db: Db) -> io::Result<()> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    // Built with `--cfg tokio_unstable`: tokio as production users run it.
    #[cfg(tokio_unstable)]
    builder.enable_alt_timer().enable_eager_driver_handoff();
    let rt = builder.enable_all().build()?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        println!(
            "redis_server (tokio) listening on redis://{}",
            listener.local_addr()?
        );
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(serve(TokioStream(stream), db.clone()));
                }
                Err(e) => {
                    eprintln!("redis_server: accept failed: {e}; retrying");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_arrays_inline_and_partial_frames() {
        let set = b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nvv\r\n";
        let (args, used) = parse(set).unwrap().unwrap();
        assert_eq!(args, [&b"SET"[..], b"k", b"vv"]);
        assert_eq!(used, set.len());
        for cut in 0..set.len() {
            assert_eq!(parse(&set[..cut]), Ok(None), "cut at {cut}");
        }
        let (args, used) = parse(b"PING hello\r\nGET").unwrap().unwrap();
        assert_eq!(args, [&b"PING"[..], b"hello"]);
        assert_eq!(used, 12);
        assert_eq!(parse(b"*1\r\n+OK\r\n"), Err(Malformed::BadFrame));
        assert_eq!(parse(b"*x\r\n"), Err(Malformed::BadNumber));
        assert_eq!(parse(b"*1\r\n$2\r\nabc\r\n"), Err(Malformed::BadFrame));
    }

    #[test]
    fn executes_set_get_del_ping() {
        let db = Db::default();
        let mut out = Vec::new();
        execute(&db, &[b"get", b"k"], &mut out);
        execute(&db, &[b"SET", b"k", b"v"], &mut out);
        execute(&db, &[b"GET", b"k"], &mut out);
        execute(&db, &[b"DEL", b"k", b"x"], &mut out);
        execute(&db, &[b"PING"], &mut out);
        execute(&db, &[b"SET", b"k"], &mut out);
        execute(&db, &[b"FLUSHALL"], &mut out);
        execute(&db, &[b"config", b"get", b"appendonly"], &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "$-1\r\n+OK\r\n$1\r\nv\r\n:1\r\n+PONG\r\n-ERR wrong number of arguments\r\n-ERR unknown command\r\n*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n"
        );
    }
}
