//! Stand-in for `task`'s task-identity API until it lands: the same names, no identity.

use std::fmt;

/// A task's identity (stand-in: carries nothing).
#[derive(Clone, Debug)]
pub struct TaskMeta(());

impl fmt::Display for TaskMeta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("task")
    }
}

/// A signal-safe snapshot of the current task's identity (stand-in).
pub struct RawMeta(());

impl RawMeta {
    /// The identity.
    pub fn resolve(self) -> TaskMeta {
        TaskMeta(())
    }
}

/// The identity of the task this thread polls (stand-in: none).
pub fn current_raw_meta() -> Option<RawMeta> {
    None
}
