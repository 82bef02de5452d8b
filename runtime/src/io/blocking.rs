//! `Blocking<T>`: a blocking `std::io` reader or writer driven from async code by running
//! each operation on the runtime's blocking pool (`spawn_blocking`), as tokio's stdio does.
//!
//! The value and a byte buffer live in one of two states. `Idle` holds them; an operation
//! moves both into a blocking-pool closure and the state becomes `Busy` with that task's
//! `JoinHandle`; when the handle completes, the value and buffer come back and the state is
//! `Idle` again. So at most one blocking operation is in flight and nothing is shared.
//!
//! - Read: buffered bytes are handed out first; with none, a blocking `read` of at most
//!   `min(wanted, MAX_BUF)` bytes is started and awaited. A read that returns 0 is EOF.
//! - Write: the bytes (at most `MAX_BUF`) are copied into the buffer, a blocking
//!   `write_all` is started, and the write reports success at once; a failure of that
//!   background write surfaces on the next write or flush (tokio's behaviour).
//! - Flush (and shutdown): waits for the write in flight, then runs a blocking `flush`.
//!
//! A type uses it in one direction only (stdin reads, stdout writes), so a `Busy` state
//! seen by a read is always a read. If the blocking closure panics the value is lost and
//! every later operation fails with an error saying so. Each operation spends one unit of
//! coop budget.
//!
//! A *mandatory* `Blocking` (stdout, stderr: tokio's `new_mandatory`) starts its operations
//! with the pool's `spawn_mandatory_blocking`: once the pool is shut down the operation is
//! refused at once with the runtime-shutdown error ([`POOL_SHUT_DOWN`], which
//! `runtime::is_rt_shutdown_err` recognizes), and so is every later one (the value went
//! with the refused closure). Otherwise a refused operation surfaces as its cancelled
//! `JoinHandle`'s error, as tokio's stdin does.

use std::future::Future;
use std::io::{self, Read, Write};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::io::ReadBuf;

use crate::coop::poll_proceed;
use crate::task::JoinHandle;
use ::task::SpawnMeta;

/// The error of an operation refused because the runtime's blocking pool is shut down.
/// It opens with tokio's text for the same condition.
pub(crate) const POOL_SHUT_DOWN: &str =
    "A Tokio 1.x context was found, but it is being shutdown. The runtime is shutting down: \
     its blocking pool takes no new work";

/// Largest read or write handed to one blocking call (tokio's bound for its stdio).
const MAX_BUF: usize = 2 * 1024 * 1024;

#[derive(Debug, Default)]
struct Buf {
    data: Vec<u8>,
    pos: usize,
}

impl Buf {
    fn is_empty(&self) -> bool {
        self.pos == self.data.len()
    }

    fn copy_to(&mut self, dst: &mut ReadBuf<'_>) {
        let n = dst.remaining().min(self.data.len() - self.pos);
        dst.put_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        if self.is_empty() {
            self.data.clear();
            self.pos = 0;
        }
    }

    fn read_from<T: Read>(&mut self, rd: &mut T, max: usize) -> io::Result<usize> {
        self.data.resize(max, 0);
        self.pos = 0;
        let res = loop {
            match rd.read(&mut self.data) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                res => break res,
            }
        };
        self.data.truncate(*res.as_ref().unwrap_or(&0));
        res
    }

    fn write_to<T: Write>(&mut self, wr: &mut T) -> io::Result<()> {
        let res = wr.write_all(&self.data[self.pos..]);
        self.data.clear();
        self.pos = 0;
        res
    }
}

type Done<T> = (io::Result<usize>, Buf, T);

enum State<T> {
    /// `None` only after a blocking closure panicked and took the value with it.
    Idle(Option<(T, Buf)>),
    Busy(JoinHandle<Done<T>>),
}

