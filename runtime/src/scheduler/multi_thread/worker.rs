//! One worker thread of the multi-thread scheduler.
//!
//! The worker owns a `Core`: its queues (the ring, the LIFO slot in `WorkerShared`, the
//! deferred list), its parker, counters, and three named policies that decide the rest:
//!
//! - `LifoPolicy` (lifo_policy.rs): whether a schedule goes to the LIFO slot, and how
//!   long a LIFO streak runs before the ring gets a turn;
//! - `GlobalPolicy` (global_policy.rs): when the worker looks at the global queues (a
//!   tuned fairness interval, and a latency cut for remote work waiting behind a streak),
//!   which one first, and how much it takes;
//! - `IdlePolicy` (idle/search.rs): how a worker that ran dry looks for work (steal, spin,
//!   yield) before it parks.
//!
//! The core's `Sampler` (metrics/sampler.rs) picks the polls that feed the histograms: a
//! run (a task and its LIFO streak) that may reach its due poll runs a copy of the poll
//! loop that checks each poll, and the due poll goes through sampling.rs.
//!
//! Each tick it runs the next task: a global batch first when a fairness visit is due,
//! otherwise the LIFO slot, then the ring, then a global batch. After a task it keeps
//! running what that task put in the LIFO slot while `LifoPolicy` lets the streak go on
//! and `GlobalPolicy` does not cut it; when cut for the global queues, the global batch
//! goes ahead of the displaced task. Empty-handed it tries to become a searcher and steal
//! half a random sibling's ring, then a global batch; finding nothing it parks (idle/word.rs
//! decides who wakes whom). Every `event_interval` ticks it lets the driver dispatch
//! without sleeping, publishes its metrics, tunes the global interval and checks for
//! shutdown.
//!
//! A task that wakes itself while running (`yield_now`, a spent coop budget) is *deferred*:
//! it waits in `Core::defer` for the next driver turn: at the latest the next maintenance
//! (`event_interval` ticks), at once when the ring and the global queue come up empty.
//! Released, it goes behind everything that was runnable when it yielded: to the back of
//! the remote queue while that holds work (the ring takes remote work one batch at a
//! time, so a yielder put back in the ring would overtake the rest of the queue and,
//! yielding in a loop, run once per batch), else to the back of the ring. So the runnable
//! tasks before it (remote spawns included) run first, and under steady load it still
//! resumes. A task woken by someone else while it runs is not deferred: it goes
//! to the back of the ring (`Arrival::Requeue`), where a sibling may take it.
//!
//! Who is told about work (the worker's half of idle/word.rs's protocol): a push that lands in
//! the ring while the worker runs tasks wakes a parked sibling at once if nobody searches
//! (`schedule_local`); pushes made while the parker is out (the driver dispatching here)
//! and the deferred list's release wake nobody one by one, and each driver turn ends with
//! one backlog check (`notify_backlog`): more than one runnable task here and nobody
//! searching wakes one parked worker, which steals half and hands off to the next. A
//! park ends with the same check (tasks the driver dispatched here while it slept). A
//! driver turn may consume `close`'s unpark, so it re-reads the shutdown flag.
//!
//! While a task runs, the core sits in `Context::core` so that a wake on this thread can
//! push to the local queue without synchronization (`try_schedule_local`).
//!
//! Searching, the pre-park spin and yields, and the idle transitions are in `idle/search.rs`;
//! where a task goes and where the next comes from (the core's queue operations) in
//! `queues.rs`; the sampled poll of the histograms in `sampling.rs`.

use std::cell::RefCell;
use std::future::Future;

use queue::Local;
use shim::sync::Arc;
use task::{JoinHandle, SpawnMeta};

use super::idle::spin::IdlePolicy;
use super::worker_shared::WorkerShared;
use super::{Config, Handle};
use crate::context;
use crate::coop;
use crate::observe::metrics::{Sampler, Stats};
use crate::park::Parker;
use crate::scheduler::core_slot::{park_reachable, with_core_slot, HoldsParker};
use crate::scheduler::defer::Defer;
use crate::scheduler::inject;
use crate::scheduler::{self, Arrival, RunTask};
use crate::threads::Role;
use crate::util::FastRand;
use crossbeam_utils::CachePadded;

