//! The trace of a deterministic run: every scheduling event, folded into an incremental
//! hash (`Runtime::trace_hash`) and, when `RUNTIME_TRACE_OUT` names a file, written there
//! one line per event for the determinism checker (`sim::check`), which compares two
//! processes' files and reports the first line that differs.
//!
//! An event names tasks by their sequence number in this run (`seq`: the order in which
//! the trace first saw them polled), never by address or by the process-wide task id,
//! which depend on what else the process did. A task's entry is dropped when a poll
//! completes it (a completed task's memory may be reused by the next spawn); the log
//! names each task's spawn location and name at its first sighting, so a divergence
//! says which task it is.
//!
//! The hash is FNV-1a over 64-bit words: stable across processes, platforms and
//! compiler versions.

use std::collections::HashMap;
use std::io::Write;

/// FNV-1a over 64-bit words.
pub(crate) struct Fnv(u64);

impl Fnv {
    pub(crate) fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    #[inline]
    pub(crate) fn write(&mut self, word: u64) {
        for b in word.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

/// One scheduling event.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Event {
    /// Participant `who` took a step; `what` is its outcome's code.
    Step { who: u32, what: u32 },
    /// Worker `worker` polls task `seq` (`lifo`: from the LIFO slot).
    Poll { worker: u32, seq: u64, lifo: bool },
    /// The poll of task `seq` returned; `done`: it completed the task.
    Polled { seq: u64, done: bool },
    /// The `block_on` future was polled; `ready`: it completed.
    Main { ready: bool },
    /// The blocking participant ran a closure (task `seq`).
    Blocking { seq: u64 },
    /// The virtual clock moved to `ns` nanoseconds after the epoch.
    Advance { ns: u64 },
    /// The queues' digest after a step (sim_workers.rs).
    Digest(u64),
    /// A perturbation: the LIFO slot of `worker` demoted (`kind` 0), a driver turn
    /// injected (`kind` 1), the budget of its poll cut to `kind - 2` operations (2..=5).
    Perturb { worker: u32, kind: u32 },
    /// The network made `n` deliveries due by `us` µs after the epoch (sim/net).
    Deliver { n: u32, us: u64 },
}

impl Event {
    fn words(self) -> (u64, u64) {
        match self {
            Event::Step { who, what } => (1, u64::from(who) << 32 | u64::from(what)),
            Event::Poll { worker, seq, lifo } => {
                (2 | u64::from(lifo) << 8 | u64::from(worker) << 16, seq)
            }
            Event::Polled { seq, done } => (3 | u64::from(done) << 8, seq),
            Event::Main { ready } => (4, u64::from(ready)),
            Event::Blocking { seq } => (5, seq),
            Event::Advance { ns } => (6, ns),
            Event::Digest(d) => (7, d),
            Event::Perturb { worker, kind } => (8, u64::from(worker) << 32 | u64::from(kind)),
            Event::Deliver { n, us } => (9 | u64::from(n) << 8, us),
        }
    }
}

/// The trace of one run.
pub(crate) struct Trace {
    hash: Fnv,
    events: u64,
    /// Live tasks' sequence numbers, by header address (lookups only, never iterated).
    seqs: HashMap<usize, u64>,
    next_seq: u64,
    /// The task of the poll under way (for `Polled`).
    polling: Option<usize>,
    /// `RUNTIME_TRACE_OUT`'s file, when the checker asked for the events.
    log: Option<std::io::BufWriter<std::fs::File>>,
}

impl Trace {
    pub(crate) fn new() -> Trace {
        let log = std::env::var_os("RUNTIME_TRACE_OUT").map(|path| {
            let file = std::fs::File::create(&path).unwrap_or_else(|e| {
                panic!("RUNTIME_TRACE_OUT={path:?}: cannot create the trace file: {e}")
            });
            std::io::BufWriter::new(file)
        });
        Trace {
            hash: Fnv::new(),
            events: 0,
            seqs: HashMap::new(),
            next_seq: 0,
            polling: None,
            log,
        }
    }

    #[inline]
    pub(crate) fn record(&mut self, event: Event) {
        let (a, b) = event.words();
        self.hash.write(a);
        self.hash.write(b);
        self.events += 1;
        if let Some(log) = &mut self.log {
            let _ = writeln!(log, "{} {:?}", self.events - 1, event);
        }
    }

    /// The sequence number of the task at `addr` (new if unseen); `describe` names it in
    /// the log at its first sighting.
    pub(crate) fn task_seq(&mut self, addr: usize, describe: impl FnOnce() -> String) -> u64 {
        if let Some(&seq) = self.seqs.get(&addr) {
            return seq;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.seqs.insert(addr, seq);
        if let Some(log) = &mut self.log {
            let _ = writeln!(log, "# task {seq}: {}", describe());
        }
        seq
    }

    /// Whether the log is on (then `describe` closures are worth their cost).
    pub(crate) fn logs(&self) -> bool {
        self.log.is_some()
    }

    pub(crate) fn begin_poll(&mut self, addr: usize) {
        self.polling = Some(addr);
    }

    pub(crate) fn end_poll(&mut self, done: bool) {
        let addr = self.polling.take();
        let seq = addr
            .and_then(|a| self.seqs.get(&a).copied())
            .unwrap_or(u64::MAX);
        if let (true, Some(addr)) = (done, addr) {
            self.seqs.remove(&addr);
        }
        self.record(Event::Polled { seq, done });
    }

    /// Forgets the task at `addr` (it completed outside a worker's poll).
    pub(crate) fn forget(&mut self, addr: usize) {
        self.seqs.remove(&addr);
    }

    pub(crate) fn hash(&self) -> u64 {
        self.hash.finish()
    }

    pub(crate) fn events(&self) -> u64 {
        self.events
    }

    /// Ends the log (once): later events are hashed only.
    pub(crate) fn flush(&mut self) {
        if let Some(mut log) = self.log.take() {
            let _ = writeln!(
                log,
                "# end: {} events, hash {:016x}",
                self.events,
                self.hash()
            );
            let _ = log.flush();
        }
    }
}
