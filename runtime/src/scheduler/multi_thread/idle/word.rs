//! `Idle`: who is searching, who is parked, and whom to wake.
//!
//! One atomic word counts the *searching* workers (low 16 bits) and the *unparked* ones
//! (high bits); a mutex-protected list holds the parked workers' indices.
//!
//! - At most half the workers search (steal) at once: `transition_worker_to_searching`
//!   refuses beyond that (an approximate throttle: two searchers may both pass the check; exactness is
//!   not needed).
//! - New work wakes a worker only when nobody is searching and somebody is parked
//!   (`worker_to_notify`); the woken worker starts out searching, so a burst of pushes
//!   wakes one worker, which wakes the next when it finds work and sees more left
//!   (`transition_worker_from_searching`): a smooth ramp-up, and no wake-up for a
//!   sibling that would find nothing.
//! - No lost wake-up: the notifier's check is a SeqCst RMW that pairs with the SeqCst RMW
//!   of the last searcher leaving (which looks for work left only after it); a worker that parks leaving no searcher behind (the
//!   last searcher, or a non-searcher while nobody searches) re-checks every queue
//!   (`Handle::notify_if_work_pending`), so work pushed while it stopped looking is seen
//!   either by that re-check or by the notifier.

use shim::sync::atomic::AtomicUsize;
use shim::sync::atomic::Ordering::SeqCst;
use shim::sync::Mutex;

const UNPARKED_SHIFT: usize = 16;
const SEARCHING_MASK: usize = (1 << UNPARKED_SHIFT) - 1;
const UNPARKED_ONE: usize = 1 << UNPARKED_SHIFT;

/// Shared by the workers of one runtime; the loom suite `loom_idle` drives it directly.
pub struct Idle {
    state: AtomicUsize,
    num_workers: usize,
    sleepers: Mutex<Vec<usize>>,
}

fn num_searching(s: usize) -> usize {
    s & SEARCHING_MASK
}

fn num_unparked(s: usize) -> usize {
    s >> UNPARKED_SHIFT
}

impl Idle {
    pub fn new(num_workers: usize) -> Idle {
        assert!(num_workers < SEARCHING_MASK, "too many workers");
        Idle {
            state: AtomicUsize::new(num_workers << UNPARKED_SHIFT),
            num_workers,
            sleepers: Mutex::new(Vec::with_capacity(num_workers)),
        }
    }

    /// The index of a parked worker to wake for new work, already counted as unparked
    /// and searching; None when someone is searching or nobody is parked.
    pub fn worker_to_notify(&self) -> Option<usize> {
        if !self.notify_should_wakeup() {
            return None;
        }
        let mut sleepers = self.sleepers.lock();
        // Re-check under the lock: parkers push themselves while holding it.
        if !self.notify_should_wakeup() {
            return None;
        }
        let worker = sleepers.pop()?;
        // SeqCst needed: a store-load pair with the monitor, which stores its `sleeping`
        // flag and then loads this count; this increment happens-before the waking
        // worker's load of `sleeping` (`Monitor::worker_unparked`). With AcqRel both
        // sides may read stale values and the monitor sleeps while a worker runs. The
        // monitor has no loom build: this is argued, not modelled (loom-tests/README.md).
        self.state.fetch_add(UNPARKED_ONE | 1, SeqCst);
        Some(worker)
    }

    fn notify_should_wakeup(&self) -> bool {
        // A read-modify-write, not a load: it must be ordered (SeqCst, same location)
        // after the last searcher's `fetch_sub`, or both sides could miss the new work.
        let s = self.state.fetch_add(0, SeqCst);
        num_searching(s) == 0 && num_unparked(s) < self.num_workers
    }

    /// True when this worker may start searching (fewer than half search already).
    pub fn transition_worker_to_searching(&self) -> bool {
        let s = self.state.load(SeqCst);
        if 2 * num_searching(s) >= self.num_workers {
            return false;
        }
        // Racy by design: a few workers may slip past the limit together.
        self.state.fetch_add(1, SeqCst);
        true
    }

    /// A searcher found work. True when it was the last searcher and `work_left()` (asked
    /// only then) sees work for another worker: the caller must then wake one, so the
    /// search goes on (the searcher hand-off).
    ///
    /// `work_left` runs after the decrement, and must: a notifier that pushed work and
    /// saw us still searching skipped its wake-up, relying on us. Its check is an RMW on
    /// this word (`notify_should_wakeup`) ordered before our `fetch_sub`, which reads from
    /// it and so acquires the push: `work_left` sees that work. A notifier ordered after
    /// sees no searcher and wakes someone itself. Asked before the decrement, the check
    /// could miss a push that lands between the two, and nobody would wake for it
    /// (loom: `loom_idle`'s `last_searcher_or_notifier_wakes`).
    pub fn transition_worker_from_searching(&self, work_left: impl FnOnce() -> bool) -> bool {
        let prev = self.state.fetch_sub(1, SeqCst);
        num_searching(prev) == 1 && work_left()
    }