mod global_policy;
mod lifo_policy;
mod queues;
mod sampling;

use global_policy::GlobalPolicy;
use lifo_policy::LifoPolicy;

pub(crate) struct Core {
    pub(super) index: usize,
    tick: u32,
    /// This worker's ring (its stealable half is `Shared::remotes[index].steal`).
    pub(super) run_queue: Local<RunTask>,
    /// Tasks that yielded; run at the next driver turn.
    defer: Defer<RunTask>,
    /// This worker's LIFO slot and poll stamp (`Shared::workers[index]`).
    pub(super) me: std::sync::Arc<CachePadded<WorkerShared<RunTask>>>,
    park: Option<Parker>,
    pub(super) is_searching: bool,
    pub(super) is_shutdown: bool,
    pub(super) rand: FastRand,
    event_interval: u32,
    /// Where this worker's schedules go, and how long a LIFO streak runs (lifo_policy.rs).
    lifo: LifoPolicy,
    /// When it looks at the global queues, and how much it takes (global_policy.rs).
    global: GlobalPolicy,
    /// How it looks for work before parking (idle/search.rs).
    pub(super) idle: IdlePolicy,
    pub(super) stats: Stats,
    /// Which polls are sampled (metrics/sampler.rs).
    sampler: Sampler,
}

/// The per-thread scheduler context of a worker.
pub(crate) struct Context {
    handle: Arc<Handle>,
    /// The same handle as tasks see it: lent to each task this worker runs
    /// (`Notified::run`).
    sched: scheduler::TaskSched,
    index: usize,
    core: RefCell<Option<Box<Core>>>,
}

/// What one scheduling decision (`Context::step`) left the worker with.
pub(super) enum Step {
    /// Go on with the next decision.
    Go(Box<Core>),
    /// Nothing to run anywhere it may look: park.
    Idle(Box<Core>),
    /// `block_in_place` handed the core to another thread during a poll.
    HandedOff,
}

/// Sees each poll of a worker's run (the deterministic mode's trace); `()` sees nothing
/// and compiles away.
pub(crate) trait ObservePolls {
    /// Whether a LIFO streak ends the run after each poll, its next task handed to
    /// `split` (the deterministic mode: one poll per step). A constant: false compiles
    /// the check away.
    const SPLIT_STREAKS: bool = false;
    /// Worker `worker` is about to poll `task` (`lifo`: taken from the LIFO slot).
    fn poll(&mut self, worker: usize, task: &RunTask, lifo: bool);
    /// The poll returned (`completed`: the task finished).
    fn polled(&mut self, completed: bool);
    /// With `SPLIT_STREAKS`: the streak goes on with `task`, its poll number
    /// `lifo_polls` in the streak, at the worker's next step (`Context::continue_streak`).
    fn split(&mut self, task: RunTask, lifo_polls: u32) {
        let _ = (task, lifo_polls);
        unreachable!("only an observer with SPLIT_STREAKS splits a streak")
    }
}

impl ObservePolls for () {
    #[inline(always)]
    fn poll(&mut self, _: usize, _: &RunTask, _: bool) {}
    #[inline(always)]
    fn polled(&mut self, _: bool) {}
}

impl Core {
    pub(super) fn new(
        index: usize,
        run_queue: Local<RunTask>,
        park: Parker,
        config: &Config,
        spin_rounds: u32,
        park_yields: u32,
        me: std::sync::Arc<CachePadded<WorkerShared<RunTask>>>,
    ) -> Box<Core> {
        Box::new(Core {
            index,
            tick: 0,
            run_queue,
            defer: Defer::with_capacity(64),
            me,
            park: Some(park),
            is_searching: false,
            is_shutdown: false,
            rand: FastRand::new(index as u64 + 1),
            event_interval: config.event_interval.max(1),
            lifo: LifoPolicy::new(!config.disable_lifo_slot),
            global: GlobalPolicy::new(config.global_queue_interval),
            idle: IdlePolicy::new(spin_rounds, park_yields),
            stats: Stats::new(),
            sampler: Sampler::new(
                &config.telemetry,
                index as u32 + 1,
                lifo_policy::MAX_RUN_POLLS,
            ),
        })
    }
}

