//! `runtime`: a work-stealing async runtime.
//!
//! ```
//! #[runtime::main]
//! async fn main() {
//!     let h = runtime::spawn(async { 40 + 2 });
//!     assert_eq!(h.await.unwrap(), 42);
//! }
//! ```
//!
//! The multi-thread scheduler follows the Tokio scheduler rewrite: per-worker fixed-size
//! SPMC rings with a LIFO slot (`queue`), a mutex-protected intrusive global queue taking
//! the overflow, throttled searching workers (at most half steal at once; a searcher that
//! finds work wakes the next), single-allocation tasks with a hot header and a cold trailer
//! (`task`), and parked workers that cost nothing until woken. All of it is model-checked
//! under loom through the one sync shim (`shim`). See `DESIGN.md` for the map.

#![deny(unsafe_op_in_unsafe_fn)]

mod blocking;
mod builder;
mod context;
mod coop;
mod driver;
mod handle;
#[cfg(all(feature = "hyper", not(loom)))]
pub mod hyper_compat;
mod metrics;
#[cfg(not(loom))]
pub mod net;
mod park;
mod runtime;
mod scheduler;
pub mod sync;
pub mod task;
#[cfg(not(loom))]
pub mod time;
mod unhandled;
mod util;

pub use crate::builder::Builder;
pub use crate::handle::{EnterGuard, Handle, RuntimeFlavor, TryCurrentError};
pub use crate::metrics::{RuntimeMetrics, Stall, WorkerMetrics};
pub use crate::runtime::Runtime;
pub use crate::task::spawn;
pub use crate::unhandled::UnhandledPanic;
pub use runtime_macros::{main, test};
