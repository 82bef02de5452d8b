//! `File`: an open file whose every operation runs on the blocking pool, as tokio's.
//!
//! # Algorithm
//!
//! The std file lives in an `Arc` (so a blocking closure can use it while the `File` stays
//! usable for `metadata`, `try_clone`); the mutable part (`Inner`) is in one of two states:
//!
//! - `Idle(buf)`: nothing in flight; `buf` may hold bytes read ahead.
//! - `Busy(handle)`: one blocking operation (`Read`, `Write` or `Seek`) runs on the pool
//!   with the buffer moved into it; the handle gives both back.
//!
//! So at most one operation is in flight per `File`, and its buffer is never shared. An
//! operation whose task fails (a `JoinError`: the pool is shut down, or the closure
//! panicked) returns an error and leaves the state `Idle` with a fresh buffer, so later
//! operations run (and fail or succeed) on their own.
//!
//! - **Read**: bytes read ahead are handed out first; with none, a blocking read of
//!   `min(wanted, max_buf_size)` bytes is started and awaited. Completing a pending write
//!   or seek on the way is part of the loop.
//! - **Write**: waits for the operation in flight, copies up to `max_buf_size` bytes into
//!   the buffer, starts a blocking `write_all` and reports success at once (tokio's
//!   behaviour). A failure of that background write is kept (`last_write_err`) and
//!   returned by the next write, flush or seek. If the buffer held bytes read ahead, the
//!   write first seeks back over them, so the bytes land where the caller's position is.
//! - **Flush** (and shutdown/close): waits for the write in flight and returns its error,
//!   if any. There is no user-space buffer beyond that one write, so a flushed `File`'s
//!   data is in the kernel (not on disk: that is [`File::sync_all`]).
//! - **Seek** (`start_seek` + `poll_complete`, tokio's two phases): discards bytes read
//!   ahead (adjusting a `SeekFrom::Current` by them) and runs the seek on the pool;
//!   `poll_complete` returns the new position. futures-io's one-phase `poll_seek` is the
//!   two phases in a row.
//! - `&self` operations that need the file quiet (`sync_all`, `sync_data`, `set_len`)
//!   take the async [`Mutex`](crate::sync::Mutex) on `Inner`, wait for the operation in flight, then run theirs
//!   (two of them on one `File` run one after the other). `&mut self` ones (the I/O
//!   traits) reach `Inner` without the lock: the borrow proves nobody holds it.
//!
//! Dropping a `File` with a write in flight lets that write finish on the pool (its
//! error, if any, is lost): call `flush` (or `sync_all`) to see it, as with tokio.

use std::fmt;
use std::fs::{Metadata, Permissions};
use std::future::{poll_fn, Future};
use std::io::{self, Seek, SeekFrom};
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use crate::io::ReadBuf;

use super::buf::Buf;
use super::{asyncify, OpenOptions};
use crate::coop::poll_proceed;
use crate::sync::Mutex;
use crate::task::{spawn_blocking, JoinHandle};

/// Largest read or write handed to one blocking call by default (tokio's).
const DEFAULT_MAX_BUF_SIZE: usize = 2 * 1024 * 1024;

/// An open file; each operation runs on the runtime's blocking pool.
///
/// Implements tokio's `AsyncRead`/`AsyncWrite`/`AsyncSeek` and futures-io's
/// `AsyncRead`/`AsyncWrite`/`AsyncSeek`. Writes are accepted at once and carried out in
/// the background: `flush().await` before dropping a `File` to learn whether the last
/// write failed (tokio's contract).
///
/// ```
/// use runtime::fs::File;
/// use runtime::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt, SeekFrom};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// # let dir = std::env::temp_dir().join(format!("runtime-doc-file-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("hello.txt");
/// let mut f = File::create(&path).await?;
/// f.write_all(b"hello, world").await?;
/// f.flush().await?;
///
/// let mut f = File::open(&path).await?;
/// f.seek(SeekFrom::Start(7)).await?;
/// let mut s = String::new();
/// f.read_to_string(&mut s).await?;
/// assert_eq!(s, "world");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub struct File {
    std: Arc<std::fs::File>,
    inner: Mutex<Inner>,
    max_buf_size: usize,
}