impl Context {
    /// A worker's scheduler context, before its loop starts.
    fn new(handle: Arc<Handle>, index: usize) -> Context {
        Context {
            sched: scheduler::TaskSched::new(&scheduler::Handle::MultiThread(handle.clone())),
            handle,
            index,
            core: RefCell::new(None),
        }
    }
}

#[cfg(all(feature = "deterministic", not(loom)))]
impl Context {
    /// A logical worker's context (sim_workers.rs).
    pub(super) fn for_sim(handle: Arc<Handle>, index: usize) -> Context {
        Context::new(handle, index)
    }
}

#[cfg(all(feature = "deterministic", not(loom)))]
impl Core {
    /// Whether this core's parker holds a notification (taken by this call).
    pub(super) fn parker_notified(&self) -> bool {
        self.park
            .as_ref()
            .is_some_and(|p| p.try_take_notification())
    }

    /// `push_back` for the deterministic mode (a cut streak's task demoted to the ring).
    pub(super) fn push_back_of(&mut self, task: RunTask, handle: &Handle) {
        self.push_back(task, handle);
    }

    /// Moves the LIFO slot's task to the back of the ring, where siblings can steal it
    /// (the deterministic mode's perturbation). False when the slot was empty.
    pub(super) fn demote_lifo(&mut self, handle: &Handle) -> bool {
        match self.me.lifo.take() {
            Some(task) => {
                self.push_back(task, handle);
                true
            }
            None => false,
        }
    }
}

#[cfg(all(feature = "deterministic", not(loom)))]
impl Context {
    /// A driver turn now (the deterministic mode's perturbation: timers, I/O and the
    /// deferred list before the next task).
    pub(super) fn sim_driver_turn(&self, core: Box<Core>) -> Box<Core> {
        self.driver_turn(core)
    }

    /// Whether this worker's runtime runs in the deterministic mode.
    fn is_sim(&self) -> bool {
        self.handle.sim.get().is_some()
    }
}

/// The worker thread's body.
pub(super) fn run(handle: Arc<Handle>, core: Box<Core>) {
    // A worker may `block_in_place`: it hands its core off first.
    let _rt = context::enter_runtime(true);
    let _enter = context::enter(scheduler::Handle::MultiThread(handle.clone()));
    let index = core.index;
    // Stall and shutdown reports signal the thread running this worker now.
    handle.monitor.published[index].set_thread(crate::observe::stack_capture::current_tid());
    let cx = scheduler::Context::MultiThread(Context::new(handle, index));
    context::set_scheduler(&cx, || {
        let scheduler::Context::MultiThread(cx) = &cx else {
            unreachable!()
        };
        cx.run(core);
    });
}

/// The index of the current thread's worker, when it is a worker of `handle`.
pub(crate) fn current_index(handle: &Arc<Handle>) -> Option<usize> {
    context::with_scheduler(|cx| match cx {
        Some(scheduler::Context::MultiThread(cx)) if Arc::ptr_eq(&cx.handle, handle) => {
            Some(cx.index)
        }
        _ => None,
    })
}

