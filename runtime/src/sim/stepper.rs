//! The stepper: runs a deterministic multi-thread runtime on the thread that calls
//! `block_on`, one seeded choice at a time.
//!
//! The participants are the N logical workers (multi_thread/sim_workers.rs), the
//! `block_on` future, and the blocking participant (blocking.rs). A participant is
//! eligible when it can take a step: a worker that runs or whose parker was notified;
//! the future once its waker fired; the blocking participant while a closure is queued.
//! Each step the strategy (options.rs) picks one eligible participant, which makes one
//! scheduling decision (a worker: `Context::step`, maintenance, the next task and its LIFO
//! streak, or the park / wake-up transitions) or one poll (the future) or runs one
//! closure. After it: the parked workers' wake order is reshuffled from the seed, and the
//! queues' digest goes to the trace.
//!
//! When nobody is eligible the run is idle: the virtual clock moves to the earliest of
//! the next timer and the next network delivery, the driver fires what is due and the
//! network delivers (discrete events: an idle hour costs one step). With neither, the
//! run is deadlocked: a panic with the seed and the task dump. A task polled 10^6 times
//! at one virtual instant without time moving is a livelock: a panic naming it.
//!
//! Nothing here reads wall time except the blocking participant's watchdog, which only
//! turns a hang into a panic.

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use super::blocking::BlockingParticipant;
use super::trace::{Event, Trace};
use super::{Options, Rng, Sim, Spread, Strategy};
use crate::scheduler::multi_thread::sim_workers::SimWorkers;
use crate::scheduler::multi_thread::Handle;
use crate::scheduler::RunTask;

/// Polls of one task at one virtual instant that make a livelock.
pub(crate) const LIVELOCK_POLLS: u32 = 1_000_000;

/// The `block_on` future's waker: a flag the stepper reads.
struct MainWaker(AtomicBool);

impl Wake for MainWaker {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::Release);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.store(true, Ordering::Release);
    }
}

/// PCT's state (options.rs): a priority per participant, the change points left.
struct Pct {
    priority: Vec<u64>,
    /// Step numbers at which the running participant drops to the lowest priority.
    changes: Vec<u64>,
    lowest: u64,
}

impl Pct {
    fn new(participants: usize, depth: u32, steps: u32, rng: &mut Rng) -> Pct {
        // Distinct priorities above `participants`, in a seeded order.
        let mut priority: Vec<u64> = (0..participants as u64)
            .map(|p| p + 1 + participants as u64)
            .collect();
        for i in (1..priority.len()).rev() {
            let j = rng.below(i + 1);
            priority.swap(i, j);
        }
        let changes = (1..depth.max(1))
            .map(|_| rng.below(steps.max(1) as usize) as u64)
            .collect();
        Pct {
            priority,
            changes,
            lowest: participants as u64,
        }
    }
}

/// Counts each task's polls at the current virtual instant (livelock detection).
#[derive(Default)]
struct Livelock {
    /// By task seq: (the instant's epoch, polls at it).
    polls: Vec<(u64, u32)>,
    epoch: u64,
}

/// The trace's view of the workers' polls (`ObservePolls`).
struct Observer<'a> {
    trace: &'a mut Trace,
    livelock: &'a mut Livelock,
    polls: &'a mut [u64],
    rng: &'a mut Rng,
    yield_per_mille: u32,
    seed: u64,
}

fn describe(task: &RunTask) -> String {
    let meta = task.meta();
    match (meta.name(), meta.spawned_at()) {
        (Some(name), Some(at)) => format!("`{name}` spawned at {at}"),
        (None, Some(at)) => format!("spawned at {at}"),
        (Some(name), None) => format!("`{name}`"),
        (None, None) => "a task with no spawn location".to_string(),
    }
}

impl crate::scheduler::multi_thread::ObservePolls for Observer<'_> {
    fn poll(&mut self, worker: usize, task: &RunTask, lifo: bool) {
        self.polls[worker] += 1;
        let addr = task.addr();
        let logs = self.trace.logs();
        let seq = self
            .trace
            .task_seq(addr, || if logs { describe(task) } else { String::new() });
        self.trace.begin_poll(addr);
        self.trace.record(Event::Poll {
            worker: worker as u32,
            seq,
            lifo,
        });
        if self.rng.chance(self.yield_per_mille) {
            let n = self.rng.below(4) as u8;
            crate::coop::cut_to(n);
            self.trace.record(Event::Perturb {
                worker: worker as u32,
                kind: 2 + u32::from(n),
            });
        }
        let live = &mut self.livelock;
        let i = seq as usize;
        if live.polls.len() <= i {
            live.polls.resize(i + 1, (u64::MAX, 0));
        }
        let slot = &mut live.polls[i];
        if slot.0 != live.epoch {
            *slot = (live.epoch, 0);
        }
        slot.1 += 1;
        if slot.1 >= LIVELOCK_POLLS {
            panic!(
                "deterministic runtime (seed {}): livelock: the task {} was polled {} times \
                 at one virtual instant without anything else letting time move; a task \
                 that yields in a loop waiting for a condition must wait on it instead \
                 (a channel, `Notify`, a timer)",
                self.seed,
                describe(task),
                LIVELOCK_POLLS
            );
        }
    }

    fn polled(&mut self, completed: bool) {
        self.trace.end_poll(completed);
    }
}

