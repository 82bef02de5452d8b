//! hyper 1.x on this runtime: executor and timer (and an I/O adapter for futures-io
//! streams), feature `hyper`.
//!
//! **Why this module stays now that hyper-util works on our streams.** Our sockets
//! implement tokio's `AsyncRead`/`AsyncWrite`, so hyper-util's `TokioIo` is the I/O
//! adapter to use on them (it reads into hyper's uninitialized buffer with no zero-fill,
//! which `HyperIo` cannot do through futures-io). What hyper-util cannot supply is the
//! executor and the timer: its `TokioExecutor` calls `tokio::spawn` and its `TokioTimer`
//! uses tokio's timer, and both panic without a tokio runtime. So a server on this runtime
//! hands hyper [`HyperExecutor`] and [`HyperTimer`] (the one edit beyond the rename when
//! porting a hyper-util server):
//!
//! ```no_run
//! use hyper_util::rt::TokioIo;
//! use hyper_util::server::conn::auto::Builder;
//! use runtime::hyper_compat::{HyperExecutor, HyperTimer};
//! # async fn serve(stream: runtime::net::TcpStream) {
//! # let svc = hyper::service::service_fn(|_req| async {
//! #     Ok::<_, std::convert::Infallible>(hyper::Response::new(String::from("hi")))
//! # });
//! let mut builder = Builder::new(HyperExecutor);
//! builder.http1().timer(HyperTimer);
//! let _ = builder.serve_connection(TokioIo::new(stream), svc).await;
//! # }
//! ```
//!
//! [`HyperIo`] remains for streams that speak only futures-io (third-party types); on
//! this runtime's own types prefer `TokioIo`.
//!
//! - [`HyperIo`] wraps any `futures::io` stream (our `net::TcpStream`, a split half, ...)
//!   and implements hyper's `rt::Read` / `rt::Write`. hyper reads into uninitialized memory
//!   and `futures::io::AsyncRead` wants an initialized slice, so each read zero-fills the
//!   part of hyper's buffer it offers (at most `MAX_READ` bytes, a few dozen nanoseconds
//!   for the usual 8 KiB) and then tells hyper how many bytes arrived. Writes report
//!   `is_write_vectored() == false`, so hyper flattens a response's head and body into one
//!   buffer and writes it with one `write`.
//! - [`HyperExecutor`] spawns hyper's background futures with [`crate::spawn`].
//! - [`HyperTimer`] hands out the timers of [`crate::time::Sleep`]s boxed as `rt::Sleep`,
//!   and resets one in place (no new allocation) when hyper moves a deadline.
//!
//! With `HyperIo` (any futures-io stream) and hyper's own http1 builder:
//!
//! ```no_run
//! use runtime::hyper_compat::{HyperIo, HyperTimer};
//! # async fn serve(stream: runtime::net::TcpStream) {
//! let svc = hyper::service::service_fn(|_req| async {
//!     Ok::<_, std::convert::Infallible>(hyper::Response::new(String::from("Hello, World!")))
//! });
//! let _ = hyper::server::conn::http1::Builder::new()
//!     .timer(HyperTimer)
//!     .serve_connection(HyperIo::new(stream), svc)
//!     .await;
//! # }
//! ```

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant};

use futures_io::{AsyncRead, AsyncWrite};
use hyper::rt::{self, ReadBufCursor};

use crate::time::Delay;

/// Largest slice of hyper's buffer offered to one read (and zero-filled for it).
const MAX_READ: usize = 32 * 1024;

/// A `futures::io` stream seen through hyper's `rt::Read` / `rt::Write`.
#[derive(Debug)]
pub struct HyperIo<T> {
    inner: T,
}

impl<T> HyperIo<T> {
    /// Wraps `inner`.
    pub fn new(inner: T) -> HyperIo<T> {
        HyperIo { inner }
    }

    /// The wrapped stream.
    pub fn inner(&self) -> &T {
        &self.inner
    }

    /// The wrapped stream, mutably.
    pub fn inner_mut(&mut self) -> &mut T {
        &mut self.inner
    }

    /// Unwraps the stream.
    pub fn into_inner(self) -> T {
        self.inner
    }
}

impl<T: AsyncRead + Unpin> rt::Read for HyperIo<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        let want = buf.remaining().min(MAX_READ);
        let dst = buf.initialize_unfilled_to(want);
        let n = ready!(Pin::new(&mut self.get_mut().inner).poll_read(cx, dst))?;
        assert!(
            n <= want,
            "AsyncRead::poll_read reported more bytes than it was given"
        );
        // SAFETY: `initialize_unfilled_to(want)` initialized the first `want` unfilled bytes
        // (zeroed them, or they already were), and the reader wrote `n <= want` of them, so
        // `n` unfilled bytes are initialized, which is what `advance` requires.
        unsafe { buf.advance(n) };
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite + Unpin> rt::Write for HyperIo<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_close(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }
}

/// hyper's `rt::Executor` on this runtime: spawns with [`crate::spawn`] (so it must be used
/// from inside the runtime, as hyper does: from the connection's task).
#[derive(Debug, Clone, Copy, Default)]
pub struct HyperExecutor;

impl<F> rt::Executor<F> for HyperExecutor
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn execute(&self, fut: F) {
        // Detached: hyper tracks its background futures itself.
        drop(crate::spawn(fut));
    }
}

/// hyper's `rt::Timer` on this runtime's timer wheel (needs `Builder::enable_time()`).
#[derive(Debug, Clone, Copy, Default)]
pub struct HyperTimer;

/// A [`Sleep`]'s timer as hyper's `rt::Sleep` (the `Unpin` `Delay`: hyper boxes it).
#[derive(Debug)]
struct HyperSleep(Delay);

impl Future for HyperSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.get_mut().0.poll_budgeted(cx)
    }
}

impl rt::Sleep for HyperSleep {}

impl rt::Timer for HyperTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn rt::Sleep>> {
        Box::pin(HyperSleep(Delay::after(duration)))
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn rt::Sleep>> {
        Box::pin(HyperSleep(Delay::new(deadline.into())))
    }

    fn reset(&self, sleep: &mut Pin<Box<dyn rt::Sleep>>, new_deadline: Instant) {
        match sleep.as_mut().downcast_mut_pin::<HyperSleep>() {
            // `HyperSleep` is `Unpin`, so unpinning it is free.
            Some(ours) => ours.get_mut().0.reset(new_deadline.into()),
            None => *sleep = self.sleep_until(new_deadline),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rt::Timer as _;

    #[test]
    fn timer_sleeps_and_resets_in_place() {
        let rt = crate::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let timer = HyperTimer;
            let mut s = timer.sleep(Duration::from_secs(3600));
            let soon = Instant::now() + Duration::from_millis(5);
            timer.reset(&mut s, soon);
            assert!(s.as_mut().downcast_mut_pin::<HyperSleep>().is_some());
            s.await;
            assert!(Instant::now() >= soon, "never early");
        });
    }
}