/// `task::block_in_place` on this flavor: when the calling thread is a worker holding its
/// core (it is inside a task's poll), hands the core to a new worker thread, so the core's
/// queues and LIFO slot keep running while this thread blocks. The caller then runs its
/// closure; the rest of the task's poll runs here without a core (its wakes and spawns
/// take the remote path), and when the poll returns this thread leaves the worker loop
/// (`Context::run`). False when there was nothing to hand off (not a worker, the core
/// already handed off by an earlier call in this poll, or the new thread could not be
/// started: the closure then blocks this worker, as if called elsewhere).
pub(crate) fn hand_off_core() -> bool {
    context::with_scheduler(|cx| {
        let Some(scheduler::Context::MultiThread(cx)) = cx else {
            return false;
        };
        // One thread steps a deterministic runtime: the closure runs inline.
        #[cfg(all(feature = "deterministic", not(loom)))]
        if cx.is_sim() {
            return false;
        }
        let Some(core) = cx
            .core
            .try_borrow_mut()
            .ok()
            .and_then(|mut slot| slot.take())
        else {
            return false;
        };
        // The poll under way is no longer this core's: end its stamp, so the monitor does
        // not find the core stuck in a poll that its new thread is not running.
        core.me.end_poll(core.stats.counts.polls);
        // Through a cell, so a failed spawn (the closure dropped unrun) gives it back.
        let cell = std::sync::Arc::new(std::sync::Mutex::new(Some(core)));
        let for_thread = cell.clone();
        let handle = cx.handle.clone();
        let body = move || {
            let core = for_thread
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
                .expect("the handed-off core");
            run(handle, core);
        };
        if cx.handle.spawner.spawn(Role::Worker, body).is_ok() {
            #[cfg(not(loom))]
            cx.handle.in_place.enter();
            return true;
        }
        let core = cell
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .expect("a failed spawn never ran its closure");
        *cx.core.borrow_mut() = Some(core);
        false
    })
}

/// Runs `f` with this thread's core when the thread is one of `handle`'s workers holding
/// it, else with `None`. `try_borrow_mut`: a wake from inside queue code (a task dropped on
/// a closed queue whose future wakes another) must not panic; it gets `None` and takes the
/// remote path. `f(None)` runs with no borrow held.
/// `on`: the thread's scheduler context, as the caller read it (`context::with_scheduler`,
/// or with the handle in `context::with_spawn_site`).
#[inline(always)]
fn with_core_on<R>(
    on: Option<&scheduler::Context>,
    handle: &Arc<Handle>,
    f: impl FnOnce(Option<&mut Core>) -> R,
) -> R {
    match on {
        Some(scheduler::Context::MultiThread(cx)) if Arc::ptr_eq(&cx.handle, handle) => {
            with_core_slot(&cx.core, f)
        }
        _ => f(None),
    }
}

impl Handle {
    /// Spawns from a thread running the scheduler context `on` (the caller read it).
    pub(crate) fn spawn<F>(
        me: &Arc<Handle>,
        future: F,
        meta: SpawnMeta,
        on: Option<&scheduler::Context>,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        // No owned-list lock and no handle clone here: the task joins the list, and takes
        // a handle, only if it ever parks (task's list.rs), on the worker that polled it.
        // On a closed list the task is cancelled at once and nothing is scheduled.
        let (join, notified) = me.shared.owned.spawn(future, meta);
        if let Some(task) = notified {
            Handle::schedule_on(me, task, Arrival::Spawn, on);
        }
        join
    }

    /// The one place that decides where a task goes. On a worker of this runtime holding
    /// its core: that worker's queues (`Core::schedule_local`), waking a sibling only when
    /// the task landed where it can be stolen. Anywhere else: the global queue, then a
    /// notify.
    #[inline(always)]
    pub(crate) fn schedule(me: &Arc<Handle>, task: RunTask, arrival: Arrival) {
        // What follows the core's borrow runs after the scheduler context's closure: the
        // wake path stays as small as the local push alone.
        let local = context::with_scheduler(|on| Handle::push_local(on, me, task, arrival));
        Handle::after_push(me, local, arrival);
    }

    /// `schedule` from a thread running the scheduler context `on`.
    #[inline(always)]
    fn schedule_on(
        me: &Arc<Handle>,
        task: RunTask,
        arrival: Arrival,
        on: Option<&scheduler::Context>,
    ) {
        let local = Handle::push_local(on, me, task, arrival);
        Handle::after_push(me, local, arrival);
    }

    /// On a worker of this runtime holding its core, into its queues: whether a parked
    /// sibling should be told. Anywhere else, the task back.
    #[inline(always)]
    fn push_local(
        on: Option<&scheduler::Context>,
        me: &Arc<Handle>,
        task: RunTask,
        arrival: Arrival,
    ) -> Result<bool, RunTask> {
        with_core_on(on, me, |core| match core {
            Some(core) => Ok(core.schedule_local(me, task, arrival)),
            None => Err(task),
        })
    }