pub(crate) struct Blocking<T> {
    state: State<T>,
    need_flush: bool,
    /// Operations are spawned with `spawn_mandatory_blocking` (module docs).
    mandatory: bool,
    /// A mandatory operation was refused: the value is gone with it.
    refused: bool,
}

fn lost() -> io::Error {
    io::Error::other("a blocking stdio operation panicked: this handle can no longer be used")
}

impl<T: Send + 'static> Blocking<T> {
    pub(crate) fn new(inner: T) -> Blocking<T> {
        Blocking {
            state: State::Idle(Some((inner, Buf::default()))),
            need_flush: false,
            mandatory: false,
            refused: false,
        }
    }

    /// A `Blocking` whose operations are refused once the pool is shut down (module docs).
    pub(crate) fn new_mandatory(inner: T) -> Blocking<T> {
        Blocking {
            mandatory: true,
            ..Blocking::new(inner)
        }
    }

    /// Waits for the operation in flight (if any); its result is returned, the state is
    /// `Idle` afterwards.
    fn poll_idle(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let State::Busy(handle) = &mut self.state else {
            return Poll::Ready(Ok(0));
        };
        match ready!(Pin::new(handle).poll(cx)) {
            Ok((res, buf, inner)) => {
                self.state = State::Idle(Some((inner, buf)));
                Poll::Ready(res)
            }
            Err(e) => {
                self.state = State::Idle(None);
                Poll::Ready(Err(io::Error::other(e)))
            }
        }
    }

    fn take_idle(&mut self) -> io::Result<(T, Buf)> {
        match &mut self.state {
            State::Idle(cell) => cell.take().ok_or_else(|| match self.refused {
                true => io::Error::other(POOL_SHUT_DOWN),
                false => lost(),
            }),
            State::Busy(_) => unreachable!("take_idle after poll_idle"),
        }
    }

    /// Starts `f` on the current runtime's blocking pool; an error when a mandatory
    /// operation is refused (module docs).
    ///
    /// # Panics
    /// Outside a runtime, as `spawn_blocking`.
    fn start<F>(&mut self, f: F) -> io::Result<()>
    where
        F: FnOnce() -> Done<T> + Send + 'static,
    {
        let meta = SpawnMeta::at(std::panic::Location::caller());
        let mandatory = self.mandatory;
        let spawned = crate::context::with_handle(move |h| {
            let pool = h.map(|h| h.blocking())?;
            Some(match mandatory {
                true => pool.spawn_mandatory_blocking(f, meta),
                false => Some(pool.spawn_blocking(f, meta)),
            })
        });
        match spawned {
            Some(Some(join)) => {
                self.state = State::Busy(join);
                Ok(())
            }
            Some(None) => {
                self.state = State::Idle(None);
                self.refused = true;
                Err(io::Error::other(POOL_SHUT_DOWN))
            }
            None => panic!("{}", crate::misuse::SPAWN_BLOCKING_OUTSIDE_RUNTIME),
        }
    }
}

impl<T: Read + Send + 'static> Blocking<T> {
    pub(crate) fn poll_read(
        &mut self,
        cx: &mut Context<'_>,
        dst: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        ready!(poll_proceed(cx));
        loop {
            let busy = matches!(self.state, State::Busy(_));
            let n = ready!(self.poll_idle(cx))?;
            let (inner, mut buf) = self.take_idle()?;
            if busy && n == 0 {
                // The read we were waiting for hit EOF.
                self.state = State::Idle(Some((inner, buf)));
                return Poll::Ready(Ok(()));
            }
            if !buf.is_empty() || dst.remaining() == 0 {
                buf.copy_to(dst);
                self.state = State::Idle(Some((inner, buf)));
                return Poll::Ready(Ok(()));
            }
            let max = dst.remaining().min(MAX_BUF);
            let mut inner = inner;
            self.start(move || {
                let res = buf.read_from(&mut inner, max);
                (res, buf, inner)
            })?;
        }
    }
}