/// The stepper of one deterministic runtime.
pub(crate) struct Stepper {
    sim: Arc<Sim>,
    handle: Arc<Handle>,
    workers: SimWorkers,
    rng: Rng,
    trace: Trace,
    blocking: BlockingParticipant,
    pct: Option<Pct>,
    livelock: Livelock,
    spread: Spread,
    steps: u64,
    candidates: Vec<usize>,
}

/// Outcome codes of the steps that are not a worker's (`Event::Step::what`).
const MAIN_STEP: u32 = 100;
const BLOCKING_STEP: u32 = 101;

impl Stepper {
    pub(crate) fn new(sim: Arc<Sim>, handle: Arc<Handle>, workers: SimWorkers) -> Stepper {
        let mut rng = Rng::new(super::mix(sim.seed, 0x7374_6570));
        let participants = workers.len() + 2;
        let pct = match sim.options.strategy {
            Strategy::Pct { depth, steps } => Some(Pct::new(participants, depth, steps, &mut rng)),
            _ => None,
        };
        Stepper {
            sim,
            handle,
            workers,
            rng,
            trace: Trace::new(),
            blocking: BlockingParticipant::new(),
            pct,
            livelock: Livelock::default(),
            spread: Spread::new(participants - 2),
            steps: 0,
            candidates: Vec::with_capacity(participants),
        }
    }

    pub(crate) fn trace_hash(&self) -> u64 {
        self.trace.hash()
    }

    pub(crate) fn trace_events(&self) -> u64 {
        self.trace.events()
    }

    fn options(&self) -> Options {
        self.sim.options
    }

    /// Runs `future` to completion, stepping the runtime (module docs). The caller has
    /// entered the runtime's context.
    pub(crate) fn block_on<F: Future>(&mut self, future: F) -> F::Output {
        let flag = Arc::new(MainWaker(AtomicBool::new(true)));
        let waker = Waker::from(flag.clone());
        let mut future = pin!(future);
        let n = self.workers.len();
        loop {
            let main_ready = flag.0.load(Ordering::Acquire);
            if !self.collect(main_ready, true) {
                if self.advance() {
                    continue;
                }
                self.deadlock();
            }
            let who = self.choose();
            if who == n {
                flag.0.store(false, Ordering::Release);
                let mut cx = Context::from_waker(&waker);
                let out = crate::coop::budget(|| future.as_mut().poll(&mut cx));
                self.trace.record(Event::Step {
                    who: who as u32,
                    what: MAIN_STEP,
                });
                self.trace.record(Event::Main {
                    ready: out.is_ready(),
                });
                if let Poll::Ready(v) = out {
                    self.after_step();
                    return v;
                }
            } else {
                self.step_other(who);
            }
            self.after_step();
        }
    }

    /// Steps the closed runtime until every worker shut down, then runs the blocking
    /// closures still queued (each spawned before the shutdown runs, as on threads).
    pub(crate) fn shutdown(&mut self) {
        let n = self.workers.len();
        while !self.workers.all_done() {
            if !self.collect(false, false) {
                // Every worker was unparked by the close; one parked without a
                // notification can only be woken by its own steps.
                break;
            }
            let who = self.choose();
            self.step_other(who);
            self.after_step();
        }
        while self.handle.blocking.sim_has_queued() {
            self.step_other(n + 1);
        }
        self.trace.flush();
    }

    /// Fills `candidates` with the eligible participants; false when there are none.
    fn collect(&mut self, main_ready: bool, blocking: bool) -> bool {
        let n = self.workers.len();
        self.candidates.clear();
        for i in 0..n {
            if self.workers.eligible(i) {
                self.candidates.push(i);
            }
        }
        if main_ready {
            self.candidates.push(n);
        }
        if blocking && self.handle.blocking.sim_has_queued() {
            self.candidates.push(n + 1);
        }
        !self.candidates.is_empty()
    }