struct Inner {
    state: State,
    /// The kind of a background write's failure, returned by the next write/flush/seek.
    last_write_err: Option<io::ErrorKind>,
    /// The position the last completed seek reported.
    pos: u64,
}

enum State {
    /// `None` only while an operation borrows the buffer within one poll.
    Idle(Option<Buf>),
    Busy(JoinHandle<(Operation, Buf)>),
}

enum Operation {
    Read(io::Result<usize>),
    Write(io::Result<()>),
    Seek(io::Result<u64>),
}

fn lost(e: crate::task::JoinError) -> io::Error {
    super::background_task_failed(e)
}

/// Polls the operation in flight (`state` is `Busy`). If its task failed (a `JoinError`:
/// cancelled by a shut-down pool, or panicked) the state becomes a fresh `Idle`, so the
/// `File` stays usable and the finished handle is never polled again; the bytes the
/// operation held are lost.
fn poll_op(state: &mut State, cx: &mut Context<'_>) -> Poll<io::Result<(Operation, Buf)>> {
    let State::Busy(handle) = state else {
        unreachable!("poll_op with no operation in flight")
    };
    match ready!(Pin::new(handle).poll(cx)) {
        Ok(done) => Poll::Ready(Ok(done)),
        Err(e) => {
            *state = State::Idle(Some(Buf::default()));
            Poll::Ready(Err(lost(e)))
        }
    }
}

impl Inner {
    fn take_buf(&mut self) -> Buf {
        match &mut self.state {
            State::Idle(cell) => cell.take().unwrap_or_default(),
            State::Busy(_) => unreachable!("take_buf while busy"),
        }
    }

    /// Waits for the operation in flight; a failed write is returned.
    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(kind) = self.last_write_err.take() {
            return Poll::Ready(Err(kind.into()));
        }
        if let State::Idle(_) = self.state {
            return Poll::Ready(Ok(()));
        }
        let (op, buf) = ready!(poll_op(&mut self.state, cx))?;
        self.state = State::Idle(Some(buf));
        match op {
            Operation::Read(_) => Poll::Ready(Ok(())),
            Operation::Write(res) => Poll::Ready(res),
            Operation::Seek(res) => {
                if let Ok(pos) = res {
                    self.pos = pos;
                }
                Poll::Ready(Ok(()))
            }
        }
    }

    /// Waits for the operation in flight, keeping a write's failure for later.
    async fn complete_inflight(&mut self) {
        poll_fn(|cx| match self.poll_flush(cx) {
            Poll::Ready(Err(e)) => {
                self.last_write_err = Some(e.kind());
                Poll::Ready(())
            }
            Poll::Ready(Ok(())) => Poll::Ready(()),
            Poll::Pending => Poll::Pending,
        })
        .await
    }
}

impl File {
    /// Opens `path` read-only.
    ///
    /// # Panics
    /// Outside a runtime (every operation runs on its blocking pool).
    pub async fn open(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new().read(true).open(path).await
    }

    /// Opens `path` write-only, creating it or truncating it.
    pub async fn create(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .await
    }

    /// Opens `path` read-write, creating it; fails if it exists (`AlreadyExists`).
    pub async fn create_new(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .await
    }

    /// An [`OpenOptions`] to open a file with other options.
    pub fn options() -> OpenOptions {
        OpenOptions::new()
    }

    /// Wraps an open std file.
    pub fn from_std(std: std::fs::File) -> File {
        File {
            std: Arc::new(std),
            inner: Mutex::new(Inner {
                state: State::Idle(Some(Buf::default())),
                last_write_err: None,
                pos: 0,
            }),
            max_buf_size: DEFAULT_MAX_BUF_SIZE,
        }
    }

    /// Flushes data and metadata to the device (`fsync`), after the write in flight.
    pub async fn sync_all(&self) -> io::Result<()> {
        let mut inner = self.inner.lock().await;
        inner.complete_inflight().await;
        let std = self.std.clone();
        asyncify(move || std.sync_all()).await
    }

