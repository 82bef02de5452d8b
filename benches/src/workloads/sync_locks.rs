//! The lock workloads (`benches/benches/sync_locks.rs`): `Semaphore`
//! uncontended and contended (on 1 and on N permits), `Mutex` contended with short critical
//! sections, `RwLock` reads uncontended, reads beside a cycling writer, and a queue of
//! writers on a write-held lock, `Notify` `notify_one` and `notify_waiters` fan-out; after
//! tokio's own `sync_semaphore`, `sync_mutex`, `sync_rwlock` and `sync_notify` benches.
//!
//! Each workload is written once over [`SyncKit`], a primitive family: [`OursKit`]
//! (`runtime::sync`), [`TokioKit`] (`tokio::sync`) and [`SmolKit`] (smol's ecosystem:
//! `async-lock`'s `Semaphore`/`Mutex`/`RwLock`, `event-listener`'s `Event`). Each family
//! runs on its own ecosystem's runtime (ours, tokio, smol's `Executor`), as a user of that
//! stack gets it; [`SmolKit`] also runs on ours (the bench's `asynclock_on_ours`), which
//! compares the primitives alone, on one scheduler.
//!
//! `event-listener` has no stored permit: `notify(1)` with no listener is lost. The notify
//! workloads tolerate that (as tokio's bench does, the bench thread notifies in a loop
//! until the waiters have counted enough wake-ups), so all three columns run the same loop.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use crate::workloads::scheduler::Iteration;
use crate::{Bench, Spawner};

/// Acquire/release cycles of the uncontended semaphore workload.
pub const UNCONTENDED_OPS: usize = 1_000;
/// Tasks in the contended workloads.
pub const CONTENDED_TASKS: usize = 16;
/// Acquire (or lock) cycles per task in the contended workloads.
pub const OPS_PER_TASK: usize = 100;
/// The "N permits" of `semaphore_contended_n`.
pub const N_PERMITS: usize = 4;
/// Waiting tasks in the notify fan-out workloads.
pub const NOTIFY_WAITERS: usize = 16;
/// Wake-ups counted per notify iteration.
pub const NOTIFY_ITERS: usize = 1_000;

/// A family of synchronization primitives.
pub trait SyncKit: 'static {
    /// A counting semaphore.
    type Sem: Send + Sync + 'static;
    /// A mutex around a `u64`.
    type Mutex: Send + Sync + 'static;
    /// A notifier.
    type Notify: Send + Sync + 'static;
    /// A reader-writer lock around a `u64`.
    type RwLock: Send + Sync + 'static;

    /// A semaphore with `permits` permits.
    fn semaphore(permits: usize) -> Self::Sem;
    /// Acquires one permit and gives it back.
    fn acquire_release(s: &Self::Sem) -> impl Future<Output = ()> + Send + '_;
    /// A mutex holding 0.
    fn mutex() -> Self::Mutex;
    /// Locks, increments, unlocks (a short critical section).
    fn lock_increment(m: &Self::Mutex) -> impl Future<Output = ()> + Send + '_;
    /// Locks and runs `body` with the lock held, then unlocks.
    fn lock_held<'a, F: Future<Output = ()> + Send + 'a>(
        m: &'a Self::Mutex,
        body: F,
    ) -> impl Future<Output = ()> + Send + 'a;
    /// The value behind the mutex (after the workload).
    fn mutex_value(m: &Self::Mutex) -> u64;
    /// A notifier.
    fn notify() -> Self::Notify;
    /// Waits for one notification.
    fn notified(n: &Self::Notify) -> impl Future<Output = ()> + Send + '_;
    /// Wakes one waiter.
    fn notify_one(n: &Self::Notify);
    /// Wakes every waiter.
    fn notify_waiters(n: &Self::Notify);
    /// A reader-writer lock holding 0.
    fn rwlock() -> Self::RwLock;
    /// Read-locks, reads, unlocks.
    fn read(l: &Self::RwLock) -> impl Future<Output = u64> + Send + '_;
    /// Write-locks, increments, unlocks.
    fn write_increment(l: &Self::RwLock) -> impl Future<Output = ()> + Send + '_;
    /// Write-locks and hands the lock held to `body`, which runs while it is held (with
    /// `body`'s own waiting inside), then unlocks.
    fn write_held<'a, F: Future<Output = ()> + Send + 'a>(
        l: &'a Self::RwLock,
        body: F,
    ) -> impl Future<Output = ()> + Send + 'a;
    /// The value behind the lock (after the workload).
    fn rwlock_value(l: &Self::RwLock) -> u64;
}

