//! The tiny single-threaded test scheduler the task crate's tests run tasks on: a FIFO
//! queue, the owned list, and counts of yields and binds.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use task::{Notified, OwnedTasks, Schedule, Task};

#[derive(Clone)]
pub struct Sched(pub Arc<Inner>);

pub struct Inner {
    pub queue: Mutex<VecDeque<Notified<Sched>>>,
    pub owned: OwnedTasks<Sched>,
    pub yields: AtomicUsize,
    pub binds: AtomicUsize,
}

impl Schedule for Sched {
    fn schedule(&self, task: Notified<Self>) {
        self.0.queue.lock().unwrap().push_back(task);
    }
    fn release(&self, task: &Task<Self>) -> Option<Task<Self>> {
        self.0.owned.remove(task)
    }
    fn yield_now(&self, task: Notified<Self>) {
        self.0.yields.fetch_add(1, SeqCst);
        self.schedule(task);
    }
    fn bind(&self, task: Task<Self>) -> Result<(), Task<Self>> {
        self.0.binds.fetch_add(1, SeqCst);
        self.0.owned.bind(task, 1)
    }
}

impl Sched {
    pub fn new() -> Sched {
        Sched(Arc::new(Inner {
            queue: Mutex::new(VecDeque::new()),
            owned: OwnedTasks::new(2),
            yields: AtomicUsize::new(0),
            binds: AtomicUsize::new(0),
        }))
    }

    pub fn spawn<F>(&self, f: F) -> task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (join, notified) = self.0.owned.spawn(f, task::SpawnMeta::NONE);
        if let Some(n) = notified {
            self.schedule(n);
        }
        join
    }

    /// Runs the task at the head of the queue, if any; true when one ran.
    pub fn run_one(&self) -> bool {
        let t = self.0.queue.lock().unwrap().pop_front();
        match t {
            Some(t) => {
                t.run(self);
                true
            }
            None => false,
        }
    }

    /// Runs queued tasks until the queue is empty; returns how many polls ran.
    pub fn run(&self) -> usize {
        let mut n = 0;
        loop {
            let t = self.0.queue.lock().unwrap().pop_front();
            match t {
                Some(t) => {
                    t.run(self);
                    n += 1;
                }
                None => return n,
            }
        }
    }

    pub fn shutdown(&self) {
        self.0.owned.close_and_shutdown_all(0);
        // Dropped outside the lock: dropping a never-parked task cancels it, and its
        // future's drop may wake (schedule) another.
        let queued = std::mem::take(&mut *self.0.queue.lock().unwrap());
        drop(queued);
    }
}

pub fn poll_once<F: Future + Unpin>(f: &mut F) -> Poll<F::Output> {
    Pin::new(f).poll(&mut Context::from_waker(Waker::noop()))
}

/// Pending once, waking itself first (a `yield_now`): through `task::wake_self_by_ref`
/// when `recorded` (applied by the harness when the poll ends), else the waker's own
/// `wake_by_ref` (an atomic during the poll).
pub async fn yield_once_by(recorded: bool) {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            return Poll::Ready(());
        }
        yielded = true;
        if recorded {
            task::wake_self_by_ref(cx.waker());
        } else {
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    })
    .await
}
