//! [`stdin`], [`stdout`], [`stderr`]: the process's standard streams for async code.
//!
//! The standard streams may be files, pipes or terminals, which epoll cannot always
//! watch, so, like tokio, each operation runs as a blocking call on the runtime's blocking
//! pool (`blocking.rs` has the state machine). Consequences, the same as tokio's: a write
//! reports success once its bytes are handed to the pool (call `flush` to wait for them,
//! and see a failure), and a read waiting for input keeps one pool thread blocked in
//! `read(2)` until input arrives, even if the `Stdin` is dropped. Prefer one `Stdin` per
//! process. Each handle speaks both trait families.
//!
//! As tokio's, stdout and stderr writes are "mandatory" blocking tasks: one handed to the
//! pool before the runtime shuts down still runs, and once the pool is shut down a write
//! or flush fails at once with the runtime-shutdown error (`runtime::is_rt_shutdown_err`).
//! `flush().await` before leaving `main` still is what guarantees the output (and shows a
//! failure), as tokio's docs ask.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::io::ReadBuf;

use super::blocking::Blocking;

/// The process's standard input, read on the blocking pool.
///
/// ```no_run
/// use runtime::io::{stdin, AsyncBufReadExt, BufReader};
/// # async fn doc() -> std::io::Result<()> {
/// let mut lines = BufReader::new(stdin()).lines();
/// while let Some(line) = lines.next_line().await? {
///     println!("{line}");
/// }
/// # Ok(()) }
/// ```
pub struct Stdin {
    inner: Blocking<io::Stdin>,
}

/// The process's standard output, written on the blocking pool (`flush` waits for it).
///
/// ```
/// use runtime::io::{stdout, AsyncWriteExt};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut out = stdout();
/// out.write_all(b"hello\n").await?;
/// out.flush().await?;
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub struct Stdout {
    inner: Blocking<io::Stdout>,
}

/// The process's standard error, written on the blocking pool (`flush` waits for it).
///
/// ```
/// use runtime::io::{stderr, AsyncWriteExt};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// stderr().write_all(b"warning\n").await?;
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub struct Stderr {
    inner: Blocking<io::Stderr>,
}

/// A handle to standard input; see [`Stdin`].
pub fn stdin() -> Stdin {
    Stdin {
        inner: Blocking::new(io::stdin()),
    }
}

/// A handle to standard output; see [`Stdout`].
pub fn stdout() -> Stdout {
    Stdout {
        inner: Blocking::new_mandatory(io::stdout()),
    }
}

/// A handle to standard error; see [`Stderr`].
pub fn stderr() -> Stderr {
    Stderr {
        inner: Blocking::new_mandatory(io::stderr()),
    }
}

impl crate::io::AsyncRead for Stdin {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.get_mut().inner.poll_read(cx, buf)
    }
}

impl futures_io::AsyncRead for Stdin {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let mut rb = ReadBuf::new(buf);
        std::task::ready!(self.get_mut().inner.poll_read(cx, &mut rb))?;
        Poll::Ready(Ok(rb.filled().len()))
    }
}

macro_rules! writer {
    ($ty:ident) => {
        impl crate::io::AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.get_mut().inner.poll_write(cx, buf)
            }
            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.get_mut().inner.poll_flush(cx)
            }
            fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.get_mut().inner.poll_flush(cx)
            }
        }

        impl futures_io::AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.get_mut().inner.poll_write(cx, buf)
            }
            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.get_mut().inner.poll_flush(cx)
            }
            fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.get_mut().inner.poll_flush(cx)
            }
        }
    };
}

writer!(Stdout);
writer!(Stderr);

macro_rules! fd_and_debug {
    ($ty:ident, $std:ident, $name:literal) => {
        #[cfg(unix)]
        impl std::os::fd::AsRawFd for $ty {
            fn as_raw_fd(&self) -> std::os::fd::RawFd {
                std::os::fd::AsRawFd::as_raw_fd(&io::$std())
            }
        }

        #[cfg(unix)]
        impl std::os::fd::AsFd for $ty {
            fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
                // SAFETY: the standard descriptors stay open for the life of the process.
                unsafe {
                    std::os::fd::BorrowedFd::borrow_raw(std::os::fd::AsRawFd::as_raw_fd(self))
                }
            }
        }

        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($name)
            }
        }
    };
}

fd_and_debug!(Stdin, stdin, "Stdin");
fd_and_debug!(Stdout, stdout, "Stdout");
fd_and_debug!(Stderr, stderr, "Stderr");
