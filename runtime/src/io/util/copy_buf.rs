//! [`copy_buf`]: everything from an [`AsyncBufRead`] into a writer, straight from the
//! reader's own buffer (no buffer of ours).
//!
//! Each round takes the reader's buffered bytes, writes some of them and consumes what
//! was written. An empty buffer is end of file: the writer is flushed and the copy ends
//! with the byte count. A reader that is `Pending` flushes the writer first if it wrote
//! since the last flush. A write of 0 bytes is a `WriteZero` error; `Interrupted` errors
//! are retried. Each poll asks our cooperative budget for one unit, kept only when the
//! reader made progress, as `copy` does.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::io::{AsyncBufRead, AsyncWrite};
use crate::task::coop;

/// The future of [`copy_buf`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
struct CopyBuf<'a, R: ?Sized, W: ?Sized> {
    reader: &'a mut R,
    writer: &'a mut W,
    amt: u64,
    need_flush: bool,
}

impl<R, W> Future for CopyBuf<'_, R, W>
where
    R: AsyncBufRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    type Output = io::Result<u64>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let budget = ready!(coop::poll_proceed(cx));
        let me = self.get_mut();
        loop {
            let available = match Pin::new(&mut *me.reader).poll_fill_buf(cx) {
                Poll::Ready(Ok(available)) => {
                    budget.made_progress();
                    available
                }
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Poll::Ready(Err(e)) => {
                    budget.made_progress();
                    return Poll::Ready(Err(e));
                }
                Poll::Pending => {
                    if me.need_flush {
                        ready!(Pin::new(&mut *me.writer).poll_flush(cx))?;
                        me.need_flush = false;
                    }
                    return Poll::Pending;
                }
            };
            if available.is_empty() {
                ready!(Pin::new(&mut *me.writer).poll_flush(cx))?;
                return Poll::Ready(Ok(me.amt));
            }
            let n = match ready!(Pin::new(&mut *me.writer).poll_write(cx, available)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                res => res?,
            };
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            me.amt += n as u64;
            me.need_flush = true;
            Pin::new(&mut *me.reader).consume(n);
        }
    }
}

/// Copies everything from a buffered `reader` into `writer`, then flushes `writer`;
/// resolves to the number of bytes copied. Like tokio's `copy_buf`; it does not shut
/// `writer` down.
///
/// ```
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut out = Vec::new();
/// let n = runtime::io::copy_buf(&mut &b"bytes"[..], &mut out).await?;
/// assert_eq!((n, &out[..]), (5, &b"bytes"[..]));
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub async fn copy_buf<'a, R, W>(reader: &'a mut R, writer: &'a mut W) -> io::Result<u64>
where
    R: AsyncBufRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    CopyBuf {
        reader,
        writer,
        amt: 0,
        need_flush: false,
    }
    .await
}
