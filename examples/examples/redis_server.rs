//! A Redis-protocol server in the shape of tokio's mini-redis, the SAME code on our runtime
//! and on tokio: `cargo run --release --example redis_server -- [PORT] [--runtime ours|tokio]`
//! (default port 6379, runtime `ours`).
//!
//! One task per connection (`serve`, generic over any `futures::io` stream), one shared
//! database (`Db`: a `HashMap` of keys to values under a `std::sync::Mutex`, as mini-redis
//! keeps it). Per read: every complete RESP command in the buffer (an array of bulk
//! strings, `*N\r\n$len\r\narg\r\n...`) is executed in order and its reply appended; all
//! the replies of one read go out in one write (so a pipelining client gets them batched,
//! and a client with one command in flight gets one write per command). Commands: `GET`,
//! `SET key value` (no options), `PING`, `DEL`; any other answers `-ERR unknown command`
//! (what mini-redis answers, and what `redis-benchmark`'s start-up `CONFIG GET` copes
//! with). A malformed command closes the connection. On tokio the stream is wrapped in a
//! pass-through adapter to the `futures::io` traits (`TokioStream`). Worker threads:
//! `RUNTIME_WORKER_THREADS` / `TOKIO_WORKER_THREADS`, or one per core.

use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll};
use std::time::Duration;

use futures::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The shared key space.
type Db = Arc<Mutex<HashMap<Vec<u8>, Vec<u8>>>>;

/// A parsed command: its arguments (slices of the read buffer) and the bytes it spans.
type Command<'a> = (Vec<&'a [u8]>, usize);

/// The largest command accepted (a longer one closes the connection).
const MAX_COMMAND: usize = 1 << 20;

/// Serves one connection until EOF or a malformed command.
async fn serve<S: AsyncRead + AsyncWrite + Unpin>(mut stream: S, db: Db) -> io::Result<()> {
    let mut buf = vec![0u8; 16 * 1024];
    let mut filled = 0;
    let mut out = Vec::new();
    loop {
        if filled == buf.len() {
            if buf.len() >= MAX_COMMAND {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "command too large",
                ));
            }
            buf.resize(buf.len() * 2, 0);
        }
        let n = stream.read(&mut buf[filled..]).await?;
        if n == 0 {
            return Ok(());
        }
        filled += n;
        let mut start = 0;
        while let Some((args, used)) = parse_command(&buf[start..filled])? {
            execute(&args, &db, &mut out);
            start += used;
        }
        buf.copy_within(start..filled, 0);
        filled -= start;
        if !out.is_empty() {
            stream.write_all(&out).await?;
            out.clear();
        }
    }
}

/// The first complete command in `buf` as its arguments (ranges into `buf`) and the bytes
/// it spans; `None` while incomplete.
fn parse_command(buf: &[u8]) -> io::Result<Option<Command<'_>>> {
    let Some((count, mut pos)) = parse_line(buf, 0, b'*')? else {
        return Ok(None);
    };
    let mut args = Vec::with_capacity(count);
    for _ in 0..count {
        let Some((len, at)) = parse_line(buf, pos, b'$')? else {
            return Ok(None);
        };
        if buf.len() < at + len + 2 {
            return Ok(None);
        }
        if &buf[at + len..at + len + 2] != b"\r\n" {
            return Err(malformed());
        }
        args.push(&buf[at..at + len]);
        pos = at + len + 2;
    }
    Ok(Some((args, pos)))
}

/// A `<kind><decimal>\r\n` line at `pos`: the number and the position after the line.
fn parse_line(buf: &[u8], pos: usize, kind: u8) -> io::Result<Option<(usize, usize)>> {
    let Some(&first) = buf.get(pos) else {
        return Ok(None);
    };
    if first != kind {
        return Err(malformed());
    }
    let Some(end) = buf[pos..].windows(2).position(|w| w == b"\r\n") else {
        return Ok(None);
    };
    let digits = &buf[pos + 1..pos + end];
    let n = std::str::from_utf8(digits)
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|&n| n <= MAX_COMMAND)
        .ok_or_else(malformed)?;
    Ok(Some((n, pos + end + 2)))
}

