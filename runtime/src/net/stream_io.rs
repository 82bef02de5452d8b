//! `poll_read`/`poll_write`, readiness, `try_*` and both I/O trait families (tokio's and
//! futures-io) shared by `TcpStream` and `UnixStream`.
//!
//! Both streams are an `IoSource` over a mio stream socket; these methods only forward to
//! it, so one macro writes them for both (as `split::stream_halves!` does for the halves).
//! Each read or write spends coop budget and clears only the readiness it saw.
//!
//! tokio's `AsyncRead` hands us a `ReadBuf` whose tail may be uninitialized.
//! [`poll_read_buf`] reads into that tail on the raw descriptor (no zero-filling, no
//! intermediate buffer) with the caller's reader: `recv(2)` for the sockets
//! ([`recv_uninit`]: it skips the file layer `read(2)` goes through, its permission hook and
//! its access notification, about 85 ns of kernel time per call measured on a
//! would-block read), `read(2)` for pipes ([`read_uninit`]), then marks the bytes the kernel wrote as
//! initialized and filled: the part that was already initialized stays so (`ReadBuf`
//! tracks the larger of the two), and nothing past `n` is claimed. The readiness
//! handling is `IoSource::poll_transfer`'s, the same as for the futures-io path, so a
//! short read clears readiness in both.

use std::io;
use std::mem::MaybeUninit;
use std::task::{ready, Context, Poll};

use crate::io::ReadBuf;
use io_driver::Direction;
use mio::event::Source;

use crate::io::io_source::IoSource;
use crate::net::buf_io::Reader;

/// Reads from `io` with `reader` into the unfilled part of `buf` (waiting for readiness,
/// spending one unit of coop budget), advancing `buf.filled()` by the bytes read; none
/// means EOF.
pub(crate) fn poll_read_buf<S>(
    io: &IoSource<S>,
    cx: &mut Context<'_>,
    buf: &mut ReadBuf<'_>,
    reader: Reader,
) -> Poll<io::Result<()>>
where
    S: Source + std::os::fd::AsRawFd,
{
    if buf.remaining() == 0 {
        // Nothing to read into: a zero-length read would tell nothing (and tokio's
        // contract lets us return at once).
        return Poll::Ready(Ok(()));
    }
    // SAFETY: we only hand this memory to read(2) or recv(2), which write to it and never
    // read it, and below claim as initialized exactly the bytes reported written.
    let unfilled: &mut [MaybeUninit<u8>] = unsafe { buf.unfilled_mut() };
    let (ptr, len) = (unfilled.as_mut_ptr(), unfilled.len());
    let n = ready!(io.poll_transfer(cx, Direction::Read, len, |s| {
        reader(s.as_raw_fd(), ptr, len)
    }))?;
    // SAFETY: the reader initialized the first `n` bytes of the unfilled part.
    unsafe { buf.assume_init(n) };
    buf.advance(n);
    Poll::Ready(Ok(()))
}

/// One `read(2)` of at most `len` bytes from `fd` (a pipe or any descriptor) into `ptr`,
/// retried on `EINTR`.
pub(crate) fn read_uninit(
    fd: std::os::fd::RawFd,
    ptr: *mut MaybeUninit<u8>,
    len: usize,
) -> io::Result<usize> {
    // SAFETY: `ptr..ptr+len` is writable memory the caller lends for this call (the
    // unfilled part of a live `ReadBuf`, or a buffer's spare capacity) and `fd` is open.
    retry_interrupted(len, |len| unsafe { libc::read(fd, ptr.cast(), len) })
}

/// One `recv(2)` (no flags) of at most `len` bytes from the socket `fd` into `ptr`,
/// retried on `EINTR`.
pub(crate) fn recv_uninit(
    fd: std::os::fd::RawFd,
    ptr: *mut MaybeUninit<u8>,
    len: usize,
) -> io::Result<usize> {
    // SAFETY: as `read_uninit`'s, and `fd` is an open socket.
    retry_interrupted(len, |len| unsafe { libc::recv(fd, ptr.cast(), len, 0) })
}

