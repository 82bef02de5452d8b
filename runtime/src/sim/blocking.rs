//! The blocking participant of the deterministic mode: `spawn_blocking`, `fs` and the
//! other blocking closures run one at a time, when the stepper chooses this participant,
//! on one helper thread that the stepper waits for.
//!
//! The pool in this mode starts no thread (blocking.rs: `Config::sim`); its queue holds
//! the closures in spawn order. A step takes the first (`Spawner::sim_next`), sends it to
//! the helper thread and waits for its end: nothing else runs meanwhile, so what the
//! closure does (wakes, spawns, timers) lands at one deterministic point of the run. A
//! closure that waits on asynchronous progress (a `Handle::block_on` of a task, a
//! `blocking_recv` on a channel that a task feeds) would wait forever, since no task runs
//! while it does: past `WATCHDOG` of wall time the step panics naming the closure's spawn
//! location. The helper thread is not joined then (it is stuck); it exits when its
//! channel closes otherwise.

use std::sync::mpsc;
use std::time::Duration;

/// How long a blocking closure may run, in wall time, before the run is reported stuck.
pub(crate) const WATCHDOG: Duration = Duration::from_secs(1);

type Job = Box<dyn FnOnce() + Send + 'static>;

/// The helper thread, started at the first blocking step.
pub(crate) struct BlockingParticipant {
    worker: Option<(mpsc::Sender<Job>, mpsc::Receiver<std::thread::Result<()>>)>,
}

impl BlockingParticipant {
    pub(crate) fn new() -> BlockingParticipant {
        BlockingParticipant { worker: None }
    }

    /// Runs `job` (the closure described by `what`) on the helper thread and waits for
    /// it, at most `WATCHDOG`.
    pub(crate) fn run(&mut self, what: &str, seed: u64, job: Job) {
        let (jobs, done) = self.worker.get_or_insert_with(|| {
            let (jobs, inbox) = mpsc::channel::<Job>();
            let (outbox, done) = mpsc::channel();
            std::thread::Builder::new()
                .name("runtime-sim-blocking".into())
                .spawn(move || {
                    while let Ok(job) = inbox.recv() {
                        // The closure's own panic is caught by its task (its JoinHandle
                        // gets it); this catches only what escapes the task machinery.
                        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                        if outbox.send(r).is_err() {
                            break;
                        }
                    }
                })
                .expect("the deterministic mode's blocking thread could not start");
            (jobs, done)
        });
        jobs.send(job)
            .expect("the deterministic mode's blocking thread is gone");
        match done.recv_timeout(WATCHDOG) {
            Ok(Ok(())) => {}
            Ok(Err(payload)) => std::panic::resume_unwind(payload),
            Err(_) => {
                // Stuck: never wait on it again.
                self.worker = None;
                panic!(
                    "deterministic runtime (seed {seed}): the blocking closure {what} has run \
                     for over {WATCHDOG:?} of wall time; in this mode no task runs while a \
                     blocking closure does, so a closure that waits on a task (a \
                     `Handle::block_on`, a `blocking_recv` fed by a task) never ends. Await \
                     the task instead, or move the wait out of `spawn_blocking`"
                );
            }
        }
    }
}
