//! `FileTimes`: the timestamps [`File::set_times`](super::File::set_times) applies.
//!
//! A plain value with tokio's builder API: each timestamp is `Some` once set and only the
//! set ones are changed; it becomes a `std::fs::FileTimes` when applied.

use std::time::SystemTime;

/// Timestamps to set on a file with [`File::set_times`](super::File::set_times): those
/// left unset keep their current value.
///
/// ```
/// use runtime::fs::FileTimes;
/// let times = FileTimes::new().set_modified(std::time::SystemTime::UNIX_EPOCH);
/// # drop(times);
/// ```
#[derive(Debug, Clone, Default)]
#[must_use = "must be applied to a file via `File::set_times` to have any effect"]
pub struct FileTimes {
    accessed: Option<SystemTime>,
    modified: Option<SystemTime>,
    #[cfg(target_vendor = "apple")]
    created: Option<SystemTime>,
}

impl FileTimes {
    /// No timestamps set: applying it changes nothing.
    pub fn new() -> FileTimes {
        FileTimes::default()
    }

    /// Sets the last access time.
    pub fn set_accessed(mut self, t: SystemTime) -> FileTimes {
        self.accessed = Some(t);
        self
    }

    /// Sets the last modification time.
    pub fn set_modified(mut self, t: SystemTime) -> FileTimes {
        self.modified = Some(t);
        self
    }

    /// Sets the creation time (the platforms that record one writably).
    #[cfg(target_vendor = "apple")]
    pub fn set_created(mut self, t: SystemTime) -> FileTimes {
        self.created = Some(t);
        self
    }

    pub(crate) fn into_std(self) -> std::fs::FileTimes {
        let mut times = std::fs::FileTimes::new();
        if let Some(t) = self.accessed {
            times = times.set_accessed(t);
        }
        if let Some(t) = self.modified {
            times = times.set_modified(t);
        }
        #[cfg(target_vendor = "apple")]
        if let Some(t) = self.created {
            use std::os::darwin::fs::FileTimesExt;
            times = times.set_created(t);
        }
        times
    }
}
