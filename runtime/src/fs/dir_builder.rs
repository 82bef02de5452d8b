//! `DirBuilder`: std's directory builder whose `create` runs on the blocking pool.

use std::io;
use std::path::Path;

use super::asyncify;

/// Options for creating directories (recursive, permission bits), as
/// [`std::fs::DirBuilder`] with an async `create`.
///
/// ```
/// use runtime::fs::DirBuilder;
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// # let dir = std::env::temp_dir().join(format!("runtime-doc-db-{}", std::process::id()));
/// DirBuilder::new().recursive(true).mode(0o700).create(dir.join("a/b")).await?;
/// assert!(dir.join("a/b").is_dir());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
#[derive(Debug, Default)]
pub struct DirBuilder {
    recursive: bool,
    #[cfg(unix)]
    mode: Option<u32>,
}

impl DirBuilder {
    /// Non-recursive, default permissions.
    pub fn new() -> DirBuilder {
        DirBuilder::default()
    }

    /// Create missing parents too (and accept an existing directory).
    pub fn recursive(&mut self, recursive: bool) -> &mut DirBuilder {
        self.recursive = recursive;
        self
    }

    /// Permission bits of the new directories (before the umask).
    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut DirBuilder {
        self.mode = Some(mode);
        self
    }

    /// Creates the directory `path` with these options.
    pub async fn create(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let path = path.as_ref().to_owned();
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(self.recursive);
        #[cfg(unix)]
        if let Some(mode) = self.mode {
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, mode);
        }
        asyncify(move || builder.create(path)).await
    }
}
