//! Task dumps: [`Handle::dump`](crate::Handle::dump) lists a running runtime's tasks, what
//! each idle one waits on, deadlock cycles and tasks nothing can wake, without the
//! workers' cooperation and without polling anything.
//!
//! **What is read** (`collect.rs`), one lock at a time, never two at once:
//! 1. the leaves' waiter lists, each under its own lock: the timer wheels (every pending
//!    timer's deadline and waker, one wheel's mutex at a time), the I/O slab (every
//!    readiness entry's waiters, with the descriptor and direction, one entry's mutex at a
//!    time), and the wait registry (`task::waits`: the queued waiters of the semaphore
//!    under `Mutex`/`RwLock`/`Semaphore`/bounded `mpsc` sends, of `Notify`, of `mpsc`
//!    receivers and of `JoinHandle`s, recorded on their slow paths, one shard at a time);
//! 2. the runtime's owned task list (`task::OwnedTasks::for_each_task`), one shard at a
//!    time: every task that parked at least once, its identity (`TaskMeta`: id, name,
//!    spawn location) and one load of its state word.
//!
//! A stored waker is mapped to its task by the waker itself: a runtime waker's data
//! pointer is the task's header (`task::waker_task_id`), read while the leaf's lock keeps
//! the waker, hence the task, alive. Waits are matched to tasks by task id, which is never
//! reused, so a task that finished between the two steps cannot lend its wait to another.
//! Tasks that never parked are in no list (they are queued or being polled): the dump
//! counts them (`unlisted`: live tasks, as the workers last published them, less those
//! listed) and never touches a run queue. A worker stuck in a poll delays nothing: the
//! dump takes no lock a poll holds across the user's code.
//!
//! **What is derived** (`graph.rs`): the wait-for graph (an idle task waiting on a lock
//! points at the lock's holder; one awaiting a `JoinHandle` at the awaited task) and its
//! cycles, reported as deadlocks; and the *unwakeable* tasks, idle with no waker left
//! anywhere (see `task::TaskView::is_unwakeable` for exactly what that check sees).
//!
//! The dump is no single instant: tasks move while the shards are walked one by one, so a
//! task may show as idle with no recorded wait because its wait ended in between. Waits
//! outside the instrumented leaves (`watch`, `broadcast`, `oneshot`, a foreign future)
//! show as an idle task with no known wait, still counted wakeable if a waker exists.
//! Blocking-pool tasks and `LocalSet` tasks are not listed; a task in its first poll is
//! counted, not named.

mod collect;
mod graph;
mod on_signal;
mod report;

use std::time::Instant;

use crate::task::{Id, TaskMeta};

pub use task::TaskState;

/// A runtime's tasks at one dump ([`Handle::dump`](crate::Handle::dump)); `Display`
/// prints a readable report.
#[derive(Debug, Clone)]
pub struct Dump {
    pub(crate) tasks: Vec<TaskDump>,
    pub(crate) alive: usize,
    pub(crate) cycles: Vec<Vec<Id>>,
}

/// One listed task of a [`Dump`].
#[derive(Debug, Clone)]
pub struct TaskDump {
    pub(crate) id: Id,
    pub(crate) meta: TaskMeta,
    pub(crate) state: TaskState,
    pub(crate) waits: Vec<WaitsOn>,
    pub(crate) unwakeable: bool,
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
    /// A queued acquire of a `Mutex`, `RwLock`, `Semaphore` or a bounded channel's
    /// capacity, a queued `Notify` waiter (also under `Barrier` and `SetOnce`), or an
    /// `mpsc` receiver waiting for a message.
    Sync {
        /// `"Mutex"`, `"RwLock"`, `"Semaphore"`, `"mpsc send"`, `"Notify"` or
        /// `"mpsc recv"`.
        kind: &'static str,
        /// The object's address: the primitive's semaphore, the `Notify`, or the
        /// channel (the same for every waiter on one object).
        object: usize,
        /// For a lock: the task holding it at the dump, when a task that is listed (it
        /// parked at least once) took it.
        holder: Option<Id>,
    },
    /// A `JoinHandle` awaiting another task.
    Join {
        /// The awaited task.
        task: Id,
    },
}

impl Dump {
    /// Every listed task (those that parked at least once), by id.
    pub fn tasks(&self) -> &[TaskDump] {
        &self.tasks
    }

    /// The listed task with id `id`.
    pub fn task(&self, id: Id) -> Option<&TaskDump> {
        let i = self.tasks.binary_search_by_key(&id, |t| t.id).ok()?;
        Some(&self.tasks[i])
    }

    /// Live tasks that are not listed: spawned and never parked yet, so queued or being
    /// polled (from the workers' last published counts; approximate while they run).
    pub fn unlisted(&self) -> usize {
        self.alive.saturating_sub(self.tasks.len())
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
}

impl crate::Runtime {
    /// A dump of this runtime's tasks: [`Handle::dump`](crate::Handle::dump).
    pub fn dump(&self) -> Dump {
        self.handle().dump()
    }
}

pub(crate) use collect::collect;
pub(crate) use on_signal::{watch as watch_signal, DumpCallback};
