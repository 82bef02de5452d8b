//! The tasks waiting on one I/O resource, per direction: any number of them.
//!
//! Any number of tasks may wait on each direction (accept loops sharing a
//! listener, receivers sharing a UDP socket, `readable()` callers). A waiter is known by its
//! waker: a task that polls again finds its waker already there (`will_wake`) and adds
//! nothing. The first waiter of a direction sits in an inline slot, so the usual single
//! waiter costs what it always did (no allocation; the entry stays one cache line); a
//! second task waiting on the same entry allocates the overflow lists (`More`), which then
//! live as long as the entry's occupant. An event wakes every waiter of its direction and
//! empties the direction: the woken re-poll, the first to find the resource ready takes
//! it, and those that then meet `WouldBlock` clear the readiness (tick-checked) and wait
//! again -- no hand-over protocol, so no waiter can strand a wake-up.
//!
//! A waiter that stops waiting without its event (a timed-out `accept`, a `select!` loser)
//! cannot tell us, since polling has no drop hook: its waker stays until the next event,
//! the entry's reset or shutdown, and costs its task one spurious wake-up. So that stale
//! wakers cannot pile up on a resource that sees no events while tasks come and go, the
//! overflow list is compacted when it reaches its mark. What makes that safe: a waker that
//! has been woken may be forgotten, because its task will poll again and, if it still
//! waits, register again. A compaction (1) forgets the wakers woken by the previous
//! compaction that have not registered again since (they are stale), (2) wakes everyone
//! registered since (keeping them, as suspects, until they return), and (3) sets the next
//! mark to twice the number of suspects that returned (at least `COMPACT_MIN`). So a list
//! holds at most about twice its live waiters plus `2 * COMPACT_MIN`, and a compaction that
//! wakes `n` tasks follows at least `COMPACT_MIN` (and about `n / 2`) registrations: O(1)
//! spurious wake-ups per registration. Spurious wake-ups are allowed by the `Future`
//! contract.
//!
//! The `poll_*_ready` APIs (tokio's `poll_read_ready`, whose contract is that only the
//! last task to call it is woken) wait in a slot of their own per direction instead
//! (`register_last`): a poll from another task replaces the waker there, so the task it
//! replaced gets no wake-up. The slots live in `More` (allocated on their first use, so a
//! resource that never uses them pays nothing) and are taken with their direction's list.
//!
//! Everything here runs under the resource's mutex (`ScheduledIo::waiters`); wakers that
//! must be woken are handed back to the caller, which wakes them after unlocking.

use std::task::Waker;

use crate::ready::Direction;

/// An overflow list of a direction stays unchecked up to this many wakers.
#[cfg(not(loom))]
const COMPACT_MIN: usize = 64;
/// Under loom, 2: `loom-tests`' `loom_driver` drives two compactions with a few waiters.
#[cfg(loom)]
const COMPACT_MIN: usize = 2;

/// The tasks waiting on one entry: one inline slot per direction, overflow lists beyond.
/// Invariant: a direction's slot is empty only when its overflow list is empty too.
#[derive(Default)]
pub(crate) struct Waiters {
    reader: Option<Waker>,
    writer: Option<Waker>,
    /// Allocated when a second task waits on either direction.
    more: Option<Box<More>>,
}

/// The waiters beyond the first, per direction, and the `poll_*_ready` slots.
#[derive(Default)]
struct More {
    reader: Overflow,
    writer: Overflow,
    /// The last task to poll for each direction through a `poll_*_ready` API.
    poll_reader: Option<Waker>,
    poll_writer: Option<Waker>,
}

#[derive(Default)]
struct Overflow {
    /// Registered since the last compaction.
    wakers: Vec<Waker>,
    /// Woken by the last compaction and not registered since: stale, or about to return.
    suspects: Vec<Waker>,
    /// Suspects that registered again since the last compaction: live waiters.
    returned: usize,
    /// A registration that finds `wakers` this long compacts first (0: `COMPACT_MIN`).
    compact_at: usize,
}

