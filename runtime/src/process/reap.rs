//! Waiting for a child's exit without blocking a worker, and reaping the children nobody
//! waits for.
//!
//! **Exit detection.** At spawn, the child gets a *pidfd* (`pidfd_open(2)`, Linux 5.3+),
//! registered with the runtime's I/O driver through an [`AsyncFd`]: it turns readable
//! when the process exits. Where `pidfd_open` fails (an older kernel, a seccomp filter, no
//! descriptor left), the child listens for `SIGCHLD` instead, through
//! [`crate::signal::unix`], subscribed *before* the first `try_wait`, so an exit between
//! the two is a delivery it sees. Either way the exit status is collected with a
//! non-blocking `waitpid` (`std::process::Child::try_wait`), which also reaps the zombie:
//! the watch only says when to try. The pidfd names this one process, never a later one
//! with the same pid: an unreaped child's pid cannot be reused.
//!
//! **Another runtime.** A child may be waited for on another runtime than the one that
//! spawned it, after that one shut down (as tokio allows): a watch that reports its
//! runtime's shutdown is made again on the current runtime (the pidfd registered with its
//! driver, or a new `SIGCHLD` subscription), and the wait goes on there. If that one is
//! shut down too, the wait fails with the shutdown error.
//!
//! **Orphans.** A [`Watched`] child dropped before its exit was collected (its `Child`
//! dropped, a `status()` future cancelled) is *orphaned*: if it has exited it is reaped
//! on the spot; else a detached task on the runtime that spawned it waits for its exit
//! and reaps it. If that cannot happen (the runtime is gone or shutting down, which
//! cancels the task), the std child joins a process-wide list, which every later spawn
//! and every collected exit sweeps with `try_wait`. So no exited child stays a zombie
//! while the program keeps using processes; a program that stops spawning and waiting
//! after its runtime is gone may keep the last few until it exits, as with tokio.

use std::future::poll_fn;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Child as StdChild, ExitStatus};
use std::sync::Mutex;
use std::task::{ready, Context, Poll};

use crate::io::unix::AsyncFd;
use crate::signal::unix::{signal, Signal, SignalKind};

/// How a child's exit is noticed.
enum Watch {
    /// Readable once the process exits.
    Pidfd(AsyncFd<OwnedFd>),
    /// Every `SIGCHLD` delivered to the process from the child's spawn on.
    Signal(Signal),
}

/// A spawned child whose exit has not been collected yet, and its watch.
pub(crate) struct Watched {
    /// `Some` until the exit is collected or the child is handed to an orphan reaper.
    child: Option<StdChild>,
    /// `Some` but while a dropped child's watch moves to its reaper task.
    watch: Option<Watch>,
    /// The runtime that spawned it: an orphan's reaper task runs there.
    handle: Option<crate::Handle>,
    /// A reaper task's own child: on drop it goes to the process-wide list rather than
    /// to another task.
    orphan: bool,
}

/// Children whose exit nobody can wait for any more; swept by [`sweep_orphans`].
static ORPHANS: Mutex<Vec<StdChild>> = Mutex::new(Vec::new());

/// Reaps every listed orphan that has exited.
pub(crate) fn sweep_orphans() {
    let mut list = ORPHANS.lock().unwrap_or_else(|p| p.into_inner());
    // An error from waitpid (ECHILD: someone else reaped it) means there is nothing left
    // to reap either.
    list.retain_mut(|c| matches!(c.try_wait(), Ok(None)));
}