    /// After the core's borrow ended (notifying may run arbitrary wake-up code): the
    /// notify a local push asked for, or the remote path.
    #[inline(always)]
    fn after_push(me: &Arc<Handle>, local: Result<bool, RunTask>, arrival: Arrival) {
        match local {
            Ok(false) => {}
            Ok(true) => me.notify_parked(),
            Err(task) => {
                if arrival != Arrival::Spawn {
                    me.shared.hints.count_remote_wake();
                }
                let spawned = (arrival == Arrival::Spawn).then_some(&me.shared.remote_spawns);
                if inject::push_remote(&me.shared.inject, task, spawned) {
                    me.notify_parked();
                }
            }
        }
    }

    /// Wakes one parked worker if nobody is searching (idle/word.rs).
    pub(crate) fn notify_parked(&self) {
        if let Some(index) = self.shared.idle.worker_to_notify() {
            self.shared.remotes[index].unpark.unpark();
        }
    }

    /// Called by a worker parking with no searcher left behind it: if work arrived
    /// meanwhile, wake someone.
    pub(super) fn notify_if_work_pending(&self) {
        if self.has_visible_work() {
            self.notify_parked();
        }
    }

    /// Whether a thread sleeps in (or polls) the I/O driver, or there is none: only then
    /// may an idle searcher spin (idle/spin.rs). With the driver free, the worker about to park
    /// is the one that would sleep in it; spinning instead leaves readiness events
    /// undispatched while every worker is busy or spinning.
    pub(super) fn driver_attended(&self) -> bool {
        !self.driver.exists() || self.driver.is_held()
    }

    /// Whether any queue holds work a searcher could take: a sibling's ring, a global
    /// queue, or a stuck worker's LIFO slot (worker_shared.rs).
    pub(super) fn has_visible_work(&self) -> bool {
        self.shared.has_global_work()
            || self.shared.remotes.iter().any(|r| !r.steal.is_empty())
            || self.shared.workers.iter().any(|w| w.has_stealable_lifo())
    }
}

impl Context {
    /// This worker's index, as `RuntimeMetrics`' per-worker methods number it.
    pub(crate) fn worker_index(&self) -> usize {
        self.index
    }

    fn run(&self, mut core: Box<Core>) {
        while !core.is_shutdown {
            core = match self.step(core, &mut ()) {
                Step::Go(core) => core,
                Step::Idle(core) => self.park(core),
                // `block_in_place` handed the core to a new thread during the poll: this
                // thread is no longer a worker.
                Step::HandedOff => {
                    #[cfg(not(loom))]
                    self.handle.in_place.leave();
                    return;
                }
            };
        }
        self.shutdown(core);
    }

    /// One scheduling decision and its poll: the maintenance when due, then the next
    /// task (or the deferred list's turn, or a search) and its run. `Idle`: nothing was
    /// found, the worker should park. `obs` sees each poll (`()` sees nothing).
    #[inline(always)]
    pub(super) fn step<O: ObservePolls>(&self, mut core: Box<Core>, obs: &mut O) -> Step {
        core.tick = core.tick.wrapping_add(1);
        if core.tick.is_multiple_of(core.event_interval) {
            core = self.maintenance(core);
            if core.is_shutdown {
                return Step::Go(core);
            }
        }
        let task = match core.next_task(&self.handle) {
            Some(task) => Some(task),
            None if !core.defer.is_empty() => {
                // Ring and global queue are empty: the queued tasks of a sibling stuck
                // in a long poll first (they would otherwise wait behind yielders that
                // may be waiting for exactly them; no searcher transition: this worker
                // is not idle), then the yielders' turn, after the driver's (a task
                // yielding while it waits for I/O finds its event dispatched when it
                // resumes).
                match core.steal_from_siblings(&self.handle, true) {
                    Some(task) => Some(task),
                    None => return Step::Go(self.driver_turn(core)),
                }
            }
            None => {
                // Out of work: the tuning window measures polls back to back, so time
                // spent searching, spinning or parked is never charged to polls (it
                // would read as long polls and shrink the interval to its floor).
                core.global.restart_window();
                // Nothing is queued here: a pending mark is of a task gone elsewhere.
                core.sampler.clear();
                core.steal_work(&self.handle)
                    .or_else(|| core.spin_for_work(&self.handle))
                    .or_else(|| core.yield_for_work(&self.handle))
            }
        };
        match task {
            Some(task) => match self.run_task(task, core, obs) {
                Some(core) => Step::Go(core),
                None => Step::HandedOff,
            },
            None => Step::Idle(core),
        }
    }

