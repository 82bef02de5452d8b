//! Task dumps: [`Handle::dump`](crate::Handle::dump) lists a running runtime's tasks, what
//! each idle one waits on, deadlock cycles and tasks nothing can wake, without the
//! workers' cooperation and without polling anything.
//!
//! **What is read** (`collect.rs`), one lock at a time, never two at once:
//! 1. the leaves' waiter lists, each under its own lock: the timer wheels (every pending
//!    timer's deadline and waker, one wheel's mutex at a time), the I/O slab (every
//!    readiness entry's waiters, with the descriptor and direction, one entry's mutex at a
//!    time), and the wait registry (`task::waits`: the queued waiters of the semaphore
//!    under `Mutex`/`RwLock`/`Semaphore`/bounded `mpsc` sends, of `Notify`, of `mpsc` and
//!    `broadcast` receivers, of `watch` receivers in `changed()`, of the other channels'
//!    senders in `closed()`, recorded on their slow paths, one shard at a time; and, the
//!    same way, of `JoinSet::join_next`, of signal streams' `recv`, and of the `oneshot`
//!    sides and `JoinHandle`s whose task's own slots were full);
//! 2. the tasks that never parked (unbound) and wait in a queue, not yet polled (a bound
//!    task in a queue is found in the next step): first those of each multi-thread
//!    worker's own ring and LIFO slot, which cannot be read without claiming their entries,
//!    so the dump claims them (`queue::claim_and_requeue`, through
//!    `scheduler/multi_thread/claim.rs`: steals into a scratch ring, a bounded number of
//!    rounds, then the LIFO slot's swap), reads each one's identity while it holds the
//!    queue's reference, and pushes them all to the global queue in one batch, waking a
//!    parked worker (on a closed queue, at shutdown, it cancels them as a refused remote
//!    push does); then the runtime's global queues (`queue::Inject::for_each_node`, under
//!    the queue's consumer lock, as a pop takes it: tasks spawned from outside the
//!    workers, spilled from a full worker queue, or requeued by the claim); then the
//!    remote queue of every `LocalSet` this runtime drove last, the same way;
//! 3. the runtime's owned task list (`task::OwnedTasks::for_each_task`), one shard at a
//!    time: every task that parked at least once, its identity (`TaskMeta`: id, name,
//!    spawn location), one load of its state word and, for an idle one, the waits written
//!    in its own slots (`task::waits::inline`: a `oneshot` receiver's or sender's
//!    `closed()`, a `JoinHandle`; plain atomic loads, nothing dereferenced); then, the same way, the owned list
//!    of every `LocalSet` this runtime drove last (`task/local_dump.rs`: its `spawn_local`
//!    tasks that parked at least once);
//! 4. the blocking pool (`blocking.rs`): its owned list (every `spawn_blocking` closure
//!    not finished, queued or running, bound at spawn) and its threads' run slots (which
//!    task each runs, since when), for each running closure's elapsed time.
//!
//! A lock waiter's record also says where it awaits, when the method took its caller's
//! location (`Mutex::lock`, `RwLock::read`/`write`, `Semaphore::acquire`/`acquire_many`
//! and their `_owned` forms: the acquire future holds it, and only the queued path copies
//! it into the record).
//!
//! A stored waker is mapped to its task by the waker itself: a runtime waker's data
//! pointer is the task's header (`task::waker_task_id`), read while the leaf's lock keeps
//! the waker, hence the task, alive. Waits are matched to tasks by task id, which is never
//! reused, so a task that finished between the two steps cannot lend its wait to another.
//! Tasks that never parked are in no list: those in a queue step 2 reads are listed; one
//! in its first poll on a multi-thread worker is named by that worker's thread (last, the
//! workers inside a poll are asked which task they poll, through the stall reports' stack
//! capture: a signal each, answered from the handler, at most `ANSWER_WAIT`; Linux only)
//! and listed as running; those in a current-thread runtime's local queue (a `VecDeque`
//! owned by whoever holds the core), in a sibling's steal in flight, or in their first
//! poll on a current-thread runtime are counted (`unlisted`: live tasks, as the workers
//! last published them, less those listed), not named: binding every task at spawn would
//! cost each spawn a shard lock. A `LocalSet`'s
//! never-parked tasks wait in its thread-private local queue (its remote queue holds
//! woken tasks, which are bound, unless the owner's local queue was borrowed at a spawn):
//! neither named nor counted. A worker stuck in a poll delays nothing: the dump takes no
//! lock a poll holds across the user's code.
//!
//! **What a dump changes**: only where the workers' never-polled tasks wait. The claim
//! moves them from their worker's ring and LIFO slot to the global queue, behind what is
//! there; each still runs exactly once, on whichever worker takes it (a diagnostic, rare;
//! a worker stuck in a poll has its queued work run by the others, which is a gain). It
//! costs each worker what one more sibling's steals cost, and the LIFO slot's swap gives an
//! item to exactly one taker whoever takes it (loom: `loom_dump_claim`).
//!
//! **What is derived** (`graph.rs`): the wait-for graph (an idle task waiting on a lock
//! points at the lock's holder; one awaiting a `JoinHandle` at the awaited task) and its
//! cycles, reported as deadlocks; and the *unwakeable* tasks, idle with no waker left
//! anywhere (see `task::TaskView::is_unwakeable` for exactly what that check sees).
//!
//! The dump is no single instant: tasks move while the shards are walked one by one, so a
//! task may show as idle with no recorded wait because its wait ended in between. Waits
//! outside the instrumented leaves (a foreign future, a channel of another crate) show as
//! an idle task with no known wait, still counted wakeable if a waker exists.

