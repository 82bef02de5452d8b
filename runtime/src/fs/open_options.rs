//! `OpenOptions`: std's options builder whose `open` runs on the blocking pool.

use std::io;
use std::path::Path;

use super::{asyncify, File};

/// Options for opening a file, as [`std::fs::OpenOptions`] with an async `open`.
///
/// ```
/// use runtime::fs::OpenOptions;
/// use runtime::io::AsyncWriteExt;
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// # let dir = std::env::temp_dir().join(format!("runtime-doc-oo-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("log.txt");
/// let mut log = OpenOptions::new().append(true).create(true).open(&path).await?;
/// log.write_all(b"one line\n").await?;
/// log.flush().await?;
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct OpenOptions(std::fs::OpenOptions);

impl OpenOptions {
    /// All options off (std's defaults).
    pub fn new() -> OpenOptions {
        OpenOptions(std::fs::OpenOptions::new())
    }

    /// Open for reading.
    pub fn read(&mut self, read: bool) -> &mut OpenOptions {
        self.0.read(read);
        self
    }

    /// Open for writing.
    pub fn write(&mut self, write: bool) -> &mut OpenOptions {
        self.0.write(write);
        self
    }

    /// Every write goes to the end of the file.
    pub fn append(&mut self, append: bool) -> &mut OpenOptions {
        self.0.append(append);
        self
    }

    /// Truncate an existing file to length 0 (needs `write`).
    pub fn truncate(&mut self, truncate: bool) -> &mut OpenOptions {
        self.0.truncate(truncate);
        self
    }

    /// Create the file if it does not exist (needs `write` or `append`).
    pub fn create(&mut self, create: bool) -> &mut OpenOptions {
        self.0.create(create);
        self
    }

    /// Create the file, failing with `AlreadyExists` if it exists (atomic).
    pub fn create_new(&mut self, create_new: bool) -> &mut OpenOptions {
        self.0.create_new(create_new);
        self
    }

    /// Permission bits of a newly created file (before the umask).
    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut OpenOptions {
        std::os::unix::fs::OpenOptionsExt::mode(&mut self.0, mode);
        self
    }

    /// Extra `open(2)` flags (`libc::O_*`).
    #[cfg(unix)]
    pub fn custom_flags(&mut self, flags: i32) -> &mut OpenOptions {
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut self.0, flags);
        self
    }

    /// Opens `path` with these options.
    ///
    /// # Panics
    /// Outside a runtime (the `open` runs on its blocking pool).
    pub async fn open(&self, path: impl AsRef<Path>) -> io::Result<File> {
        let opts = self.0.clone();
        let path = path.as_ref().to_owned();
        let std = asyncify(move || opts.open(path)).await?;
        Ok(File::from_std(std))
    }

    /// The std options (to open a file synchronously with the same settings).
    pub fn as_std(&self) -> &std::fs::OpenOptions {
        &self.0
    }
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions::new()
    }
}

impl From<std::fs::OpenOptions> for OpenOptions {
    fn from(options: std::fs::OpenOptions) -> OpenOptions {
        OpenOptions(options)
    }
}
