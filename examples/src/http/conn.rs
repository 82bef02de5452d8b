//! One HTTP/1.1 connection: the keep-alive loop with pipelining.
//!
//! The loop: parse the next request head from the read buffer; if it is incomplete, first
//! write out every response encoded so far (ONE write for the whole batch), then read more
//! (dropping the client when the head takes longer than `header_read_timeout`); with a
//! complete head, read its body (dropping the client with 408 when the body stops arriving
//! for `body_read_timeout`), call the handler, and append the response to the write buffer
//! -- then loop, so every request already buffered is answered, in order, before the
//! next write. The batch is also written before the connection would wait on anything else:
//! a body still to be read, or a handler that is not ready on its first poll.
//!
//! Every write (of a batch, of a large body, the close) must keep making progress: one that
//! moves no byte for `write_timeout` ends the connection with a `TimedOut` error, so a
//! client that never reads its responses cannot hold it.
//!
//! Buffers live as long as the connection: `rbuf` (zero-filled once, so it can be handed to
//! `AsyncRead` without per-read initialization; live bytes are `rbuf[start..end]`, and it is
//! rewound when drained), `wbuf`, and the `arena` that request heads and small bodies are
//! copied into (see `parse`). A body not all buffered with its head is read straight into
//! its own buffer, which grows as the bytes arrive (see `length`). All the waits share one
//! timer (see `deadline`), created on the first wait that needs it and then only moved:
//! waiting for a request costs one timer poll (a waker refresh), never an allocation or a
//! wheel insertion.
//!
//! A handler's panic is caught (`catch_unwind`) and, like a handler's error, answered with a
//! 500 for that request only; the connection goes on. A malformed head gets 400, an
//! oversized one 431, a transfer coding we do not decode 501, an oversized body 413, a
//! stalled one 408: each closes the connection after the response,
//! and the server keeps reading (and discarding) for a moment first, so unread request bytes
//! cannot turn the close into a reset that loses the response ("lingering close").

use std::future::{poll_fn, Future};
use std::io;
use std::panic::AssertUnwindSafe;
use std::pin::{pin, Pin};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::BytesMut;
use futures::io::{AsyncRead, AsyncWrite};
use futures::{FutureExt, StreamExt};
use http::{Method, Request, Response, StatusCode};
use runtime::time::Instant;

use super::body::{Body, BoxStream, Kind};
use super::chunked::{ChunkedDecoder, ChunkedError};
use super::deadline::{timed, Timer};
use super::encode::{self, DateCache, Framing, ReqInfo};
use super::length::LengthBody;
use super::parse::{self, BodyKind, Head, ParseError};
use super::server::Config;
use super::Service;

/// Response bodies up to this size are copied into the write buffer (one write for the
/// batch); larger ones are written straight from their own buffer.
const COPY_LIMIT: usize = 16 * 1024;
/// A write buffer this full is written out even in the middle of a batch.
const FLUSH_AT: usize = 64 * 1024;
/// Initial capacity of the write buffer and the head arena.
const WBUF: usize = 8 * 1024;
const ARENA: usize = 16 * 1024;
/// How long a connection refused with 4xx keeps draining the client's bytes.
const LINGER: Duration = Duration::from_secs(1);
/// Most bytes drained during a lingering close.
const LINGER_BYTES: usize = 256 * 1024;

/// What a read brought.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Filled {
    Data,
    Eof,
    TimedOut,
}

/// What bounds a read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// The fixed deadline in `Conn::deadline` (a request head, a lingering close), set on
    /// the first read that has to wait if it is not set yet.
    Deadline,
    /// `body_read_timeout` without a byte arriving.
    Progress,
}

/// What reading a request body ended in.
enum BodyRead {
    Done(Body),
    Refuse(StatusCode),
    /// The client went away mid-body.
    Gone,
}

struct Conn<'a, IO, S> {
    io: IO,
    svc: &'a S,
    cfg: &'a Config,
    rbuf: Vec<u8>,
    start: usize,
    end: usize,
    wbuf: Vec<u8>,
    arena: BytesMut,
    date: DateCache,
    timer: Timer,
    /// When the request head being read must be complete; set on the first read that has
    /// to wait for it, cleared when it completes.
    deadline: Option<Instant>,
}

