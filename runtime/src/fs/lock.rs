//! `AsyncLock<T>`: the small async mutex that serializes a [`File`](super::File)'s `&self`
//! operations (`sync_all`, `sync_data`, `set_len`) with each other.
//!
//! State: a `locked` flag and the wakers of tasks waiting for it, under a short sync lock;
//! the value sits in an `UnsafeCell`. `lock()` takes the flag or stores its waker; the
//! guard's drop clears the flag and wakes *every* stored waker (after releasing the sync
//! lock), and they race again. Waking all makes cancellation trivial (a waiter that was
//! woken and then dropped cannot swallow the hand-off) at the cost of a herd, which for a
//! file's rare `&self` operations is nothing. `&mut self` access (`get_mut`) needs no
//! flag: the borrow checker proves no guard is alive.
//!
//! Invariant: the value is reached through a `Guard` only while `locked` is true and that
//! guard is the one that set it, or through `&mut AsyncLock`.

use std::future::poll_fn;
use std::ops::{Deref, DerefMut};
use std::task::{Poll, Waker};

use shim::cell::UnsafeCell;
use shim::sync::Mutex;

pub struct AsyncLock<T> {
    state: Mutex<LockState>,
    value: UnsafeCell<T>,
}

struct LockState {
    locked: bool,
    waiters: Vec<Waker>,
}

// SAFETY: the value is only reached by the one holder of the flag (or through `&mut`), so
// sharing the lock between threads shares no `T` concurrently; `T: Send` lets it move.
unsafe impl<T: Send> Sync for AsyncLock<T> {}
// SAFETY: as above, owning the lock owns the `T`.
unsafe impl<T: Send> Send for AsyncLock<T> {}

pub struct Guard<'a, T> {
    lock: &'a AsyncLock<T>,
}

impl<T> AsyncLock<T> {
    pub fn new(value: T) -> AsyncLock<T> {
        AsyncLock {
            state: Mutex::new(LockState {
                locked: false,
                waiters: Vec::new(),
            }),
            value: UnsafeCell::new(value),
        }
    }

    pub fn get_mut(&mut self) -> &mut T {
        // SAFETY: `&mut self` proves that no guard (which borrows `self`) is alive.
        self.value.with_mut(|p| unsafe { &mut *p })
    }

    pub async fn lock(&self) -> Guard<'_, T> {
        poll_fn(|cx| {
            let mut st = self.state.lock();
            if !st.locked {
                st.locked = true;
                return Poll::Ready(Guard { lock: self });
            }
            if !st.waiters.iter().any(|w| w.will_wake(cx.waker())) {
                st.waiters.push(cx.waker().clone());
            }
            Poll::Pending
        })
        .await
    }
}

impl<T> Deref for Guard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: this guard set `locked`, so it is the only one reaching the value, and
        // the borrow of `self` keeps the guard alive while the reference is.
        self.lock.value.with(|p| unsafe { &*p })
    }
}

impl<T> DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, and `&mut self` makes the reference unique.
        self.lock.value.with_mut(|p| unsafe { &mut *p })
    }
}

impl<T> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        let waiters = {
            let mut st = self.lock.state.lock();
            st.locked = false;
            std::mem::take(&mut st.waiters)
        };
        for w in waiters {
            w.wake();
        }
    }
}
