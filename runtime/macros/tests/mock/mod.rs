//! A stand-in for the `runtime` crate's `Builder` / `Runtime`, for the macro tests
//! (`crate = "mock"`): it records which builder methods the generated code called,
//! and its `block_on` is a real, tiny executor.
//!
//! `block_on` polls the future on the calling thread; its waker unparks that
//! thread. A thread's park token makes a wake that lands before `park` not lost,
//! and a spurious return from `park` only costs one extra poll, so the loop is
//! correct without any flag of its own. What was recorded is kept in thread-locals
//! (each test runs on its own thread): `current()` inside `block_on`,
//! `last_built()` after.
//!
//! This file uses std's `Arc`, cells and threads, not the `shim` crate: `Waker::from`
//! needs std's `Arc`, and this mock is never part of a loom model (shim's loom
//! types would panic outside one).

#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::pin;
use std::sync::mpsc;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    MultiThread,
    CurrentThread,
    Local,
}

/// `build_local`'s options.
#[derive(Default)]
pub struct LocalOptions {}

/// What the generated code asked for, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    pub flavor: Flavor,
    pub worker_threads: Option<usize>,
    /// Builder methods in call order, constructor first.
    pub calls: Vec<String>,
    /// `std::any::type_name` of the future handed to `block_on`.
    pub future_type: &'static str,
}

thread_local! {
    static CURRENT: RefCell<Option<Recorded>> = const { RefCell::new(None) };
    static LAST_BUILT: RefCell<Option<Recorded>> = const { RefCell::new(None) };
    static BUILDS: Cell<usize> = const { Cell::new(0) };
}

pub struct Builder {
    rec: Recorded,
}

impl Builder {
    fn new(flavor: Flavor, name: &str) -> Builder {
        Builder {
            rec: Recorded {
                flavor,
                worker_threads: None,
                calls: vec![name.to_string()],
                future_type: "",
            },
        }
    }

    pub fn new_multi_thread() -> Builder {
        Builder::new(Flavor::MultiThread, "new_multi_thread")
    }

    pub fn new_current_thread() -> Builder {
        Builder::new(Flavor::CurrentThread, "new_current_thread")
    }

    pub fn enable_all(&mut self) -> &mut Self {
        self.rec.calls.push("enable_all".to_string());
        self
    }

    pub fn worker_threads(&mut self, n: usize) -> &mut Self {
        assert!(n > 0, "worker_threads must be at least 1");
        self.rec.calls.push(format!("worker_threads({n})"));
        self.rec.worker_threads = Some(n);
        self
    }

    pub fn name(&mut self, name: impl Into<String>) -> &mut Self {
        self.rec.calls.push(format!("name({})", name.into()));
        self
    }

    pub fn start_paused(&mut self, paused: bool) -> &mut Self {
        self.rec.calls.push(format!("start_paused({paused})"));
        self
    }

    pub fn build(&mut self) -> std::io::Result<Runtime> {
        self.rec.calls.push("build".to_string());
        BUILDS.with(|b| b.set(b.get() + 1));
        LAST_BUILT.with(|l| *l.borrow_mut() = Some(self.rec.clone()));
        Ok(Runtime {
            rec: self.rec.clone(),
        })
    }

    pub fn build_local(&mut self, _options: LocalOptions) -> std::io::Result<Runtime> {
        self.rec.calls.push("build_local".to_string());
        self.rec.flavor = Flavor::Local;
        BUILDS.with(|b| b.set(b.get() + 1));
        LAST_BUILT.with(|l| *l.borrow_mut() = Some(self.rec.clone()));
        Ok(Runtime {
            rec: self.rec.clone(),
        })
    }
}

pub struct Runtime {
    rec: Recorded,
}

/// Wakes the thread blocked in `block_on`.
struct Unparker(Thread);

impl Wake for Unparker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Restores the previous `CURRENT` when `block_on` returns or unwinds.
struct Enter(Option<Recorded>);

impl Drop for Enter {
    fn drop(&mut self) {
        CURRENT.with(|c| *c.borrow_mut() = self.0.take());
    }
}

impl Runtime {
    pub fn block_on<F: Future>(&self, fut: F) -> F::Output {
        let mut rec = self.rec.clone();
        rec.future_type = std::any::type_name::<F>();
        let _enter = Enter(CURRENT.with(|c| c.replace(Some(rec))));
        let waker = Waker::from(Arc::new(Unparker(thread::current())));
        let mut cx = Context::from_waker(&waker);
        let mut fut = pin!(fut);
        loop {
            if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
                return out;
            }
            thread::park();
        }
    }
}

/// The record of the runtime whose `block_on` is running on this thread.
pub fn current() -> Recorded {
    try_current().expect("not inside mock::Runtime::block_on")
}

pub fn try_current() -> Option<Recorded> {
    CURRENT.with(|c| c.borrow().clone())
}

/// The record of the last runtime built on this thread.
pub fn last_built() -> Option<Recorded> {
    LAST_BUILT.with(|l| l.borrow().clone())
}

/// How many runtimes were built on this thread.
pub fn builds() -> usize {
    BUILDS.with(Cell::get)
}

/// Pending once (waking itself), then ready.
pub async fn yield_now() {
    let mut yielded = false;
    std::future::poll_fn(move |cx| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await
}

/// Runs `f` on another thread; ready once that thread has sent the result and
/// woken the task, so the executor must really park and be unparked.
pub async fn from_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let mut f = Some(f);
    std::future::poll_fn(move |cx| {
        if let Some(f) = f.take() {
            let (tx, waker) = (tx.clone(), cx.waker().clone());
            thread::spawn(move || {
                tx.send(f()).unwrap();
                waker.wake();
            });
        }
        match rx.try_recv() {
            Ok(v) => Poll::Ready(v),
            Err(_) => Poll::Pending,
        }
    })
    .await
}