impl Overflow {
    /// Adds `waker` (known not to be the inline slot's task). Returns wakers to wake once
    /// the lock is released (a compaction's), usually none (and then unallocated).
    fn register(&mut self, waker: &Waker) -> Vec<Waker> {
        if self.wakers.iter().any(|w| w.will_wake(waker)) {
            return Vec::new();
        }
        if let Some(i) = self.suspects.iter().position(|w| w.will_wake(waker)) {
            let back = self.suspects.swap_remove(i);
            self.wakers.push(back);
            self.returned += 1;
            return Vec::new();
        }
        let mut wake = Vec::new();
        if self.wakers.len() >= self.compact_at.max(COMPACT_MIN) {
            // Suspects that never came back are stale: forget them (waking them again is
            // harmless and saves telling them apart from the clones below).
            wake = std::mem::take(&mut self.suspects);
            // Everyone registered since the last compaction becomes a suspect, woken now.
            self.suspects = std::mem::take(&mut self.wakers);
            wake.extend(self.suspects.iter().cloned());
            self.compact_at = 2 * self.returned;
            self.returned = 0;
        }
        self.wakers.push(waker.clone());
        wake
    }

    /// Moves every waker to `out` and forgets the compaction history.
    fn take(&mut self, out: &mut Vec<Waker>) {
        // `append` keeps the buffers: a busy shared socket reuses them.
        out.append(&mut self.wakers);
        out.append(&mut self.suspects);
        self.returned = 0;
        self.compact_at = 0;
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.wakers.len() + self.suspects.len()
    }
}

impl Waiters {
    /// Calls `f` with every waker held, and its direction (task dumps; nothing changes).
    pub(crate) fn for_each(&self, mut f: impl FnMut(Direction, &Waker)) {
        for (dir, first) in [
            (Direction::Read, &self.reader),
            (Direction::Write, &self.writer),
        ] {
            if let Some(w) = first {
                f(dir, w);
            }
        }
        if let Some(more) = &self.more {
            for (dir, last) in [
                (Direction::Read, &more.poll_reader),
                (Direction::Write, &more.poll_writer),
            ] {
                if let Some(w) = last {
                    f(dir, w);
                }
            }
            for (dir, list) in [
                (Direction::Read, &more.reader),
                (Direction::Write, &more.writer),
            ] {
                list.wakers
                    .iter()
                    .chain(&list.suspects)
                    .for_each(|w| f(dir, w));
            }
        }
    }

    /// Adds `waker` to `dir`'s waiters unless a waker of the same task is there. Returns
    /// the wakers of a compacted overflow list (see the module docs), to wake once the
    /// lock is released; usually empty (and then unallocated).
    pub(crate) fn register(&mut self, dir: Direction, waker: &Waker) -> Vec<Waker> {
        let Waiters {
            reader,
            writer,
            more,
        } = self;
        let first = match dir {
            Direction::Read => reader,
            Direction::Write => writer,
        };
        match first {
            None => {
                *first = Some(waker.clone());
                return Vec::new();
            }
            Some(w) if w.will_wake(waker) => return Vec::new(),
            Some(_) => {}
        }
        let more = more.get_or_insert_with(Box::default);
        match dir {
            Direction::Read => more.reader.register(waker),
            Direction::Write => more.writer.register(waker),
        }
    }

    /// Makes `waker` `dir`'s `poll_*_ready` waiter, replacing the one there unless it is
    /// of the same task (see the module docs). Returns the waker it replaced, to drop once
    /// the lock is released (a waker's drop may run arbitrary code).
    pub(crate) fn register_last(&mut self, dir: Direction, waker: &Waker) -> Option<Waker> {
        let more = self.more.get_or_insert_with(Box::default);
        let slot = match dir {
            Direction::Read => &mut more.poll_reader,
            Direction::Write => &mut more.poll_writer,
        };
        if slot.as_ref().is_some_and(|w| w.will_wake(waker)) {
            return None;
        }
        slot.replace(waker.clone())
    }

