//! `ChildStdin`, `ChildStdout`, `ChildStderr`: a child's piped standard streams as
//! asynchronous pipes.
//!
//! Each wraps an end of the unix pipe (`net/unix/pipe.rs`'s `Sender` / `Receiver`, built
//! unchecked: std made the descriptor a pipe): the parent's end of the pipe std created,
//! switched to non-blocking mode and registered with the runtime's I/O driver, so reads
//! and writes wait and clear readiness exactly as a socket's do (one unit of budget each;
//! a short transfer clears the readiness it saw). They implement tokio's `AsyncRead` /
//! `AsyncWrite` and futures-io's through the pipe's own, and `ChildStdin` writes vectored
//! (as tokio's does). Handed back as a std handle (`into_owned_fd`, or `Stdio` through
//! `TryFrom`, to feed another child), the descriptor leaves the driver and is switched
//! back to blocking mode, which is what other programs expect of an inherited stream.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::pin::Pin;
use std::process::Stdio;
use std::task::{Context, Poll};

use crate::io::ReadBuf;
use crate::net::unix::pipe::{Receiver, Sender};

/// The writing end of a child's stdin (tokio's `process::ChildStdin`).
#[derive(Debug)]
pub struct ChildStdin {
    pipe: Sender,
}

/// The reading end of a child's stdout (tokio's `process::ChildStdout`).
#[derive(Debug)]
pub struct ChildStdout {
    pipe: Receiver,
}

/// The reading end of a child's stderr (tokio's `process::ChildStderr`).
#[derive(Debug)]
pub struct ChildStderr {
    pipe: Receiver,
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
            pipe: Sender::from_owned_fd_unchecked(OwnedFd::from(inner))?,
        })
    }

    /// The descriptor, out of the driver and blocking again.
    ///
    /// # Errors
    /// When it cannot be deregistered or switched back.
    pub fn into_owned_fd(self) -> io::Result<OwnedFd> {
        self.pipe.into_blocking_fd()
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
                    pipe: Receiver::from_owned_fd_unchecked(OwnedFd::from(inner))?,
                })
            }

            /// The descriptor, out of the driver and blocking again.
            ///
            /// # Errors
            /// When it cannot be deregistered or switched back.
            pub fn into_owned_fd(self) -> io::Result<OwnedFd> {
                self.pipe.into_blocking_fd()
            }
        }

        impl crate::io::AsyncRead for $ty {
            fn poll_read(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                crate::io::AsyncRead::poll_read(Pin::new(&mut self.pipe), cx, buf)
            }
        }

        impl futures_io::AsyncRead for $ty {
            fn poll_read(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut [u8],
            ) -> Poll<io::Result<usize>> {
                futures_io::AsyncRead::poll_read(Pin::new(&mut self.pipe), cx, buf)
            }
        }
    };
}

reader!(ChildStdout, std::process::ChildStdout);
reader!(ChildStderr, std::process::ChildStderr);

crate::net::unix::pipe::pipe_writer!(ChildStdin, this => this.pipe, vectored);

macro_rules! common {
    ($ty:ident) => {
        impl AsRawFd for $ty {
            fn as_raw_fd(&self) -> RawFd {
                self.pipe.as_raw_fd()
            }
        }

        impl AsFd for $ty {
            fn as_fd(&self) -> BorrowedFd<'_> {
                self.pipe.as_fd()
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
