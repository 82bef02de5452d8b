//! `ChildStdin`, `ChildStdout`, `ChildStderr`: a child's piped standard streams as
//! asynchronous pipes.
//!
//! Each is the parent's end of the pipe std created, switched to non-blocking mode and
//! registered with the runtime's I/O driver as a mio pipe (`IoSource`), so reads and
//! writes wait and clear readiness exactly as a socket's do (one unit of budget each; a
//! short transfer clears the readiness it saw). They implement tokio's `AsyncRead` /
//! `AsyncWrite` and futures-io's. Handed back as a std handle (`into_owned_fd`, or
//! `Stdio` through `TryFrom`, to feed another child), the descriptor leaves the driver and
//! is switched back to blocking mode, which is what other programs expect of an inherited
//! stream.

use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::pin::Pin;
use std::process::Stdio;
use std::task::{Context, Poll};

use crate::io::ReadBuf;
use io_driver::Direction;
use mio::unix::pipe::{Receiver, Sender};
use mio::Interest;

use crate::net::io_source::IoSource;

/// The writing end of a child's stdin (tokio's `process::ChildStdin`).
#[derive(Debug)]
pub struct ChildStdin {
    io: IoSource<Sender>,
}

/// The reading end of a child's stdout (tokio's `process::ChildStdout`).
#[derive(Debug)]
pub struct ChildStdout {
    io: IoSource<Receiver>,
}

/// The reading end of a child's stderr (tokio's `process::ChildStderr`).
#[derive(Debug)]
pub struct ChildStderr {
    io: IoSource<Receiver>,
}

fn set_nonblocking(fd: RawFd, on: bool) -> io::Result<()> {
    // SAFETY: fcntl with integer arguments on a descriptor the caller owns.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    let new = if on {
        flags | libc::O_NONBLOCK
    } else {
        flags & !libc::O_NONBLOCK
    };
    // SAFETY: as above.
    if new != flags && unsafe { libc::fcntl(fd, libc::F_SETFL, new) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn register<S: mio::event::Source + AsRawFd>(
    pipe: S,
    interest: Interest,
) -> io::Result<IoSource<S>> {
    set_nonblocking(pipe.as_raw_fd(), true)?;
    IoSource::new(pipe, interest)
}

/// Out of the driver and back to blocking mode.
fn into_blocking<S>(io: IoSource<S>) -> io::Result<OwnedFd>
where
    S: mio::event::Source + Into<OwnedFd>,
{
    let fd: OwnedFd = io.into_inner()?.into();
    set_nonblocking(fd.as_raw_fd(), false)?;
    Ok(fd)
}

impl ChildStdin {
    /// Wraps a std `ChildStdin` (made non-blocking, registered with the current runtime).
    ///
    /// # Errors
    /// When the descriptor cannot be switched or registered.
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn from_std(inner: std::process::ChildStdin) -> io::Result<Self> {
        Ok(ChildStdin {
            io: register(Sender::from(inner), Interest::WRITABLE)?,
        })
    }

    /// The descriptor, out of the driver and blocking again.
    ///
    /// # Errors
    /// When it cannot be deregistered or switched back.
    pub fn into_owned_fd(self) -> io::Result<OwnedFd> {
        into_blocking(self.io)
    }
}

macro_rules! reader {
    ($ty:ident, $std:ty) => {
        impl $ty {
            /// Wraps the std handle (made non-blocking, registered with the current
            /// runtime).
            ///
            /// # Errors
            /// When the descriptor cannot be switched or registered.
            ///
            /// # Panics
            /// Outside a runtime, or on one built without `Builder::enable_io()`.
            #[track_caller]
            pub fn from_std(inner: $std) -> io::Result<Self> {
                Ok($ty {
                    io: register(Receiver::from(inner), Interest::READABLE)?,
                })
            }

            /// The descriptor, out of the driver and blocking again.
            ///
            /// # Errors
            /// When it cannot be deregistered or switched back.
            pub fn into_owned_fd(self) -> io::Result<OwnedFd> {
                into_blocking(self.io)
            }
        }

        impl crate::io::AsyncRead for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                crate::net::stream_io::poll_read_buf(
                    &self.io,
                    cx,
                    buf,
                    crate::net::stream_io::read_uninit,
                )
            }
        }

        impl futures_io::AsyncRead for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut [u8],
            ) -> Poll<io::Result<usize>> {
                self.io
                    .poll_transfer(cx, Direction::Read, buf.len(), |mut p| {
                        io::Read::read(&mut p, buf)
                    })
            }
        }
    };
}

reader!(ChildStdout, std::process::ChildStdout);
reader!(ChildStderr, std::process::ChildStderr);

impl ChildStdin {
    fn poll_write_inner(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.io
            .poll_transfer(cx, Direction::Write, buf.len(), |mut p| p.write(buf))
    }

    fn poll_write_vectored_inner(
        &self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let want = bufs.iter().map(|b| b.len()).sum();
        self.io
            .poll_transfer(cx, Direction::Write, want, |mut p| p.write_vectored(bufs))
    }
}

impl crate::io::AsyncWrite for ChildStdin {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_inner(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_vectored_inner(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Writes go straight to the pipe: nothing is buffered here.
        Poll::Ready(Ok(()))
    }

    /// Nothing to do: the child sees EOF when this handle is dropped.
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl futures_io::AsyncWrite for ChildStdin {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_inner(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_vectored_inner(cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

macro_rules! common {
    ($ty:ident) => {
        impl AsRawFd for $ty {
            fn as_raw_fd(&self) -> RawFd {
                self.io.get_ref().as_raw_fd()
            }
        }

        impl AsFd for $ty {
            fn as_fd(&self) -> BorrowedFd<'_> {
                self.io.get_ref().as_fd()
            }
        }

        /// Hands the pipe to another child's standard stream (blocking again).
        impl TryFrom<$ty> for Stdio {
            type Error = io::Error;

            fn try_from(pipe: $ty) -> io::Result<Stdio> {
                pipe.into_owned_fd().map(Stdio::from)
            }
        }
    };
}

common!(ChildStdin);
common!(ChildStdout);
common!(ChildStderr);