    /// The worker parks. True when no searcher is left after it (it was the last one, or
    /// it was not searching and nobody is): it must then re-check the queues.
    ///
    /// Not only the last searcher: a worker that could not search (another was) and parks
    /// counted as unparked until this RMW, so a notifier that ran just before it saw
    /// "nobody parked" and woke no one, relying on the unparked workers; a searcher
    /// that found work meanwhile handed off to nobody for the same reason. This worker is
    /// then the only one that can still see that work (loom:
    /// `local_spawn_wakes_sibling_two_workers`).
    pub fn transition_worker_to_parked(&self, worker: usize, is_searching: bool) -> bool {
        let mut sleepers = self.sleepers.lock();
        let dec = UNPARKED_ONE + usize::from(is_searching);
        let prev = self.state.fetch_sub(dec, SeqCst);
        sleepers.push(worker);
        num_searching(prev) == usize::from(is_searching)
    }

    /// A parked worker woke by itself (events, or work in its own queue): remove it from
    /// the sleepers. True when it was still there (nobody had notified it).
    pub(crate) fn unpark_worker_by_id(&self, worker: usize) -> bool {
        let mut sleepers = self.sleepers.lock();
        match sleepers.iter().position(|&w| w == worker) {
            Some(i) => {
                sleepers.swap_remove(i);
                // SeqCst needed: a store-load pair with the monitor, which stores its `sleeping`
                // flag and then loads this count; this increment happens-before the waking
                // worker's load of `sleeping` (`Monitor::worker_unparked`). With AcqRel both
                // sides may read stale values and the monitor sleeps while a worker runs. The
                // monitor has no loom build: this is argued, not modelled (loom-tests/README.md).
                self.state.fetch_add(UNPARKED_ONE, SeqCst);
                true
            }
            None => false,
        }
    }

    /// Shuffles the sleepers list with `pick(n)` (a draw below `n`): the deterministic
    /// mode's seeded choice of whom a notify wakes.
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) fn shuffle_sleepers(&self, mut pick: impl FnMut(usize) -> usize) {
        let mut sleepers = self.sleepers.lock();
        for i in (1..sleepers.len()).rev() {
            let j = pick(i + 1);
            sleepers.swap(i, j);
        }
    }

    /// True while `worker` is in the sleepers list (not yet notified).
    pub(crate) fn is_parked(&self, worker: usize) -> bool {
        self.sleepers.lock().contains(&worker)
    }

    /// Workers not parked (running, searching, or notified and waking).
    pub(crate) fn num_unparked(&self) -> usize {
        // SeqCst needed: the monitor's side of the store-load pair above (it stored
        // `sleeping` just before this load).
        num_unparked(self.state.load(SeqCst))
    }

    /// Some parked worker (left in the list), for the monitor to wake.
    pub(crate) fn any_parked(&self) -> Option<usize> {
        self.sleepers.lock().first().copied()
    }

    /// How many workers search right now (the deterministic mode's spread statistics).
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) fn num_searching(&self) -> usize {
        num_searching(self.state.load(SeqCst))
    }

    /// (searching, unparked) right now; for the unit tests below (not built under loom).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn counts(&self) -> (usize, usize) {
        let s = self.state.load(SeqCst);
        (num_searching(s), num_unparked(s))
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn at_most_half_search() {
        let idle = Idle::new(4);
        assert!(idle.transition_worker_to_searching());
        assert!(idle.transition_worker_to_searching());
        assert!(!idle.transition_worker_to_searching());
        assert!(!idle.transition_worker_from_searching(|| true));
        assert!(idle.transition_worker_from_searching(|| true));
        assert_eq!(idle.counts(), (0, 4));
    }

    #[test]
    fn notify_only_when_nobody_searches_and_someone_sleeps() {
        let idle = Idle::new(2);
        // Everyone awake: nobody to wake.
        assert_eq!(idle.worker_to_notify(), None);
        // Nobody searches: the parker must re-check the queues.
        assert!(idle.transition_worker_to_parked(1, false));
        assert_eq!(idle.counts(), (0, 1));
        // Worker 1 sleeps, nobody searches: wake it, as a searcher.
        assert_eq!(idle.worker_to_notify(), Some(1));
        assert_eq!(idle.counts(), (1, 2));
        // Someone searches now: the next push wakes nobody, and a non-searcher parking
        // leaves the re-check to that searcher.
        assert!(!idle.transition_worker_to_parked(0, false));
        assert_eq!(idle.worker_to_notify(), None);
        assert!(idle.transition_worker_from_searching(|| true));
        assert_eq!(idle.worker_to_notify(), Some(0));
    }

    #[test]
    fn last_searcher_parking_is_reported() {
        let idle = Idle::new(2);
        assert!(idle.transition_worker_to_searching());
        assert!(idle.transition_worker_to_parked(0, true));
        assert!(idle.is_parked(0));
        assert!(idle.unpark_worker_by_id(0));
        assert!(!idle.unpark_worker_by_id(0));
        assert_eq!(idle.counts(), (0, 2));
    }
}
