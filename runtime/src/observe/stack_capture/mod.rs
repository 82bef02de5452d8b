//! Looking inside another thread of this process while it runs: which task it is polling
//! and its native stack, taken by that thread itself from a signal handler.
//!
//! Used by the monitor for `Builder::on_stall` reports (a worker stuck in one poll) and by
//! `Runtime::shutdown_timeout_report` (workers and blocking-pool threads still busy at the
//! deadline). Linux only; elsewhere every capture answers `Unsupported` and reports carry
//! no native frames and no task identity.
//!
//! **Mechanism.** A requester (the monitor, or the thread shutting a runtime down) claims a
//! *mailbox*, one of `MAILBOXES` preallocated in a static array, writes the target's
//! kernel thread id into it, publishes it as requested, and sends the capture signal
//! (`SIGRTMAX - 3`) to that thread with `tgkill` (a thread id of this process: a thread
//! that exited in between is at worst a reused id of another thread of ours, whose
//! handler finds no request for itself and returns). The handler, running on the target inside whatever it was doing, finds the
//! mailbox addressed to its own thread id, takes `current_raw_meta()` (atomics only) and
//! walks its own stack into the mailbox's frame buffer, instruction pointers only, then
//! publishes the answer. The requester waits for it with a bound (`ANSWER_WAIT`), then
//! resolves the identity and leaves symbolization to whoever formats the frames
//! ([`NativeBacktrace`]), on its own thread.
//!
//! **The mailbox protocol** and **the handler and its limits**: `linux.rs`.
//!
//! **Whether the answer belongs to the poll asked about.** Requesters check it afterwards
//! rather than pointing the handler at their data: a worker's `poll_seq` (worker_shared.rs)
//! only grows, so the same odd value read before the send and after the answer means the
//! thread was inside that same poll when its handler ran (a blocking-pool thread's start
//! stamp serves the same way).

// Without the Linux half (other systems, loom builds) every capture answers `Unsupported`:
// the frame bound and the other answers go unused there.
#![cfg_attr(not(all(target_os = "linux", not(loom))), allow(dead_code))]

use std::fmt;
use std::sync::OnceLock;
use std::time::Duration;

/// How long a requester waits for a thread's handler to answer.
pub(crate) const ANSWER_WAIT: Duration = Duration::from_millis(50);

/// Frames kept per capture (the innermost ones).
pub(crate) const MAX_FRAMES: usize = 128;

/// A kernel thread id (Linux `gettid`); 0 means "not known".
pub(crate) type Tid = i32;

/// Why a capture has no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoAnswer {
    /// Not Linux: signal-based capture is not built.
    #[cfg_attr(all(target_os = "linux", not(loom)), allow(dead_code))]
    Unsupported,
    /// Another handler (the program's, a profiler's) owns the capture signal.
    SignalTaken,
    /// Every mailbox is in use (many captures at once).
    Busy,
    /// The global rate limit was reached.
    RateLimited,
    /// The thread did not run the handler within `ANSWER_WAIT`.
    NoReply,
    /// The thread is not known (it has not started yet).
    NoThread,
    /// The thread answered, but had left the poll (or closure) asked about by then.
    PollEnded,
}

impl NoAnswer {
    /// The sentence reports print.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            NoAnswer::Unsupported => "no native frames: stack capture is implemented on Linux only",
            NoAnswer::SignalTaken => {
                "no native frames: the capture signal is owned by another handler in this process"
            }
            NoAnswer::Busy => "no native frames: too many captures in flight",
            NoAnswer::RateLimited => "no native frames: the capture rate limit was reached",
            NoAnswer::NoReply => "no backtrace: the thread did not answer",
            NoAnswer::NoThread => "no backtrace: the thread's id is not known",
            NoAnswer::PollEnded => "no backtrace: the poll ended before the thread answered",
        }
    }
}

/// What a thread's handler wrote: its task (if it was polling one) and its frames.
pub(crate) struct Answer {
    pub(crate) meta: Option<task::RawMeta>,
    pub(crate) ips: Box<[usize]>,
}

/// Instruction pointers captured on another thread, symbolized when first formatted (or
/// asked for with [`symbols`](Self::symbols)), on the thread that asks.
///
/// Captured by the thread itself from a signal handler (Linux only; elsewhere it is always
/// empty and [`missing`](Self::missing) says why). The innermost frames come first and
/// start at the interrupted instruction (on x86-64 and AArch64; elsewhere the capture's own
/// frames, the signal handler's and the kernel's signal frame, come first).
#[derive(Clone)]
pub struct NativeBacktrace {
    ips: Box<[usize]>,
    missing: Option<&'static str>,
    symbols: OnceLock<Box<[String]>>,
}

