//! Read and write halves of a stream socket, generated for `TcpStream` and `UnixStream`.
//!
//! Each half speaks both trait families: tokio's `AsyncRead`/`AsyncWrite` (where
//! `poll_shutdown` is futures-io's `poll_close`) and futures-io's.
//!
//! A stream's read side and write side wait on different directions of the same
//! registration (one waker each), so a read half and a write half can be driven by two
//! tasks at once with no lock. The borrowed halves (`split`) hold `&Stream`; the owned
//! halves (`into_split`) share an `Arc<Stream>` and can be `reunite`d. Closing a write half
//! (`poll_close`) shuts down the write direction so the peer reads EOF; dropping an
//! `OwnedWriteHalf` does the same unless it was `forget`-ed (tokio's behaviour).
//!
//! The macro expects the stream type to have inherent `poll_read`, `poll_read_vectored`,
//! `poll_read_buf`, `poll_write`, `poll_write_vectored`, `shutdown_std`, `local_addr`,
//! `peer_addr`, `readable`, `writable`, `ready`, `try_read` and `try_write`, with the same
//! signatures for both.

macro_rules! stream_halves {
    ($stream:ident, $addr:ty, $name:literal) => {
        use std::fmt;
        use std::io::{self, IoSlice, IoSliceMut};
        use std::net::Shutdown;
        use std::pin::Pin;
        use std::task::{Context, Poll};

        use shim::sync::Arc;

        #[doc = concat!("Borrowed read half of a [`", $name, "`], from [`", $name, "::split`].")]
        #[derive(Debug)]
        pub struct ReadHalf<'a>(&'a $stream);

        #[doc = concat!("Borrowed write half of a [`", $name, "`], from [`", $name, "::split`].")]
        #[doc = ""]
        #[doc = "`poll_close` shuts down the stream's write direction."]
        #[derive(Debug)]
        pub struct WriteHalf<'a>(&'a $stream);

        #[doc = concat!("Owned read half of a [`", $name, "`], from [`", $name, "::into_split`].")]
        #[derive(Debug)]
        pub struct OwnedReadHalf {
            inner: Arc<$stream>,
        }

        #[doc = concat!("Owned write half of a [`", $name, "`], from [`", $name, "::into_split`].")]
        #[doc = ""]
        #[doc = "Dropping it (or `poll_close`) shuts down the write direction, unless it was"]
        #[doc = "[`forget`](OwnedWriteHalf::forget)-ed."]
        #[derive(Debug)]
        pub struct OwnedWriteHalf {
            inner: Arc<$stream>,
            shutdown_on_drop: bool,
        }

        /// Returned by `reunite` when the two halves come from different streams.
        #[derive(Debug)]
        pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

        impl fmt::Display for ReuniteError {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("tried to reunite halves that are not from the same socket")
            }
        }

        impl std::error::Error for ReuniteError {}

        pub(crate) fn split(stream: &mut $stream) -> (ReadHalf<'_>, WriteHalf<'_>) {
            (ReadHalf(stream), WriteHalf(stream))
        }

        pub(crate) fn split_owned(stream: $stream) -> (OwnedReadHalf, OwnedWriteHalf) {
            let inner = Arc::new(stream);
            (
                OwnedReadHalf {
                    inner: inner.clone(),
                },
                OwnedWriteHalf {
                    inner,
                    shutdown_on_drop: true,
                },
            )
        }

        fn reunite(read: OwnedReadHalf, write: OwnedWriteHalf) -> Result<$stream, ReuniteError> {
            if !Arc::ptr_eq(&read.inner, &write.inner) {
                return Err(ReuniteError(read, write));
            }
            let mut write = write;
            write.shutdown_on_drop = false;
            drop(write);
            Ok(Arc::try_unwrap(read.inner)
                .expect("both halves were given up, so this is the last reference"))
        }

        impl ReadHalf<'_> {
            /// The remote address.
            pub fn peer_addr(&self) -> io::Result<$addr> {
                self.0.peer_addr()
            }
            /// The local address.
            pub fn local_addr(&self) -> io::Result<$addr> {
                self.0.local_addr()
            }
            /// Waits until the stream may be readable (see the stream's `readable`).
            pub async fn readable(&self) -> io::Result<()> {
                self.0.readable().await
            }
            /// Reads without waiting (see the stream's `try_read`).
            pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
                self.0.try_read(buf)
            }
            /// Reads without waiting into a `BufMut` (see the stream's `try_read_buf`).
            pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
                self.0.try_read_buf(buf)
            }
            /// Waits for any of `interest` (see the stream's `ready`).
            pub async fn ready(
                &self,
                interest: crate::io::Interest,
            ) -> io::Result<crate::io::Ready> {
                self.0.ready(interest).await
            }
        }

        impl WriteHalf<'_> {
            /// The remote address.
            pub fn peer_addr(&self) -> io::Result<$addr> {
                self.0.peer_addr()
            }
            /// The local address.
            pub fn local_addr(&self) -> io::Result<$addr> {
                self.0.local_addr()
            }
            /// Waits until the stream may be writable (see the stream's `writable`).
            pub async fn writable(&self) -> io::Result<()> {
                self.0.writable().await
            }
            /// Writes without waiting (see the stream's `try_write`).
            pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
                self.0.try_write(buf)
            }
            /// Waits for any of `interest` (see the stream's `ready`).
            pub async fn ready(
                &self,
                interest: crate::io::Interest,
            ) -> io::Result<crate::io::Ready> {
                self.0.ready(interest).await
            }
        }

        impl OwnedReadHalf {
            /// Puts the stream back together; fails if `other` is another stream's half.
            pub fn reunite(self, other: OwnedWriteHalf) -> Result<$stream, ReuniteError> {
                reunite(self, other)
            }
            /// The remote address.
            pub fn peer_addr(&self) -> io::Result<$addr> {
                self.inner.peer_addr()
            }
            /// The local address.
            pub fn local_addr(&self) -> io::Result<$addr> {
                self.inner.local_addr()
            }
            /// Waits until the stream may be readable (see the stream's `readable`).
            pub async fn readable(&self) -> io::Result<()> {
                self.inner.readable().await
            }
            /// Reads without waiting (see the stream's `try_read`).
            pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
                self.inner.try_read(buf)
            }
            /// Reads without waiting into a `BufMut` (see the stream's `try_read_buf`).
            pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
                self.inner.try_read_buf(buf)
            }
            /// Waits for any of `interest` (see the stream's `ready`).
            pub async fn ready(
                &self,
                interest: crate::io::Interest,
            ) -> io::Result<crate::io::Ready> {
                self.inner.ready(interest).await
            }
        }

        impl OwnedWriteHalf {
            /// Puts the stream back together; fails if `other` is another stream's half.
            pub fn reunite(self, other: OwnedReadHalf) -> Result<$stream, ReuniteError> {
                reunite(other, self)
            }
            /// Drops the half without shutting down the write direction.
            pub fn forget(mut self) {
                self.shutdown_on_drop = false;
            }
            /// The remote address.
            pub fn peer_addr(&self) -> io::Result<$addr> {
                self.inner.peer_addr()
            }
            /// The local address.
            pub fn local_addr(&self) -> io::Result<$addr> {
                self.inner.local_addr()
            }
            /// Waits until the stream may be writable (see the stream's `writable`).
            pub async fn writable(&self) -> io::Result<()> {
                self.inner.writable().await
            }
            /// Writes without waiting (see the stream's `try_write`).
            pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
                self.inner.try_write(buf)
            }
            /// Waits for any of `interest` (see the stream's `ready`).
            pub async fn ready(
                &self,
                interest: crate::io::Interest,
            ) -> io::Result<crate::io::Ready> {
                self.inner.ready(interest).await
            }
        }

        impl Drop for OwnedWriteHalf {
            fn drop(&mut self) {
                if self.shutdown_on_drop {
                    // The peer may already be gone (ENOTCONN): nothing left to tell it.
                    let _ = self.inner.shutdown_std(Shutdown::Write);
                }
            }
        }

        impl AsRef<$stream> for ReadHalf<'_> {
            fn as_ref(&self) -> &$stream {
                self.0
            }
        }
        impl AsRef<$stream> for WriteHalf<'_> {
            fn as_ref(&self) -> &$stream {
                self.0
            }
        }
        impl AsRef<$stream> for OwnedReadHalf {
            fn as_ref(&self) -> &$stream {
                &self.inner
            }
        }
        impl AsRef<$stream> for OwnedWriteHalf {
            fn as_ref(&self) -> &$stream {
                &self.inner
            }
        }

        impl crate::io::AsyncRead for ReadHalf<'_> {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut crate::io::ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                self.0.poll_read_buf(cx, buf)
            }
        }

        impl crate::io::AsyncRead for OwnedReadHalf {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut crate::io::ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                self.inner.poll_read_buf(cx, buf)
            }
        }

        impl crate::io::AsyncWrite for WriteHalf<'_> {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.0.poll_write(cx, buf)
            }
            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                self.0.poll_write_vectored(cx, bufs)
            }
            fn is_write_vectored(&self) -> bool {
                true
            }
            fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(Ok(()))
            }
            fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(self.0.shutdown_std(Shutdown::Write))
            }
        }

        impl crate::io::AsyncWrite for OwnedWriteHalf {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.inner.poll_write(cx, buf)
            }
            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                self.inner.poll_write_vectored(cx, bufs)
            }
            fn is_write_vectored(&self) -> bool {
                true
            }
            fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(Ok(()))
            }
            fn poll_shutdown(
                mut self: Pin<&mut Self>,
                _: &mut Context<'_>,
            ) -> Poll<io::Result<()>> {
                let res = self.inner.shutdown_std(Shutdown::Write);
                if res.is_ok() {
                    self.shutdown_on_drop = false;
                }
                Poll::Ready(res)
            }
        }

        impl futures_io::AsyncRead for ReadHalf<'_> {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut [u8],
            ) -> Poll<io::Result<usize>> {
                self.0.poll_read(cx, buf)
            }
            fn poll_read_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &mut [IoSliceMut<'_>],
            ) -> Poll<io::Result<usize>> {
                self.0.poll_read_vectored(cx, bufs)
            }
        }

        impl futures_io::AsyncRead for OwnedReadHalf {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut [u8],
            ) -> Poll<io::Result<usize>> {
                self.inner.poll_read(cx, buf)
            }
            fn poll_read_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &mut [IoSliceMut<'_>],
            ) -> Poll<io::Result<usize>> {
                self.inner.poll_read_vectored(cx, bufs)
            }
        }

        impl futures_io::AsyncWrite for WriteHalf<'_> {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.0.poll_write(cx, buf)
            }
            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                self.0.poll_write_vectored(cx, bufs)
            }
            fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(Ok(()))
            }
            fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(self.0.shutdown_std(Shutdown::Write))
            }
        }

        impl futures_io::AsyncWrite for OwnedWriteHalf {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.inner.poll_write(cx, buf)
            }
            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                self.inner.poll_write_vectored(cx, bufs)
            }
            fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(Ok(()))
            }
            fn poll_close(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                let res = self.inner.shutdown_std(Shutdown::Write);
                if res.is_ok() {
                    self.shutdown_on_drop = false;
                }
                Poll::Ready(res)
            }
        }
    };
}

pub(crate) use stream_halves;
