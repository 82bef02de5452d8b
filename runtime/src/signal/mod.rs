//! Asynchronous signal handling with tokio's names: [`ctrl_c`] and, on unix,
//! [`unix::signal`].
//!
//! ```no_run
//! #[runtime::main]
//! async fn main() {
//!     runtime::spawn(async { /* serve */ });
//!     runtime::signal::ctrl_c().await.expect("listening for Ctrl-C");
//!     println!("shutting down");
//! }
//! ```
//!
//! Handlers are installed through `signal-hook-registry` (so they chain with other
//! libraries' handlers) and only set a flag and write a byte to a socket; tasks learn of
//! a delivery by waiting on that socket through the runtime's I/O driver. No thread is
//! started. A handler, once installed for a signal number,
//! stays installed for the life of the process, as with tokio.

pub(crate) mod doorbell;
mod registry;
pub mod unix;

use std::io;

/// Completes at the next Ctrl-C (`SIGINT`) delivered after its first poll.
///
/// The first call installs a `SIGINT` handler for the life of the process: from then on
/// Ctrl-C no longer terminates the program by itself, the program decides (as with
/// tokio).
///
/// ```
/// # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
/// # let _installed = runtime::signal::unix::signal(runtime::signal::unix::SignalKind::interrupt())?;
/// let waiter = runtime::spawn(runtime::signal::ctrl_c());
/// # runtime::task::yield_now().await; // let it register
/// # unsafe { libc::raise(libc::SIGINT) };
/// waiter.await.unwrap()?;
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
///
/// # Errors
/// If the handler cannot be installed, or the runtime shuts down while waiting.
///
/// # Panics
/// Outside a runtime, or on one built without `Builder::enable_io()`.
pub async fn ctrl_c() -> io::Result<()> {
    #[cfg(all(feature = "deterministic", not(loom)))]
    crate::sim::net::forbid_real(
        "signal::ctrl_c",
        "Deliver the event through a channel or `Notify` in a deterministic test, or run \
         this test on a runtime built without `Builder::deterministic`.",
    );
    let mut sig = unix::signal(unix::SignalKind::interrupt())?;
    match sig.recv().await {
        Some(()) => Ok(()),
        None => Err(io::Error::other(
            "the runtime shut down while waiting for Ctrl-C",
        )),
    }
}