/// `runtime::sync`.
pub struct OursKit;

impl SyncKit for OursKit {
    type Sem = runtime::sync::Semaphore;
    type Mutex = runtime::sync::Mutex<u64>;
    type RwLock = runtime::sync::RwLock<u64>;
    type Notify = runtime::sync::Notify;

    fn semaphore(permits: usize) -> Self::Sem {
        runtime::sync::Semaphore::new(permits)
    }
    async fn acquire_release(s: &Self::Sem) {
        drop(s.acquire().await.expect("semaphore closed"));
    }
    fn mutex() -> Self::Mutex {
        runtime::sync::Mutex::new(0)
    }
    async fn lock_increment(m: &Self::Mutex) {
        *m.lock().await += 1;
    }
    async fn lock_held<'a, F: Future<Output = ()> + Send + 'a>(m: &'a Self::Mutex, body: F) {
        let mut held = m.lock().await;
        body.await;
        *held += 1;
    }
    fn mutex_value(m: &Self::Mutex) -> u64 {
        *m.try_lock().expect("mutex left locked")
    }
    fn notify() -> Self::Notify {
        runtime::sync::Notify::new()
    }
    async fn notified(n: &Self::Notify) {
        n.notified().await;
    }
    fn notify_one(n: &Self::Notify) {
        n.notify_one();
    }
    fn notify_waiters(n: &Self::Notify) {
        n.notify_waiters();
    }
    fn rwlock() -> Self::RwLock {
        runtime::sync::RwLock::new(0)
    }
    async fn read(l: &Self::RwLock) -> u64 {
        *l.read().await
    }
    async fn write_increment(l: &Self::RwLock) {
        *l.write().await += 1;
    }
    async fn write_held<'a, F: Future<Output = ()> + Send + 'a>(l: &'a Self::RwLock, body: F) {
        let _held = l.write().await;
        body.await;
    }
    fn rwlock_value(l: &Self::RwLock) -> u64 {
        *l.try_read().expect("rwlock left write-locked")
    }
}

/// `tokio::sync`.
pub struct TokioKit;

impl SyncKit for TokioKit {
    type Sem = tokio::sync::Semaphore;
    type Mutex = tokio::sync::Mutex<u64>;
    type RwLock = tokio::sync::RwLock<u64>;
    type Notify = tokio::sync::Notify;

    fn semaphore(permits: usize) -> Self::Sem {
        tokio::sync::Semaphore::new(permits)
    }
    async fn acquire_release(s: &Self::Sem) {
        drop(s.acquire().await.expect("semaphore closed"));
    }
    fn mutex() -> Self::Mutex {
        tokio::sync::Mutex::new(0)
    }
    async fn lock_increment(m: &Self::Mutex) {
        *m.lock().await += 1;
    }
    async fn lock_held<'a, F: Future<Output = ()> + Send + 'a>(m: &'a Self::Mutex, body: F) {
        let mut held = m.lock().await;
        body.await;
        *held += 1;
    }
    fn mutex_value(m: &Self::Mutex) -> u64 {
        *m.try_lock().expect("mutex left locked")
    }
    fn notify() -> Self::Notify {
        tokio::sync::Notify::new()
    }
    async fn notified(n: &Self::Notify) {
        n.notified().await;
    }
    fn notify_one(n: &Self::Notify) {
        n.notify_one();
    }
    fn notify_waiters(n: &Self::Notify) {
        n.notify_waiters();
    }
    fn rwlock() -> Self::RwLock {
        tokio::sync::RwLock::new(0)
    }
    async fn read(l: &Self::RwLock) -> u64 {
        *l.read().await
    }
    async fn write_increment(l: &Self::RwLock) {
        *l.write().await += 1;
    }
    async fn write_held<'a, F: Future<Output = ()> + Send + 'a>(l: &'a Self::RwLock, body: F) {
        let _held = l.write().await;
        body.await;
    }
    fn rwlock_value(l: &Self::RwLock) -> u64 {
        *l.try_read().expect("rwlock left write-locked")
    }
}