    /// Moves every waiter of `dir` to `out`.
    #[inline]
    pub(crate) fn take(&mut self, dir: Direction, out: &mut Vec<Waker>) {
        // The usual entry: one waiter per direction at most, no overflow lists (an event
        // often names a direction nobody waits on: the writable bit rides along with every
        // readable edge).
        if self.more.is_none() {
            let first = match dir {
                Direction::Read => &mut self.reader,
                Direction::Write => &mut self.writer,
            };
            if let Some(w) = first.take() {
                out.push(w);
            }
            return;
        }
        self.take_with_more(dir, out);
    }

    /// [`take`](Self::take) of an entry whose overflow lists exist.
    #[inline(never)]
    fn take_with_more(&mut self, dir: Direction, out: &mut Vec<Waker>) {
        let (first, more) = match dir {
            Direction::Read => (
                &mut self.reader,
                self.more
                    .as_mut()
                    .map(|m| (&mut m.reader, &mut m.poll_reader)),
            ),
            Direction::Write => (
                &mut self.writer,
                self.more
                    .as_mut()
                    .map(|m| (&mut m.writer, &mut m.poll_writer)),
            ),
        };
        out.extend(first.take());
        if let Some((list, last)) = more {
            list.take(out);
            out.extend(last.take());
        }
    }

