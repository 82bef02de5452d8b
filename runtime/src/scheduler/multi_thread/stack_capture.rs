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
//! kernel thread id into it, publishes it as requested, and sends `SIGNAL` to that thread
//! with `tgkill` (a thread id of this process: a thread that exited in between is at worst
//! a reused id of another thread of ours, whose handler finds no request for itself and
//! returns). The handler, running on the target inside whatever it was doing, finds the
//! mailbox addressed to its own thread id, takes `current_raw_meta()` (atomics only) and
//! walks its own stack into the mailbox's frame buffer, instruction pointers only, then
//! publishes the answer. The requester waits for it with a bound (`ANSWER_WAIT`), then
//! resolves the identity and leaves symbolization to whoever formats the frames
//! ([`NativeBacktrace`]), on its own thread.
//!
//! **The mailbox protocol.** One word, `state`, holds a phase in its low 3 bits and the
//! request's sequence number above them. Each phase has exactly one owner, who alone
//! touches the buffers; ownership moves by CAS on the whole word, so a handler answering
//! an old request can never write into a newer one:
//!
//! | phase | owner | moves to |
//! |---|---|---|
//! | FREE | nobody | CLAIMED (a requester's CAS) |
//! | CLAIMED | the requester: writes the target | REQUESTED(seq) (Release store) |
//! | REQUESTED(seq) | nobody (in flight) | WRITING(seq) (the target's handler, CAS) or FREE (the requester gives up, CAS) |
//! | WRITING(seq) | the handler: fills the buffers | DONE(seq) (CAS, Release) or, when the requester gave up meanwhile, ABANDONED(seq) (the requester's CAS), then ORPHAN (the handler's Release store) |
//! | DONE(seq) | the requester: reads the answer | FREE (Release store) |
//! | ORPHAN | nobody: holds an unread answer | CLAIMED (a requester's CAS, Acquire; it drops the stale identity first) |
//!
//! The handler never drops or frees anything: an answer nobody reads stays in its mailbox
//! until the next claim disposes of it on a requester's thread.
//!
//! **The handler and its limits.** It is installed once per process with `sigaction`
//! (`SA_RESTART | SA_SIGINFO`, so an interrupted system call resumes), on `SIGNAL` only if
//! that signal is at its default disposition; if anyone else owns it the capture answers
//! `SignalTaken` and reports say so. Before every send the disposition is checked again to
//! still be ours (a handler replaced later would otherwise receive, or a default
//! disposition would terminate the process). The walk is `backtrace::trace_unsynchronized`,
//! the call profilers make from signal handlers: on Linux it is libgcc's
//! `_Unwind_Backtrace`, which reads DWARF unwind tables (it crosses the kernel's signal
//! frame through glibc's unwind info for its restorer). Its lookup of those tables goes
//! through `_dl_find_object` (lock-free, glibc 2.35 with libgcc 12 and later) or else
//! `dl_iterate_phdr`, whose lock is recursive, so a thread interrupted inside the dynamic
//! loader does not deadlock against itself, though it may see a half-loaded library's
//! frames stop the walk early. Frames without unwind info (hand-written assembly, JIT code)
//! end the walk; at most `MAX_FRAMES` frames are kept. A thread blocking the signal, or
//! not scheduled in time, does not answer: the requester gives up after `ANSWER_WAIT`.
//!
//! **Whether the answer belongs to the poll asked about.** Requesters check it afterwards
//! rather than pointing the handler at their data: a worker's `poll_seq` (worker_shared.rs)
//! only grows, so the same odd value read before the send and after the answer means the
//! thread was inside that same poll when its handler ran (a blocking-pool thread's start
//! stamp serves the same way).

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
    /// Another handler (the program's, a profiler's) owns `SIGNAL`.
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
    pub(crate) meta: Option<crate::interim_meta::RawMeta>,
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
    if tid == 0 {
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
mod imp {
    use std::cell::UnsafeCell;
    use std::mem::MaybeUninit;
    use std::sync::atomic::{AtomicI32, AtomicU64, AtomicUsize, Ordering::*};
    use std::sync::OnceLock;
    use std::time::Instant;

    use super::{Answer, NoAnswer, Pending, Tid, MAX_FRAMES};
    use crate::interim_meta::{current_raw_meta, RawMeta};

    /// Mailboxes, so several captures (runtimes, threads at a shutdown) may be in flight.
    const MAILBOXES: usize = 16;

    const FREE: u64 = 0;
    const CLAIMED: u64 = 1;
    const REQUESTED: u64 = 2;
    const WRITING: u64 = 3;
    const DONE: u64 = 4;
    const ABANDONED: u64 = 5;
    const ORPHAN: u64 = 6;
    const PHASE: u64 = 7;

    /// The signal: a real-time one, unlikely to be used by anything else; checked to be at
    /// its default disposition before it is taken.
    fn signal() -> libc::c_int {
        libc::SIGRTMAX() - 3
    }

    struct Mailbox {
        /// Phase (low 3 bits) and sequence number (module docs).
        state: AtomicU64,
        /// The thread asked (written while CLAIMED, read by handlers after REQUESTED).
        tid: AtomicI32,
        len: AtomicUsize,
        /// The interrupted instruction (0: unknown): the walk's frames before it are the
        /// handler's own.
        pc: AtomicUsize,
        /// Written only by the owner of WRITING, read only by the owner of DONE.
        ips: UnsafeCell<[usize; MAX_FRAMES]>,
        /// `Some` identity written while WRITING; taken by the DONE owner or by the claim
        /// that finds an ORPHAN. Uninitialized in every other phase.
        meta: UnsafeCell<MaybeUninit<Option<RawMeta>>>,
    }

    // SAFETY: the cells are touched only by the single owner of the phase the `state` word
    // grants (module docs); every hand-over of ownership is a CAS or Release store read by
    // an Acquire load or CAS of the next owner, which orders the cells' accesses.
    unsafe impl Sync for Mailbox {}

    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY: Mailbox = Mailbox {
        state: AtomicU64::new(FREE),
        tid: AtomicI32::new(0),
        len: AtomicUsize::new(0),
        pc: AtomicUsize::new(0),
        ips: UnsafeCell::new([0; MAX_FRAMES]),
        meta: UnsafeCell::new(MaybeUninit::uninit()),
    };

    static BOXES: [Mailbox; MAILBOXES] = [EMPTY; MAILBOXES];
    static NEXT_SEQ: AtomicU64 = AtomicU64::new(1);
    /// The outcome of installing the handler, once per process.
    static INSTALLED: OnceLock<bool> = OnceLock::new();

    pub(super) fn current_tid() -> Tid {
        // SAFETY: gettid takes no arguments and cannot fail.
        unsafe { libc::syscall(libc::SYS_gettid) as Tid }
    }

    fn handler_address() -> usize {
        handler as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) as usize
    }

    /// Installs the handler if the signal is at its default disposition. True when ours.
    fn install() -> bool {
        *INSTALLED.get_or_init(|| {
            // SAFETY: a zeroed sigaction is a valid value; the calls get valid pointers,
            // and the handler installed is async-signal-safe (see `handler`).
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal(), std::ptr::null(), &mut old) != 0
                    || old.sa_sigaction != libc::SIG_DFL
                {
                    return false;
                }
                let mut new: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = handler_address();
                new.sa_flags = libc::SA_RESTART | libc::SA_SIGINFO;
                libc::sigemptyset(&mut new.sa_mask);
                libc::sigaction(signal(), &new, std::ptr::null_mut()) == 0
            }
        })
    }

    /// Installed and still ours (nobody replaced the handler since).
    fn ours() -> bool {
        if !install() {
            return false;
        }
        // SAFETY: querying the disposition with a valid out-pointer.
        unsafe {
            let mut cur: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal(), std::ptr::null(), &mut cur) == 0
                && cur.sa_sigaction == handler_address()
        }
    }

    pub(super) fn request(tid: Tid) -> Result<Pending, NoAnswer> {
        if !ours() {
            return Err(NoAnswer::SignalTaken);
        }
        let slot = claim().ok_or(NoAnswer::Busy)?;
        let mb = &BOXES[slot];
        let seq = NEXT_SEQ.fetch_add(1, Relaxed);
        mb.tid.store(tid, Relaxed);
        // Publishes the target to the handler's Acquire load.
        mb.state.store(seq << 3 | REQUESTED, Release);
        let pending = Pending { slot, seq };
        // SAFETY: tgkill with this process's id only reaches a thread of this process.
        let sent = unsafe {
            libc::syscall(
                libc::SYS_tgkill,
                libc::getpid(),
                tid,
                signal() as libc::c_long,
            )
        };
        if sent != 0 {
            // No such thread: take the request back (nothing can answer it).
            let _ = wait(pending, Instant::now());
            return Err(NoAnswer::NoThread);
        }
        Ok(pending)
    }

    /// Claims a FREE or ORPHAN mailbox (disposing of an orphan's identity).
    fn claim() -> Option<usize> {
        for (i, mb) in BOXES.iter().enumerate() {
            let s = mb.state.load(Relaxed);
            let phase = s & PHASE;
            if phase != FREE && phase != ORPHAN {
                continue;
            }
            // Acquire: an orphan's cells were written by its handler before its Release.
            if mb
                .state
                .compare_exchange(s, CLAIMED, Acquire, Relaxed)
                .is_err()
            {
                continue;
            }
            if phase == ORPHAN {
                // SAFETY: CLAIMED is ours; an ORPHAN's handler initialized `meta` (module
                // docs) and nobody took it since.
                unsafe { (*mb.meta.get()).assume_init_drop() };
            }
            return Some(i);
        }
        None
    }

    pub(super) fn wait(p: Pending, deadline: Instant) -> Result<Answer, NoAnswer> {
        let mb = &BOXES[p.slot];
        let tag = p.seq << 3;
        let mut spins = 0u32;
        loop {
            let s = mb.state.load(Acquire);
            if s == tag | DONE {
                let len = mb.len.load(Relaxed).min(MAX_FRAMES);
                let pc = mb.pc.load(Relaxed);
                // SAFETY: DONE(seq) is ours: the handler finished both cells before its
                // Release CAS, which our Acquire load read.
                let (ips, meta) = unsafe {
                    let all: &[usize; MAX_FRAMES] = &*mb.ips.get();
                    let walked = &all[..len];
                    // From the interrupted frame on (the unwinder reports a signal frame's
                    // caller at its exact pc).
                    let first = walked.iter().position(|&ip| ip == pc && pc != 0);
                    let ips: Box<[usize]> = walked[first.unwrap_or(0)..].into();
                    (ips, (*mb.meta.get()).assume_init_read())
                };
                mb.state.store(FREE, Release);
                return Ok(Answer { meta, ips });
            }
            if Instant::now() >= deadline {
                // Give up: take the request back, or leave the handler mid-write an
                // ABANDONED slot it will turn into an ORPHAN.
                if mb
                    .state
                    .compare_exchange(tag | REQUESTED, FREE, Relaxed, Relaxed)
                    .is_ok()
                    || mb
                        .state
                        .compare_exchange(tag | WRITING, tag | ABANDONED, Relaxed, Relaxed)
                        .is_ok()
                {
                    return Err(NoAnswer::NoReply);
                }
                // It turned DONE meanwhile: read it on the next round.
                continue;
            }
            spins += 1;
            if spins < 64 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        }
    }

    /// The signal handler: answers the request addressed to this thread, if any.
    ///
    /// Async-signal-safe: a system call (`gettid`), atomics, plain writes into static
    /// memory, `current_raw_meta` (atomics only, by its contract) and the unwinder's walk
    /// (module docs for its limits). It allocates nothing, takes no lock, drops nothing.
    extern "C" fn handler(_sig: libc::c_int, _info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // SAFETY: errno is thread-local; reading and restoring it is what a handler must do
        // around calls that may set it.
        let errno = unsafe { *libc::__errno_location() };
        let tid = current_tid();
        for mb in BOXES.iter() {
            let s = mb.state.load(Acquire);
            if s & PHASE != REQUESTED || mb.tid.load(Relaxed) != tid {
                continue;
            }
            let tag = s & !PHASE;
            if mb
                .state
                .compare_exchange(s, tag | WRITING, Acquire, Relaxed)
                .is_err()
            {
                continue;
            }
            mb.pc.store(interrupted_pc(ctx), Relaxed);
            // SAFETY: WRITING(seq) is ours alone (module docs); `meta` is uninitialized in
            // this phase, so writing it leaks nothing.
            unsafe {
                (*mb.meta.get()).write(current_raw_meta());
                let ips = &mut *mb.ips.get();
                let mut n = 0;
                backtrace::trace_unsynchronized(|frame| {
                    ips[n] = frame.ip() as usize;
                    n += 1;
                    n < MAX_FRAMES
                });
                mb.len.store(n, Relaxed);
            }
            if mb
                .state
                .compare_exchange(tag | WRITING, tag | DONE, Release, Relaxed)
                .is_err()
            {
                // ABANDONED: the requester left. The next claim disposes of the answer.
                mb.state.store(ORPHAN, Release);
            }
        }
        // SAFETY: as above.
        unsafe { *libc::__errno_location() = errno };
    }

    /// The instruction the signal interrupted, from the handler's `ucontext_t`.
    #[cfg(target_arch = "x86_64")]
    fn interrupted_pc(ctx: *mut libc::c_void) -> usize {
        // SAFETY: an SA_SIGINFO handler's third argument is the interrupted `ucontext_t`.
        unsafe {
            (*ctx.cast::<libc::ucontext_t>()).uc_mcontext.gregs[libc::REG_RIP as usize] as usize
        }
    }

    #[cfg(target_arch = "aarch64")]
    fn interrupted_pc(ctx: *mut libc::c_void) -> usize {
        // SAFETY: an SA_SIGINFO handler's third argument is the interrupted `ucontext_t`.
        unsafe { (*ctx.cast::<libc::ucontext_t>()).uc_mcontext.pc as usize }
    }

    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    fn interrupted_pc(_ctx: *mut libc::c_void) -> usize {
        0
    }
}
