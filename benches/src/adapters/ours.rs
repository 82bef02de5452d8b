//! Adapter for this workspace's `runtime`: built with every driver enabled, as users get
//! it from `#[runtime::main]`. Tasks spawn through the free `runtime::spawn` (the thread's
//! context finds the runtime: a worker pushes into its own queue), the bench thread through
//! `Runtime::spawn`. `report` prints `Handle::metrics()` when `RUNTIME_BENCH_METRICS=1`.
//! `RUNTIME_BENCH_HISTOGRAMS=off` builds the runtime with both metrics histograms
//! disabled (the default has them on), so that one binary measures both settings.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::{metrics, Bench, Flavor, RemoteSpawner, Spawner};

/// Our runtime, in either flavor.
pub struct Ours {
    rt: runtime::Runtime,
    flavor: Flavor,
}

impl Ours {
    /// Builds the runtime.
    ///
    /// # Panics
    /// When the runtime cannot be built (no threads, no epoll).
    pub fn new(flavor: Flavor) -> Ours {
        let mut b = match flavor {
            Flavor::MultiThread(n) => {
                let mut b = runtime::Builder::new_multi_thread();
                b.worker_threads(n);
                b
            }
            Flavor::CurrentThread => runtime::Builder::new_current_thread(),
        };
        if std::env::var_os("RUNTIME_BENCH_HISTOGRAMS").is_some_and(|v| v == "off") {
            b.disable_metrics_poll_time_histogram()
                .disable_metrics_schedule_latency_histogram();
        }
        let rt = b.enable_all().build().expect("building our runtime");
        Ours { rt, flavor }
    }

    /// The runtime's counters.
    pub fn metrics(&self) -> runtime::RuntimeMetrics {
        self.rt.metrics()
    }
}

/// Spawns through `runtime::spawn` and yields through `runtime::task::yield_now`.
#[derive(Clone, Copy, Debug, Default)]
pub struct OursSpawner;

/// `runtime::task::JoinHandle`, unwrapped.
pub struct OursJoin<T>(runtime::task::JoinHandle<T>);

impl<T> Future for OursJoin<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        Pin::new(&mut self.0)
            .poll(cx)
            .map(|r| r.expect("benchmark task failed"))
    }
}

impl Spawner for OursSpawner {
    type Join<T: Send + 'static> = OursJoin<T>;

    fn spawn<F>(&self, future: F) -> OursJoin<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        OursJoin(runtime::spawn(future))
    }

    fn yield_now(&self) -> impl Future<Output = ()> + Send + 'static {
        runtime::task::yield_now()
    }
}

/// Spawns from a plain thread through a clone of the runtime's `Handle`.
#[derive(Clone, Debug)]
pub struct OursRemote(runtime::Handle);

impl RemoteSpawner for OursRemote {
    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        drop(self.0.spawn(future));
    }
}

impl Bench for Ours {
    type Spawner = OursSpawner;
    type Remote = OursRemote;

    fn remote(&self) -> OursRemote {
        OursRemote(self.rt.handle().clone())
    }

    fn spawner(&self) -> OursSpawner {
        OursSpawner
    }

    fn spawn_remote<F>(&self, future: F) -> OursJoin<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        OursJoin(self.rt.spawn(future))
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.rt.block_on(future)
    }

    fn flavor(&self) -> Flavor {
        self.flavor
    }

    fn report(&self, group: &str, iterations: u64) {
        if metrics::metrics_enabled() {
            println!(
                "{}",
                metrics::format_metrics(group, iterations, &self.rt.metrics())
            );
        }
    }
}

crate::oneshot_impl!(
    /// Our own `runtime::sync::oneshot`, for the `ping_pong_own_oneshot` pair.
    OursOneshot,
    runtime::sync::oneshot
);