    /// Flushes data (not necessarily metadata) to the device (`fdatasync`).
    pub async fn sync_data(&self) -> io::Result<()> {
        let mut inner = self.inner.lock().await;
        inner.complete_inflight().await;
        let std = self.std.clone();
        asyncify(move || std.sync_data()).await
    }

    /// Truncates or extends the file to `size` bytes, after the operation in flight. The
    /// position is unchanged (it may now be past the end).
    pub async fn set_len(&self, size: u64) -> io::Result<()> {
        let mut inner = self.inner.lock().await;
        inner.complete_inflight().await;
        let mut buf = inner.take_buf();
        // Bytes read ahead are dropped: put the OS cursor back where the caller is.
        let back = if buf.is_empty() {
            None
        } else {
            Some(SeekFrom::Current(buf.discard_read()))
        };
        let std = self.std.clone();
        inner.state = State::Busy(spawn_blocking(move || {
            let res = match back {
                Some(seek) => (&*std).seek(seek).and_then(|_| std.set_len(size)),
                None => std.set_len(size),
            };
            (Operation::Seek(res.map(|()| 0)), buf)
        }));
        let (op, buf) = poll_fn(|cx| poll_op(&mut inner.state, cx)).await?;
        inner.state = State::Idle(Some(buf));
        match op {
            Operation::Seek(res) => res.map(drop),
            _ => unreachable!("set_len runs a seek-shaped operation"),
        }
    }

    /// The file's metadata (does not wait for the operation in flight, as tokio's).
    pub async fn metadata(&self) -> io::Result<Metadata> {
        let std = self.std.clone();
        asyncify(move || std.metadata()).await
    }

    /// A new `File` sharing this one's open file description (and so its position).
    pub async fn try_clone(&self) -> io::Result<File> {
        let std = self.std.clone();
        let cloned = asyncify(move || std.try_clone()).await?;
        let mut file = File::from_std(cloned);
        // As tokio's: the clone buffers as much as the original.
        file.max_buf_size = self.max_buf_size;
        Ok(file)
    }

    /// Changes the file's permissions.
    pub async fn set_permissions(&self, perm: Permissions) -> io::Result<()> {
        let std = self.std.clone();
        asyncify(move || std.set_permissions(perm)).await
    }

    /// Changes the file's timestamps (those set in `times`), after the write in flight, so
    /// that it cannot land afterwards and change the modification time again.
    ///
    /// # Errors
    /// When the user may not change the file's timestamps, and in other OS-specific cases.
    pub async fn set_times(&self, times: super::FileTimes) -> io::Result<()> {
        let mut inner = self.inner.lock().await;
        inner.complete_inflight().await;
        let std = self.std.clone();
        let times = times.into_std();
        asyncify(move || std.set_times(times)).await
    }

    /// Changes the file's modification time: [`File::set_times`] with only that one set.
    pub async fn set_modified(&self, time: std::time::SystemTime) -> io::Result<()> {
        self.set_times(super::FileTimes::new().set_modified(time))
            .await
    }

    /// Waits for the operation in flight and returns the std file.
    pub async fn into_std(mut self) -> std::fs::File {
        self.inner.get_mut().complete_inflight().await;
        // A cancelled `metadata`/`try_clone` may still hold a reference on the pool for a
        // moment; a duplicate descriptor of the same open file is then as good.
        Arc::try_unwrap(self.std).unwrap_or_else(|shared| {
            shared
                .try_clone()
                .expect("File::into_std: duplicating the descriptor failed")
        })
    }

    /// The std file, if no operation is in flight (else the `File` back).
    // tokio's signature: the `File` itself comes back on failure, so the error is as
    // large as a `File`; boxing it would break ported code.
    #[allow(clippy::result_large_err)]
    pub fn try_into_std(mut self) -> Result<std::fs::File, File> {
        if matches!(self.inner.get_mut().state, State::Busy(_)) {
            return Err(self);
        }
        let File {
            std,
            inner,
            max_buf_size,
        } = self;
        Arc::try_unwrap(std).map_err(|std| File {
            std,
            inner,
            max_buf_size,
        })
    }

