//! The runtimes under test, one file each, every one implementing [`Bench`](crate::Bench)
//! and [`Spawner`](crate::Spawner) (the traits are in the crate root):
//!
//! - [`ours`]: this workspace's `runtime`, multi-thread or current-thread;
//! - [`tokio_rt`]: tokio, both flavors;
//! - [`smol`]: async-executor's `Executor` and `StaticExecutor`, on N plain threads or on
//!   the bench thread alone;
//! - [`floor`]: a single-threaded executor with no synchronization beyond what `Waker`
//!   demands, the least any runtime can cost.

pub mod floor;
pub mod ours;
pub mod smol;
pub mod tokio_rt;