impl NativeBacktrace {
    pub(crate) fn captured(ips: Box<[usize]>) -> NativeBacktrace {
        NativeBacktrace {
            ips,
            missing: None,
            symbols: OnceLock::new(),
        }
    }

    pub(crate) fn missing_because(why: &'static str) -> NativeBacktrace {
        NativeBacktrace {
            ips: Box::new([]),
            missing: Some(why),
            symbols: OnceLock::new(),
        }
    }

    /// The return addresses, innermost first (empty when nothing was captured).
    pub fn ips(&self) -> &[usize] {
        &self.ips
    }

    /// Why there are no frames (`None` when they were captured).
    pub fn missing(&self) -> Option<&str> {
        self.missing
    }

    /// One line per frame, innermost first: the function's name (demangled, inlined frames each on their own
    /// line) and, where debug info has it, `file:line`; `0x...` when nothing is known.
    pub fn symbols(&self) -> &[String] {
        self.symbols.get_or_init(|| symbolize(&self.ips))
    }
}

impl fmt::Display for NativeBacktrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(why) = self.missing {
            return f.write_str(why);
        }
        for (i, line) in self.symbols().iter().enumerate() {
            writeln!(f, "  {i:>3}: {line}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for NativeBacktrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NativeBacktrace")
            .field("frames", &self.ips.len())
            .field("missing", &self.missing)
            .finish()
    }
}

/// Names every frame (inlined calls each on a line of their own).
#[cfg(not(loom))]
fn symbolize(ips: &[usize]) -> Box<[String]> {
    let mut lines = Vec::with_capacity(ips.len());
    for &ip in ips {
        let before = lines.len();
        backtrace::resolve(ip as *mut std::ffi::c_void, |sym| {
            let name = sym
                .name()
                .map_or_else(|| format!("{ip:#x}"), |n| n.to_string());
            let at = match (sym.filename(), sym.lineno()) {
                (Some(file), Some(line)) => format!(" at {}:{line}", file.display()),
                _ => String::new(),
            };
            lines.push(format!("{name}{at}"));
        });
        if lines.len() == before {
            lines.push(format!("{ip:#x}"));
        }
    }
    lines.into_boxed_slice()
}

#[cfg(loom)]
fn symbolize(ips: &[usize]) -> Box<[String]> {
    ips.iter().map(|ip| format!("{ip:#x}")).collect()
}

/// The calling thread's kernel id (0 where capture is not built).
pub(crate) fn current_tid() -> Tid {
    imp::current_tid()
}

/// Sends a capture request to thread `tid` and waits (at most `ANSWER_WAIT`) for its answer.
pub(crate) fn capture(tid: Tid) -> Result<Answer, NoAnswer> {
    request(tid)?.wait()
}

/// Sends a capture request to thread `tid`; [`Pending::wait`] collects the answer. Several
/// requests may be in flight at once (up to the mailboxes' number).
pub(crate) fn request(tid: Tid) -> Result<Pending, NoAnswer> {
    if tid == 0 && cfg!(all(target_os = "linux", not(loom))) {
        return Err(NoAnswer::NoThread);
    }
    imp::request(tid)
}

/// Takes one capture from the global budget (`RATE_LIMIT` per `RATE_WINDOW`): false when
/// spent. The monitor asks before each stall capture; shutdown reports do not (once per
/// runtime).
pub(crate) fn rate_limit_allows() -> bool {
    use std::sync::Mutex;
    use std::time::Instant;
    const RATE_LIMIT: u32 = 20;
    const RATE_WINDOW: Duration = Duration::from_secs(1);
    static WINDOW: Mutex<Option<(Instant, u32)>> = Mutex::new(None);
    let mut window = WINDOW.lock().unwrap_or_else(|e| e.into_inner());
    let now = Instant::now();
    match &mut *window {
        Some((start, count)) if now.duration_since(*start) < RATE_WINDOW => {
            if *count >= RATE_LIMIT {
                return false;
            }
            *count += 1;
        }
        slot => *slot = Some((now, 1)),
    }
    true
}

/// A request in flight.
pub(crate) struct Pending {
    #[cfg_attr(not(all(target_os = "linux", not(loom))), allow(dead_code))]
    slot: usize,
    #[cfg_attr(not(all(target_os = "linux", not(loom))), allow(dead_code))]
    seq: u64,
}

