//! `Barrier`: `n` tasks wait until all of them have arrived.
//!
//! A mutex-guarded count of arrivals and a generation number, plus a [`Notify`]. An
//! arriving task that is not the last creates its `notify_waiters` future *while holding
//! the mutex* (so it snapshots the notify's call count before the last arrival can bump
//! it), releases the mutex and waits. The last arrival resets the count, advances the
//! generation, releases the mutex and calls `notify_waiters`, which completes the futures
//! of its generation. That call may also wake a waiter of the next generation that
//! arrived between the leader's unlock and its call; a woken waiter therefore checks the
//! generation under the mutex and waits again if its own has not completed. The barrier is reusable: the next `n` arrivals form the
//! next generation.

use std::fmt;

use shim::sync::Mutex;

use super::Notify;

/// Makes `n` tasks wait for each other: each `wait().await` completes once `n` calls have
/// been made, and exactly one of them is told it is the leader. Reusable.
///
/// ```
/// use std::sync::Arc;
/// use runtime::sync::Barrier;
///
/// # runtime::Runtime::new().unwrap().block_on(async {
/// let barrier = Arc::new(Barrier::new(3));
/// let mut tasks = Vec::new();
/// for _ in 0..3 {
///     let b = barrier.clone();
///     tasks.push(runtime::spawn(async move { b.wait().await.is_leader() }));
/// }
/// let mut leaders = 0;
/// for t in tasks {
///     leaders += t.await.unwrap() as usize;
/// }
/// assert_eq!(leaders, 1);
/// # });
/// ```
pub struct Barrier {
    state: Mutex<State>,
    n: usize,
    notify: Notify,
}

struct State {
    arrived: usize,
    generation: usize,
}

/// What [`Barrier::wait`] returns.
#[derive(Debug, Clone)]
pub struct BarrierWaitResult(bool);

impl BarrierWaitResult {
    /// True for exactly one task of each generation (the last to arrive).
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let b = runtime::sync::Barrier::new(1);
    /// assert!(b.wait().await.is_leader());
    /// # });
    /// ```
    pub fn is_leader(&self) -> bool {
        self.0
    }
}

impl Barrier {
    /// A barrier for `n` tasks (`0` acts as `1`).
    ///
    /// ```
    /// let b = runtime::sync::Barrier::new(4);
    /// ```
    pub fn new(n: usize) -> Barrier {
        Barrier {
            state: Mutex::new(State {
                arrived: 0,
                generation: 0,
            }),
            n: n.max(1),
            notify: Notify::new(),
        }
    }

    /// Waits until `n` tasks have called `wait`.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: a cancelled call still counts as arrived (as tokio's), so its
    /// generation completes one real arrival early.
    ///
    /// ```
    /// # runtime::Runtime::new().unwrap().block_on(async {
    /// let b = std::sync::Arc::new(runtime::sync::Barrier::new(2));
    /// let b2 = b.clone();
    /// let t = runtime::spawn(async move { b2.wait().await.is_leader() });
    /// let me = b.wait().await.is_leader();
    /// assert!(me ^ t.await.unwrap());
    /// # });
    /// ```
    pub async fn wait(&self) -> BarrierWaitResult {
        let (mut notified, generation) = {
            let mut st = self.state.lock();
            st.arrived += 1;
            if st.arrived == self.n {
                st.arrived = 0;
                st.generation = st.generation.wrapping_add(1);
                None
            } else {
                Some((self.notify.notified(), st.generation))
            }
        }
        .unzip();
        let Some(gen) = generation else {
            self.notify.notify_waiters();
            return BarrierWaitResult(true);
        };
        loop {
            notified.take().expect("a waiter has a future").await;
            // A `notify_waiters` of the previous generation may wake a waiter of the next
            // one (created between that leader's unlock and its call): look again.
            let st = self.state.lock();
            if st.generation != gen {
                return BarrierWaitResult(false);
            }
            notified = Some(self.notify.notified());
        }
    }
}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Barrier").field("n", &self.n).finish()
    }
}