impl<T: Write + Send + 'static> Blocking<T> {
    pub(crate) fn poll_write(
        &mut self,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(poll_proceed(cx));
        ready!(self.poll_idle(cx))?;
        if src.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let (mut inner, mut buf) = self.take_idle()?;
        let n = src.len().min(MAX_BUF);
        buf.data.extend_from_slice(&src[..n]);
        self.start(move || {
            let res = buf.write_to(&mut inner).map(|()| n);
            (res, buf, inner)
        })?;
        self.need_flush = true;
        Poll::Ready(Ok(n))
    }

    pub(crate) fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(poll_proceed(cx));
        loop {
            ready!(self.poll_idle(cx))?;
            if !self.need_flush {
                return Poll::Ready(Ok(()));
            }
            self.need_flush = false;
            let (mut inner, buf) = self.take_idle()?;
            self.start(move || {
                let res = inner.flush().map(|()| 0);
                (res, buf, inner)
            })?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::poll_fn;
    use std::sync::{Arc, Mutex};

    fn rt() -> crate::Runtime {
        crate::Builder::new_current_thread().build().unwrap()
    }

    /// Reads everything through `Blocking::poll_read` with a 64 KiB `ReadBuf` per call.
    async fn read_all<T: Read + Send + 'static>(b: &mut Blocking<T>) -> io::Result<Vec<u8>> {
        let mut all = Vec::new();
        let mut chunk = vec![0; 64 * 1024];
        loop {
            let mut rb = ReadBuf::new(&mut chunk);
            poll_fn(|cx| b.poll_read(cx, &mut rb)).await?;
            if rb.filled().is_empty() {
                return Ok(all);
            }
            all.extend_from_slice(rb.filled());
        }
    }

    #[test]
    fn reads_everything_in_order_then_eof() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
        let mut b = Blocking::new(io::Cursor::new(data.clone()));
        let got = rt().block_on(read_all(&mut b)).unwrap();
        assert_eq!(got, data);
    }

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>, bool);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.1 {
                return Err(io::Error::other("disk full"));
            }
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn writes_land_in_order_by_flush() {
        let out = Shared::default();
        let mut b = Blocking::new(out.clone());
        rt().block_on(async {
            for i in 0..100u32 {
                let line = format!("{i}\n");
                let n = poll_fn(|cx| b.poll_write(cx, line.as_bytes()))
                    .await
                    .unwrap();
                assert_eq!(n, line.len());
            }
            poll_fn(|cx| b.poll_flush(cx)).await.unwrap();
        });
        let want: String = (0..100).map(|i| format!("{i}\n")).collect();
        assert_eq!(
            String::from_utf8(out.0.lock().unwrap().clone()).unwrap(),
            want
        );
    }

    #[test]
    fn a_failed_background_write_surfaces_at_flush() {
        let mut b = Blocking::new(Shared(Arc::default(), true));
        rt().block_on(async {
            // Accepted at once: the write runs on the pool.
            assert_eq!(poll_fn(|cx| b.poll_write(cx, b"x")).await.unwrap(), 1);
            let err = poll_fn(|cx| b.poll_flush(cx)).await.unwrap_err();
            assert_eq!(err.to_string(), "disk full");
        });
    }

    struct Panics;

    impl Read for Panics {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            panic!("reader blew up");
        }
    }

    #[test]
    fn a_panicking_operation_leaves_a_clear_error() {
        let mut b = Blocking::new(Panics);
        rt().block_on(async {
            let mut buf = [0; 4];
            let mut rb = ReadBuf::new(&mut buf);
            assert!(poll_fn(|cx| b.poll_read(cx, &mut rb)).await.is_err());
            let mut rb = ReadBuf::new(&mut buf);
            let err = poll_fn(|cx| b.poll_read(cx, &mut rb)).await.unwrap_err();
            assert!(err.to_string().contains("can no longer be used"), "{err}");
        });
    }
}