    /// The strategy's pick among `candidates` (not empty).
    fn choose(&mut self) -> usize {
        self.steps += 1;
        match (&mut self.pct, self.sim.options.strategy) {
            (_, Strategy::Fixed) => self.candidates[0],
            (Some(pct), Strategy::Pct { .. }) => {
                let who = *self
                    .candidates
                    .iter()
                    .max_by_key(|&&c| pct.priority[c])
                    .expect("candidates is not empty");
                let step = self.steps;
                if pct.changes.contains(&step) {
                    pct.lowest -= 1;
                    pct.priority[who] = pct.lowest;
                }
                who
            }
            _ => self.candidates[self.rng.below(self.candidates.len())],
        }
    }

    /// One step of a worker (`who` < N) or of the blocking participant (`who` == N + 1).
    fn step_other(&mut self, who: usize) {
        let n = self.workers.len();
        if who == n + 1 {
            let Some((addr, what, job)) = self.handle.blocking.sim_next() else {
                return;
            };
            let seq = self.trace.task_seq(addr, || what.clone());
            self.trace.record(Event::Step {
                who: who as u32,
                what: BLOCKING_STEP,
            });
            self.trace.record(Event::Blocking { seq });
            self.blocking.run(&what, self.sim.seed, job);
            self.trace.forget(addr);
            return;
        }
        let options = self.options();
        if self.rng.chance(options.lifo_demote_per_mille) && self.workers.demote_lifo(who) {
            self.trace.record(Event::Perturb {
                worker: who as u32,
                kind: 0,
            });
        }
        if self.rng.chance(options.turn_per_mille) && self.workers.driver_turn(who) {
            self.trace.record(Event::Perturb {
                worker: who as u32,
                kind: 1,
            });
        }
        let mut obs = Observer {
            trace: &mut self.trace,
            livelock: &mut self.livelock,
            polls: &mut self.spread.polls,
            rng: &mut self.rng,
            yield_per_mille: options.yield_per_mille,
            seed: self.sim.seed,
        };
        let did = self.workers.step(who, &mut obs);
        self.trace.record(Event::Step {
            who: who as u32,
            what: did as u32,
        });
    }

    fn after_step(&mut self) {
        if self.sim.options.shuffle_parked {
            let rng = &mut self.rng;
            self.workers.shuffle_parked(|n| rng.below(n));
        }
        self.trace.record(Event::Digest(self.workers.digest()));
        let sample = self.workers.spread_sample();
        self.spread.sample(sample);
    }

    pub(crate) fn spread(&self) -> Spread {
        self.spread.clone()
    }

    /// Nobody can run: moves the clock to the next timer or delivery and fires it.
    /// False when there is neither.
    fn advance(&mut self) -> bool {
        let Some(time) = self.sim.time.clone() else {
            return self.deliver_at_now();
        };
        let next_timer = time.next_timer();
        let next_net = self.sim.net.next_delivery();
        let next = match (next_timer, next_net) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => match a.or(b) {
                Some(t) => t,
                None => return false,
            },
        };
        let now = time.now();
        if next > now {
            time.advance(next - now)
                .expect("the deterministic mode's clock is paused and in range");
        }
        self.livelock.epoch += 1;
        let ns = u64::try_from(self.sim.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.trace.record(Event::Advance { ns });
        self.handle.driver.poll_now();
        let n = self.sim.net.deliver_due(time.now());
        self.record_deliveries(n);
        true
    }

    fn record_deliveries(&mut self, n: usize) {
        if n > 0 {
            let us = self.sim.elapsed().as_micros() as u64;
            self.trace.record(Event::Deliver { n: n as u32, us });
        }
    }

    /// Without a timer driver: only the network can end an idle run.
    fn deliver_at_now(&mut self) -> bool {
        if self.sim.net.next_delivery().is_none() {
            return false;
        }
        let n = self.sim.net.deliver_due(std::time::Instant::now());
        self.record_deliveries(n);
        true
    }

    fn deadlock(&mut self) -> ! {
        self.trace.flush();
        let dump = crate::observe::dump::collect(&crate::scheduler::Handle::MultiThread(
            self.handle.clone(),
        ));
        panic!(
            "deterministic runtime (seed {}, strategy {:?}, algorithm version {}): deadlock: \
             the `block_on` future waits, no task can run, no timer is pending and nothing \
             is in flight on the network, after {} steps at {:?} of virtual time. The \
             tasks:\n{dump}",
            self.sim.seed,
            self.sim.options.strategy,
            super::ALGORITHM_VERSION,
            self.steps,
            self.sim.elapsed(),
        );
    }
}

impl Drop for Stepper {
    fn drop(&mut self) {
        self.trace.flush();
    }
}