fn malformed() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "malformed RESP command")
}

/// Runs one command, appending its reply to `out`.
fn execute(args: &[&[u8]], db: &Db, out: &mut Vec<u8>) {
    let name = args.first().map(|a| a.to_ascii_uppercase());
    match (name.as_deref(), args.len()) {
        (Some(b"GET"), 2) => match db.lock().unwrap().get(args[1]) {
            Some(v) => {
                out.extend_from_slice(format!("${}\r\n", v.len()).as_bytes());
                out.extend_from_slice(v);
                out.extend_from_slice(b"\r\n");
            }
            None => out.extend_from_slice(b"$-1\r\n"),
        },
        (Some(b"SET"), 3) => {
            db.lock()
                .unwrap()
                .insert(args[1].to_vec(), args[2].to_vec());
            out.extend_from_slice(b"+OK\r\n");
        }
        (Some(b"DEL"), n) if n >= 2 => {
            let mut db = db.lock().unwrap();
            let removed = args[1..]
                .iter()
                .filter(|k| db.remove(**k).is_some())
                .count();
            out.extend_from_slice(format!(":{removed}\r\n").as_bytes());
        }
        (Some(b"PING"), 1) => out.extend_from_slice(b"+PONG\r\n"),
        _ => out.extend_from_slice(b"-ERR unknown command\r\n"),
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
    // Built with `--cfg tokio_unstable` (the bench scripts' tuned-tokio build): tokio as
    // production users run it, with the alternative timer and the eager driver hand-off.
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

/// A tokio `TcpStream` seen through the `futures::io` traits (no buffering, no copies).
struct TokioStream(tokio::net::TcpStream);

impl AsyncRead for TokioStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let mut rb = tokio::io::ReadBuf::new(buf);
        ready!(tokio::io::AsyncRead::poll_read(
            Pin::new(&mut self.get_mut().0),
            cx,
            &mut rb
        ))?;
        Poll::Ready(Ok(rb.filled().len()))
    }
}

impl AsyncWrite for TokioStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        tokio::io::AsyncWrite::poll_write(Pin::new(&mut self.get_mut().0), cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        tokio::io::AsyncWrite::poll_flush(Pin::new(&mut self.get_mut().0), cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        tokio::io::AsyncWrite::poll_shutdown(Pin::new(&mut self.get_mut().0), cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_whole_and_partial_commands() {
        let cmd = b"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n*1\r\n$4\r\nPING\r\n";
        let (args, used) = parse_command(cmd).unwrap().unwrap();
        assert_eq!(args, [&b"SET"[..], b"key", b"value"]);
        let (args, rest) = parse_command(&cmd[used..]).unwrap().unwrap();
        assert_eq!(args, [&b"PING"[..]]);
        assert_eq!(used + rest, cmd.len());
        for cut in 0..used {
            assert!(
                parse_command(&cmd[..cut]).unwrap().is_none(),
                "cut at {cut}"
            );
        }
        assert!(parse_command(b"+OK\r\n").is_err());
        assert!(parse_command(b"*1\r\n$2\r\nabcd\r\n").is_err());
    }

    #[test]
    fn executes_set_get_del_and_unknown() {
        let db = Db::default();
        let mut out = Vec::new();
        execute(&[b"set", b"k", b"v1"], &db, &mut out);
        execute(&[b"GET", b"k"], &db, &mut out);
        execute(&[b"GET", b"missing"], &db, &mut out);
        execute(&[b"DEL", b"k", b"missing"], &db, &mut out);
        execute(&[b"CONFIG", b"GET", b"save"], &db, &mut out);
        assert_eq!(
            out,
            b"+OK\r\n$2\r\nv1\r\n$-1\r\n:1\r\n-ERR unknown command\r\n".to_vec()
        );
    }
}