    /// The deterministic mode: the next poll of a streak that `ObservePolls::split` cut
    /// at a step's end, then the streak's rest as `run_polls` would run it.
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(super) fn continue_streak<O: ObservePolls>(
        &self,
        task: RunTask,
        mut core: Box<Core>,
        lifo_polls: u32,
        obs: &mut O,
    ) -> Step {
        core.stats.counts.polls += 1;
        core.stats.counts.lifo_hits += 1;
        let polls = core.stats.counts.polls;
        match self.run_polls::<false, O>(task, core, polls, obs, lifo_polls) {
            Some(core) => Step::Go(core),
            None => Step::HandedOff,
        }
    }

    /// Runs `task`, then what it left in the LIFO slot (a bounded streak). None when the
    /// core was handed off during a poll (`block_in_place`).
    fn run_task<O: ObservePolls>(
        &self,
        task: RunTask,
        mut core: Box<Core>,
        obs: &mut O,
    ) -> Option<Box<Core>> {
        core.transition_from_searching(&self.handle);
        core.lifo.open_streak();
        core.stats.counts.polls += 1;
        let polls = core.stats.counts.polls;
        // One check per run, not per poll (metrics/sampler.rs): a run that cannot reach
        // the sampler's due poll runs with no check at all.
        if core.sampler.run_may_reach_due(polls) {
            return self.run_polls_sampling(task, core, polls, obs);
        }
        self.run_polls::<false, O>(task, core, polls, obs, 0)
    }

    /// `run_polls` with the sampler's check before each poll: for the runs that may
    /// reach its due poll. Not `#[cold]`: one run in about `n / 17` takes it, and it
    /// should run as fast as the inlined copy.
    #[inline(never)]
    fn run_polls_sampling<O: ObservePolls>(
        &self,
        task: RunTask,
        core: Box<Core>,
        polls: u64,
        obs: &mut O,
    ) -> Option<Box<Core>> {
        self.run_polls::<true, O>(task, core, polls, obs, 0)
    }

    /// `run_task` from the first poll (number `polls`) on; `lifo_polls`: the streak's
    /// polls before it (0, or, continuing a split streak, the LIFO task's number in it).
    /// `SAMPLING`: each poll that reaches the sampler's due count takes `poll_sampled`.
    #[inline(always)]
    fn run_polls<const SAMPLING: bool, O: ObservePolls>(
        &self,
        task: RunTask,
        core: Box<Core>,
        mut polls: u64,
        obs: &mut O,
        mut lifo_polls: u32,
    ) -> Option<Box<Core>> {
        let me = &self.handle.shared.workers[self.index];
        let sampled = SAMPLING && core.sampler.is_due(polls);
        *self.core.borrow_mut() = Some(core);
        coop::budget(|| {
            obs.poll(self.index, &task, lifo_polls > 0);
            let mut completed = if sampled {
                self.poll_sampled(task, me, polls, false)
            } else {
                // The stamps are plain stores to this worker's own line (worker_shared.rs):
                // the monitor finds a poll that lasts a tick, and lets siblings rescue our
                // tasks.
                me.begin_poll(polls);
                task.run(&self.sched)
            };
            loop {
                // Taken before any stamp: a core handed off mid-poll stamps its own polls
                // on its new thread.
                obs.polled(completed);
                let mut core = self.core.borrow_mut().take()?;
                core.stats.counts.completed += u64::from(completed);
                // The poll's end is stamped only when the run ends: a LIFO poll's
                // `begin_poll` overwrites the stamp anyway, and the few instructions in
                // between count as the last poll's (worker_shared.rs).
                let Some(task) = me.lifo.take() else {
                    me.end_poll(polls);
                    return Some(core);
                };
                // The cap (lifo_policy.rs): shorter while others wait here.
                let others_waiting = !core.run_queue.is_empty() || !core.defer.is_empty();
                let capped =
                    LifoPolicy::capped(lifo_polls, others_waiting) || !coop::has_budget_remaining();
                // Only looked at while the streak may go on: one load fewer per capped end.
                let global_due = !capped
                    && core.global.streak_cut_due(
                        &self.handle.shared.inject,
                        &self.handle.shared.overflow,
                        polls,
                    );
                if capped || global_due {
                    me.end_poll(polls);
                    // Give the ring a turn; later schedules this tick go to the back too.
                    core.lifo.close_streak();
                    if global_due {
                        // The global queue's turn: its batch goes ahead of the displaced
                        // task, so a chain of long polls runs behind the remote spawns
                        // that arrived meanwhile, not in front of them.
                        if let Some(first) = core.next_global_batch(&self.handle, true) {
                            core.push_back(first, &self.handle);
                        }
                    }
                    core.push_back(task, &self.handle);
                    return Some(core);
                }
                lifo_polls += 1;
                if O::SPLIT_STREAKS {
                    // One poll per step: the streak resumes at this worker's next step.
                    me.end_poll(polls);
                    obs.split(task, lifo_polls);
                    return Some(core);
                }
                core.stats.counts.polls += 1;
                core.stats.counts.lifo_hits += 1;
                polls = core.stats.counts.polls;
                let sampled = SAMPLING && core.sampler.is_due(polls);
                *self.core.borrow_mut() = Some(core);
                obs.poll(self.index, &task, true);
                completed = if sampled {
                    self.poll_sampled(task, me, polls, true)
                } else {
                    me.begin_poll(polls);
                    task.run(&self.sched)
                };
            }
        })
    }

