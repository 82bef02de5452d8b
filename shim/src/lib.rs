//! The one sync shim of the workspace.
//!
//! Every crate with shared mutable state (queue, task, runtime) imports its atomics,
//! cells, locks, threads and thread-locals from here and nowhere else. Normally these
//! are std atomics, `parking_lot` locks and std threads; compiled with
//! `RUSTFLAGS="--cfg loom"` they are loom's model-checked types, so the loom suites
//! exercise exactly the code that ships, not a copy of it.
//!
//! The API is the intersection the two backends can honour:
//! - `cell::UnsafeCell` exposes only `with`/`with_mut` (loom tracks every access);
//! - `sync::Mutex::lock` returns a guard directly (no poisoning, as in parking_lot);
//! - `sync::RwLock::{read, write}` likewise (parking_lot's, or loom's behind a wrapper);
//! - `sync::SpinMutex` is this crate's own lock (`spin_mutex.rs`), the same code over
//!   either backend's atomics;
//! - `sync::Condvar::wait` takes `&mut guard`; `wait_for` (a timed wait) exists only
//!   outside loom, where timeouts have a meaning.

#![deny(unsafe_op_in_unsafe_fn)]

mod spin_mutex;

#[cfg(not(loom))]
mod std_impl;
#[cfg(not(loom))]
pub use std_impl::*;

#[cfg(loom)]
mod loom_impl;
#[cfg(loom)]
pub use loom_impl::*;

/// `thread_local!` from std, or from loom under `--cfg loom`.
#[cfg(not(loom))]
#[macro_export]
macro_rules! thread_local {
    ($($tt:tt)*) => { ::std::thread_local!($($tt)*); };
}

/// `thread_local!` from std, or from loom under `--cfg loom`.
#[cfg(loom)]
#[macro_export]
macro_rules! thread_local {
    ($($tt:tt)*) => { $crate::__loom::thread_local!($($tt)*); };
}

#[cfg(loom)]
#[doc(hidden)]
pub use loom as __loom;

/// True when compiled for the loom model checker.
pub const LOOM: bool = cfg!(loom);