/// Serves HTTP/1.1 on one connection until the client closes it, an error, a refusal or a
/// timeout. Errors of the transport are returned; protocol errors are answered and end in
/// `Ok`.
pub(crate) async fn serve_connection<IO, S>(io: IO, svc: &S, cfg: &Config) -> io::Result<()>
where
    IO: AsyncRead + AsyncWrite + Unpin,
    S: Service,
{
    let mut conn = Conn {
        io,
        svc,
        cfg,
        rbuf: vec![0; cfg.read_buffer_size()],
        start: 0,
        end: 0,
        wbuf: Vec::with_capacity(WBUF),
        arena: BytesMut::with_capacity(ARENA),
        date: DateCache::new(),
        timer: Timer::new(),
        deadline: None,
    };
    conn.run().await
}

impl<IO, S> Conn<'_, IO, S>
where
    IO: AsyncRead + AsyncWrite + Unpin,
    S: Service,
{
    async fn run(&mut self) -> io::Result<()> {
        loop {
            let parsed = parse::parse_head(
                &self.rbuf[self.start..self.end],
                self.cfg.max_head_size,
                &mut self.arena,
            );
            let head = match parsed {
                Ok(Some((head, len))) => {
                    self.start += len;
                    self.deadline = None;
                    head
                }
                Ok(None) => {
                    // Incomplete: answer what is ready, then wait for more.
                    self.flush().await?;
                    match self.fill(Wait::Deadline).await? {
                        Filled::Data => continue,
                        // A client leaving between requests (or mid-head) is normal; one
                        // that stalls is dropped without an answer.
                        Filled::Eof | Filled::TimedOut => return Ok(()),
                    }
                }
                Err(ParseError::TooLarge) => {
                    return self
                        .refuse(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE)
                        .await
                }
                Err(ParseError::Malformed) => return self.refuse(StatusCode::BAD_REQUEST).await,
                Err(ParseError::NotImplemented) => {
                    return self.refuse(StatusCode::NOT_IMPLEMENTED).await
                }
            };

            let body = match self.read_body(&head).await? {
                BodyRead::Done(body) => body,
                BodyRead::Refuse(status) => return self.refuse(status).await,
                BodyRead::Gone => return Ok(()),
            };

            if !self.respond(head, body).await? {
                self.flush().await?;
                return self.close().await;
            }
        }
    }

    /// Reads the body the head announced, whole.
    async fn read_body(&mut self, head: &Head) -> io::Result<BodyRead> {
        let max = self.cfg.max_body_size;
        match head.body {
            BodyKind::Length(0) => Ok(BodyRead::Done(Body::empty())),
            BodyKind::Length(n) if n > max as u64 => {
                Ok(BodyRead::Refuse(StatusCode::PAYLOAD_TOO_LARGE))
            }
            BodyKind::Length(n) => {
                let n = n as usize;
                let buffered = self.end - self.start;
                if buffered >= n {
                    self.arena
                        .extend_from_slice(&self.rbuf[self.start..self.start + n]);
                    self.start += n;
                    return Ok(BodyRead::Done(Body::from(self.arena.split().freeze())));
                }
                // Not all here yet: take what is, then read the rest straight into the body,
                // which grows as the bytes arrive (the announced length reserves nothing).
                let mut body = LengthBody::new(n, &self.rbuf[self.start..self.end]);
                self.start = 0;
                self.end = 0;
                if head.expect_continue {
                    self.wbuf.extend_from_slice(encode::CONTINUE);
                }
                self.flush().await?;
                let timeout = self.cfg.body_read_timeout;
                while !body.is_complete() {
                    let room = body.spare();
                    let io = &mut self.io;
                    match timed(&mut self.timer, timeout, |cx| {
                        Pin::new(&mut *io).poll_read(cx, room)
                    })
                    .await
                    {
                        None => return Ok(BodyRead::Refuse(StatusCode::REQUEST_TIMEOUT)),
                        Some(Ok(0)) => return Ok(BodyRead::Gone),
                        Some(Ok(k)) => body.advance(k),
                        Some(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                        Some(Err(e)) => return Err(e),
                    }
                }
                Ok(BodyRead::Done(Body::from(body.into_vec())))
            }
            BodyKind::Chunked => {
                let mut decoder = ChunkedDecoder::new();
                let mut body = Vec::new();
                let mut asked = false;
                loop {
                    let input = &self.rbuf[self.start..self.end];
                    match decoder.decode(input, &mut body, max) {
                        Ok((used, done)) => {
                            self.start += used;
                            if done {
                                return Ok(BodyRead::Done(Body::from(body)));
                            }
                        }
                        Err(ChunkedError::Invalid) => {
                            return Ok(BodyRead::Refuse(StatusCode::BAD_REQUEST))
                        }
                        Err(ChunkedError::TooLarge) => {
                            return Ok(BodyRead::Refuse(StatusCode::PAYLOAD_TOO_LARGE))
                        }
                    }
                    if head.expect_continue && !asked {
                        asked = true;
                        self.wbuf.extend_from_slice(encode::CONTINUE);
                    }
                    self.flush().await?;
                    match self.fill(Wait::Progress).await? {
                        Filled::Data => {}
                        Filled::Eof => return Ok(BodyRead::Gone),
                        Filled::TimedOut => {
                            return Ok(BodyRead::Refuse(StatusCode::REQUEST_TIMEOUT))
                        }
                    }
                }
            }
        }
    }

    /// Runs the handler for one request and encodes its response. Returns whether the
    /// connection stays open.
    async fn respond(&mut self, head: Head, body: Body) -> io::Result<bool> {
        let info = ReqInfo {
            version: head.version,
            is_head: head.method == Method::HEAD,
            keep_alive: head.keep_alive,
        };
        let mut req = Request::new(body);
        *req.method_mut() = head.method;
        *req.uri_mut() = head.uri;
        *req.version_mut() = head.version;
        *req.headers_mut() = head.headers;

        let svc = self.svc;
        let outcome = match std::panic::catch_unwind(AssertUnwindSafe(|| svc.call(req))) {
            Ok(fut) => {
                let mut fut = pin!(AssertUnwindSafe(fut).catch_unwind());
                match poll_once(fut.as_mut()).await {
                    Some(out) => out,
                    None => {
                        // The handler waits on something: let earlier responses go first.
                        self.flush().await?;
                        fut.await
                    }
                }
            }
            Err(panic) => Err(panic),
        };
        let response = match outcome {
            Ok(Ok(response)) => response,
            // A handler's error or panic costs this request a 500; the connection goes on.
            Ok(Err(_)) | Err(_) => {
                let mut r = Response::new(Body::empty());
                *r.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
                r
            }
        };
        self.write_response(response, info).await
    }

    async fn write_response(
        &mut self,
        response: Response<Body>,
        info: ReqInfo,
    ) -> io::Result<bool> {
        let (parts, body) = response.into_parts();
        let (framing, keep_alive) = encode::encode_head(
            &mut self.wbuf,
            parts.status,
            &parts.headers,
            body.len(),
            info,
            &mut self.date,
        );
        match (framing, body.kind) {
            (Framing::NoBody, _) | (Framing::Raw, Kind::Empty) => {}
            (Framing::Chunked, Kind::Empty) => self.wbuf.extend_from_slice(encode::LAST_CHUNK),
            (Framing::Raw, Kind::Full(bytes)) => {
                if bytes.len() <= COPY_LIMIT {
                    self.wbuf.extend_from_slice(&bytes);
                } else {
                    self.flush().await?;
                    self.write_all(&bytes).await?;
                }
            }
            (Framing::Chunked, Kind::Full(bytes)) => {
                encode::chunk_header(&mut self.wbuf, bytes.len());
                self.wbuf.extend_from_slice(&bytes);
                self.wbuf.extend_from_slice(b"\r\n");
                self.wbuf.extend_from_slice(encode::LAST_CHUNK);
            }
            (framing, Kind::Stream(stream)) => {
                if !self
                    .write_stream(stream, framing == Framing::Chunked)
                    .await?
                {
                    // The body broke off: the client cannot tell where it ends but by EOF.
                    return Ok(false);
                }
            }
        }
        if self.wbuf.len() >= FLUSH_AT {
            self.flush().await?;
        }
        Ok(keep_alive)
    }

    /// Writes a streamed body; false when the stream failed midway.
    async fn write_stream(&mut self, mut stream: BoxStream, chunked: bool) -> io::Result<bool> {
        loop {
            let next = match poll_once(stream.next()).await {
                Some(next) => next,
                None => {
                    self.flush().await?;
                    stream.next().await
                }
            };
            match next {
                Some(Ok(chunk)) if chunk.is_empty() => {}
                Some(Ok(chunk)) => {
                    if chunked {
                        encode::chunk_header(&mut self.wbuf, chunk.len());
                    }
                    self.wbuf.extend_from_slice(&chunk);
                    if chunked {
                        self.wbuf.extend_from_slice(b"\r\n");
                    }
                    if self.wbuf.len() >= FLUSH_AT {
                        self.flush().await?;
                    }
                }
                Some(Err(_)) => return Ok(false),
                None => {
                    if chunked {
                        self.wbuf.extend_from_slice(encode::LAST_CHUNK);
                    }
                    return Ok(true);
                }
            }
        }
    }

    /// Answers with `status`, closes the connection and drains what the client still sends.
    async fn refuse(&mut self, status: StatusCode) -> io::Result<()> {
        encode::encode_error(&mut self.wbuf, status, &mut self.date);
        self.flush().await?;
        self.close().await?;
        self.deadline = Some(Instant::now() + LINGER);
        let mut drained = 0;
        while drained < LINGER_BYTES {
            self.start = 0;
            self.end = 0;
            match self.fill(Wait::Deadline).await {
                Ok(Filled::Data) => drained += self.end,
                _ => break,
            }
        }
        Ok(())
    }

    /// Writes out the write buffer.
    async fn flush(&mut self) -> io::Result<()> {
        if self.wbuf.is_empty() {
            return Ok(());
        }
        let wbuf = std::mem::take(&mut self.wbuf);
        let written = self.write_all(&wbuf).await;
        self.wbuf = wbuf;
        written?;
        let io = &mut self.io;
        timed(&mut self.timer, self.cfg.write_timeout, |cx| {
            Pin::new(&mut *io).poll_flush(cx)
        })
        .await
        .unwrap_or_else(|| Err(self.write_timed_out()))?;
        self.wbuf.clear();
        if self.wbuf.capacity() > 4 * FLUSH_AT {
            self.wbuf = Vec::with_capacity(WBUF);
        }
        Ok(())
    }

    /// Writes all of `buf`, failing with `TimedOut` once a write stays pending for
    /// `write_timeout` (the clock restarts with every write that moves bytes).
    async fn write_all(&mut self, mut buf: &[u8]) -> io::Result<()> {
        while !buf.is_empty() {
            let io = &mut self.io;
            let wrote = timed(&mut self.timer, self.cfg.write_timeout, |cx| {
                Pin::new(&mut *io).poll_write(cx, buf)
            })
            .await;
            match wrote {
                None => return Err(self.write_timed_out()),
                Some(Ok(0)) => return Err(io::ErrorKind::WriteZero.into()),
                Some(Ok(n)) => buf = &buf[n..],
                Some(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Some(Err(e)) => return Err(e),
            }
        }
        Ok(())
    }

    /// Closes the write side, bounded by `write_timeout` like a write.
    async fn close(&mut self) -> io::Result<()> {
        let io = &mut self.io;
        timed(&mut self.timer, self.cfg.write_timeout, |cx| {
            Pin::new(&mut *io).poll_close(cx)
        })
        .await
        .unwrap_or_else(|| Err(self.write_timed_out()))
    }

    fn write_timed_out(&self) -> io::Error {
        io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "http: no byte of the response left for {:?} (write_timeout)",
                self.cfg.write_timeout
            ),
        )
    }

    /// Reads more bytes after `rbuf[..end]`, making room first, waiting no longer than
    /// `wait` allows.
    async fn fill(&mut self, wait: Wait) -> io::Result<Filled> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.rbuf.len() {
            self.rbuf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            if self.end == self.rbuf.len() {
                let bigger = self.rbuf.len() * 2;
                self.rbuf.resize(bigger, 0);
            }
        }
        // The progress deadline of this read: set when it first has to wait.
        let mut progress = None;
        poll_fn(|cx| self.poll_fill(cx, wait, &mut progress)).await
    }

    fn poll_fill(
        &mut self,
        cx: &mut Context<'_>,
        wait: Wait,
        progress: &mut Option<Instant>,
    ) -> Poll<io::Result<Filled>> {
        loop {
            match Pin::new(&mut self.io).poll_read(cx, &mut self.rbuf[self.end..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Ok(Filled::Eof)),
                Poll::Ready(Ok(n)) => {
                    self.end += n;
                    return Poll::Ready(Ok(Filled::Data));
                }
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => break,
            }
        }
        let deadline = match wait {
            Wait::Deadline => {
                let header_timeout = self.cfg.header_read_timeout;
                *self
                    .deadline
                    .get_or_insert_with(|| Instant::now() + header_timeout)
            }
            Wait::Progress => {
                let body_timeout = self.cfg.body_read_timeout;
                *progress.get_or_insert_with(|| Instant::now() + body_timeout)
            }
        };
        self.timer
            .poll_reached(cx, deadline)
            .map(|()| Ok(Filled::TimedOut))
    }
}

/// Polls `fut` once: its output if it is ready at once, `None` (with its waker registered)
/// if not.
async fn poll_once<F: Future + Unpin>(mut fut: F) -> Option<F::Output> {
    poll_fn(|cx| match Pin::new(&mut fut).poll(cx) {
        Poll::Ready(out) => Poll::Ready(Some(out)),
        Poll::Pending => Poll::Ready(None),
    })
    .await
}
