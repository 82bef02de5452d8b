//! The logical workers of the deterministic mode (sim/stepper.rs steps them).
//!
//! Each logical worker is a real `Context` and `Core`: `step` runs exactly the decision
//! the worker thread's loop makes (`Context::step`: maintenance, next task, search, the
//! run and its LIFO streak) with the worker's scheduler context set on the stepping
//! thread, so wakes and spawns inside its polls take the local path as on a worker thread.
//! A worker that comes up empty registers as parked through the real transition
//! (`Context::park_begin`) and keeps its core here; it is *eligible* again once its
//! parker holds a notification (an `Unparker::unpark` on an idle parker only swaps in
//! NOTIFIED, so no thread sleeps and no syscall is made). Its next step is then the real
//! wake-up transition (`Context::park_end`): running again, or parked again when nobody
//! notified it. A closed runtime turns every worker's next step into its shutdown
//! (`Context::shutdown`), the last of which drains the queues, as on threads.
//!
//! Nothing here reads the clock for a decision: the spin and the park yields are off in
//! this mode (their decisions read real time), so searching is steal-then-park.

use shim::sync::Arc;

use super::worker::{Context, Core, ObservePolls, Step};
use super::{Handle, Launch};
use crate::context;
use crate::scheduler;
use crate::scheduler::RunTask;

/// Where one logical worker stands.
enum Stage {
    /// Runnable: its next step is a scheduling decision.
    Running(Box<Core>),
    /// Registered as parked; eligible once its parker is notified.
    Parked(Box<Core>),
    /// Shut down (its core went to the shutdown drain).
    Done,
}

struct Logical {
    cx: scheduler::Context,
    stage: Stage,
    /// A notification taken from the parker while it was parked, not yet acted on.
    notified: bool,
    /// A LIFO streak cut at the last step's end: its next task and poll number, run
    /// first at this worker's next step (one poll per step).
    streak: Option<(RunTask, u32)>,
}

/// The stepper's observer, cutting LIFO streaks into one poll per step.
struct Splitting<'a, O> {
    inner: &'a mut O,
    streak: &'a mut Option<(RunTask, u32)>,
}

impl<O: ObservePolls> ObservePolls for Splitting<'_, O> {
    const SPLIT_STREAKS: bool = true;

    fn poll(&mut self, worker: usize, task: &RunTask, lifo: bool) {
        self.inner.poll(worker, task, lifo);
    }

    fn polled(&mut self, completed: bool) {
        self.inner.polled(completed);
    }

    fn split(&mut self, task: RunTask, lifo_polls: u32) {
        *self.streak = Some((task, lifo_polls));
    }
}

/// The runtime's logical workers, owned by the stepper.
pub(crate) struct SimWorkers {
    handle: Arc<Handle>,
    workers: Vec<Logical>,
}

/// What a step of one worker did, for the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Did {
    /// Ran a scheduling decision (maybe maintenance only).
    Ran,
    /// Came up empty and parked.
    Parked,
    /// Came up empty but found work on its way to the park.
    Kept,
    /// Woke from its park and runs again.
    Woke,
    /// Woke but nobody had notified it: parked again.
    Slept,
    /// Shut down.
    Exited,
}

