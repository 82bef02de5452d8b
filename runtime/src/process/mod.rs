//! Child processes with tokio's names: `use tokio::process::Command` ports as
//! `use runtime::process::Command`.
//!
//! ```
//! use runtime::io::AsyncBufReadExt;
//! use runtime::process::Command;
//! use std::process::Stdio;
//!
//! # runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
//! let mut child = Command::new("sh")
//!     .args(["-c", "echo one; echo two"])
//!     .stdout(Stdio::piped())
//!     .spawn()?;
//! let mut lines = runtime::io::BufReader::new(child.stdout.take().unwrap()).lines();
//! assert_eq!(lines.next_line().await?.as_deref(), Some("one"));
//! assert_eq!(lines.next_line().await?.as_deref(), Some("two"));
//! assert!(child.wait().await?.success());
//! # Ok::<_, std::io::Error>(()) }).unwrap();
//! ```
//!
//! Mechanism: [`Command`] is a `std::process::Command` plus `kill_on_drop`; spawning is
//! std's (fork/exec or posix_spawn, on the calling thread). The piped streams become
//! non-blocking pipes registered with the runtime's I/O driver ([`ChildStdin`],
//! [`ChildStdout`], [`ChildStderr`]: tokio's and futures-io's traits). A child's exit is
//! noticed through a pidfd registered with the driver (Linux 5.3+), else through
//! `SIGCHLD`, and collected with a non-blocking `waitpid`; a child whose [`Child`] is
//! dropped before that is reaped once it exits, so no zombie is left behind (see `reap.rs`).
//!
//! Spawning needs a runtime built with `Builder::enable_io()` (`#[runtime::main]`
//! enables it); elsewhere `spawn` panics with a message saying so, as tokio's.

mod child;
mod pipes;
mod reap;

use std::ffi::OsStr;
use std::future::Future;
use std::io;
use std::path::Path;
use std::process::{Command as StdCommand, ExitStatus, Output, Stdio};

pub use child::Child;
pub use pipes::{ChildStderr, ChildStdin, ChildStdout};

/// A process builder (tokio's `process::Command`): std's builder, whose spawned
/// [`Child`] is awaited asynchronously.
pub struct Command {
    std: StdCommand,
    kill_on_drop: bool,
}

impl Command {
    /// A command running `program` (looked up in `PATH` if it has no slash), with no
    /// arguments, the parent's environment and working directory, and inherited streams.
    pub fn new<S: AsRef<OsStr>>(program: S) -> Command {
        Command::from(StdCommand::new(program))
    }

    /// The std builder inside.
    pub fn as_std(&self) -> &StdCommand {
        &self.std
    }

    /// The std builder inside, mutably (for what only std offers).
    pub fn as_std_mut(&mut self) -> &mut StdCommand {
        &mut self.std
    }

    /// The std builder (`kill_on_drop` is lost).
    pub fn into_std(self) -> StdCommand {
        self.std
    }

    /// Adds an argument.
    pub fn arg<S: AsRef<OsStr>>(&mut self, arg: S) -> &mut Command {
        self.std.arg(arg);
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(&mut self, args: I) -> &mut Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.std.args(args);
        self
    }

