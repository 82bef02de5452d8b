//! Signal-based capture on Linux: the mailboxes, the handler, and how a request is made
//! and answered (the mechanism as a whole: the parent module's docs).
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
//! (`SA_RESTART | SA_SIGINFO`, so an interrupted system call resumes where the kernel
//! restarts it; those it never restarts, `nanosleep`, `poll`, `epoll_wait`, timed futex
//! waits, return `EINTR` to the interrupted code, as under any sampling profiler: std
//! retries the ones it makes), on the signal (`signal()`, `SIGRTMAX - 3`) only if
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

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicI32, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::OnceLock;
use std::time::Instant;

use super::{Answer, NoAnswer, Pending, Tid, MAX_FRAMES};
use task::{current_raw_meta, RawMeta};

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
    unsafe { (*ctx.cast::<libc::ucontext_t>()).uc_mcontext.gregs[libc::REG_RIP as usize] as usize }
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

/// Blocks (or unblocks) the capture signal on the calling thread (tests: a thread that
/// cannot answer).
#[cfg(test)]
pub(super) fn set_blocked(blocked: bool) {
    // SAFETY: a valid, initialized signal set; pthread_sigmask only changes this thread's
    // mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal());
        let how = if blocked {
            libc::SIG_BLOCK
        } else {
            libc::SIG_UNBLOCK
        };
        libc::pthread_sigmask(how, &set, std::ptr::null_mut());
    }
}
