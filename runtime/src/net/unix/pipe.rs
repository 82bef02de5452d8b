//! Unix pipes and FIFOs (tokio's `net::unix::pipe`): [`pipe`], [`Sender`], [`Receiver`],
//! [`OpenOptions`].
//!
//! Each end is a non-blocking pipe descriptor registered with the runtime's I/O driver as
//! a mio pipe (`IoSource`): reads and writes spend budget, wait for readiness in their
//! direction and clear exactly the readiness a `WouldBlock` or a short transfer saw, as
//! sockets do. An end built from a file is checked to be a FIFO opened in the right
//! access mode (else `InvalidInput`) unless built `unchecked`; the `into_*_fd`
//! conversions take it out of the driver.
//!
//! Opening a FIFO's writing end fails with `ENXIO` while nobody has it open for reading
//! (the open is non-blocking), unless it is opened read-write (Linux), as tokio
//! documents.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::io::ReadBuf;
use io_driver::Direction;
use mio::unix::pipe as mio_pipe;
use mio::Interest;

use crate::io::io_source::IoSource;

/// A new anonymous pipe, both ends registered with the current runtime.
///
/// ```
/// use runtime::io::{AsyncReadExt, AsyncWriteExt};
/// # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
/// let (mut tx, mut rx) = runtime::net::unix::pipe::pipe()?;
/// tx.write_all(b"through the pipe").await?;
/// drop(tx);
/// let mut got = String::new();
/// rx.read_to_string(&mut got).await?;
/// assert_eq!(got, "through the pipe");
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
///
/// # Errors
/// When `pipe2` or the registration fails.
///
/// # Panics
/// Outside a runtime, or on one built without `Builder::enable_io()`.
#[track_caller]
pub fn pipe() -> io::Result<(Sender, Receiver)> {
    #[cfg(all(feature = "deterministic", not(loom)))]
    crate::sim::net::forbid_real(
        "net::unix::pipe::pipe",
        "Use `runtime::io::simplex`/`duplex` or a channel in a deterministic test.",
    );
    let (tx, rx) = mio_pipe::new()?;
    Ok((Sender::register(tx)?, Receiver::register(rx)?))
}

/// How a FIFO is opened (tokio's `pipe::OpenOptions`).
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    read_write: bool,
    unchecked: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    Sender,
    Receiver,
}

impl OpenOptions {
    /// Read-only receivers, write-only senders, the file checked to be a FIFO.
    pub fn new() -> OpenOptions {
        OpenOptions::default()
    }

    /// Opens the FIFO read-write (Linux): a sender opens with no reader present, a
    /// receiver never reads EOF (it holds a writing end itself).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn read_write(&mut self, value: bool) -> &mut Self {
        self.read_write = value;
        self
    }

    /// Skips the check that the file is a FIFO.
    pub fn unchecked(&mut self, value: bool) -> &mut Self {
        self.unchecked = value;
        self
    }

    /// Opens the FIFO at `path` for reading.
    ///
    /// # Errors
    /// `InvalidInput` when the file is not a FIFO (checked), else what `open` says.
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn open_receiver<P: AsRef<Path>>(&self, path: P) -> io::Result<Receiver> {
        #[cfg(all(feature = "deterministic", not(loom)))]
        crate::sim::net::forbid_real(
            "pipe::OpenOptions::open_receiver",
            "Use `runtime::io::simplex`/`duplex` or a channel in a deterministic test.",
        );
        let file = self.open(path.as_ref(), End::Receiver)?;
        Receiver::from_file_unchecked(file)
    }

    /// Opens the FIFO at `path` for writing.
    ///
    /// # Errors
    /// `ENXIO` when nobody has it open for reading (unless read-write), `InvalidInput`
    /// when it is not a FIFO (checked), else what `open` says.
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn open_sender<P: AsRef<Path>>(&self, path: P) -> io::Result<Sender> {
        #[cfg(all(feature = "deterministic", not(loom)))]
        crate::sim::net::forbid_real(
            "pipe::OpenOptions::open_sender",
            "Use `runtime::io::simplex`/`duplex` or a channel in a deterministic test.",
        );
        let file = self.open(path.as_ref(), End::Sender)?;
        Sender::from_file_unchecked(file)
    }

    fn open(&self, path: &Path, end: End) -> io::Result<File> {
        let mut options = std::fs::OpenOptions::new();
        options
            .read(end == End::Receiver || self.read_write)
            .write(end == End::Sender || self.read_write)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC);
        let file = options.open(path)?;
        if !self.unchecked && !is_fifo(&file)? {
            return Err(not_a_pipe());
        }
        Ok(file)
    }
}

fn not_a_pipe() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "not a pipe")
}

fn is_fifo(fd: &impl AsFd) -> io::Result<bool> {
    let file = File::from(fd.as_fd().try_clone_to_owned()?);
    Ok(file.metadata()?.file_type().is_fifo())
}