    /// Sets an environment variable for the child.
    pub fn env<K, V>(&mut self, key: K, val: V) -> &mut Command
    where
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.std.env(key, val);
        self
    }

    /// Sets several environment variables for the child.
    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Command
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.std.envs(vars);
        self
    }

    /// Removes a variable from the child's environment.
    pub fn env_remove<K: AsRef<OsStr>>(&mut self, key: K) -> &mut Command {
        self.std.env_remove(key);
        self
    }

    /// Starts the child with an empty environment (then only what `env` adds).
    pub fn env_clear(&mut self) -> &mut Command {
        self.std.env_clear();
        self
    }

    /// Sets the child's working directory.
    pub fn current_dir<P: AsRef<Path>>(&mut self, dir: P) -> &mut Command {
        self.std.current_dir(dir);
        self
    }

    /// The child's stdin (`Stdio::piped()` makes [`Child::stdin`] a [`ChildStdin`]).
    pub fn stdin<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stdin(cfg);
        self
    }

    /// The child's stdout.
    pub fn stdout<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stdout(cfg);
        self
    }

    /// The child's stderr.
    pub fn stderr<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stderr(cfg);
        self
    }

    /// Whether a [`Child`] dropped before its exit was collected is sent `SIGKILL`
    /// (default `false`: it runs on, and is reaped when it exits).
    pub fn kill_on_drop(&mut self, kill_on_drop: bool) -> &mut Command {
        self.kill_on_drop = kill_on_drop;
        self
    }

    /// The `kill_on_drop` setting.
    pub fn get_kill_on_drop(&self) -> bool {
        self.kill_on_drop
    }

    /// Runs the child as user `id` (`setuid`).
    #[cfg(unix)]
    pub fn uid(&mut self, id: u32) -> &mut Command {
        std::os::unix::process::CommandExt::uid(&mut self.std, id);
        self
    }

    /// Runs the child as group `id` (`setgid`).
    #[cfg(unix)]
    pub fn gid(&mut self, id: u32) -> &mut Command {
        std::os::unix::process::CommandExt::gid(&mut self.std, id);
        self
    }

    /// Sets the child's `argv[0]`.
    #[cfg(unix)]
    pub fn arg0<S: AsRef<OsStr>>(&mut self, arg: S) -> &mut Command {
        std::os::unix::process::CommandExt::arg0(&mut self.std, arg);
        self
    }

    /// Runs `f` in the child after `fork` and before `exec`.
    ///
    /// # Safety
    /// As std's `CommandExt::pre_exec`: `f` runs in a forked copy of a multi-threaded
    /// process, so it may only do what is async-signal-safe (no allocation, no locks).
    #[cfg(unix)]
    pub unsafe fn pre_exec<F>(&mut self, f: F) -> &mut Command
    where
        F: FnMut() -> io::Result<()> + Send + Sync + 'static,
    {
        // SAFETY: the caller upholds `pre_exec`'s contract, which is std's.
        unsafe { std::os::unix::process::CommandExt::pre_exec(&mut self.std, f) };
        self
    }

    /// Puts the child in process group `pgroup` (0: a new group led by the child).
    #[cfg(unix)]
    pub fn process_group(&mut self, pgroup: i32) -> &mut Command {
        std::os::unix::process::CommandExt::process_group(&mut self.std, pgroup);
        self
    }

    /// Spawns the child. Its piped streams are registered with the current runtime.
    ///
    /// # Errors
    /// std's spawn errors (`NotFound` for a missing program, ...).
    ///
    /// # Panics
    /// Outside a runtime, or on one built without `Builder::enable_io()`.
    #[track_caller]
    pub fn spawn(&mut self) -> io::Result<Child> {
        #[cfg(all(feature = "deterministic", not(loom)))]
        crate::sim::net::forbid_real(
            "process::Command::spawn",
            "Stand in for the child with a task in a deterministic test, or run this test \
             on a runtime built without `Builder::deterministic`.",
        );
        // Fail before forking when there is no runtime to watch the child.
        let _ = crate::scheduler::Handle::current_driver("`runtime::process::Command::spawn`")
            .io_handle();
        reap::sweep_orphans();
        let mut std_child = self.std.spawn()?;
        let stdin = std_child.stdin.take();
        let stdout = std_child.stdout.take();
        let stderr = std_child.stderr.take();
        // From here on, an error drops `watched`, which orphans the process: reaped.
        let watched = reap::Watched::new(std_child)?;
        let mut child = Child::new(watched, self.kill_on_drop, None, None, None);
        child.stdin = stdin.map(ChildStdin::from_std).transpose()?;
        child.stdout = stdout.map(ChildStdout::from_std).transpose()?;
        child.stderr = stderr.map(ChildStderr::from_std).transpose()?;
        Ok(child)
    }

    /// Spawns the child and waits for its exit status; piped streams are closed right
    /// after the spawn. Dropping the future kills the child if `kill_on_drop` is set.
    ///
    /// # Errors
    /// The spawn's or the wait's.
    ///
    /// # Panics
    /// As [`Self::spawn`], when called.
    #[track_caller]
    pub fn status(&mut self) -> impl Future<Output = io::Result<ExitStatus>> {
        let child = self.spawn();
        async {
            let mut child = child?;
            drop(child.stdin.take());
            drop(child.stdout.take());
            drop(child.stderr.take());
            child.wait().await
        }
    }

    /// Spawns the child with stdout and stderr piped (this builder keeps that setting),
    /// and collects its status and both outputs.
    ///
    /// # Errors
    /// The spawn's, a read's or the wait's.
    ///
    /// # Panics
    /// As [`Self::spawn`], when called.
    #[track_caller]
    pub fn output(&mut self) -> impl Future<Output = io::Result<Output>> {
        self.std.stdout(Stdio::piped());
        self.std.stderr(Stdio::piped());
        let child = self.spawn();
        async { child?.wait_with_output().await }
    }
}

impl From<StdCommand> for Command {
    fn from(std: StdCommand) -> Command {
        Command {
            std,
            kill_on_drop: false,
        }
    }
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.std, f)
    }
}