mod collect;
mod graph;
mod on_signal;
mod report;

use std::time::Instant;

use task::{Id, TaskMeta};

pub use task::TaskState;

/// A runtime's tasks at one dump ([`Handle::dump`](crate::Handle::dump)); `Display`
/// prints a readable report.
#[derive(Debug, Clone)]
pub struct Dump {
    pub(crate) tasks: Vec<TaskDump>,
    pub(crate) alive: usize,
    pub(crate) cycles: Vec<Vec<Id>>,
    pub(crate) blocking: Vec<BlockingDump>,
}

/// One listed task of a [`Dump`].
#[derive(Debug, Clone)]
pub struct TaskDump {
    pub(crate) id: Id,
    pub(crate) meta: TaskMeta,
    pub(crate) state: TaskState,
    pub(crate) waits: Vec<WaitsOn>,
    pub(crate) unwakeable: bool,
    pub(crate) local_set: Option<crate::handle::Id>,
    pub(crate) unpolled: bool,
}

/// A blocking closure (`spawn_blocking`) of a [`Dump`]: spawned and not finished.
#[derive(Debug, Clone)]
pub struct BlockingDump {
    pub(crate) meta: TaskMeta,
    pub(crate) running: bool,
    pub(crate) running_for: Option<std::time::Duration>,
}

impl BlockingDump {
    /// The closure's task identity: id, name
    /// ([`task::Builder::name`](crate::task::Builder::name)), spawn location.
    pub fn meta(&self) -> &TaskMeta {
        &self.meta
    }

    /// True when a pool thread runs it; false while it is queued.
    pub fn is_running(&self) -> bool {
        self.running
    }

    /// How long it had run at the dump (`None` while queued, or when the thread had not
    /// yet published its start).
    pub fn running_for(&self) -> Option<std::time::Duration> {
        self.running_for
    }
}

/// Which half of an I/O resource a task waits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IoDirection {
    /// Readable (or read-closed, or an error).
    Read,
    /// Writable (or write-closed, or an error).
    Write,
}

/// What an idle task waits on, as the runtime's leaves recorded it when they stored its
/// waker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitsOn {
    /// A timer (`sleep`, `timeout`, `interval`) firing at `deadline`.
    Sleep {
        /// When it fires.
        deadline: Instant,
    },
    /// Readiness of a socket, pipe or `AsyncFd`.
    Io {
        /// The file descriptor (-1 when the resource did not tell the driver).
        fd: i32,
        /// The direction awaited.
        direction: IoDirection,
    },
    /// A queued acquire of a `Mutex`, `RwLock`, `Semaphore` (also under `OnceCell`) or a
    /// bounded channel's capacity, a queued `Notify` waiter (also under `Barrier` and
    /// `SetOnce`), a channel's receiver waiting for a value, or a sender waiting in
    /// `closed()`.
    Sync {
        /// `"Mutex"`, `"RwLock"`, `"Semaphore"`, `"mpsc send"`, `"Notify"`,
        /// `"mpsc recv"`, `"broadcast recv"`, `"oneshot recv"`, `"watch changed"`, or a
        /// sender's `"mpsc closed"`, `"broadcast closed"`, `"oneshot closed"`,
        /// `"watch closed"`.
        kind: &'static str,
        /// The object's address: the primitive's semaphore, the `Notify`, or the
        /// channel (the same for every waiter on one object, and for a channel's
        /// receivers and senders alike).
        object: usize,
        /// For a lock: the task holding it at the dump, when a task that is listed (it
        /// parked at least once) took it.
        holder: Option<Id>,
        /// Where the task awaits it, when the primitive's method takes its caller's
        /// location (`Mutex::lock`/`lock_owned`, `RwLock::read`/`write`,
        /// `Semaphore::acquire`/`acquire_many`, and their `_owned` forms).
        at: Option<&'static std::panic::Location<'static>>,
    },
    /// A `JoinHandle` awaiting another task.
    Join {
        /// The awaited task.
        task: Id,
    },
    /// A `JoinSet`'s `join_next` (or `poll_join_next`) awaiting the next of its tasks to
    /// finish.
    JoinSet {
        /// The set's address (its shared completion list: the same for every wait on one
        /// set).
        object: usize,
        /// The tasks in the set at the dump (finished and not yet joined ones included).
        tasks: usize,
    },
    /// A signal stream's `recv` (`signal::unix::Signal`, `signal::ctrl_c`) awaiting the
    /// next delivery.
    Signal {
        /// The signal's number (`SIGINT` is 2).
        signal: i32,
    },
}

