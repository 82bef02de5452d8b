//! Asynchronous file system access with tokio's names: `use tokio::fs::X` ports as
//! `use runtime::fs::X`.
//!
//! ```
//! # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! # let dir = std::env::temp_dir().join(format!("runtime-doc-fs-{}", std::process::id()));
//! runtime::fs::create_dir_all(dir.join("a/b")).await?;
//! runtime::fs::write(dir.join("a/b/note.txt"), "hello").await?;
//! let text = runtime::fs::read_to_string(dir.join("a/b/note.txt")).await?;
//! assert_eq!(text, "hello");
//! runtime::fs::remove_dir_all(&dir).await?;
//! # Ok::<_, std::io::Error>(()) }).unwrap();
//! ```
//!
//! Operating systems offer no readiness-based file I/O, so, as tokio does, every
//! operation here is the std call run on the runtime's blocking pool (`spawn_blocking`)
//! and awaited: the worker thread keeps running other tasks meanwhile. That costs a
//! thread hand-off per call; batch work into few calls (`read`/`write` of a whole file,
//! a [`File`] with large buffers) rather than many small ones. [`File`] keeps at most
//! one operation in flight and one buffer (see its docs); [`ReadDir`] reads entries in
//! batches.
//!
//! Every function needs a runtime (it panics outside one, as `spawn_blocking` does); the
//! I/O driver need not be enabled.

mod buf;
mod dir_builder;
mod file;
mod file_io;
mod file_times;
mod open_options;
mod read_dir;

use std::fs::{Metadata, Permissions};
use std::io;
use std::path::{Path, PathBuf};

pub use dir_builder::DirBuilder;
pub use file::File;
pub use file_times::FileTimes;
pub use open_options::OpenOptions;
pub use read_dir::{read_dir, DirEntry, ReadDir};

/// Runs the blocking `f` on the blocking pool and awaits it.
pub(crate) async fn asyncify<F, T>(f: F) -> io::Result<T>
where
    F: FnOnce() -> io::Result<T> + Send + 'static,
    T: Send + 'static,
{
    match crate::task::spawn_blocking(f).await {
        Ok(res) => res,
        Err(e) => Err(background_task_failed(e)),
    }
}

/// The error of a file operation whose blocking-pool closure never ran to its end (the
/// runtime shut down first, or it panicked): an `Other` error whose message is tokio's,
/// "background task failed", with the [`JoinError`](crate::task::JoinError) as its source.
pub(crate) fn background_task_failed(e: crate::task::JoinError) -> io::Error {
    io::Error::other(BackgroundTaskFailed(e))
}

#[derive(Debug)]
struct BackgroundTaskFailed(crate::task::JoinError);

impl std::fmt::Display for BackgroundTaskFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("background task failed")
    }
}

impl std::error::Error for BackgroundTaskFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// Reads the whole file at `path` into a `Vec<u8>` ([`std::fs::read`]).
pub async fn read(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::read(path)).await
}

/// Reads the whole file at `path` into a `String`; invalid UTF-8 is an `InvalidData`
/// error ([`std::fs::read_to_string`]).
pub async fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::read_to_string(path)).await
}

/// Writes `contents` as the whole file at `path`, creating or truncating it
/// ([`std::fs::write`]).
pub async fn write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    let contents = contents.as_ref().to_owned();
    asyncify(move || std::fs::write(path, contents)).await
}

/// Creates the directory `path`; its parent must exist ([`std::fs::create_dir`]).
pub async fn create_dir(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::create_dir(path)).await
}

/// Creates `path` and every missing parent ([`std::fs::create_dir_all`]).
pub async fn create_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::create_dir_all(path)).await
}

/// Removes a file or symlink ([`std::fs::remove_file`]).
pub async fn remove_file(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::remove_file(path)).await
}

/// Removes an empty directory ([`std::fs::remove_dir`]).
pub async fn remove_dir(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::remove_dir(path)).await
}

/// Removes a directory and everything in it ([`std::fs::remove_dir_all`]).
pub async fn remove_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::remove_dir_all(path)).await
}

/// Renames `from` to `to`, replacing `to` if it is a file ([`std::fs::rename`]).
pub async fn rename(from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<()> {
    let (from, to) = (from.as_ref().to_owned(), to.as_ref().to_owned());
    asyncify(move || std::fs::rename(from, to)).await
}

/// Copies the contents and permissions of file `from` to `to`; returns the bytes copied
/// ([`std::fs::copy`]).
pub async fn copy(from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<u64> {
    let (from, to) = (from.as_ref().to_owned(), to.as_ref().to_owned());
    asyncify(move || std::fs::copy(from, to)).await
}

/// Creates a hard link `dst` to the file `src` ([`std::fs::hard_link`]).
pub async fn hard_link(src: impl AsRef<Path>, dst: impl AsRef<Path>) -> io::Result<()> {
    let (src, dst) = (src.as_ref().to_owned(), dst.as_ref().to_owned());
    asyncify(move || std::fs::hard_link(src, dst)).await
}

/// Creates a symbolic link `dst` pointing at `src` ([`std::os::unix::fs::symlink`]).
#[cfg(unix)]
pub async fn symlink(src: impl AsRef<Path>, dst: impl AsRef<Path>) -> io::Result<()> {
    let (src, dst) = (src.as_ref().to_owned(), dst.as_ref().to_owned());
    asyncify(move || std::os::unix::fs::symlink(src, dst)).await
}

/// The target of the symbolic link `path` ([`std::fs::read_link`]).
pub async fn read_link(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::read_link(path)).await
}

/// Metadata of `path`, following symlinks ([`std::fs::metadata`]).
pub async fn metadata(path: impl AsRef<Path>) -> io::Result<Metadata> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::metadata(path)).await
}

/// Metadata of `path` itself, not following a final symlink
/// ([`std::fs::symlink_metadata`]).
pub async fn symlink_metadata(path: impl AsRef<Path>) -> io::Result<Metadata> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::symlink_metadata(path)).await
}

/// The absolute path with every symlink and `.`/`..` resolved
/// ([`std::fs::canonicalize`]).
pub async fn canonicalize(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::canonicalize(path)).await
}

/// Whether `path` exists: `Ok(false)` for a missing file or a broken symlink, an error
/// when that cannot be told (e.g. permission denied on a parent)
/// ([`std::fs::exists`]).
pub async fn try_exists(path: impl AsRef<Path>) -> io::Result<bool> {
    let path = path.as_ref().to_owned();
    asyncify(move || path.try_exists()).await
}

/// Changes the permissions of `path` ([`std::fs::set_permissions`]).
pub async fn set_permissions(path: impl AsRef<Path>, perm: Permissions) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::set_permissions(path, perm)).await
}