fn pidfd_open(pid: u32) -> io::Result<OwnedFd> {
    let pid = libc::pid_t::try_from(pid).map_err(io::Error::other)?;
    // No flags: the descriptor is only polled, never read or waited on, and
    // `PIDFD_NONBLOCK` would need Linux 5.10 where the call itself exists from 5.3.
    // SAFETY: pidfd_open takes a pid and a flags word and returns a new descriptor or -1;
    // no memory is passed.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = i32::try_from(fd).map_err(io::Error::other)?;
    // SAFETY: a fresh descriptor the kernel just returned, owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

impl Watched {
    /// Watches a just-spawned child (in the current runtime, which must have I/O enabled).
    #[track_caller]
    pub(crate) fn new(child: StdChild) -> io::Result<Watched> {
        let watch = match pidfd_open(child.id()).and_then(AsyncFd::new) {
            Ok(fd) => Watch::Pidfd(fd),
            Err(_) => Watch::Signal(signal(SignalKind::child())?),
        };
        Ok(Watched {
            child: Some(child),
            watch: Some(watch),
            handle: crate::Handle::try_current().ok(),
            orphan: false,
        })
    }

    /// A child watched through `SIGCHLD` whatever the kernel offers (the fallback's tests).
    #[cfg(test)]
    fn with_sigchld(child: StdChild) -> io::Result<Watched> {
        let watch = Watch::Signal(signal(SignalKind::child())?);
        Ok(Watched {
            child: Some(child),
            watch: Some(watch),
            handle: crate::Handle::try_current().ok(),
            orphan: false,
        })
    }

    pub(crate) fn std(&mut self) -> &mut StdChild {
        self.child
            .as_mut()
            .expect("present until collected or orphaned")
    }

    pub(crate) fn id(&self) -> u32 {
        self.child
            .as_ref()
            .expect("present until collected or orphaned")
            .id()
    }

    /// The exit status if the child has exited (reaping it), else `None`.
    pub(crate) fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        let status = self.std().try_wait()?;
        if status.is_some() {
            sweep_orphans();
        }
        Ok(status)
    }

    /// Waits for the exit (spending budget through the watch) and collects it.
    pub(crate) fn poll_wait(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<ExitStatus>> {
        let mut rewatched = false;
        loop {
            if let Some(status) = self.try_wait()? {
                return Poll::Ready(Ok(status));
            }
            // The error that says the watch's runtime shut down, if it did.
            let Some(watch) = self.watch.as_mut() else {
                return Poll::Ready(Err(io::Error::other(
                    "the child's exit can no longer be watched: its runtime shut down and \
                     watching it on the current one failed",
                )));
            };
            let gone = match watch {
                Watch::Pidfd(fd) => match ready!(fd.poll_read_ready(cx)) {
                    Ok(mut guard) => {
                        // Readable means exited: collect it now; otherwise (never seen, but
                        // cheap to honour) clear and wait for the next edge.
                        if let Some(status) = self.child.as_mut().expect("present").try_wait()? {
                            sweep_orphans();
                            return Poll::Ready(Ok(status));
                        }
                        guard.clear_ready();
                        None
                    }
                    Err(e) if crate::runtime::is_rt_shutdown_err(&e) => Some(e),
                    Err(e) => return Poll::Ready(Err(e)),
                },
                Watch::Signal(sig) => match ready!(sig.poll_recv(cx)) {
                    Some(()) => None,
                    None => Some(io::Error::other(
                        "the runtime shut down while waiting for a child to exit",
                    )),
                },
            };
            if let Some(e) = gone {
                // Once per poll: a current runtime that is shut down too ends the wait.
                if rewatched || crate::Handle::try_current().is_err() {
                    return Poll::Ready(Err(e));
                }
                self.rewatch()?;
                rewatched = true;
            }
        }
    }

    /// Makes the watch again on the current runtime, the one it was made on being shut
    /// down (module docs); an orphaned child is then reaped on the current one too. A
    /// pidfd that cannot be registered falls back to `SIGCHLD`, as at spawn; if that fails
    /// too the child is left without a watch (the error is returned, and every later wait).
    fn rewatch(&mut self) -> io::Result<()> {
        let watch = match self.watch.take() {
            Some(Watch::Pidfd(fd)) => match AsyncFd::new(fd.into_inner()) {
                Ok(fd) => Watch::Pidfd(fd),
                Err(_) => Watch::Signal(signal(SignalKind::child())?),
            },
            _ => Watch::Signal(signal(SignalKind::child())?),
        };
        self.watch = Some(watch);
        self.handle = crate::Handle::try_current().ok();
        Ok(())
    }

    /// The exit was collected: nothing is left to orphan.
    pub(crate) fn collected(mut self) {
        self.child = None;
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if !matches!(child.try_wait(), Ok(None)) {
            return; // Reaped now (or by someone else).
        }
        match (self.orphan, self.handle.take(), self.watch.take()) {
            (false, Some(handle), Some(watch)) => {
                // A reaper task: if the runtime is shutting down it is cancelled at once
                // and its `Watched` (an orphan) goes to the list below.
                let mut orphan = Watched {
                    child: Some(child),
                    watch: Some(watch),
                    handle: None,
                    orphan: true,
                };
                drop(handle.spawn(async move {
                    if poll_fn(|cx| orphan.poll_wait(cx)).await.is_ok() {
                        orphan.collected();
                    }
                }));
            }
            _ => ORPHANS
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(child),
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::process::Command;
    use std::time::Duration;

    fn is_gone(pid: u32) -> bool {
        std::fs::metadata(format!("/proc/{pid}")).is_err()
    }

    /// The `SIGCHLD` fallback: concurrent children each get their own status, and a
    /// dropped one is reaped by its reaper task.
    #[test]
    fn the_sigchld_fallback_collects_every_exit_and_reaps_orphans() {
        for rt in [
            crate::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
            crate::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap(),
        ] {
            rt.block_on(async {
                let waits: Vec<_> = (0..20)
                    .map(|i| {
                        let child = Command::new("sh")
                            .args(["-c", &format!("exit {i}")])
                            .spawn()
                            .unwrap();
                        let mut w = Watched::with_sigchld(child).unwrap();
                        crate::spawn(async move {
                            let status = poll_fn(|cx| w.poll_wait(cx)).await.unwrap();
                            w.collected();
                            (i, status.code())
                        })
                    })
                    .collect();
                for w in waits {
                    let (i, code) = crate::time::timeout(Duration::from_secs(50), w)
                        .await
                        .expect("an exit was never noticed")
                        .unwrap();
                    assert_eq!(code, Some(i));
                }
                let child = Command::new("sh").args(["-c", "exit 0"]).spawn().unwrap();
                let pid = child.id();
                drop(Watched::with_sigchld(child).unwrap());
                crate::time::timeout(Duration::from_secs(50), async {
                    while !is_gone(pid) {
                        crate::time::sleep(Duration::from_millis(5)).await;
                    }
                })
                .await
                .expect("the orphan was never reaped");
            });
        }
    }
}
