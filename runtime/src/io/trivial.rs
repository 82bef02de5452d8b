//! [`empty`], [`sink`] and [`repeat`]: readers and writers that never wait.
//!
//! They are ours rather than tokio's re-exported because they never return `Pending` on
//! their own: a loop over one (`copy(&mut repeat(0), &mut sink())` under a `timeout`)
//! would hold its worker forever. tokio's spend tokio's coop budget, which does nothing
//! without a tokio runtime, so each operation here spends one unit of *our* budget
//! instead: once the task's budget is spent the operation returns `Pending` (after waking
//! the task), and the worker runs others. Each speaks both trait families.

use std::io::{self, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::io::ReadBuf;

use crate::coop::poll_proceed;

/// A reader that is always at EOF and a writer that accepts and drops everything.
///
/// ```
/// use runtime::io::{self, AsyncReadExt, AsyncWriteExt};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut buf = Vec::new();
/// io::empty().read_to_end(&mut buf).await?;
/// assert!(buf.is_empty());
/// assert_eq!(io::empty().write(b"dropped").await?, 7);
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct Empty {
    _p: (),
}

/// A reader at EOF that also accepts (and drops) every write; see [`Empty`].
pub fn empty() -> Empty {
    Empty { _p: () }
}

/// A writer that accepts and drops everything.
///
/// ```
/// use runtime::io::{self, AsyncWriteExt};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let n = io::copy(&mut &b"gone"[..], &mut io::sink()).await?;
/// assert_eq!(n, 4);
/// io::sink().flush().await?;
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct Sink {
    _p: (),
}

/// A writer that drops everything; see [`Sink`].
pub fn sink() -> Sink {
    Sink { _p: () }
}

/// A reader that yields one byte over and over.
///
/// ```
/// use runtime::io::{self, AsyncReadExt};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut buf = [0; 3];
/// io::repeat(7).read_exact(&mut buf).await?;
/// assert_eq!(buf, [7, 7, 7]);
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Repeat {
    byte: u8,
}

/// A reader of endless `byte`s; see [`Repeat`].
pub fn repeat(byte: u8) -> Repeat {
    Repeat { byte }
}

impl crate::io::AsyncRead for Empty {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        _: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        ready!(poll_proceed(cx));
        Poll::Ready(Ok(()))
    }
}

impl crate::io::AsyncBufRead for Empty {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        ready!(poll_proceed(cx));
        Poll::Ready(Ok(&[]))
    }
    fn consume(self: Pin<&mut Self>, _: usize) {}
}

impl crate::io::AsyncSeek for Empty {
    fn start_seek(self: Pin<&mut Self>, _: SeekFrom) -> io::Result<()> {
        Ok(())
    }
    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        ready!(poll_proceed(cx));
        Poll::Ready(Ok(0))
    }
}

/// The writer side shared by `Empty` and `Sink`: every byte is accepted.
macro_rules! drop_writes {
    ($ty:ty) => {
        impl crate::io::AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                ready!(poll_proceed(cx));
                Poll::Ready(Ok(buf.len()))
            }
            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[io::IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                ready!(poll_proceed(cx));
                Poll::Ready(Ok(bufs.iter().map(|b| b.len()).sum()))
            }
            fn is_write_vectored(&self) -> bool {
                true
            }
            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                ready!(poll_proceed(cx));
                Poll::Ready(Ok(()))
            }
            fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                ready!(poll_proceed(cx));
                Poll::Ready(Ok(()))
            }
        }

        impl futures_io::AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                crate::io::AsyncWrite::poll_write(self, cx, buf)
            }
            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[io::IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                crate::io::AsyncWrite::poll_write_vectored(self, cx, bufs)
            }
            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                crate::io::AsyncWrite::poll_flush(self, cx)
            }
            fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                crate::io::AsyncWrite::poll_shutdown(self, cx)
            }
        }
    };
}

drop_writes!(Empty);
drop_writes!(Sink);

impl futures_io::AsyncRead for Empty {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        _: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        ready!(poll_proceed(cx));
        Poll::Ready(Ok(0))
    }
}

impl futures_io::AsyncBufRead for Empty {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        crate::io::AsyncBufRead::poll_fill_buf(self, cx)
    }
    fn consume(self: Pin<&mut Self>, _: usize) {}
}

impl crate::io::AsyncRead for Repeat {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        ready!(poll_proceed(cx));
        let n = buf.remaining();
        buf.initialize_unfilled_to(n).fill(self.byte);
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl futures_io::AsyncRead for Repeat {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        ready!(poll_proceed(cx));
        buf.fill(self.byte);
        Poll::Ready(Ok(buf.len()))
    }
}
