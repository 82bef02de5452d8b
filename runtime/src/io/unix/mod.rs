//! Unix-specific I/O with tokio's names: [`AsyncFd`], the way to drive any file
//! descriptor epoll can watch (a pipe, an eventfd, a pty, a tun device, a serial port,
//! inotify, netlink) from a task.
//!
//! The descriptor is registered with the runtime's I/O driver, edge triggered, like the
//! sockets of [`crate::net`]; the readiness the driver records stays set until the user
//! clears it through a guard after a `WouldBlock` (see [`AsyncFdReadyGuard`]), exactly as
//! with tokio.

mod async_fd;
mod guard;

pub use async_fd::{AsyncFd, AsyncFdRegisterError, AsyncFdTryNewError};
pub use guard::{AsyncFdReadyGuard, AsyncFdReadyMutGuard, TryIoError};
