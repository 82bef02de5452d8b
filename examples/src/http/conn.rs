//! One HTTP/1.1 connection: the keep-alive loop with pipelining.
//!
//! The loop: parse the next request head from the read buffer; if it is incomplete, first
//! write out every response encoded so far (ONE write for the whole batch), then read more
//! (dropping the client when the head takes longer than `header_read_timeout`); with a
//! complete head, read its body, call the handler, and append the response to the write
//! buffer -- then loop, so every request already buffered is answered, in order, before the
//! next write. The batch is also written before the connection would wait on anything else:
//! a body still to be read, or a handler that is not ready on its first poll.
//!
//! Buffers live as long as the connection: `rbuf` (zero-filled once, so it can be handed to
//! `AsyncRead` without per-read initialization; live bytes are `rbuf[start..end]`, and it is
//! rewound when drained), `wbuf`, and the `arena` that request heads and small bodies are
//! copied into (see `parse`). The header timer is created once per connection, on the
//! first read that has to wait, and only moved when it fires before the current deadline:
//! waiting for a request costs one timer poll (a waker refresh), never an allocation or a
//! wheel insertion.
//!
//! A handler's panic is caught (`catch_unwind`) and, like a handler's error, answered with a
//! 500 for that request only; the connection goes on. A malformed head gets 400, an
//! oversized one 431, an oversized body 413: each closes the connection after the response,
//! and the server keeps reading (and discarding) for a moment first, so unread request bytes
//! cannot turn the close into a reset that loses the response ("lingering close").

use std::future::{poll_fn, Future};
use std::io;
use std::panic::AssertUnwindSafe;
use std::pin::{pin, Pin};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::BytesMut;
use futures::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use futures::{FutureExt, StreamExt};
use http::{Method, Request, Response, StatusCode};
use runtime::time::{sleep_until, Instant, Sleep};

use super::body::{Body, BoxStream, Kind};
use super::chunked::{ChunkedDecoder, ChunkedError};
use super::encode::{self, DateCache, Framing, ReqInfo};
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
    timer: Option<Sleep>,
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
        timer: None,
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
                    match self.fill(true).await? {
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
            };

            let body = match self.read_body(&head).await? {
                BodyRead::Done(body) => body,
                BodyRead::Refuse(status) => return self.refuse(status).await,
                BodyRead::Gone => return Ok(()),
            };

            if !self.respond(head, body).await? {
                self.flush().await?;
                return self.io.close().await;
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
                // Not all here yet: copy what is, then read the rest straight into the body.
                let mut body = vec![0; n];
                body[..buffered].copy_from_slice(&self.rbuf[self.start..self.end]);
                self.start = 0;
                self.end = 0;
                if head.expect_continue {
                    self.wbuf.extend_from_slice(encode::CONTINUE);
                }
                self.flush().await?;
                let mut filled = buffered;
                while filled < n {
                    match self.io.read(&mut body[filled..]).await {
                        Ok(0) => return Ok(BodyRead::Gone),
                        Ok(k) => filled += k,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                Ok(BodyRead::Done(Body::from(body)))
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
                    if self.fill(false).await? != Filled::Data {
                        return Ok(BodyRead::Gone);
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
                    self.io.write_all(&bytes).await?;
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
        self.io.close().await?;
        self.deadline = Some(Instant::now() + LINGER);
        let mut drained = 0;
        while drained < LINGER_BYTES {
            self.start = 0;
            self.end = 0;
            match self.fill(true).await {
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
        self.io.write_all(&self.wbuf).await?;
        self.io.flush().await?;
        self.wbuf.clear();
        if self.wbuf.capacity() > 4 * FLUSH_AT {
            self.wbuf = Vec::with_capacity(WBUF);
        }
        Ok(())
    }

    /// Reads more bytes after `rbuf[..end]`, making room first. With `timed`, waits no
    /// later than the head deadline (set now if this is the first wait for this head).
    async fn fill(&mut self, timed: bool) -> io::Result<Filled> {
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
        poll_fn(|cx| self.poll_fill(cx, timed)).await
    }

    fn poll_fill(&mut self, cx: &mut Context<'_>, timed: bool) -> Poll<io::Result<Filled>> {
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
        if !timed {
            return Poll::Pending;
        }
        let header_timeout = self.cfg.header_read_timeout;
        let deadline = *self
            .deadline
            .get_or_insert_with(|| Instant::now() + header_timeout);
        let timer = self.timer.get_or_insert_with(|| sleep_until(deadline));
        if timer.deadline() > deadline {
            // Armed for later than needed (a lingering close is shorter than a head wait).
            timer.reset(deadline);
        }
        // The timer may still be armed for an earlier head's deadline: when it fires
        // before the current one, move it there and wait again.
        while Pin::new(&mut *timer).poll(cx).is_ready() {
            if Instant::now() >= deadline {
                return Poll::Ready(Ok(Filled::TimedOut));
            }
            timer.reset(deadline);
        }
        Poll::Pending
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