impl SimWorkers {
    /// Takes the launches `create` made: their cores are stepped here, never on threads.
    /// Each core's steal-victim generator is seeded from `seed` and its index.
    pub(crate) fn new(handle: &Arc<Handle>, launch: Vec<Launch>, seed: u64) -> SimWorkers {
        let workers = launch
            .into_iter()
            .map(|mut l| {
                let index = l.core.index;
                l.core.rand = crate::util::FastRand::new(crate::sim::mix(seed, index as u64 + 1));
                // No spin and no park yields: both decide by real time.
                l.core.idle = super::idle::spin::IdlePolicy::new(0, 0);
                Logical {
                    cx: scheduler::Context::MultiThread(Context::for_sim(handle.clone(), index)),
                    stage: Stage::Running(l.core),
                    notified: false,
                    streak: None,
                }
            })
            .collect();
        SimWorkers {
            handle: handle.clone(),
            workers,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.workers.len()
    }

    /// Whether worker `i` can take a step now: running, or parked with a notification
    /// (which this call takes from the parker, so it is asked once per notification).
    pub(crate) fn eligible(&mut self, i: usize) -> bool {
        let w = &mut self.workers[i];
        match &w.stage {
            Stage::Running(_) => true,
            Stage::Parked(core) => {
                if !w.notified {
                    w.notified = core.parker_notified();
                }
                w.notified
            }
            Stage::Done => false,
        }
    }

    /// Whether every worker shut down.
    pub(crate) fn all_done(&self) -> bool {
        self.workers.iter().all(|w| matches!(w.stage, Stage::Done))
    }

    /// One step of worker `i` (which must be eligible), on this thread, in its context.
    pub(crate) fn step<O: ObservePolls>(&mut self, i: usize, obs: &mut O) -> Did {
        let Logical {
            cx: sched_cx,
            stage: w_stage,
            notified,
            streak,
        } = &mut self.workers[i];
        let stage = std::mem::replace(w_stage, Stage::Done);
        let scheduler::Context::MultiThread(cx) = &*sched_cx else {
            unreachable!("a logical worker has a multi-thread context")
        };
        let pending = streak.take();
        let mut obs = Splitting { inner: obs, streak };
        let obs = &mut obs;
        let (stage, did) = context::set_scheduler(sched_cx, || match stage {
            Stage::Running(core) if pending.is_some() => {
                let (task, lifo_polls) = pending.expect("checked");
                match cx.continue_streak(task, core, lifo_polls, obs) {
                    Step::Go(core) => (Stage::Running(core), Did::Ran),
                    Step::Idle(_) | Step::HandedOff => {
                        unreachable!("a streak's poll neither idles nor hands off here")
                    }
                }
            }
            Stage::Running(core) if core.is_shutdown => {
                cx.shutdown(core);
                (Stage::Done, Did::Exited)
            }
            Stage::Running(core) => match cx.step(core, obs) {
                Step::Go(core) => (Stage::Running(core), Did::Ran),
                Step::Idle(mut core) => {
                    if cx.park_begin(&mut core) {
                        self.handle.hooks.before_park();
                        (Stage::Parked(core), Did::Parked)
                    } else {
                        cx.notify_backlog_of(&core);
                        (Stage::Running(core), Did::Kept)
                    }
                }
                Step::HandedOff => unreachable!("no core is handed off in the deterministic mode"),
            },
            Stage::Parked(mut core) => {
                self.handle.hooks.after_unpark();
                if cx.park_end(&mut core) || core.is_shutdown {
                    cx.notify_backlog_of(&core);
                    (Stage::Running(core), Did::Woke)
                } else {
                    self.handle.hooks.before_park();
                    (Stage::Parked(core), Did::Slept)
                }
            }
            Stage::Done => (Stage::Done, Did::Exited),
        });
        *w_stage = stage;
        *notified = false;
        did
    }

    /// Demotes worker `i`'s LIFO task to its ring (a running worker only); true when
    /// there was one.
    pub(crate) fn demote_lifo(&mut self, i: usize) -> bool {
        let w = &mut self.workers[i];
        match &mut w.stage {
            Stage::Running(core) => match w.streak.take() {
                // A streak's next task (out of the slot between steps) goes to the ring.
                Some((task, _)) => {
                    core.push_back_of(task, &self.handle);
                    true
                }
                None => core.demote_lifo(&self.handle),
            },
            _ => false,
        }
    }

    /// A driver turn of worker `i` now, in its context (a running worker only); true when
    /// it took one.
    pub(crate) fn driver_turn(&mut self, i: usize) -> bool {
        let w = &mut self.workers[i];
        let Stage::Running(_) = &w.stage else {
            return false;
        };
        let Stage::Running(core) = std::mem::replace(&mut w.stage, Stage::Done) else {
            unreachable!()
        };
        let scheduler::Context::MultiThread(cx) = &w.cx else {
            unreachable!("a logical worker has a multi-thread context")
        };
        let core = context::set_scheduler(&w.cx, || cx.sim_driver_turn(core));
        w.stage = Stage::Running(core);
        true
    }

    /// Reorders the parked workers' list by `pick` (a seeded draw below a bound): which
    /// parked worker the next notify wakes (`Idle::worker_to_notify` takes the last) is
    /// then a seeded choice.
    pub(crate) fn shuffle_parked(&self, pick: impl FnMut(usize) -> usize) {
        self.handle.shared.idle.shuffle_sleepers(pick);
    }

    /// The spread rules' view of the pool now (sim/spread.rs). Takes pending
    /// notifications from parked workers' parkers, as `eligible` does (kept until the
    /// worker's next step).
    pub(crate) fn spread_sample(&mut self) -> crate::sim::spread::Sample {
        let mut sample = crate::sim::spread::Sample {
            searching: self.handle.shared.idle.num_searching(),
            ..Default::default()
        };
        for i in 0..self.workers.len() {
            let eligible = self.eligible(i);
            let w = &self.workers[i];
            let core = match &w.stage {
                Stage::Running(core) => core,
                Stage::Parked(core) => {
                    if eligible {
                        sample.on_the_way = true;
                    } else {
                        sample.parked = true;
                    }
                    core
                }
                Stage::Done => continue,
            };
            let lifo =
                usize::from(!self.handle.shared.workers[i].lifo.is_empty() || w.streak.is_some());
            if core.run_queue.len() + lifo > 1 {
                sample.backlog = true;
            }
        }
        sample
    }

    /// A digest of what the workers hold (ring lengths, LIFO occupancy, parked or not)
    /// and the global queues' lengths: fed to the trace after each step, so a divergence
    /// in where a task went shows at the step that sent it there.
    pub(crate) fn digest(&self) -> u64 {
        let mut h = crate::sim::trace::Fnv::new();
        for (i, w) in self.workers.iter().enumerate() {
            let (stage, ring) = match &w.stage {
                Stage::Running(core) => (1u64, core.run_queue.len() as u64),
                Stage::Parked(core) => (2, core.run_queue.len() as u64),
                Stage::Done => (3, 0),
            };
            h.write(stage);
            h.write(ring);
            h.write(u64::from(w.streak.is_some()));
            h.write(u64::from(!self.handle.shared.workers[i].lifo.is_empty()));
        }
        h.write(self.handle.shared.inject.len() as u64);
        h.write(self.handle.shared.overflow.len() as u64);
        h.finish()
    }
}
