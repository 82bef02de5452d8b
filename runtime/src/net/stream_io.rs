//! `poll_read`/`poll_write`, readiness, `try_*` and futures-io methods shared by `TcpStream` and `UnixStream`.
//!
//! Both streams are an `IoSource` over a mio stream socket; these methods only forward to
//! it, so one macro writes them for both (as `split::stream_halves!` does for the halves).
//! Each read or write spends coop budget and clears only the readiness it saw.

macro_rules! stream_io {
    ($stream:ident) => {
        impl $stream {
            /// Reads into `buf`, registering the task to wake when readable if nothing is there.
            /// `Ok(0)` means EOF (or an empty `buf`).
            pub fn poll_read(
                &self,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut [u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.io.poll_read(cx, buf)
            }

            /// Vectored [`Self::poll_read`].
            pub fn poll_read_vectored(
                &self,
                cx: &mut ::std::task::Context<'_>,
                bufs: &mut [::std::io::IoSliceMut<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.io.poll_read_vectored(cx, bufs)
            }

            /// Writes from `buf`, registering the task to wake when writable if the socket is full.
            pub fn poll_write(
                &self,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.io.poll_write(cx, buf)
            }

            /// Vectored [`Self::poll_write`].
            pub fn poll_write_vectored(
                &self,
                cx: &mut ::std::task::Context<'_>,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.io.poll_write_vectored(cx, bufs)
            }

            /// Waits until the stream may be readable (readiness can be spurious: follow with
            /// [`Self::try_read`] and loop on `WouldBlock`). Only one task at a time may wait
            /// for readability of one stream.
            pub async fn readable(&self) -> ::std::io::Result<()> {
                ::std::future::poll_fn(|cx| self.poll_read_ready(cx)).await
            }

            /// Polls for read readiness (see [`Self::readable`]).
            pub fn poll_read_ready(
                &self,
                cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                self.io
                    .poll_ready_recorded(cx, ::io_driver::Direction::Read)
            }

            /// Waits until the stream may be writable (see [`Self::readable`]).
            pub async fn writable(&self) -> ::std::io::Result<()> {
                ::std::future::poll_fn(|cx| self.poll_write_ready(cx)).await
            }

            /// Polls for write readiness (see [`Self::writable`]).
            pub fn poll_write_ready(
                &self,
                cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                self.io
                    .poll_ready_recorded(cx, ::io_driver::Direction::Write)
            }

            /// Reads without waiting: `WouldBlock` when no data is there (and the readiness seen by
            /// the last `readable()` is cleared, so the next one waits for new data).
            pub fn try_read(&self, buf: &mut [u8]) -> ::std::io::Result<usize> {
                self.io.try_io(::io_driver::Direction::Read, |mut s| {
                    ::std::io::Read::read(&mut s, buf)
                })
            }

            /// Vectored [`Self::try_read`].
            pub fn try_read_vectored(
                &self,
                bufs: &mut [::std::io::IoSliceMut<'_>],
            ) -> ::std::io::Result<usize> {
                self.io.try_io(::io_driver::Direction::Read, |mut s| {
                    ::std::io::Read::read_vectored(&mut s, bufs)
                })
            }

            /// Writes without waiting: `WouldBlock` when the socket buffer is full.
            pub fn try_write(&self, buf: &[u8]) -> ::std::io::Result<usize> {
                self.io.try_io(::io_driver::Direction::Write, |mut s| {
                    ::std::io::Write::write(&mut s, buf)
                })
            }

            /// Vectored [`Self::try_write`].
            pub fn try_write_vectored(
                &self,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::io::Result<usize> {
                self.io.try_io(::io_driver::Direction::Write, |mut s| {
                    ::std::io::Write::write_vectored(&mut s, bufs)
                })
            }
        }

        impl ::futures::io::AsyncRead for $stream {
            fn poll_read(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut [u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.io.poll_read(cx, buf)
            }

            fn poll_read_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &mut [::std::io::IoSliceMut<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.io.poll_read_vectored(cx, bufs)
            }
        }

        impl ::futures::io::AsyncWrite for $stream {
            fn poll_write(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.io.poll_write(cx, buf)
            }

            fn poll_write_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.io.poll_write_vectored(cx, bufs)
            }

            fn poll_flush(
                self: ::std::pin::Pin<&mut Self>,
                _: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                // Writes go straight to the kernel: nothing is buffered here.
                ::std::task::Poll::Ready(Ok(()))
            }

            fn poll_close(
                self: ::std::pin::Pin<&mut Self>,
                _: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                ::std::task::Poll::Ready(self.shutdown(::std::net::Shutdown::Write))
            }
        }
    };
}

pub(crate) use stream_io;