impl Pending {
    /// Waits for the answer, at most `ANSWER_WAIT` from now.
    pub(crate) fn wait(self) -> Result<Answer, NoAnswer> {
        imp::wait(self, std::time::Instant::now() + ANSWER_WAIT)
    }

    /// Waits for the answer until `deadline` (for a batch sent together).
    pub(crate) fn wait_until(self, deadline: std::time::Instant) -> Result<Answer, NoAnswer> {
        imp::wait(self, deadline)
    }
}

#[cfg(not(all(target_os = "linux", not(loom))))]
mod imp {
    use super::{Answer, NoAnswer, Pending, Tid};

    pub(super) fn current_tid() -> Tid {
        0
    }

    pub(super) fn request(_tid: Tid) -> Result<Pending, NoAnswer> {
        Err(NoAnswer::Unsupported)
    }

    pub(super) fn wait(_p: Pending, _deadline: std::time::Instant) -> Result<Answer, NoAnswer> {
        Err(NoAnswer::Unsupported)
    }
}

#[cfg(all(target_os = "linux", not(loom)))]
#[path = "linux.rs"]
mod imp;

#[cfg(all(test, target_os = "linux", not(loom)))]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// A thread that parks until told to exit, with the capture signal blocked while `blocked`.
    /// A thread that waits for commands: `true` unblocks the capture signal (a pending one
    /// is delivered then) and is acknowledged on the returned receiver once done; `false`
    /// makes it exit.
    fn park_thread_acked(
        blocked: bool,
    ) -> (
        Tid,
        mpsc::Sender<bool>,
        mpsc::Receiver<()>,
        std::thread::JoinHandle<()>,
    ) {
        let (tid_tx, tid_rx) = mpsc::channel();
        let (cmd_tx, cmd_rx) = mpsc::channel::<bool>();
        let (ack_tx, ack_rx) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            if blocked {
                imp::set_blocked(true);
            }
            tid_tx.send(current_tid()).unwrap();
            while let Ok(true) = cmd_rx.recv() {
                imp::set_blocked(false);
                let _ = ack_tx.send(());
            }
        });
        (tid_rx.recv().unwrap(), cmd_tx, ack_rx, thread)
    }

    fn park_thread(blocked: bool) -> (Tid, mpsc::Sender<bool>, std::thread::JoinHandle<()>) {
        let (tid, cmd, _ack, thread) = park_thread_acked(blocked);
        (tid, cmd, thread)
    }

    #[test]
    fn a_thread_answers_with_its_own_frames() {
        let (tid, cmd, thread) = park_thread(false);
        let answer = capture(tid).expect("the parked thread answers");
        assert!(!answer.ips.is_empty());
        assert!(answer.meta.is_none(), "the thread polls no task");
        let bt = NativeBacktrace::captured(answer.ips);
        let frames = bt.symbols().join("\n");
        assert!(frames.contains("park_thread"), "{frames}");
        cmd.send(false).unwrap();
        thread.join().unwrap();
    }

    #[test]
    fn a_late_answer_does_not_reach_the_next_request() {
        // The blocked thread cannot answer: the request is given up after the bound.
        let (mute, mute_cmd, mute_ack, mute_thread) = park_thread_acked(true);
        assert_eq!(capture(mute).err(), Some(NoAnswer::NoReply));
        // Another thread's capture meanwhile is its own.
        let (other, other_cmd, other_thread) = park_thread(false);
        let pending = request(other).unwrap();
        // The late delivery to the first thread now finds no request for itself.
        mute_cmd.send(true).unwrap();
        let answer = pending.wait().expect("the second thread answers");
        assert!(!answer.ips.is_empty());
        // And the first thread, its signal unblocked (acknowledged, so that a loaded machine
        // cannot run the fresh request before the unblock), answers a fresh request.
        mute_ack
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the mute thread unblocks its signal");
        assert!(capture(mute).is_ok());
        for (cmd, thread) in [(mute_cmd, mute_thread), (other_cmd, other_thread)] {
            cmd.send(false).unwrap();
            thread.join().unwrap();
        }
    }

    #[test]
    fn an_unknown_thread_is_refused_without_a_signal() {
        assert_eq!(request(0).err(), Some(NoAnswer::NoThread));
    }

    #[test]
    fn missing_frames_print_why() {
        let bt = NativeBacktrace::missing_because(NoAnswer::NoReply.describe());
        assert_eq!(bt.to_string(), "no backtrace: the thread did not answer");
        assert!(bt.ips().is_empty());
    }
}
