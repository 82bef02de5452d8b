//! [`BufStream`]: a stream buffered both ways, a [`BufReader`] over a [`BufWriter`] over
//! the stream, each side with its own buffer.
//!
//! Reads go through the reader's buffer, writes through the writer's; every trait method
//! forwards to the composed pair. `inner` is structurally pinned. A
//! `BufWriter<BufReader<RW>>` converts too, by swapping the layers (buffers and states
//! kept).

use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::{BufReader, BufWriter};
use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

/// Buffers both reads and writes of a stream: tokio's `BufStream`. Flush it before
/// dropping it, or buffered writes are lost.
///
/// ```
/// use runtime::io::{AsyncReadExt, AsyncWriteExt, BufStream};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let (a, mut b) = runtime::io::duplex(64);
/// let mut s = BufStream::new(a);
/// s.write_all(b"ping").await?;
/// s.flush().await?;
/// let mut got = [0; 4];
/// b.read_exact(&mut got).await?;
/// assert_eq!(&got, b"ping");
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
#[derive(Debug)]
pub struct BufStream<RW> {
    inner: BufReader<BufWriter<RW>>,
}

impl<RW> BufStream<RW> {
    fn inner(self: Pin<&mut Self>) -> Pin<&mut BufReader<BufWriter<RW>>> {
        // SAFETY: `inner` is structurally pinned: only ever handed out pinned from a
        // pinned `self`, never moved out of a pinned `self`, and `BufStream` has no `Drop`
        // impl; it is `Unpin` only when `inner` is (auto trait).
        unsafe { self.map_unchecked_mut(|s| &mut s.inner) }
    }
}

impl<RW: AsyncRead + AsyncWrite> BufStream<RW> {
    /// A `BufStream` with default buffer sizes (8 KiB each way).
    pub fn new(stream: RW) -> BufStream<RW> {
        BufStream {
            inner: BufReader::new(BufWriter::new(stream)),
        }
    }

    /// A `BufStream` with the given buffer sizes.
    ///
    /// # Panics
    ///
    /// If `reader_capacity` is 0 ("capacity must be greater than zero").
    #[track_caller]
    pub fn with_capacity(
        reader_capacity: usize,
        writer_capacity: usize,
        stream: RW,
    ) -> BufStream<RW> {
        BufStream {
            inner: BufReader::with_capacity(
                reader_capacity,
                BufWriter::with_capacity(writer_capacity, stream),
            ),
        }
    }

    /// The stream.
    pub fn get_ref(&self) -> &RW {
        self.inner.get_ref().get_ref()
    }

    /// The stream, mutably. Using it directly bypasses both buffers.
    pub fn get_mut(&mut self) -> &mut RW {
        self.inner.get_mut().get_mut()
    }

    /// The stream, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut RW> {
        self.inner().get_pin_mut().get_pin_mut()
    }

    /// The stream; buffered bytes both ways are lost.
    pub fn into_inner(self) -> RW {
        self.inner.into_inner().into_inner()
    }
}

impl<RW> From<BufReader<BufWriter<RW>>> for BufStream<RW> {
    fn from(b: BufReader<BufWriter<RW>>) -> Self {
        BufStream { inner: b }
    }
}

impl<RW> From<BufWriter<BufReader<RW>>> for BufStream<RW> {
    fn from(b: BufWriter<BufReader<RW>>) -> Self {
        let BufWriter {
            inner: reader,
            buf: wbuf,
            written,
            seek_state: wseek,
        } = b;
        let BufReader {
            inner: stream,
            buf: rbuf,
            pos,
            cap,
            seek_state: rseek,
        } = reader;
        BufStream {
            inner: BufReader {
                inner: BufWriter {
                    inner: stream,
                    buf: wbuf,
                    written,
                    seek_state: wseek,
                },
                buf: rbuf,
                pos,
                cap,
                seek_state: rseek,
            },
        }
    }
}

impl<RW: AsyncRead + AsyncWrite> AsyncWrite for BufStream<RW> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.inner().poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.inner().poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.inner().poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.inner().poll_shutdown(cx)
    }
}

impl<RW: AsyncRead + AsyncWrite> AsyncRead for BufStream<RW> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.inner().poll_read(cx, buf)
    }
}

impl<RW: AsyncRead + AsyncWrite + AsyncSeek> AsyncSeek for BufStream<RW> {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        self.inner().start_seek(position)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        self.inner().poll_complete(cx)
    }
}

impl<RW: AsyncRead + AsyncWrite> AsyncBufRead for BufStream<RW> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.inner().poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.inner().consume(amt)
    }
}