/// smol's ecosystem: `async-lock` and `event-listener`.
pub struct SmolKit;

impl SyncKit for SmolKit {
    type Sem = async_lock::Semaphore;
    type Mutex = async_lock::Mutex<u64>;
    type RwLock = async_lock::RwLock<u64>;
    type Notify = event_listener::Event;

    fn semaphore(permits: usize) -> Self::Sem {
        async_lock::Semaphore::new(permits)
    }
    async fn acquire_release(s: &Self::Sem) {
        drop(s.acquire().await);
    }
    fn mutex() -> Self::Mutex {
        async_lock::Mutex::new(0)
    }
    async fn lock_increment(m: &Self::Mutex) {
        *m.lock().await += 1;
    }
    async fn lock_held<'a, F: Future<Output = ()> + Send + 'a>(m: &'a Self::Mutex, body: F) {
        let mut held = m.lock().await;
        body.await;
        *held += 1;
    }
    fn mutex_value(m: &Self::Mutex) -> u64 {
        *m.try_lock().expect("mutex left locked")
    }
    fn notify() -> Self::Notify {
        event_listener::Event::new()
    }
    async fn notified(n: &Self::Notify) {
        n.listen().await;
    }
    fn notify_one(n: &Self::Notify) {
        n.notify(1);
    }
    fn notify_waiters(n: &Self::Notify) {
        n.notify(usize::MAX);
    }
    fn rwlock() -> Self::RwLock {
        async_lock::RwLock::new(0)
    }
    async fn read(l: &Self::RwLock) -> u64 {
        *l.read().await
    }
    async fn write_increment(l: &Self::RwLock) {
        *l.write().await += 1;
    }
    async fn write_held<'a, F: Future<Output = ()> + Send + 'a>(l: &'a Self::RwLock, body: F) {
        let _held = l.write().await;
        body.await;
    }
    fn rwlock_value(l: &Self::RwLock) -> u64 {
        *l.try_read().expect("rwlock left write-locked")
    }
}

/// `UNCONTENDED_OPS` acquire/release cycles of one task (in `block_on`) on a semaphore
/// nobody else uses.
pub fn semaphore_uncontended<B: Bench, K: SyncKit>(rt: &B) -> Iteration<'_> {
    let sem = K::semaphore(1);
    Box::new(move || {
        rt.block_on(async {
            for _ in 0..UNCONTENDED_OPS {
                K::acquire_release(&sem).await;
            }
        })
    })
}

/// `CONTENDED_TASKS` tasks, each `OPS_PER_TASK` acquire/release cycles, on `permits`
/// permits; the bench thread joins them all.
fn semaphore_contended<B: Bench, K: SyncKit>(rt: &B, permits: usize) -> Iteration<'_> {
    let sem = Arc::new(K::semaphore(permits));
    Box::new(move || {
        let handles: Vec<_> = (0..CONTENDED_TASKS)
            .map(|_| {
                let sem = sem.clone();
                rt.spawn_remote(async move {
                    for _ in 0..OPS_PER_TASK {
                        K::acquire_release(&sem).await;
                    }
                })
            })
            .collect();
        rt.block_on(async {
            for h in handles {
                h.await;
            }
        })
    })
}

/// `semaphore_contended` on 1 permit.
pub fn semaphore_contended_1<B: Bench, K: SyncKit>(rt: &B) -> Iteration<'_> {
    semaphore_contended::<B, K>(rt, 1)
}

/// `semaphore_contended` on `N_PERMITS` permits.
pub fn semaphore_contended_n<B: Bench, K: SyncKit>(rt: &B) -> Iteration<'_> {
    semaphore_contended::<B, K>(rt, N_PERMITS)
}

/// `CONTENDED_TASKS` tasks, each `OPS_PER_TASK` lock/increment/unlock cycles on one mutex;
/// the bench thread joins them and checks the count.
pub fn mutex_contended<B: Bench, K: SyncKit>(rt: &B) -> Iteration<'_> {
    let m = Arc::new(K::mutex());
    Box::new(move || {
        let before = K::mutex_value(&m);
        let handles: Vec<_> = (0..CONTENDED_TASKS)
            .map(|_| {
                let m = m.clone();
                rt.spawn_remote(async move {
                    for _ in 0..OPS_PER_TASK {
                        K::lock_increment(&m).await;
                    }
                })
            })
            .collect();
        rt.block_on(async {
            for h in handles {
                h.await;
            }
        });
        assert_eq!(
            K::mutex_value(&m) - before,
            (CONTENDED_TASKS * OPS_PER_TASK) as u64
        );
    })
}

