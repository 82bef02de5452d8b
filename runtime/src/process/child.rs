//! `Child`: a spawned process, its exit status awaited without blocking a worker.
//!
//! A `Child` is either *running* (a [`Watched`] std child: see `reap.rs` for how its exit
//! is noticed and how it is reaped if nobody waits) or *done* (its exit status, kept so
//! that `wait` and `try_wait` keep answering). The transition happens once, in `wait`,
//! `try_wait` or `kill`, which reap the process. Dropping a running `Child` orphans it:
//! it is killed first if `kill_on_drop` was set, and reaped once it exits either way.

use std::fmt;
use std::future::{poll_fn, Future};
use std::io;
use std::process::{ExitStatus, Output};
use std::task::{Context, Poll};

use crate::io::AsyncReadExt;

use super::pipes::{ChildStderr, ChildStdin, ChildStdout};
use super::reap::Watched;

enum State {
    Running(Watched),
    Done(ExitStatus),
}

/// A child process spawned by [`Command::spawn`](super::Command::spawn) (tokio's
/// `process::Child`).
///
/// The standard streams that were set to `Stdio::piped()` are here, ready to be taken
/// (`child.stdout.take()`). Dropping a `Child` does not wait for the process (nor kill it,
/// unless `kill_on_drop(true)`): it goes on, and is reaped when it exits.
pub struct Child {
    state: State,
    kill_on_drop: bool,
    /// The child's stdin, if piped.
    pub stdin: Option<ChildStdin>,
    /// The child's stdout, if piped.
    pub stdout: Option<ChildStdout>,
    /// The child's stderr, if piped.
    pub stderr: Option<ChildStderr>,
}

impl Child {
    pub(super) fn new(
        watched: Watched,
        kill_on_drop: bool,
        stdin: Option<ChildStdin>,
        stdout: Option<ChildStdout>,
        stderr: Option<ChildStderr>,
    ) -> Child {
        Child {
            state: State::Running(watched),
            kill_on_drop,
            stdin,
            stdout,
            stderr,
        }
    }

    /// The OS process id, while the process has not been waited for (`None` after).
    pub fn id(&self) -> Option<u32> {
        match &self.state {
            State::Running(w) => Some(w.id()),
            State::Done(_) => None,
        }
    }

    /// Sends `SIGKILL` without waiting for it to take effect (follow with `wait` to reap
    /// the process). Nothing happens once the exit was collected.
    ///
    /// # Errors
    /// What `kill(2)` says.
    pub fn start_kill(&mut self) -> io::Result<()> {
        match &mut self.state {
            State::Running(w) => w.std().kill(),
            State::Done(_) => Ok(()),
        }
    }

    /// Sends `SIGKILL` and waits for the process to exit (reaping it).
    ///
    /// # Errors
    /// What `kill(2)` or the wait says.
    pub async fn kill(&mut self) -> io::Result<()> {
        self.start_kill()?;
        self.wait().await.map(drop)
    }

    /// Waits for the process to exit and returns its status; drops `stdin` first, so a
    /// child reading its input to EOF can finish. Cancel-safe: dropping the future loses
    /// nothing.
    ///
    /// # Errors
    /// When `waitpid` fails, or the runtime shuts down meanwhile.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        drop(self.stdin.take());
        poll_fn(|cx| self.poll_wait(cx)).await
    }

    fn poll_wait(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<ExitStatus>> {
        match &mut self.state {
            State::Done(status) => Poll::Ready(Ok(*status)),
            State::Running(w) => {
                let status = std::task::ready!(w.poll_wait(cx))?;
                self.finish(status);
                Poll::Ready(Ok(status))
            }
        }
    }

    fn finish(&mut self, status: ExitStatus) {
        if let State::Running(w) = std::mem::replace(&mut self.state, State::Done(status)) {
            w.collected();
        }
    }

    /// The exit status if the process has exited (reaping it), `None` if it still runs.
    ///
    /// # Errors
    /// When `waitpid` fails.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        match &mut self.state {
            State::Done(status) => Ok(Some(*status)),
            State::Running(w) => {
                let status = w.try_wait()?;
                if let Some(status) = status {
                    self.finish(status);
                }
                Ok(status)
            }
        }
    }

    /// Waits for the exit while reading all of stdout and stderr (those that were piped;
    /// the others come back empty); drops `stdin` first.
    ///
    /// # Errors
    /// A read or the wait failing.
    pub async fn wait_with_output(mut self) -> io::Result<Output> {
        drop(self.stdin.take());
        let (mut out, mut err) = (self.stdout.take(), self.stderr.take());
        let read_out = async {
            let mut v = Vec::new();
            if let Some(p) = out.as_mut() {
                p.read_to_end(&mut v).await?;
            }
            io::Result::Ok(v)
        };
        let read_err = async {
            let mut v = Vec::new();
            if let Some(p) = err.as_mut() {
                p.read_to_end(&mut v).await?;
            }
            io::Result::Ok(v)
        };
        let (stdout, stderr, status) =
            futures_join3(read_out, read_err, poll_fn(|cx| self.poll_wait(cx))).await;
        Ok(Output {
            status: status?,
            stdout: stdout?,
            stderr: stderr?,
        })
    }
}

/// Polls three futures to completion together (each only until it is done).
async fn futures_join3<A, B, C>(
    a: impl Future<Output = A>,
    b: impl Future<Output = B>,
    c: impl Future<Output = C>,
) -> (A, B, C) {
    let (mut a, mut b, mut c) = (std::pin::pin!(a), std::pin::pin!(b), std::pin::pin!(c));
    let (mut ra, mut rb, mut rc) = (None, None, None);
    poll_fn(|cx| {
        if ra.is_none() {
            if let Poll::Ready(v) = a.as_mut().poll(cx) {
                ra = Some(v);
            }
        }
        if rb.is_none() {
            if let Poll::Ready(v) = b.as_mut().poll(cx) {
                rb = Some(v);
            }
        }
        if rc.is_none() {
            if let Poll::Ready(v) = c.as_mut().poll(cx) {
                rc = Some(v);
            }
        }
        if ra.is_some() && rb.is_some() && rc.is_some() {
            Poll::Ready((ra.take().unwrap(), rb.take().unwrap(), rc.take().unwrap()))
        } else {
            Poll::Pending
        }
    })
    .await
}

impl Drop for Child {
    fn drop(&mut self) {
        if let State::Running(w) = &mut self.state {
            if self.kill_on_drop {
                // The process may have exited already (ESRCH-like answers): nothing to do.
                let _ = w.std().kill();
            }
            // `w` drops with `self`: orphaned, it is reaped once it exits (reap.rs).
        }
    }
}

impl fmt::Debug for Child {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Child")
            .field("id", &self.id())
            .field("stdin", &self.stdin)
            .field("stdout", &self.stdout)
            .field("stderr", &self.stderr)
            .finish()
    }
}