/// The descriptor's access mode (`O_RDONLY`, `O_WRONLY`, `O_RDWR`).
fn access_mode(fd: &impl AsRawFd) -> io::Result<libc::c_int> {
    // SAFETY: fcntl with an integer command on a descriptor the caller owns.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(flags & libc::O_ACCMODE)
}

fn set_nonblocking(fd: &impl AsRawFd, on: bool) -> io::Result<()> {
    let fd = fd.as_raw_fd();
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

/// The writing end of a pipe or FIFO (tokio's `pipe::Sender`).
#[derive(Debug)]
pub struct Sender {
    io: IoSource<mio_pipe::Sender>,
}

/// The reading end of a pipe or FIFO (tokio's `pipe::Receiver`).
#[derive(Debug)]
pub struct Receiver {
    io: IoSource<mio_pipe::Receiver>,
}

macro_rules! pipe_end {
    ($ty:ident, $mio:ty, $interest:expr, $dir:expr, $modes:expr) => {
        impl $ty {
            #[track_caller]
            fn register(pipe: $mio) -> io::Result<$ty> {
                set_nonblocking(&pipe, true)?;
                Ok($ty {
                    io: IoSource::new(pipe, $interest)?,
                })
            }

            /// Wraps an open FIFO (or pipe) end, checked to be a FIFO in a fitting access
            /// mode, and makes it non-blocking.
            ///
            /// # Errors
            /// `InvalidInput` when it is not a FIFO or not open in that direction.
            ///
            /// # Panics
            /// Outside a runtime, or on one built without `Builder::enable_io()`.
            #[track_caller]
            pub fn from_file(file: File) -> io::Result<$ty> {
                Self::from_owned_fd(file.into())
            }

            /// [`Self::from_file`] for an `OwnedFd`.
            ///
            /// # Errors
            /// As [`Self::from_file`].
            ///
            /// # Panics
            /// As [`Self::from_file`].
            #[track_caller]
            pub fn from_owned_fd(fd: OwnedFd) -> io::Result<$ty> {
                if !is_fifo(&fd)? || !$modes.contains(&access_mode(&fd)?) {
                    return Err(not_a_pipe());
                }
                Self::from_owned_fd_unchecked(fd)
            }

            /// [`Self::from_file`] without the checks.
            ///
            /// # Errors
            /// When it cannot be made non-blocking or registered.
            ///
            /// # Panics
            /// As [`Self::from_file`].
            #[track_caller]
            pub fn from_file_unchecked(file: File) -> io::Result<$ty> {
                Self::from_owned_fd_unchecked(file.into())
            }

            /// [`Self::from_owned_fd`] without the checks.
            ///
            /// # Errors
            /// When it cannot be made non-blocking or registered.
            ///
            /// # Panics
            /// As [`Self::from_file`].
            #[track_caller]
            pub fn from_owned_fd_unchecked(fd: OwnedFd) -> io::Result<$ty> {
                Self::register(<$mio>::from(fd))
            }

            /// Waits until the end is ready for any of `interest` and says which (closed
            /// states show as such).
            ///
            /// # Errors
            /// Once the runtime's driver has shut down.
            pub async fn ready(
                &self,
                interest: crate::io::Interest,
            ) -> io::Result<crate::io::Ready> {
                std::future::poll_fn(|cx| self.io.poll_ready_interest(cx, interest)).await
            }

            /// Runs a user-provided I/O operation in this end's direction without
            /// waiting: `WouldBlock` at once when not ready; a `WouldBlock` from `f`
            /// clears the readiness.
            ///
            /// # Errors
            /// What `f` returns, or `WouldBlock`.
            pub fn try_io<R>(&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
                self.io.try_io_interest($dir, f)
            }

            /// The descriptor, out of the driver, in blocking mode.
            ///
            /// # Errors
            /// When it cannot be deregistered or switched back.
            pub fn into_blocking_fd(self) -> io::Result<OwnedFd> {
                let fd = self.into_nonblocking_fd()?;
                set_nonblocking(&fd, false)?;
                Ok(fd)
            }

            /// The descriptor, out of the driver, still non-blocking.
            ///
            /// # Errors
            /// When it cannot be deregistered.
            pub fn into_nonblocking_fd(self) -> io::Result<OwnedFd> {
                Ok(self.io.into_inner()?.into())
            }
        }

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
    };
}

pipe_end!(
    Sender,
    mio_pipe::Sender,
    Interest::WRITABLE,
    crate::io::Interest::WRITABLE,
    [libc::O_WRONLY, libc::O_RDWR]
);
pipe_end!(
    Receiver,
    mio_pipe::Receiver,
    Interest::READABLE,
    crate::io::Interest::READABLE,
    [libc::O_RDONLY, libc::O_RDWR]
);

impl Sender {
    /// Waits until the pipe may be writable (follow with `try_write`).
    ///
    /// # Errors
    /// Once the runtime's driver has shut down.
    pub async fn writable(&self) -> io::Result<()> {
        std::future::poll_fn(|cx| self.io.poll_ready_unbudgeted(cx, Direction::Write)).await
    }

    /// Polls for write readiness.
    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_ready_recorded(cx, Direction::Write)
    }

    /// Writes without waiting (`WouldBlock` when the pipe is full).
    ///
    /// # Errors
    /// `WouldBlock`, `BrokenPipe` once no reader is left, or another write error.
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.io.try_io(Direction::Write, |mut p| p.write(buf))
    }

    /// Vectored [`Self::try_write`].
    ///
    /// # Errors
    /// As [`Self::try_write`].
    pub fn try_write_vectored(&self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.io
            .try_io(Direction::Write, |mut p| p.write_vectored(bufs))
    }
}