/// `NOTIFY_WAITERS` tasks loop on `notified` and count their wake-ups; the bench thread
/// calls `notify` until `NOTIFY_ITERS` wake-ups were counted (tokio's `notify_one` /
/// `notify_waiters` benches). The waiters live as long as the runtime. Multi-thread
/// flavors only: the bench thread spins outside the runtime while the workers count.
fn notify_fan_out<B: Bench, K: SyncKit>(rt: &B, notify: fn(&K::Notify)) -> Iteration<'_> {
    let n = Arc::new(K::notify());
    let count = Arc::new(AtomicUsize::new(0));
    for _ in 0..NOTIFY_WAITERS {
        let (n, count) = (n.clone(), count.clone());
        rt.spawn_remote_detached(async move {
            loop {
                K::notified(&n).await;
                // Relaxed: a counter the bench thread polls; nothing else is ordered by it.
                count.fetch_add(1, Relaxed);
            }
        });
    }
    Box::new(move || {
        count.store(0, Relaxed);
        while count.load(Relaxed) < NOTIFY_ITERS {
            notify(&n);
            std::hint::spin_loop();
        }
    })
}

/// `notify_fan_out` with `notify_one`.
pub fn notify_one<B: Bench, K: SyncKit>(rt: &B) -> Iteration<'_> {
    notify_fan_out::<B, K>(rt, K::notify_one)
}

/// `notify_fan_out` with `notify_waiters`.
pub fn notify_waiters<B: Bench, K: SyncKit>(rt: &B) -> Iteration<'_> {
    notify_fan_out::<B, K>(rt, K::notify_waiters)
}

/// `notify_fan_out` inside the runtime: the same `NOTIFY_WAITERS` counting tasks, and
/// `block_on` calls `notify` and yields until `NOTIFY_ITERS` wake-ups were counted. On the
/// current-thread flavor every step is deterministic, so `instr_chan` counts its
/// instructions per wake-up (the primitive's cost plus a local wake, no spinning).
fn notify_fan_out_local<B: Bench, K: SyncKit>(rt: &B, notify: fn(&K::Notify)) -> Iteration<'_> {
    let n = Arc::new(K::notify());
    let count = Arc::new(AtomicUsize::new(0));
    for _ in 0..NOTIFY_WAITERS {
        let (n, count) = (n.clone(), count.clone());
        rt.spawn_remote_detached(async move {
            loop {
                K::notified(&n).await;
                // Relaxed: a counter `block_on` reads on the same thread.
                count.fetch_add(1, Relaxed);
            }
        });
    }
    let sp = rt.spawner();
    Box::new(move || {
        count.store(0, Relaxed);
        let (n, count, sp) = (n.clone(), count.clone(), sp.clone());
        rt.block_on(async move {
            while count.load(Relaxed) < NOTIFY_ITERS {
                notify(&n);
                sp.yield_now().await;
            }
        })
    })
}

/// `notify_fan_out_local` with `notify_one`.
pub fn notify_one_local<B: Bench, K: SyncKit>(rt: &B) -> Iteration<'_> {
    notify_fan_out_local::<B, K>(rt, K::notify_one)
}

/// `notify_fan_out_local` with `notify_waiters`.
pub fn notify_waiters_local<B: Bench, K: SyncKit>(rt: &B) -> Iteration<'_> {
    notify_fan_out_local::<B, K>(rt, K::notify_waiters)
}

/// `UNCONTENDED_OPS` read lock/unlock cycles of one task (in `block_on`) on a lock nobody
/// else uses.
pub fn rwlock_read_uncontended<B: Bench, K: SyncKit>(rt: &B) -> Iteration<'_> {
    let l = K::rwlock();
    Box::new(move || {
        rt.block_on(async {
            let mut sum = 0;
            for _ in 0..UNCONTENDED_OPS {
                sum += K::read(&l).await;
            }
            std::hint::black_box(sum);
        })
    })
}

