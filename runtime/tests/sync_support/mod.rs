//! Helpers shared by the `sync_*` lock tests: both runtime flavors, a 10 s watchdog around
//! every `block_on`, a waker that counts its wake-ups, and a one-shot poll.
#![allow(dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use runtime::{Builder, Runtime};

/// Both flavors (the multi-thread one with 2 workers), timers enabled.
pub fn runtimes() -> Vec<Runtime> {
    vec![
        Builder::new_current_thread().enable_all().build().unwrap(),
        Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap(),
    ]
}

/// Runs `f` on every flavor, each under a 10 s timeout that fails the test (never hangs).
pub fn on_both<F, Fut>(f: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    for rt in runtimes() {
        rt.block_on(async {
            runtime::time::timeout(Duration::from_secs(10), f())
                .await
                .expect("the test hung for 10 s (a lost wake-up or permit?)");
        });
    }
}

/// A waker that counts its wake-ups.
pub struct Counter(pub AtomicUsize);

impl Wake for Counter {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
}

impl Counter {
    pub fn count(&self) -> usize {
        self.0.load(SeqCst)
    }
}

pub fn counting_waker() -> (Arc<Counter>, Waker) {
    let c = Arc::new(Counter(AtomicUsize::new(0)));
    (c.clone(), Waker::from(c))
}

/// Polls `f` once with `waker`.
pub fn poll<F: Future + ?Sized>(f: Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    f.poll(&mut Context::from_waker(waker))
}

/// Polls once with a no-op waker.
pub fn poll_noop<F: Future + ?Sized>(f: Pin<&mut F>) -> Poll<F::Output> {
    poll(f, Waker::noop())
}