    /// Periodic work: the driver's turn (ready I/O, timers, the deferred list, and the
    /// backlog check), publish metrics, notice shutdown.
    fn maintenance(&self, core: Box<Core>) -> Box<Core> {
        let mut core = self.driver_turn(core);
        core.stats.submit(&self.handle.shared.metrics[core.index]);
        core.global.tune(core.stats.counts.polls);
        core
    }

    /// Lets the driver dispatch without sleeping, then releases the deferred list to the
    /// back of the ring, then makes sure a backlog here is seen by someone.
    ///
    /// The driver dispatches with this core in its slot and its parker taken, so the tasks
    /// it wakes land in this worker's own queues and wake nobody (`schedule_local`: a
    /// burst of local wakes notifies once, here, not once per wake); the deferred tasks
    /// come back with no wake-up either. Both can leave this worker with more runnable
    /// tasks than it can start while siblings sleep, so it ends with the backlog check
    /// (`notify_backlog`). Every `event_interval` ticks at the latest (`maintenance`),
    /// so a yielded task waits at most that long, however busy the worker is, and any
    /// other local push that woke nobody (a LIFO streak's displaced task, a global batch)
    /// is made up for within that bound.
    ///
    /// The turn consumes a pending unpark, so it re-reads the shutdown flag: `close` sets
    /// it before it unparks every worker, and a worker that swallowed that unpark here
    /// must not go on to sleep without seeing it.
    fn driver_turn(&self, core: Box<Core>) -> Box<Core> {
        let mut core = park_reachable(&self.core, core, Parker::park_timeout_zero);
        core.is_shutdown = self.handle.is_closed();
        if !core.defer.is_empty() {
            core.flush_defer(&self.handle);
        }
        self.notify_backlog(&core);
        core
    }

    /// The invariant of the idle protocol on the worker's side: while this worker has
    /// more runnable tasks than it can start now (a LIFO task plus ring tasks, more than
    /// one) and some worker is parked, someone is searching or about to be. A searcher
    /// here will hand off when it finds work (idle/search.rs); otherwise wake one parked
    /// worker, as a searcher: it steals half the ring and, finding work left, wakes the
    /// next (idle/word.rs), so a burst ramps up across the pool.
    fn notify_backlog(&self, core: &Core) {
        // A planted bug for the spread tests (sim_spread.rs): without this check a burst
        // stays on one worker while its siblings sleep.
        // `RUSTFLAGS='--cfg runtime_plant="no_backlog_check"'`.
        if cfg!(runtime_plant = "no_backlog_check") {
            return;
        }
        if core.should_notify_others() {
            self.handle.notify_parked();
        }
    }

