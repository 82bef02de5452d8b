//! `read_dir`: a directory's entries, read in batches on the blocking pool.
//!
//! The std iterator moves into a blocking closure that reads up to `BATCH` entries (each
//! with its file type, which `readdir` usually provides for free) and comes back with
//! them; `next_entry` hands out the batch, then starts the next. At most one batch is in
//! flight; after the iterator ends (or fails) the state is `Done`.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::{FileType, Metadata};
use std::future::{poll_fn, Future};
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use super::asyncify;
use crate::task::{spawn_blocking, JoinHandle};

/// Entries read per blocking call (tokio's).
const BATCH: usize = 32;

/// Reads the entries of the directory at `path` (not `.` and `..`).
///
/// ```
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// # let dir = std::env::temp_dir().join(format!("runtime-doc-rd-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// # std::fs::write(dir.join("a.txt"), "")?;
/// let mut entries = runtime::fs::read_dir(&dir).await?;
/// while let Some(entry) = entries.next_entry().await? {
///     println!("{}", entry.file_name().to_string_lossy());
/// }
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub async fn read_dir(path: impl AsRef<Path>) -> io::Result<ReadDir> {
    let path = path.as_ref().to_owned();
    let iter = asyncify(move || std::fs::read_dir(path)).await?;
    Ok(ReadDir {
        state: State::Idle(Some((iter, VecDeque::new()))),
    })
}

type Batch = VecDeque<io::Result<DirEntry>>;

/// The stream of a directory's entries, from [`read_dir`].
#[derive(Debug)]
pub struct ReadDir {
    state: State,
}

#[derive(Debug)]
enum State {
    /// The iterator (`None` once it ended) and the entries read ahead.
    Idle(Option<(std::fs::ReadDir, Batch)>),
    Busy(JoinHandle<(Batch, Option<std::fs::ReadDir>)>),
    Done(Batch),
}

impl ReadDir {
    /// The next entry, or `None` at the end.
    pub async fn next_entry(&mut self) -> io::Result<Option<DirEntry>> {
        poll_fn(|cx| self.poll_next_entry(cx)).await
    }

    /// Polls for the next entry (see [`Self::next_entry`]).
    pub fn poll_next_entry(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<DirEntry>>> {
        loop {
            match &mut self.state {
                State::Done(batch) => return Poll::Ready(batch.pop_front().transpose()),
                State::Idle(cell) => {
                    let (mut iter, mut batch) = cell.take().expect("ReadDir state present");
                    if let Some(entry) = batch.pop_front() {
                        self.state = State::Idle(Some((iter, batch)));
                        return Poll::Ready(entry.map(Some));
                    }
                    self.state = State::Busy(spawn_blocking(move || {
                        let ended = next_batch(&mut iter, &mut batch);
                        (batch, (!ended).then_some(iter))
                    }));
                }
                State::Busy(handle) => {
                    let (batch, iter) = ready!(Pin::new(handle).poll(cx))
                        .map_err(|e| io::Error::other(format!("read_dir failed: {e}")))?;
                    self.state = match iter {
                        Some(iter) => State::Idle(Some((iter, batch))),
                        None => State::Done(batch),
                    };
                }
            }
        }
    }
}

/// Reads up to `BATCH` entries into `batch`; true if the directory ended (an error ends
/// it too, after being queued).
fn next_batch(iter: &mut std::fs::ReadDir, batch: &mut Batch) -> bool {
    for _ in 0..BATCH {
        match iter.next() {
            None => return true,
            Some(Ok(e)) => {
                let file_type = e.file_type().ok();
                batch.push_back(Ok(DirEntry {
                    std: Arc::new(e),
                    file_type,
                }));
            }
            Some(Err(e)) => {
                batch.push_back(Err(e));
                return true;
            }
        }
    }
    false
}

impl futures_core::Stream for ReadDir {
    type Item = io::Result<DirEntry>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().poll_next_entry(cx).map(Result::transpose)
    }
}

/// One entry of a directory, from [`ReadDir::next_entry`].
#[derive(Debug)]
pub struct DirEntry {
    std: Arc<std::fs::DirEntry>,
    file_type: Option<FileType>,
}

impl DirEntry {
    /// The full path: the directory given to `read_dir` joined with the file name.
    pub fn path(&self) -> PathBuf {
        self.std.path()
    }

    /// The bare file name.
    pub fn file_name(&self) -> OsString {
        self.std.file_name()
    }

    /// The inode number.
    #[cfg(unix)]
    pub fn ino(&self) -> u64 {
        std::os::unix::fs::DirEntryExt::ino(&*self.std)
    }

    /// The entry's metadata (not following a symlink).
    pub async fn metadata(&self) -> io::Result<Metadata> {
        let std = self.std.clone();
        asyncify(move || std.metadata()).await
    }

    /// The entry's type (not following a symlink); usually known from the directory read
    /// itself, else looked up on the blocking pool.
    pub async fn file_type(&self) -> io::Result<FileType> {
        if let Some(t) = self.file_type {
            return Ok(t);
        }
        let std = self.std.clone();
        asyncify(move || std.file_type()).await
    }
}
