//! Adapter for tokio (latest 1.x): `Builder::new_multi_thread().worker_threads(n)
//! .enable_all()` or `new_current_thread().enable_all()`, exactly what tokio's own benches
//! build. Tasks spawn through the free `tokio::spawn`, the bench thread through
//! `Runtime::spawn`, as in those benches.
//!
//! Built with `--cfg tokio_unstable` (compare.sh's second build) it is *tuned tokio*, as
//! production users run it: the multi-thread flavor with `enable_alt_timer()` and
//! `enable_eager_driver_handoff()`, reported under the name `tokio_tuned` ([`NAME`]).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::{Bench, Flavor, RemoteSpawner, Spawner};

/// The name this adapter's results go under: `tokio`, or `tokio_tuned` in a
/// `--cfg tokio_unstable` build.
pub const NAME: &str = if cfg!(tokio_unstable) {
    "tokio_tuned"
} else {
    "tokio"
};

/// A tokio runtime, in either flavor.
pub struct Tokio {
    rt: tokio::runtime::Runtime,
    flavor: Flavor,
}

impl Tokio {
    /// Builds the runtime.
    ///
    /// # Panics
    /// When tokio cannot build it.
    pub fn new(flavor: Flavor) -> Tokio {
        let mut b = match flavor {
            Flavor::MultiThread(n) => {
                let mut b = tokio::runtime::Builder::new_multi_thread();
                b.worker_threads(n);
                // Tuned tokio: the alternative timer and the eager driver hand-off.
                #[cfg(tokio_unstable)]
                b.enable_alt_timer().enable_eager_driver_handoff();
                b
            }
            Flavor::CurrentThread => tokio::runtime::Builder::new_current_thread(),
        };
        let rt = b.enable_all().build().expect("building tokio");
        Tokio { rt, flavor }
    }
}

/// Spawns through `tokio::spawn`, yields through `tokio::task::yield_now`.
#[derive(Clone, Copy, Debug, Default)]
pub struct TokioSpawner;

/// `tokio::task::JoinHandle`, unwrapped.
pub struct TokioJoin<T>(tokio::task::JoinHandle<T>);

impl<T> Future for TokioJoin<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        Pin::new(&mut self.0)
            .poll(cx)
            .map(|r| r.expect("benchmark task failed"))
    }
}

impl Spawner for TokioSpawner {
    type Join<T: Send + 'static> = TokioJoin<T>;

    fn spawn<F>(&self, future: F) -> TokioJoin<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        TokioJoin(tokio::spawn(future))
    }

    fn yield_now(&self) -> impl Future<Output = ()> + Send + 'static {
        tokio::task::yield_now()
    }
}

/// Spawns from a plain thread through a clone of the runtime's `Handle`.
#[derive(Clone, Debug)]
pub struct TokioRemote(tokio::runtime::Handle);

impl RemoteSpawner for TokioRemote {
    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        drop(self.0.spawn(future));
    }
}

impl Bench for Tokio {
    type Spawner = TokioSpawner;
    type Remote = TokioRemote;

    fn remote(&self) -> TokioRemote {
        TokioRemote(self.rt.handle().clone())
    }

    fn spawner(&self) -> TokioSpawner {
        TokioSpawner
    }

    fn spawn_remote<F>(&self, future: F) -> TokioJoin<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        TokioJoin(self.rt.spawn(future))
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.rt.block_on(future)
    }

    fn flavor(&self) -> Flavor {
        self.flavor
    }
}

crate::oneshot_impl!(
    /// tokio's own `tokio::sync::oneshot`, for the `ping_pong_own_oneshot` pair.
    TokioOneshot,
    tokio::sync::oneshot
);
