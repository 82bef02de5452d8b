//! The workloads, one file per family, each written once and run on every runtime it
//! applies to:
//!
//! - [`scheduler`]: the scheduler workloads (tokio's `rt_multi_threaded` benches: spawns from
//!   inside and outside, yields, ping-pong, chained spawns), over the crate's
//!   [`Bench`](crate::Bench) adapters;
//! - [`chan`]: the channel workloads (mpsc, watch, broadcast), each runtime on its own
//!   ecosystem's channels;
//! - [`sync_locks`]: semaphore, mutex and notify workloads over each ecosystem's primitives;
//!   [`notify_floor`] is the floor of its `notify_waiters` fan-out;
//! - [`remote_threads`]: spawns from 1, 4, 16 and 64 plain threads at once;
//! - [`join_set`]: spawning into and joining a `JoinSet`, ours and tokio's;
//! - [`io_echo`]: one loopback echo round trip through tokio's I/O traits or futures-io's.

pub mod chan;
pub mod io_echo;
pub mod join_set;
pub mod notify_floor;
pub mod remote_threads;
pub mod scheduler;
pub mod sync_locks;