    /// Sets the largest read or write handed to one blocking call (default 2 MiB).
    ///
    /// # Panics
    /// If `max_buf_size` is 0 (no operation could make progress).
    #[track_caller]
    pub fn set_max_buf_size(&mut self, max_buf_size: usize) {
        assert!(
            max_buf_size > 0,
            "`max_buf_size` must be greater than 0 (File::set_max_buf_size(0): use at least 1)"
        );
        self.max_buf_size = max_buf_size;
    }

    /// The largest read or write handed to one blocking call.
    pub fn max_buf_size(&self) -> usize {
        self.max_buf_size
    }

    pub(super) fn poll_read_buf(
        &mut self,
        cx: &mut Context<'_>,
        dst: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        ready!(poll_proceed(cx));
        let max = self.max_buf_size;
        let inner = self.inner.get_mut();
        loop {
            match &mut inner.state {
                State::Idle(cell) => {
                    let mut buf = cell.take().unwrap_or_default();
                    if !buf.is_empty() || dst.remaining() == 0 {
                        buf.copy_to(dst);
                        *cell = Some(buf);
                        return Poll::Ready(Ok(()));
                    }
                    let want = dst.remaining().min(max);
                    let std = self.std.clone();
                    inner.state = State::Busy(spawn_blocking(move || {
                        let res = buf.read_from(&mut &*std, want);
                        (Operation::Read(res), buf)
                    }));
                }
                State::Busy(_) => {
                    let (op, mut buf) = ready!(poll_op(&mut inner.state, cx))?;
                    match op {
                        Operation::Read(Ok(_)) => {
                            buf.copy_to(dst);
                            inner.state = State::Idle(Some(buf));
                            return Poll::Ready(Ok(()));
                        }
                        Operation::Read(Err(e)) => {
                            inner.state = State::Idle(Some(buf));
                            return Poll::Ready(Err(e));
                        }
                        Operation::Write(res) => {
                            inner.state = State::Idle(Some(buf));
                            if let Err(e) = res {
                                // Reported by the next write, flush or seek.
                                inner.last_write_err = Some(e.kind());
                            }
                        }
                        Operation::Seek(res) => {
                            inner.state = State::Idle(Some(buf));
                            if let Ok(pos) = res {
                                inner.pos = pos;
                            }
                        }
                    }
                }
            }
        }
    }

    pub(super) fn poll_write_buf(
        &mut self,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_bufs(cx, &[io::IoSlice::new(src)])
    }

    /// Accepts what fits (`max_buf_size`) of all of `bufs`, in order, as tokio's vectored
    /// write does; the rest of the machinery is [`poll_write_buf`](Self::poll_write_buf)'s.
    pub(super) fn poll_write_bufs(
        &mut self,
        cx: &mut Context<'_>,
        src: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        ready!(poll_proceed(cx));
        let max = self.max_buf_size;
        let inner = self.inner.get_mut();
        if let Some(kind) = inner.last_write_err.take() {
            return Poll::Ready(Err(kind.into()));
        }
        loop {
            match &mut inner.state {
                State::Idle(cell) => {
                    if src.iter().all(|b| b.is_empty()) {
                        return Poll::Ready(Ok(0));
                    }
                    let mut buf = cell.take().unwrap_or_default();
                    let back = if buf.is_empty() {
                        None
                    } else {
                        Some(SeekFrom::Current(buf.discard_read()))
                    };
                    let n = buf.copy_from_bufs(src, max);
                    let std = self.std.clone();
                    inner.state = State::Busy(spawn_blocking(move || {
                        let res = match back {
                            Some(seek) => (&*std).seek(seek).and_then(|_| buf.write_to(&mut &*std)),
                            None => buf.write_to(&mut &*std),
                        };
                        (Operation::Write(res), buf)
                    }));
                    return Poll::Ready(Ok(n));
                }
                State::Busy(_) => {
                    let (op, buf) = ready!(poll_op(&mut inner.state, cx))?;
                    inner.state = State::Idle(Some(buf));
                    match op {
                        // The bytes read ahead are discarded (seeked back over) above.
                        Operation::Read(_) => {}
                        Operation::Write(res) => res?,
                        Operation::Seek(res) => {
                            if let Ok(pos) = res {
                                inner.pos = pos;
                            }
                        }
                    }
                }
            }
        }
    }

