//! Unix signals: [`signal`] returns a [`Signal`] stream for one [`SignalKind`].
//!
//! A delivery travels from the handler to the tasks as a flag and a doorbell byte, read
//! through the runtime's I/O driver; no thread per signal.

use std::fmt;
use std::future::poll_fn;
use std::io;
use std::task::{Context, Poll};

use shim::sync::Arc;

use super::registry::{self, Receiver, Slot};

/// Which signal a [`Signal`] listens for: tokio's `SignalKind`.
///
/// ```
/// use runtime::signal::unix::SignalKind;
/// assert_eq!(SignalKind::hangup().as_raw_value(), libc::SIGHUP);
/// assert_eq!(SignalKind::from_raw(libc::SIGUSR1), SignalKind::user_defined1());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SignalKind(i32);

impl SignalKind {
    /// Any signal by number (e.g. a real-time one, `libc::SIGRTMIN() + 1`).
    pub const fn from_raw(signum: i32) -> SignalKind {
        SignalKind(signum)
    }

    /// The signal number.
    pub const fn as_raw_value(&self) -> i32 {
        self.0
    }

    /// `SIGALRM`: a real-time timer expired.
    pub const fn alarm() -> SignalKind {
        SignalKind(libc::SIGALRM)
    }

    /// `SIGCHLD`: a child process changed state.
    pub const fn child() -> SignalKind {
        SignalKind(libc::SIGCHLD)
    }

    /// `SIGHUP`: the terminal hung up (by convention: reload the configuration).
    pub const fn hangup() -> SignalKind {
        SignalKind(libc::SIGHUP)
    }

    /// `SIGINT`: interrupt from the keyboard (Ctrl-C).
    pub const fn interrupt() -> SignalKind {
        SignalKind(libc::SIGINT)
    }

    /// `SIGIO`: I/O is possible on a descriptor.
    pub const fn io() -> SignalKind {
        SignalKind(libc::SIGIO)
    }

    /// `SIGPIPE`: a write to a pipe or socket with no reader.
    pub const fn pipe() -> SignalKind {
        SignalKind(libc::SIGPIPE)
    }

    /// `SIGQUIT`: quit from the keyboard (Ctrl-\\).
    pub const fn quit() -> SignalKind {
        SignalKind(libc::SIGQUIT)
    }

    /// `SIGTERM`: a polite request to terminate.
    pub const fn terminate() -> SignalKind {
        SignalKind(libc::SIGTERM)
    }

    /// `SIGUSR1`.
    pub const fn user_defined1() -> SignalKind {
        SignalKind(libc::SIGUSR1)
    }

    /// `SIGUSR2`.
    pub const fn user_defined2() -> SignalKind {
        SignalKind(libc::SIGUSR2)
    }

    /// `SIGWINCH`: the terminal window changed size.
    pub const fn window_change() -> SignalKind {
        SignalKind(libc::SIGWINCH)
    }
}

impl From<i32> for SignalKind {
    fn from(signum: i32) -> SignalKind {
        SignalKind(signum)
    }
}

impl From<SignalKind> for i32 {
    fn from(kind: SignalKind) -> i32 {
        kind.0
    }
}

/// A stream of deliveries of one signal, from [`signal`].
///
/// Deliveries that arrive between two `recv`s coalesce into one; every `Signal` of the
/// same kind sees each delivery. Once a handler is installed for a signal number it stays
/// for the life of the process (so the signal's default action, e.g. terminating on
/// `SIGINT`, no longer happens), as with tokio.
pub struct Signal {
    slot: &'static Slot,
    kind: SignalKind,
    receiver: Arc<Receiver>,
    id: u64,
    seen: u64,
}

/// Listens for `kind`; the returned [`Signal`] sees deliveries from now on.
///
/// ```
/// use runtime::signal::unix::{signal, SignalKind};
/// # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
/// let mut hup = signal(SignalKind::hangup())?;
/// // Some other process (or this one) sends SIGHUP:
/// unsafe { libc::kill(libc::getpid(), libc::SIGHUP) };
/// hup.recv().await;
/// println!("reloading the configuration");
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
///
/// # Errors
/// For a signal that cannot be handled (`SIGKILL`, `SIGSTOP`, `SIGILL`, `SIGFPE`,
/// `SIGSEGV`) or a number below 1: "Refusing to register signal N"; past the platform's
/// signal numbers: "signal too large".
///
/// # Panics
/// Outside a runtime, or on one built without `Builder::enable_io()`.
#[track_caller]
pub fn signal(kind: SignalKind) -> io::Result<Signal> {
    #[cfg(all(feature = "deterministic", not(loom)))]
    crate::sim::net::forbid_real(
        "signal::unix::signal",
        "Deliver the event through a channel or `Notify` in a deterministic test, or run \
         this test on a runtime built without `Builder::deterministic`.",
    );
    // The runtime first, as tokio: a bad number outside a runtime (or on one without I/O)
    // is that panic, not an error.
    let receiver = registry::receiver()?;
    let slot = registry::slot(kind.0)?;
    let (id, seen) = slot.subscribe();
    Ok(Signal {
        slot,
        kind,
        receiver,
        id,
        seen,
    })
}

impl Signal {
    /// Waits for the next delivery. `None` once the runtime that created this `Signal`
    /// has shut down (no more deliveries can be received).
    pub async fn recv(&mut self) -> Option<()> {
        poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Polls for the next delivery (see [`Self::recv`]).
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<()>> {
        self.slot
            .poll_recv(&self.receiver, self.id, &mut self.seen, cx)
    }
}

impl Drop for Signal {
    fn drop(&mut self) {
        self.slot.unsubscribe(self.id);
    }
}

impl fmt::Debug for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signal").field("kind", &self.kind).finish()
    }
}

impl futures_core::Stream for Signal {
    type Item = ();

    fn poll_next(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<()>> {
        self.get_mut().poll_recv(cx)
    }
}

const _: () = {
    const fn assert_send_sync_unpin<T: Send + Sync + Unpin>() {}
    assert_send_sync_unpin::<Signal>();
};