impl Receiver {
    /// Waits until the pipe may be readable (follow with `try_read`).
    ///
    /// # Errors
    /// Once the runtime's driver has shut down.
    pub async fn readable(&self) -> io::Result<()> {
        std::future::poll_fn(|cx| self.io.poll_ready_unbudgeted(cx, Direction::Read)).await
    }

    /// Polls for read readiness.
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_ready_recorded(cx, Direction::Read)
    }

    /// Reads without waiting (`WouldBlock` when empty; `Ok(0)` is EOF).
    ///
    /// # Errors
    /// `WouldBlock`, or another read error.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.try_io(Direction::Read, |mut p| p.read(buf))
    }

    /// Vectored [`Self::try_read`].
    ///
    /// # Errors
    /// As [`Self::try_read`].
    pub fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        self.io
            .try_io(Direction::Read, |mut p| p.read_vectored(bufs))
    }

    /// Reads without waiting into `buf`'s spare capacity (a `bytes::BufMut`).
    ///
    /// # Errors
    /// As [`Self::try_read`].
    pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        self.io.try_io(Direction::Read, |p| {
            crate::net::buf_io::read_buf(p.as_raw_fd(), buf, crate::net::stream_io::read_uninit)
        })
    }
}

impl crate::io::AsyncRead for Receiver {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        crate::net::stream_io::poll_read_buf(&self.io, cx, buf, crate::net::stream_io::read_uninit)
    }
}

impl futures_io::AsyncRead for Receiver {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.io
            .poll_transfer(cx, Direction::Read, buf.len(), |mut p| p.read(buf))
    }
}

impl Sender {
    pub(crate) fn poll_write_inner(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.io
            .poll_transfer(cx, Direction::Write, buf.len(), |mut p| p.write(buf))
    }

    /// A vectored write: one `writev`, waiting and clearing readiness as a write does.
    /// A child's stdin (`process/pipes.rs`) writes vectored; this end's own `AsyncWrite`
    /// does not.
    pub(crate) fn poll_write_vectored_inner(
        &self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let want = bufs.iter().map(|b| b.len()).sum();
        self.io
            .poll_transfer(cx, Direction::Write, want, |mut p| p.write_vectored(bufs))
    }
}

/// Both `AsyncWrite`s (ours and futures-io's) of a writer whose writes go straight to a
/// pipe's [`Sender`], reached as `$this => $sender` (`Sender` itself, a child's stdin in
/// `process/pipes.rs`): nothing is buffered, so a flush is done at once, and a shutdown
/// (`poll_close`) does nothing: the reader sees EOF when the last writing end is dropped.
/// `vectored` adds one-`writev` vectored writes (`Sender::poll_write_vectored_inner`).
macro_rules! pipe_writer {
    ($ty:ty, $this:ident => $sender:expr $(, $vectored:ident)?) => {
        impl $crate::io::AsyncWrite for $ty {
            fn poll_write(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let $this = &*self;
                $sender.poll_write_inner(cx, buf)
            }

            $($crate::net::unix::pipe::pipe_writer!(@$vectored $this => $sender);
            fn is_write_vectored(&self) -> bool {
                true
            })?

            fn poll_flush(
                self: ::std::pin::Pin<&mut Self>,
                _: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                ::std::task::Poll::Ready(Ok(()))
            }

            fn poll_shutdown(
                self: ::std::pin::Pin<&mut Self>,
                _: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                ::std::task::Poll::Ready(Ok(()))
            }
        }

        impl futures_io::AsyncWrite for $ty {
            fn poll_write(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                $crate::io::AsyncWrite::poll_write(self, cx, buf)
            }

            $($crate::net::unix::pipe::pipe_writer!(@$vectored $this => $sender);)?

            fn poll_flush(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                $crate::io::AsyncWrite::poll_flush(self, cx)
            }

            fn poll_close(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                $crate::io::AsyncWrite::poll_shutdown(self, cx)
            }
        }
    };
    (@vectored $this:ident => $sender:expr) => {
        fn poll_write_vectored(
            self: ::std::pin::Pin<&mut Self>,
            cx: &mut ::std::task::Context<'_>,
            bufs: &[::std::io::IoSlice<'_>],
        ) -> ::std::task::Poll<::std::io::Result<usize>> {
            let $this = &*self;
            $sender.poll_write_vectored_inner(cx, bufs)
        }
    };
}
pub(crate) use pipe_writer;

pipe_writer!(Sender, this => this);