    pub(super) fn start_seek_inner(&mut self, mut pos: SeekFrom) -> io::Result<()> {
        let inner = self.inner.get_mut();
        let State::Idle(cell) = &mut inner.state else {
            return Err(io::Error::other(
                "other file operation is pending, call poll_complete before start_seek",
            ));
        };
        let mut buf = cell.take().unwrap_or_default();
        if !buf.is_empty() {
            let unread = buf.discard_read();
            if let SeekFrom::Current(offset) = &mut pos {
                *offset += unread;
            }
        }
        let std = self.std.clone();
        inner.state = State::Busy(spawn_blocking(move || {
            let res = (&*std).seek(pos);
            (Operation::Seek(res), buf)
        }));
        Ok(())
    }

    pub(super) fn poll_complete_inner(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let inner = self.inner.get_mut();
        loop {
            if let State::Idle(_) = inner.state {
                return Poll::Ready(Ok(inner.pos));
            }
            let (op, buf) = ready!(poll_op(&mut inner.state, cx))?;
            inner.state = State::Idle(Some(buf));
            match op {
                Operation::Read(_) => {}
                Operation::Write(Err(e)) => inner.last_write_err = Some(e.kind()),
                Operation::Write(Ok(())) => {}
                Operation::Seek(res) => {
                    if let Ok(pos) = res {
                        inner.pos = pos;
                    }
                    return Poll::Ready(res);
                }
            }
        }
    }

    /// futures-io's one-phase seek: completes what is in flight, then tokio's
    /// `start_seek` + `poll_complete`. (A tokio `start_seek` not yet completed counts as
    /// this seek: tokio's contract asks for `poll_complete` right after `start_seek`.)
    pub(super) fn poll_seek_once(
        &mut self,
        cx: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        loop {
            if matches!(self.inner.get_mut().state, State::Busy(_)) {
                // Either an earlier operation (finish it first) or our own seek, started
                // by a previous poll: `poll_complete` tells by what completes.
                let inner = self.inner.get_mut();
                let (op, buf) = ready!(poll_op(&mut inner.state, cx))?;
                inner.state = State::Idle(Some(buf));
                match op {
                    Operation::Seek(res) => {
                        if let Ok(p) = res {
                            inner.pos = p;
                        }
                        return Poll::Ready(res);
                    }
                    Operation::Write(Err(e)) => inner.last_write_err = Some(e.kind()),
                    Operation::Read(_) | Operation::Write(Ok(())) => {}
                }
                continue;
            }
            if let Some(kind) = self.inner.get_mut().last_write_err.take() {
                return Poll::Ready(Err(kind.into()));
            }
            self.start_seek_inner(pos)?;
        }
    }

    pub(super) fn poll_flush_inner(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.inner.get_mut().poll_flush(cx)
    }
}

impl From<std::fs::File> for File {
    fn from(std: std::fs::File) -> File {
        File::from_std(std)
    }
}

#[cfg(unix)]
impl std::os::fd::AsRawFd for File {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.std.as_raw_fd()
    }
}

#[cfg(unix)]
impl std::os::fd::AsFd for File {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.std.as_fd()
    }
}

#[cfg(unix)]
impl From<std::os::fd::OwnedFd> for File {
    /// A file over an owned descriptor (as [`File::from_std`]).
    fn from(fd: std::os::fd::OwnedFd) -> File {
        File::from_std(std::fs::File::from(fd))
    }
}

#[cfg(unix)]
impl std::os::fd::FromRawFd for File {
    /// # Safety
    ///
    /// As `std::fs::File`'s `from_raw_fd`: `fd` is an open descriptor that the new file
    /// owns (nothing else closes it).
    unsafe fn from_raw_fd(fd: std::os::fd::RawFd) -> File {
        // SAFETY: the caller's contract is std's (see above), passed on unchanged.
        File::from_std(unsafe { std::fs::File::from_raw_fd(fd) })
    }
}

impl fmt::Debug for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("tokio::fs::File")
            .field("std", &self.std)
            .finish()
    }
}

const _: () = {
    const fn assert_send_sync_unpin<T: Send + Sync + Unpin>() {}
    assert_send_sync_unpin::<File>();
};