/// Runs `call` (a read of at most its argument's bytes) until it is not interrupted;
/// `len` is clamped to `isize::MAX` first (a larger read is unspecified; std clamps too).
fn retry_interrupted(len: usize, mut call: impl FnMut(usize) -> isize) -> io::Result<usize> {
    let len = len.min(isize::MAX as usize);
    loop {
        let ret = call(len);
        if ret >= 0 {
            return Ok(ret as usize);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// `stream_io!(Stream)` writes the methods over `self.io`; `stream_io!(Stream, s)` also
/// opens each with `on_sim!(self.io, |s| ..)` for a stream whose `io` can be in memory
/// (`net::sim_hooks`).
macro_rules! stream_io {
    ($stream:ident $(, $s:ident)?) => {
        impl $stream {
            /// Reads into `buf`, registering the task to wake when readable if nothing is there.
            /// `Ok(0)` means EOF (or an empty `buf`).
            pub fn poll_read(
                &self,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut [u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                $( on_sim!(self.io, |$s| $s.read_slice(Some(cx), buf, false)); )?
                self.io.poll_read(cx, buf)
            }

            /// Vectored [`Self::poll_read`].
            pub fn poll_read_vectored(
                &self,
                cx: &mut ::std::task::Context<'_>,
                bufs: &mut [::std::io::IoSliceMut<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                $( on_sim!(self.io, |$s| $s.read_vectored(Some(cx), bufs)); )?
                self.io.poll_read_vectored(cx, bufs)
            }

            /// Writes from `buf`, registering the task to wake when writable if the socket is full.
            pub fn poll_write(
                &self,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                $( on_sim!(self.io, |$s| $s.write_slice(Some(cx), buf)); )?
                self.io.poll_write(cx, buf)
            }

            /// Vectored [`Self::poll_write`].
            pub fn poll_write_vectored(
                &self,
                cx: &mut ::std::task::Context<'_>,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                $( on_sim!(self.io, |$s| $s.write_vectored(Some(cx), bufs)); )?
                self.io.poll_write_vectored(cx, bufs)
            }

            /// Waits until the stream may be readable (readiness can be spurious: follow with
            /// [`Self::try_read`] and loop on `WouldBlock`). Several tasks may wait at once.
            pub async fn readable(&self) -> ::std::io::Result<()> {
                $( on_sim!(self.io, |$s| ::std::future::poll_fn(|cx| $s.poll_ready(cx, crate::io::Interest::READABLE, false).map_ok(drop)).await); )?
                ::std::future::poll_fn(|cx| {
                    self.io
                        .poll_ready_unbudgeted(cx, ::io_driver::Direction::Read)
                })
                .await
            }

            /// Polls for read readiness (see [`Self::readable`]).
            pub fn poll_read_ready(
                &self,
                cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                $( on_sim!(self.io, |$s| $s.poll_ready(cx, crate::io::Interest::READABLE, true).map_ok(drop)); )?
                self.io
                    .poll_ready_recorded(cx, ::io_driver::Direction::Read)
            }

            /// Waits until the stream may be writable (see [`Self::readable`]).
            pub async fn writable(&self) -> ::std::io::Result<()> {
                $( on_sim!(self.io, |$s| ::std::future::poll_fn(|cx| $s.poll_ready(cx, crate::io::Interest::WRITABLE, false).map_ok(drop)).await); )?
                ::std::future::poll_fn(|cx| {
                    self.io
                        .poll_ready_unbudgeted(cx, ::io_driver::Direction::Write)
                })
                .await
            }

            /// Waits until the stream is ready for any of `interest` and says which, as
            /// tokio's: readable is readable or read-closed, writable is writable or
            /// write-closed, error and priority are theirs, so a hang-up shows as
            /// `is_read_closed()` and a pending error as `is_error()`. Readiness can be
            /// spurious: follow with `try_read`/`try_write` and loop on `WouldBlock`.
            pub async fn ready(
                &self,
                interest: crate::io::Interest,
            ) -> ::std::io::Result<crate::io::Ready> {
                $( on_sim!(self.io, |$s| ::std::future::poll_fn(|cx| $s.poll_ready(cx, interest, false)).await); )?
                ::std::future::poll_fn(|cx| self.io.poll_ready_interest(cx, interest)).await
            }

            /// Polls for write readiness (see [`Self::writable`]).
            pub fn poll_write_ready(
                &self,
                cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                $( on_sim!(self.io, |$s| $s.poll_ready(cx, crate::io::Interest::WRITABLE, true).map_ok(drop)); )?
                self.io
                    .poll_ready_recorded(cx, ::io_driver::Direction::Write)
            }

            /// Reads without waiting: `WouldBlock` when no data is there (and the readiness seen by
            /// the last `readable()` is cleared, so the next one waits for new data).
            pub fn try_read(&self, buf: &mut [u8]) -> ::std::io::Result<usize> {
                $( on_sim!(self.io, |$s| crate::sim::net::done($s.read_slice(None, buf, false))); )?
                self.io.try_io(::io_driver::Direction::Read, |mut s| {
                    ::std::io::Read::read(&mut s, buf)
                })
            }

            /// Vectored [`Self::try_read`].
            pub fn try_read_vectored(
                &self,
                bufs: &mut [::std::io::IoSliceMut<'_>],
            ) -> ::std::io::Result<usize> {
                $( on_sim!(self.io, |$s| crate::sim::net::done($s.read_vectored(None, bufs))); )?
                self.io.try_io(::io_driver::Direction::Read, |mut s| {
                    ::std::io::Read::read_vectored(&mut s, bufs)
                })
            }

            /// Reads without waiting into `buf`'s spare capacity (a `bytes::BufMut`, e.g. a
            /// `Vec<u8>` or `BytesMut`), advancing it by the bytes read; `Ok(0)` is EOF (or
            /// a buffer with no room). `WouldBlock` as [`Self::try_read`].
            pub fn try_read_buf<B: ::bytes::BufMut>(
                &self,
                buf: &mut B,
            ) -> ::std::io::Result<usize> {
                $( on_sim!(self.io, |$s| $s.try_read_buf(buf)); )?
                self.io.try_io(::io_driver::Direction::Read, |s| {
                    crate::net::buf_io::read_buf(
                        ::std::os::fd::AsRawFd::as_raw_fd(s),
                        buf,
                        crate::net::stream_io::recv_uninit,
                    )
                })
            }

            /// Runs a user-provided I/O operation (on the raw descriptor) without waiting,
            /// as tokio's: `WouldBlock` at once, without calling `f`, when the driver holds
            /// no readiness `interest` covers; a `WouldBlock` from `f` clears that
            /// readiness, so the next wait waits for a new event. Use one direction per
            /// call.
            pub fn try_io<R>(
                &self,
                interest: crate::io::Interest,
                f: impl FnOnce() -> ::std::io::Result<R>,
            ) -> ::std::io::Result<R> {
                $( on_sim!(self.io, |$s| $s.try_io(interest, f)); )?
                self.io.try_io_interest(interest, f)
            }

            /// Waits for readiness `interest` covers and runs `f`, again after each
            /// `WouldBlock` (which clears that readiness); returns any other result.
            pub async fn async_io<R>(
                &self,
                interest: crate::io::Interest,
                mut f: impl FnMut() -> ::std::io::Result<R>,
            ) -> ::std::io::Result<R> {
                $( on_sim!(self.io, |$s| ::std::future::poll_fn(|cx| $s.poll_io(cx, interest, &mut f)).await); )?
                ::std::future::poll_fn(|cx| self.io.poll_io_interest(cx, interest, &mut f)).await
            }

            /// Writes without waiting: `WouldBlock` when the socket buffer is full.
            pub fn try_write(&self, buf: &[u8]) -> ::std::io::Result<usize> {
                $( on_sim!(self.io, |$s| crate::sim::net::done($s.write_slice(None, buf))); )?
                self.io.try_io(::io_driver::Direction::Write, |mut s| {
                    ::std::io::Write::write(&mut s, buf)
                })
            }

            /// Vectored [`Self::try_write`].
            pub fn try_write_vectored(
                &self,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::io::Result<usize> {
                $( on_sim!(self.io, |$s| crate::sim::net::done($s.write_vectored(None, bufs))); )?
                self.io.try_io(::io_driver::Direction::Write, |mut s| {
                    ::std::io::Write::write_vectored(&mut s, bufs)
                })
            }
        }

        impl $stream {
            /// tokio-style read into a `ReadBuf` (the halves forward to it).
            pub(crate) fn poll_read_buf(
                &self,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut crate::io::ReadBuf<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                $( on_sim!(self.io, |$s| $s.read_into(Some(cx), buf, false).map_ok(drop)); )?
                crate::net::stream_io::poll_read_buf(
                    &self.io,
                    cx,
                    buf,
                    crate::net::stream_io::recv_uninit,
                )
            }
        }

        impl crate::io::AsyncRead for $stream {
            fn poll_read(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut crate::io::ReadBuf<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                self.poll_read_buf(cx, buf)
            }
        }

        impl crate::io::AsyncWrite for $stream {
            fn poll_write(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                $( on_sim!(self.io, |$s| $s.write_slice(Some(cx), buf)); )?
                self.io.poll_write(cx, buf)
            }

            fn poll_write_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                $( on_sim!(self.io, |$s| $s.write_vectored(Some(cx), bufs)); )?
                self.io.poll_write_vectored(cx, bufs)
            }

            fn is_write_vectored(&self) -> bool {
                true
            }

            fn poll_flush(
                self: ::std::pin::Pin<&mut Self>,
                _: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                // Writes go straight to the kernel: nothing is buffered here.
                ::std::task::Poll::Ready(Ok(()))
            }

            /// Shuts down the write direction: the peer reads EOF, this side can still read.
            fn poll_shutdown(
                self: ::std::pin::Pin<&mut Self>,
                _: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                ::std::task::Poll::Ready(self.shutdown_std(::std::net::Shutdown::Write))
            }
        }

        impl ::futures_io::AsyncRead for $stream {
            fn poll_read(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut [u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                $( on_sim!(self.io, |$s| $s.read_slice(Some(cx), buf, false)); )?
                self.io.poll_read(cx, buf)
            }

            fn poll_read_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &mut [::std::io::IoSliceMut<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                $( on_sim!(self.io, |$s| $s.read_vectored(Some(cx), bufs)); )?
                self.io.poll_read_vectored(cx, bufs)
            }
        }

        impl ::futures_io::AsyncWrite for $stream {
            fn poll_write(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                $( on_sim!(self.io, |$s| $s.write_slice(Some(cx), buf)); )?
                self.io.poll_write(cx, buf)
            }

            fn poll_write_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                $( on_sim!(self.io, |$s| $s.write_vectored(Some(cx), bufs)); )?
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
                ::std::task::Poll::Ready(self.shutdown_std(::std::net::Shutdown::Write))
            }
        }
    };
}

pub(crate) use stream_io;