    /// How many wakers wait on `dir` (test hook).
    #[cfg(test)]
    pub(crate) fn count(&self, dir: Direction) -> usize {
        let (first, more) = match dir {
            Direction::Read => (
                &self.reader,
                self.more.as_ref().map(|m| (&m.reader, &m.poll_reader)),
            ),
            Direction::Write => (
                &self.writer,
                self.more.as_ref().map(|m| (&m.writer, &m.poll_writer)),
            ),
        };
        usize::from(first.is_some())
            + more.map_or(0, |(list, last)| list.len() + usize::from(last.is_some()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn waker() -> (Arc<Count>, Waker) {
        let c = Arc::new(Count(AtomicUsize::new(0)));
        (c.clone(), Waker::from(c))
    }

    fn woken(counts: &[Arc<Count>]) -> Vec<usize> {
        counts.iter().map(|c| c.0.load(Ordering::SeqCst)).collect()
    }

    /// Registers `w` for reading and wakes what the registration hands back.
    fn register(waiters: &mut Waiters, w: &Waker) {
        waiters
            .register(Direction::Read, w)
            .into_iter()
            .for_each(Waker::wake);
    }

    #[test]
    fn for_each_visits_every_held_waker_with_its_direction() {
        let mut waiters = Waiters::default();
        let (_a, a) = waker();
        let (_b, b) = waker();
        let (_c, c) = waker();
        register(&mut waiters, &a);
        register(&mut waiters, &b);
        waiters.register(Direction::Write, &c);
        let mut seen = Vec::new();
        waiters.for_each(|dir, w| seen.push((dir, w.data())));
        seen.sort_by_key(|(d, p)| (*d == Direction::Write, *p as usize));
        let mut want = vec![
            (Direction::Read, a.data()),
            (Direction::Read, b.data()),
            (Direction::Write, c.data()),
        ];
        want.sort_by_key(|(d, p)| (*d == Direction::Write, *p as usize));
        assert_eq!(seen, want);
        let mut out = Vec::new();
        waiters.take(Direction::Read, &mut out);
        let mut left = 0;
        waiters.for_each(|dir, _| {
            assert_eq!(dir, Direction::Write);
            left += 1;
        });
        assert_eq!(left, 1, "taken wakers are no longer visited");
    }

    #[test]
    fn one_task_is_listed_once_and_one_waiter_allocates_nothing() {
        let mut waiters = Waiters::default();
        let (_c, w) = waker();
        for _ in 0..3 {
            register(&mut waiters, &w);
            waiters.register(Direction::Write, &w);
        }
        assert_eq!(waiters.count(Direction::Read), 1);
        assert_eq!(waiters.count(Direction::Write), 1);
        assert!(
            waiters.more.is_none(),
            "a single waiter per direction stays inline"
        );
        let (_c2, w2) = waker();
        register(&mut waiters, &w2);
        register(&mut waiters, &w2);
        assert_eq!(waiters.count(Direction::Read), 2);
        assert!(waiters.more.is_some());
    }

    #[test]
    fn take_moves_every_waiter_of_one_direction() {
        let mut waiters = Waiters::default();
        let (counts, wakers): (Vec<_>, Vec<_>) = (0..5).map(|_| waker()).unzip();
        for w in &wakers {
            register(&mut waiters, w);
        }
        let (wc, ww) = waker();
        waiters.register(Direction::Write, &ww);
        let mut out = Vec::new();
        waiters.take(Direction::Read, &mut out);
        assert_eq!(out.len(), 5);
        out.drain(..).for_each(Waker::wake);
        assert_eq!(woken(&counts), [1; 5]);
        assert_eq!(wc.0.load(Ordering::SeqCst), 0);
        assert_eq!(waiters.count(Direction::Read), 0);
        assert_eq!(waiters.count(Direction::Write), 1);
    }

    /// Tasks that register once and go away (timed-out waits) while no event comes: the
    /// list stays bounded, and every task that still waits is woken or kept.
    #[test]
    fn stale_waiters_cannot_pile_up_and_live_ones_are_never_lost() {
        assert_eq!(COMPACT_MIN, 64, "the bound below assumes it");
        let mut waiters = Waiters::default();
        // Ten tasks that keep waiting (they poll again whenever woken, as a task would).
        let (live_counts, live): (Vec<_>, Vec<_>) = (0..10).map(|_| waker()).unzip();
        for w in &live {
            register(&mut waiters, w);
        }
        let mut seen = vec![0; live.len()];
        let mut spurious = 0;
        for _ in 0..10_000 {
            // A task that waits once and is gone.
            let (_c, w) = waker();
            register(&mut waiters, &w);
            drop(w);
            // The live tasks that were woken (by a compaction) poll again.
            for (i, c) in live_counts.iter().enumerate() {
                let n = c.0.load(Ordering::SeqCst);
                if n != seen[i] {
                    spurious += n - seen[i];
                    seen[i] = n;
                    register(&mut waiters, &live[i]);
                }
            }
            let held = waiters.count(Direction::Read);
            assert!(held <= 2 * 10 + 2 * 64 + 1, "{held} wakers held");
        }
        // Spurious wake-ups of the live tasks: about one each per compaction, a compaction
        // per ~64 registrations.
        assert!(
            spurious <= 10 * (10_000 / 32),
            "{spurious} spurious wake-ups"
        );
        // An event still wakes every live task.
        let before = woken(&live_counts);
        let mut out = Vec::new();
        waiters.take(Direction::Read, &mut out);
        out.drain(..).for_each(Waker::wake);
        let after = woken(&live_counts);
        assert!(
            before.iter().zip(&after).all(|(b, a)| a > b),
            "{before:?} -> {after:?}"
        );
    }

    #[test]
    fn the_poll_slot_keeps_only_the_last_task() {
        let mut waiters = Waiters::default();
        let (ca, a) = waker();
        let (cb, b) = waker();
        let (cl, listed) = waker();
        register(&mut waiters, &listed);
        assert!(waiters.register_last(Direction::Read, &a).is_none());
        assert!(
            waiters.register_last(Direction::Read, &a).is_none(),
            "same task"
        );
        let replaced = waiters
            .register_last(Direction::Read, &b)
            .expect("a replaced");
        assert!(replaced.will_wake(&a));
        drop(replaced);
        assert_eq!(waiters.count(Direction::Read), 2);
        let mut out = Vec::new();
        waiters.take(Direction::Write, &mut out);
        assert!(out.is_empty(), "the read slot is not the write side's");
        waiters.take(Direction::Read, &mut out);
        out.drain(..).for_each(Waker::wake);
        assert_eq!(woken(&[ca, cb, cl]), vec![0, 1, 1]);
        assert_eq!(waiters.count(Direction::Read), 0);
    }
}