impl Dump {
    /// Every listed task, by id: those that parked at least once (the runtime's and those
    /// of the `LocalSet`s it drove last) and those not polled yet in the runtime's queues
    /// (a worker's ring or LIFO slot, the global queues) or a set's remote queue
    /// ([`TaskDump::not_yet_polled`]).
    pub fn tasks(&self) -> &[TaskDump] {
        &self.tasks
    }

    /// The listed task with id `id`.
    pub fn task(&self, id: Id) -> Option<&TaskDump> {
        let i = self.tasks.binary_search_by_key(&id, |t| t.id).ok()?;
        Some(&self.tasks[i])
    }

    /// Live tasks of the runtime that are not listed: never parked yet, and in a
    /// current-thread runtime's local queue or first poll, or in a sibling's steal in
    /// flight (from the workers' last published counts; approximate while they run).
    pub fn unlisted(&self) -> usize {
        let own = self.tasks.iter().filter(|t| t.local_set.is_none()).count();
        self.alive.saturating_sub(own)
    }

    /// The blocking pool's closures spawned and not finished (running, or queued), by id.
    pub fn blocking(&self) -> &[BlockingDump] {
        &self.blocking
    }

    /// Deadlock cycles of the wait-for graph: each task waits on a lock held by (or on
    /// the completion of) the next, the last on the first. Each cycle starts at its
    /// smallest id.
    pub fn deadlocks(&self) -> &[Vec<Id>] {
        &self.cycles
    }

    /// The idle tasks no waker can reach: only `abort` or shutdown can end them.
    pub fn unwakeable(&self) -> impl Iterator<Item = &TaskDump> {
        self.tasks.iter().filter(|t| t.unwakeable)
    }
}

impl TaskDump {
    /// The task's id.
    pub fn id(&self) -> Id {
        self.id
    }

    /// The task's identity: id, name ([`task::Builder::name`](crate::task::Builder::name)),
    /// spawn location.
    pub fn meta(&self) -> &TaskMeta {
        &self.meta
    }

    /// Where it stood at the dump.
    pub fn state(&self) -> TaskState {
        self.state
    }

    /// What it waits on (several for a `select!`; none known for an uninstrumented wait).
    /// Only an idle task's waits are reported.
    pub fn waits_on(&self) -> &[WaitsOn] {
        &self.waits
    }

    /// True when the task is idle and no waker of it exists anywhere.
    pub fn is_unwakeable(&self) -> bool {
        self.unwakeable
    }

    /// True for a task found in a run queue that never parked: spawned and not yet polled
    /// (in a worker's ring or LIFO slot, which the dump moved to the global queue, or in a
    /// global queue: spawned from outside the workers, or spilled from a worker's full
    /// queue; or in a `LocalSet`'s remote queue); in rare cases polled and requeued before
    /// it ever went idle. Its state is `Scheduled`.
    pub fn not_yet_polled(&self) -> bool {
        self.unpolled
    }

    /// For a `spawn_local` task, the id of its [`LocalSet`](crate::task::LocalSet).
    pub fn local_set(&self) -> Option<crate::handle::Id> {
        self.local_set
    }
}

pub(crate) use collect::collect;
pub(crate) use on_signal::{watch as watch_signal, DumpCallback};