    /// `notify_backlog`, for the deterministic mode's park and wake-up steps.
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(super) fn notify_backlog_of(&self, core: &Core) {
        self.notify_backlog(core);
    }

    fn park(&self, mut core: Box<Core>) -> Box<Core> {
        if self.park_begin(&mut core) {
            while !core.is_shutdown {
                core.stats.check_noop();
                core.stats.about_to_park();
                core.stats.submit(&self.handle.shared.metrics[core.index]);
                // The user's hooks run with the core out of its slot: a task they wake
                // takes the remote path and its notify, never this sleeping worker's
                // queue.
                self.handle.hooks.before_park();
                // The core stays reachable while parked: tasks woken by the driver on this
                // thread land in our own queue (the check after the loop tells others).
                core = park_reachable(&self.core, core, Parker::park);
                self.handle.hooks.after_unpark();
                if self.park_end(&mut core) {
                    break;
                }
            }
        }
        self.notify_backlog(&core);
        core
    }

    /// The worker ran dry: registers as parked (idle/search.rs), false when work showed
    /// up first.
    #[inline(always)]
    pub(super) fn park_begin(&self, core: &mut Core) -> bool {
        if core.transition_to_parked(&self.handle) {
            self.handle.shared.workers[self.index].idle();
            return true;
        }
        false
    }

    /// After a wake-up of a parked worker: true when it runs again (it was notified, has
    /// work of its own, or the runtime is closing), false when it parks again.
    #[inline(always)]
    pub(super) fn park_end(&self, core: &mut Core) -> bool {
        // One clock reading for the busy time and the idle episode.
        let now = std::time::Instant::now();
        core.stats.unparked_at(now);
        core.stats.mark_unpark_polls();
        core.is_shutdown = self.handle.is_closed();
        if core.transition_from_parked(&self.handle) {
            core.idle.spin.end_idle_at(now);
            // After the idle-count change above (monitor.rs: no lost wake-up).
            self.handle.monitor.worker_unparked();
            return true;
        }
        false
    }

    pub(super) fn shutdown(&self, mut core: Box<Core>) {
        // Cancel live tasks on this worker's thread, starting with its own shard.
        core.stats.counts.completed +=
            self.handle.shared.owned.close_and_shutdown_all(core.index) as u64;
        core.stats.submit(&self.handle.shared.metrics[core.index]);
        let mut cores = self.handle.shared.shutdown_cores.lock();
        cores.push(core);
        if cores.len() < self.handle.num_workers() {
            return;
        }
        // The last worker out drains every queue, after every worker stopped polling (so
        // nothing is queued behind the drain). Bound tasks were cancelled through the
        // closed list and only lose this reference; an unbound one (spawned, never parked)
        // is cancelled here. Not under `shutdown_cores`: a future's drop may wake others.
        let mut drained: Vec<Box<Core>> = cores.drain(..).collect();
        drop(cores);
        // Counted on this worker's core, so `live_tasks` reads 0 once the runtime is down.
        let own = drained.last_mut().expect("this worker's core");
        own.stats.counts.completed += inject::cancel_all(&self.handle.shared.overflow);
        own.stats.counts.completed += inject::cancel_all(&self.handle.shared.inject);
        for core in drained.iter_mut() {
            let lifo = self.handle.shared.workers[core.index].lifo.steal();
            let mut tasks: Vec<RunTask> = lifo.into_iter().collect();
            core.defer.flush(|task| tasks.push(task));
            while let Some(task) = core.run_queue.pop() {
                tasks.push(task);
            }
            for task in tasks {
                core.stats.counts.completed += u64::from(task.shutdown());
            }
            core.stats.submit(&self.handle.shared.metrics[core.index]);
        }
        drop(drained);
        self.handle.driver.shutdown();
    }
}

impl HoldsParker for Core {
    fn parker(&mut self) -> &mut Option<Parker> {
        &mut self.park
    }
}
