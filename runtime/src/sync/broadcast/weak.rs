//! A broadcast sender that does not keep the channel open (`WeakSender`): it holds the
//! shared state but counts in `num_weak`, not `num_tx`, so the channel closes when the
//! last strong sender leaves. `upgrade` raises `num_tx` by a compare-and-swap that never
//! moves it up from zero: once closed, a channel stays closed.

use std::fmt;

use shim::sync::atomic::Ordering::Relaxed;
use shim::sync::Arc;

use super::{Sender, Shared};

/// A sender that does not keep the channel open: [`upgrade`](WeakSender::upgrade) it to
/// send, which fails once every [`Sender`] is gone.
///
/// ```
/// let (tx, _rx) = runtime::sync::broadcast::channel::<u8>(1);
/// let weak = tx.downgrade();
/// assert!(weak.upgrade().is_some());
/// drop(tx);
/// assert!(weak.upgrade().is_none());
/// ```
pub struct WeakSender<T> {
    pub(super) shared: Arc<Shared<T>>,
}

impl<T> WeakSender<T> {
    /// A [`Sender`], unless every sender is already gone (the channel is closed).
    pub fn upgrade(&self) -> Option<Sender<T>> {
        let mut n = self.shared.num_tx.load(Relaxed);
        loop {
            if n == 0 {
                return None;
            }
            match self
                .shared
                .num_tx
                .compare_exchange_weak(n, n + 1, Relaxed, Relaxed)
            {
                Ok(_) => {
                    return Some(Sender {
                        shared: self.shared.clone(),
                    })
                }
                Err(now) => n = now,
            }
        }
    }

    /// The number of [`Sender`]s.
    pub fn strong_count(&self) -> usize {
        self.shared.num_tx.load(Relaxed)
    }

    /// The number of [`WeakSender`]s.
    pub fn weak_count(&self) -> usize {
        self.shared.num_weak.load(Relaxed)
    }
}

impl<T> Clone for WeakSender<T> {
    fn clone(&self) -> Self {
        self.shared.num_weak.fetch_add(1, Relaxed);
        WeakSender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for WeakSender<T> {
    fn drop(&mut self) {
        self.shared.num_weak.fetch_sub(1, Relaxed);
    }
}

impl<T> fmt::Debug for WeakSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeakSender").finish_non_exhaustive()
    }
}
