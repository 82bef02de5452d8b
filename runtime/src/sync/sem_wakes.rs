//! The wakers a semaphore operation collects under its waiters' lock, to wake after
//! releasing it.
//!
//! A release serves waiters from the queue's head; a `Mutex` or one-permit release serves
//! exactly one, which is the case this type is shaped for: the first waker is kept inline
//! (one `Option<Waker>`, two words), later ones go to a `Vec` that allocates only when a
//! second waker comes (a big release, a write unlock handing its permits to many readers,
//! a close), reserving room for several at once. The set is never moved by value after it
//! is filled (callers pass `&mut` and wake in place), so collecting one waker costs a
//! store and waking it a branch and the wake.
//!
//! Order: [`SemWakes::wake_all`] wakes in push order (the FIFO order the waiters were
//! served in). Dropping an unwoken set drops its wakers (a panic between collecting and
//! waking: the waiters' futures then see their state under the lock when polled again or
//! dropped).

use std::task::Waker;

/// Wakers collected under a lock (module doc).
pub(crate) struct SemWakes {
    first: Option<Waker>,
    rest: Vec<Waker>,
}

impl SemWakes {
    #[inline]
    pub(crate) const fn new() -> SemWakes {
        SemWakes {
            first: None,
            rest: Vec::new(),
        }
    }

    /// Keeps `waker` (if any) for [`SemWakes::wake_all`].
    #[inline]
    pub(crate) fn push(&mut self, waker: Option<Waker>) {
        let Some(waker) = waker else { return };
        if self.first.is_none() {
            self.first = Some(waker);
        } else {
            self.push_rest(waker);
        }
    }

    #[cold]
    fn push_rest(&mut self, waker: Waker) {
        if self.rest.capacity() == 0 {
            self.rest.reserve(8);
        }
        self.rest.push(waker);
    }

    /// Wakes every collected waker, in push order. Call with no lock held.
    #[inline]
    pub(crate) fn wake_all(&mut self) {
        if let Some(w) = self.first.take() {
            w.wake();
        }
        if !self.rest.is_empty() {
            self.wake_rest();
        }
    }

    #[cold]
    fn wake_rest(&mut self) {
        for w in self.rest.drain(..) {
            w.wake();
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::SemWakes;
    use std::sync::{Arc, Mutex};
    use std::task::{Wake, Waker};

    struct Log(usize, Arc<Mutex<Vec<usize>>>);

    impl Wake for Log {
        fn wake(self: Arc<Self>) {
            self.1.lock().unwrap().push(self.0);
        }
    }

    #[test]
    fn wakes_in_push_order_and_skips_none() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut w = SemWakes::new();
        for i in 0..20 {
            w.push(Some(Waker::from(Arc::new(Log(i, log.clone())))));
            w.push(None);
        }
        w.wake_all();
        assert_eq!(*log.lock().unwrap(), (0..20).collect::<Vec<_>>());
        // Woken once: a second call wakes nothing.
        w.wake_all();
        assert_eq!(log.lock().unwrap().len(), 20);
    }

    #[test]
    fn dropping_unwoken_drops_the_wakers() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let a = Arc::new(Log(0, log.clone()));
        let mut w = SemWakes::new();
        w.push(Some(Waker::from(a.clone())));
        w.push(Some(Waker::from(a.clone())));
        assert_eq!(Arc::strong_count(&a), 3);
        drop(w);
        assert_eq!(Arc::strong_count(&a), 1);
        assert!(log.lock().unwrap().is_empty());
    }
}