/// `CONTENDED_TASKS` readers, each `OPS_PER_TASK` read cycles, beside one writer that
/// write-locks `OPS_PER_TASK` times (a fair lock queues the readers behind it each time);
/// the bench thread joins them and checks the writer's count.
pub fn rwlock_read_contended<B: Bench, K: SyncKit>(rt: &B) -> Iteration<'_> {
    let l = Arc::new(K::rwlock());
    Box::new(move || {
        let before = K::rwlock_value(&l);
        let writer = {
            let l = l.clone();
            rt.spawn_remote(async move {
                for _ in 0..OPS_PER_TASK {
                    K::write_increment(&l).await;
                }
            })
        };
        let readers: Vec<_> = (0..CONTENDED_TASKS)
            .map(|_| {
                let l = l.clone();
                rt.spawn_remote(async move {
                    let mut sum = 0;
                    for _ in 0..OPS_PER_TASK {
                        sum += K::read(&l).await;
                    }
                    std::hint::black_box(sum);
                })
            })
            .collect();
        rt.block_on(async {
            writer.await;
            for h in readers {
                h.await;
            }
        });
        assert_eq!(K::rwlock_value(&l) - before, OPS_PER_TASK as u64);
    })
}

/// A holder task write-locks and yields (the runtime's `yield_now`) until
/// `CONTENDED_TASKS` writer tasks, spawned beside it, have each started its `write` (so
/// they queue on the held lock, give or take the last instant), then unlocks; the queue
/// drains by hand-off from writer to writer, each incrementing once. The writers wait for
/// the lock to be held the same way (yielding), so nothing spins a thread; the bench
/// thread joins them all and checks the count.
pub fn rwlock_write_held<B: Bench, K: SyncKit>(rt: &B) -> Iteration<'_> {
    let l = Arc::new(K::rwlock());
    // Relaxed throughout: flags the tasks poll between yields; the lock orders the data.
    let held = Arc::new(AtomicUsize::new(0));
    let started = Arc::new(AtomicUsize::new(0));
    Box::new(move || {
        let before = K::rwlock_value(&l);
        held.store(0, Relaxed);
        started.store(0, Relaxed);
        let sp = rt.spawner();
        let holder = {
            let (l, held, started, sp) = (l.clone(), held.clone(), started.clone(), sp.clone());
            rt.spawn_remote(async move {
                K::write_held(&l, async {
                    held.store(1, Relaxed);
                    while started.load(Relaxed) < CONTENDED_TASKS {
                        sp.yield_now().await;
                    }
                })
                .await;
            })
        };
        let writers: Vec<_> = (0..CONTENDED_TASKS)
            .map(|_| {
                let (l, held, started, sp) = (l.clone(), held.clone(), started.clone(), sp.clone());
                rt.spawn_remote(async move {
                    while held.load(Relaxed) == 0 {
                        sp.yield_now().await;
                    }
                    started.fetch_add(1, Relaxed);
                    K::write_increment(&l).await;
                })
            })
            .collect();
        rt.block_on(async {
            holder.await;
            for h in writers {
                h.await;
            }
        });
        assert_eq!(K::rwlock_value(&l) - before, CONTENDED_TASKS as u64);
    })
}

/// `CONTENDED_TASKS` tasks, each `OPS_PER_TASK` cycles of lock, yield (to the runtime's
/// `yield_now`, the lock held), increment, unlock: every unlock finds the other tasks
/// queued, so each cycle is one hand-off to a woken waiter. Runs on the current-thread
/// flavor too (the `instr_locks` driver counts its instructions per cycle there).
pub fn mutex_handoff<B: Bench, K: SyncKit>(rt: &B) -> Iteration<'_> {
    let m = Arc::new(K::mutex());
    Box::new(move || {
        let before = K::mutex_value(&m);
        let sp = rt.spawner();
        let handles: Vec<_> = (0..CONTENDED_TASKS)
            .map(|_| {
                let (m, sp) = (m.clone(), sp.clone());
                rt.spawn_remote(async move {
                    for _ in 0..OPS_PER_TASK {
                        K::lock_held(&m, sp.yield_now()).await;
                    }
                })
            })
            .collect();
        rt.block_on(async {
            for h in handles {
                h.await;
            }
        });
        assert_eq!(
            K::mutex_value(&m) - before,
            (CONTENDED_TASKS * OPS_PER_TASK) as u64
        );
    })
}
