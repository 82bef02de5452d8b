//! Adapters for smol's executor (async-executor): `Executor`, leaked into a `&'static`
//! the way `smol::spawn`'s global executor lives, and the leaner `StaticExecutor`
//! (`Executor::leak()`). Multi-thread flavor: N plain threads each run
//! `block_on(ex.run(shutdown))` and the bench thread only blocks on futures; current-thread
//! flavor: no threads, the bench thread's `block_on` runs `ex.run(future)` itself.
//! Dropping the adapter stops and joins the threads; the executor itself stays leaked
//! (with whatever tasks were still queued), which is what `'static` executors do.

use std::future::Future;

use async_executor::{Executor, StaticExecutor, Task};
use futures::channel::oneshot;
use futures_lite::future;

use crate::{Bench, Flavor, RemoteSpawner, Spawner};

/// What the two executors have in common, as used here.
pub trait Exec: Send + Sync + 'static {
    /// Spawns onto the executor.
    fn spawn_task<F>(&'static self, future: F) -> Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static;

    /// Runs the executor's tasks until `future` completes.
    fn run_until<F: Future>(&'static self, future: F) -> impl Future<Output = F::Output>;
}

impl Exec for Executor<'static> {
    fn spawn_task<F>(&'static self, future: F) -> Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.spawn(future)
    }

    fn run_until<F: Future>(&'static self, future: F) -> impl Future<Output = F::Output> {
        self.run(future)
    }
}

impl Exec for StaticExecutor {
    fn spawn_task<F>(&'static self, future: F) -> Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.spawn(future)
    }

    fn run_until<F: Future>(&'static self, future: F) -> impl Future<Output = F::Output> {
        self.run(future)
    }
}

/// smol's executor on N threads (or on the bench thread).
pub struct Smol<E: Exec> {
    ex: &'static E,
    flavor: Flavor,
    stops: Vec<oneshot::Sender<()>>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

/// `Executor`, as `smol::spawn` uses it.
pub type SmolExecutor = Smol<Executor<'static>>;
/// `StaticExecutor`.
pub type SmolStatic = Smol<StaticExecutor>;

impl SmolExecutor {
    /// A leaked `Executor`, run per `flavor`.
    pub fn new(flavor: Flavor) -> SmolExecutor {
        let ex: &'static Executor<'static> = Box::leak(Box::new(Executor::new()));
        Smol::start(ex, flavor)
    }
}

impl SmolStatic {
    /// A leaked `StaticExecutor`, run per `flavor`.
    pub fn new(flavor: Flavor) -> SmolStatic {
        Smol::start(Executor::new().leak(), flavor)
    }
}

impl<E: Exec> Smol<E> {
    fn start(ex: &'static E, flavor: Flavor) -> Smol<E> {
        let mut stops = Vec::new();
        let mut threads = Vec::new();
        if let Flavor::MultiThread(n) = flavor {
            for i in 0..n {
                let (tx, rx) = oneshot::channel::<()>();
                let body = move || {
                    future::block_on(ex.run_until(async {
                        let _ = rx.await;
                    }))
                };
                let t = std::thread::Builder::new()
                    .name(format!("smol-{i}"))
                    .spawn(body)
                    .expect("spawning an executor thread");
                stops.push(tx);
                threads.push(t);
            }
        }
        Smol {
            ex,
            flavor,
            stops,
            threads,
        }
    }
}

impl<E: Exec> Drop for Smol<E> {
    fn drop(&mut self) {
        for tx in self.stops.drain(..) {
            let _ = tx.send(());
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Spawns onto a `&'static` executor; yields through futures-lite's `yield_now`.
pub struct SmolSpawner<E: 'static>(&'static E);

impl<E> Clone for SmolSpawner<E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E> Copy for SmolSpawner<E> {}

impl<E: Exec> Spawner for SmolSpawner<E> {
    type Join<T: Send + 'static> = Task<T>;

    fn spawn<F>(&self, future: F) -> Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.0.spawn_task(future)
    }

    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        // Dropping an async-executor `Task` cancels it: detach instead.
        self.0.spawn_task(future).detach();
    }

    fn yield_now(&self) -> impl Future<Output = ()> + Send + 'static {
        future::yield_now()
    }
}

/// The executor is `&'static`: any thread spawns onto it directly.
impl<E: Exec> RemoteSpawner for SmolSpawner<E> {
    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.0.spawn_task(future).detach();
    }
}

impl<E: Exec> Bench for Smol<E> {
    type Spawner = SmolSpawner<E>;
    type Remote = SmolSpawner<E>;

    fn remote(&self) -> SmolSpawner<E> {
        SmolSpawner(self.ex)
    }

    fn spawner(&self) -> SmolSpawner<E> {
        SmolSpawner(self.ex)
    }

    fn spawn_remote<F>(&self, future: F) -> Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.ex.spawn_task(future)
    }

    fn spawn_remote_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.ex.spawn_task(future).detach();
    }

    fn block_on<F: Future>(&self, fut: F) -> F::Output {
        match self.flavor {
            Flavor::MultiThread(_) => future::block_on(fut),
            Flavor::CurrentThread => future::block_on(self.ex.run_until(fut)),
        }
    }

    fn flavor(&self) -> Flavor {
        self.flavor
    }
}
