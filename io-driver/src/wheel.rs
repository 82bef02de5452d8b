//! A hierarchical timing wheel: 6 levels x 64 slots at 1 ms resolution, a pure data
//! structure driven by an explicit `now` (milliseconds), so it can be tested without sleeping.
//!
//! Level `k` slot `s` holds entries whose deadline (`when`) agrees with `elapsed` on every
//! bit above block `k` (blocks are 6 bits) and has `s` in block `k`; i.e. level `k` is chosen
//! by the highest 6-bit block in which `when` and `elapsed` differ. Consequences:
//! - every occupied slot of level `k` lies strictly after `elapsed`'s own slot in that level,
//!   and all of level `k` is earlier than all of level `k + 1`; so the next expiration is the
//!   first set bit of the lowest non-empty level's occupancy bitmap (O(levels)).
//! - a level-0 slot holds exactly one millisecond: its entries fire together.
//! - visiting a level-`k` slot at its start time re-inserts ("cascades") its entries, each
//!   landing on a strictly lower level (or firing, if its `when` is that very millisecond).
//!
//! Advancing can be done in bounded steps (`advance_batch`), so that a caller holding the
//! wheel behind a lock can release it (and wake what fired) between steps: a list is then
//! consumed in place, one entry at a time from its head, and stays linked (its occupancy
//! bit set) until empty; `in_progress` names it, and `elapsed` stays at its time until it
//! is done. Meanwhile inserts, resets and removes work as usual: relative to that `elapsed`
//! no new entry can land in the list being consumed (a level-`k` slot whose time equals
//! `elapsed` agrees with `elapsed` on block `k`, so such a `when` goes to a lower level),
//! and a removed entry just leaves it.
//!
//! Entries further away than 64^6 ms (block 6 or higher differs) wait on an overflow list
//! that is re-examined at the start of the earliest such entry's 2^36 ms epoch; entries whose
//! `when <= elapsed` wait on an expired list that fires on the next `advance`. An entry only
//! fires once `now >= when`. Nodes live in a Vec (reused through a free list) and each list is
//! doubly linked through node indices, so insert, cancel and reset are O(1).

use std::task::Waker;

/// Number of levels.
pub const LEVELS: usize = 6;
/// Slots per level.
pub const SLOTS: usize = 64;
const SLOT_BITS: u32 = 6;
/// Bits of `when` covered by the wheel proper (36): beyond that, the overflow list.
const SPAN_BITS: u32 = SLOT_BITS * LEVELS as u32;
const SPAN_MASK: u64 = (1 << SPAN_BITS) - 1;
const EXPIRED: usize = LEVELS * SLOTS;
const OVERFLOW: usize = EXPIRED + 1;
const LISTS: usize = OVERFLOW + 1;
const NIL: u32 = u32::MAX;
const UNLINKED: u16 = u16::MAX;

/// Identifies one entry of a [`Wheel`]; valid until [`Wheel::remove`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(u32);

/// Where an entry stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryState {
    /// In the wheel, waiting for its deadline.
    Pending,
    /// Its deadline passed and it was fired.
    Fired,
    /// The wheel was shut down before it fired.
    Shutdown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NodeState {
    Free,
    Live(EntryState),
}

struct Node {
    when: u64,
    waker: Option<Waker>,
    prev: u32,
    /// Next in the node's list, or next free node while free.
    next: u32,
    list: u16,
    state: NodeState,
}

/// The wheel. See the module docs.
pub struct Wheel {
    elapsed: u64,
    nodes: Vec<Node>,
    free_head: u32,
    len: usize,
    pending: usize,
    heads: [u32; LISTS],
    occupied: [u64; LEVELS],
    /// Lower bound of the `when`s on the overflow list (u64::MAX when it is empty).
    overflow_min: u64,
    /// A list `advance_batch` stopped in the middle of, due at `elapsed`.
    in_progress: Option<usize>,
    shutdown: bool,
}

impl Default for Wheel {
    fn default() -> Self {
        Self::new()
    }
}

impl Wheel {
    /// An empty wheel at time 0.
    pub fn new() -> Wheel {
        Wheel {
            elapsed: 0,
            nodes: Vec::new(),
            free_head: NIL,
            len: 0,
            pending: 0,
            heads: [NIL; LISTS],
            occupied: [0; LEVELS],
            overflow_min: u64::MAX,
            in_progress: None,
            shutdown: false,
        }
    }

    /// Calls `f` with the deadline (wheel ms) and waker of every pending entry that holds a
    /// waker (task dumps; nothing changes).
    pub fn for_each_waiting(&self, mut f: impl FnMut(u64, &Waker)) {
        for node in &self.nodes {
            if let (NodeState::Live(EntryState::Pending), Some(w)) = (node.state, &node.waker) {
                f(node.when, w);
            }
        }
    }

    /// The time the wheel has been advanced to.
    pub fn elapsed(&self) -> u64 {
        self.elapsed
    }

    /// Entries allocated (pending, or fired/shut down but not yet removed).
    pub fn len(&self) -> usize {
        self.len
    }

    /// No entry allocated.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Entries still waiting in the wheel.
    pub fn pending(&self) -> usize {
        self.pending
    }

    /// Whether [`Wheel::shutdown`] ran.
    pub fn is_shutdown(&self) -> bool {
        self.shutdown
    }

    /// Add an entry due at `when` (ms). After shutdown it is born in the `Shutdown` state.
    pub fn insert(&mut self, when: u64, waker: Option<Waker>) -> Key {
        let state = if self.shutdown {
            EntryState::Shutdown
        } else {
            EntryState::Pending
        };
        let node = Node {
            when,
            waker,
            prev: NIL,
            next: NIL,
            list: UNLINKED,
            state: NodeState::Live(state),
        };
        let idx = if self.free_head != NIL {
            let idx = self.free_head;
            self.free_head = self.nodes[idx as usize].next;
            self.nodes[idx as usize] = node;
            idx
        } else {
            let idx = u32::try_from(self.nodes.len())
                .ok()
                .filter(|&i| i != NIL)
                .expect("timer wheel: too many timers");
            self.nodes.push(node);
            idx
        };
        self.len += 1;
        if state == EntryState::Pending {
            self.pending += 1;
            self.link(idx);
        }
        Key(idx)
    }

    /// Move an entry to a new deadline (re-arming a fired one). No-op after shutdown.
    pub fn reset(&mut self, key: Key, when: u64) {
        match self.node(key).state {
            NodeState::Live(EntryState::Shutdown) => return,
            NodeState::Live(EntryState::Pending) => self.unlink(key.0),
            NodeState::Live(EntryState::Fired) => self.pending += 1,
            NodeState::Free => unreachable!("timer wheel: reset of a freed key"),
        }
        let node = &mut self.nodes[key.0 as usize];
        node.when = when;
        node.state = NodeState::Live(EntryState::Pending);
        self.link(key.0);
    }

    /// Cancel and free an entry; returns its waker for the caller to drop outside any lock.
    pub fn remove(&mut self, key: Key) -> Option<Waker> {
        if self.node(key).state == NodeState::Live(EntryState::Pending) {
            self.unlink(key.0);
            self.pending -= 1;
        }
        let node = &mut self.nodes[key.0 as usize];
        node.state = NodeState::Free;
        node.next = self.free_head;
        self.free_head = key.0;
        self.len -= 1;
        node.waker.take()
    }

    /// The entry's state.
    pub fn state(&self, key: Key) -> EntryState {
        match self.node(key).state {
            NodeState::Live(s) => s,
            NodeState::Free => unreachable!("timer wheel: state of a freed key"),
        }
    }

    /// The entry's deadline (ms).
    pub fn when(&self, key: Key) -> u64 {
        self.node(key).when
    }

    /// Store `waker` unless the stored one already wakes the same task; returns the displaced
    /// waker (drop it outside any lock).
    pub fn set_waker(&mut self, key: Key, waker: &Waker) -> Option<Waker> {
        let slot = &mut self.nodes[key.0 as usize].waker;
        match slot {
            Some(w) if w.will_wake(waker) => None,
            _ => slot.replace(waker.clone()),
        }
    }

    /// Fire a pending entry now (its caller saw the deadline pass); returns its waker.
    pub fn fire(&mut self, key: Key) -> Option<Waker> {
        if self.node(key).state != NodeState::Live(EntryState::Pending) {
            return None;
        }
        self.unlink(key.0);
        self.pending -= 1;
        let node = &mut self.nodes[key.0 as usize];
        node.state = NodeState::Live(EntryState::Fired);
        node.waker.take()
    }

    /// The earliest time (ms) at which [`Wheel::advance`] has something to do: an entry's
    /// deadline, or the start of a higher-level slot that must be cascaded.
    pub fn next_expiration(&self) -> Option<u64> {
        self.next_list().map(|(time, _)| time)
    }

    fn next_list(&self) -> Option<(u64, usize)> {
        if let Some(list) = self.in_progress {
            if self.heads[list] != NIL {
                return Some((self.elapsed, list));
            }
        }
        if self.heads[EXPIRED] != NIL {
            return Some((self.elapsed, EXPIRED));
        }
        for (level, &occupied) in self.occupied.iter().enumerate() {
            if occupied != 0 {
                let shift = level as u32 * SLOT_BITS;
                let slot = occupied.trailing_zeros() as u64;
                let level_mask = (1u64 << (shift + SLOT_BITS)) - 1;
                let time = (self.elapsed & !level_mask) + (slot << shift);
                debug_assert!(time > self.elapsed, "occupied slot not after elapsed");
                return Some((time, level * SLOTS + slot as usize));
            }
        }
        if self.heads[OVERFLOW] != NIL {
            let time = (self.overflow_min & !SPAN_MASK).max(self.elapsed);
            return Some((time, OVERFLOW));
        }
        None
    }

    /// Advance to `now` (ms), calling `fire(key, when, waker)` for every entry with
    /// `when <= now`, in deadline order. Time never moves backwards.
    pub fn advance(&mut self, now: u64, mut fire: impl FnMut(Key, u64, Option<Waker>)) {
        while !self.advance_batch(now, usize::MAX, &mut fire) {}
    }

    /// Like [`advance`](Self::advance), but handles at most `max` entries (each fired or
    /// moved to a lower level counts one): true when the wheel reached `now`, false when it
    /// stopped early; call it again (with the same or a later `now`) to go on. Between two
    /// calls the wheel may be used as usual. Entries never fire before `now >= when`.
    pub fn advance_batch(
        &mut self,
        now: u64,
        max: usize,
        mut fire: impl FnMut(Key, u64, Option<Waker>),
    ) -> bool {
        let mut budget = max.max(1);
        while let Some((time, list)) = self.next_list() {
            if time > now {
                break;
            }
            self.elapsed = time;
            if list == OVERFLOW {
                // Re-examined whole (its entries may go back to it): rare, and bounded by
                // the entries more than 2^36 ms away.
                self.in_progress = None;
                budget = budget.saturating_sub(self.process(list, &mut fire));
            } else if !self.consume(list, &mut budget, &mut fire) {
                self.in_progress = Some(list);
                return false;
            }
            self.in_progress = None;
            if budget == 0 {
                // Done only if nothing else is due.
                return self.next_list().is_none_or(|(time, _)| time > now) && self.finish(now);
            }
        }
        self.finish(now)
    }

    fn finish(&mut self, now: u64) -> bool {
        self.elapsed = self.elapsed.max(now);
        true
    }

    /// Takes entries off the head of list `list` (due at `elapsed`; a slot is never
    /// refilled while consumed, see the module docs, and what joins the expired list is
    /// due as well) until it is empty (true) or `budget` is spent (false): fires
    /// those due, moves the others to a lower level.
    fn consume(
        &mut self,
        list: usize,
        budget: &mut usize,
        fire: &mut impl FnMut(Key, u64, Option<Waker>),
    ) -> bool {
        loop {
            let idx = self.heads[list];
            if idx == NIL {
                return true;
            }
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            self.unlink(idx);
            let node = &mut self.nodes[idx as usize];
            if node.when <= self.elapsed {
                node.state = NodeState::Live(EntryState::Fired);
                let (when, waker) = (node.when, node.waker.take());
                self.pending -= 1;
                fire(Key(idx), when, waker);
            } else {
                self.link(idx);
                debug_assert_ne!(self.nodes[idx as usize].list as usize, list);
            }
        }
    }

    /// Detach list `list` and fire or re-insert each of its entries relative to `elapsed`.
    /// Returns how many entries it handled.
    fn process(&mut self, list: usize, fire: &mut impl FnMut(Key, u64, Option<Waker>)) -> usize {
        let mut idx = std::mem::replace(&mut self.heads[list], NIL);
        if list < EXPIRED {
            self.occupied[list / SLOTS] &= !(1 << (list % SLOTS));
        } else if list == OVERFLOW {
            self.overflow_min = u64::MAX;
        }
        let mut handled = 0;
        while idx != NIL {
            handled += 1;
            let node = &mut self.nodes[idx as usize];
            let next = node.next;
            node.prev = NIL;
            node.next = NIL;
            node.list = UNLINKED;
            if node.when <= self.elapsed {
                node.state = NodeState::Live(EntryState::Fired);
                let (when, waker) = (node.when, node.waker.take());
                self.pending -= 1;
                fire(Key(idx), when, waker);
            } else {
                self.link(idx);
            }
            idx = next;
        }
        handled
    }

    /// Fire every pending entry as shut down (`fire(key, waker)`); later inserts are born
    /// shut down.
    pub fn shutdown(&mut self, mut fire: impl FnMut(Key, Option<Waker>)) {
        self.shutdown = true;
        self.in_progress = None;
        for idx in 0..self.nodes.len() as u32 {
            if self.nodes[idx as usize].state == NodeState::Live(EntryState::Pending) {
                self.unlink(idx);
                self.pending -= 1;
                let node = &mut self.nodes[idx as usize];
                node.state = NodeState::Live(EntryState::Shutdown);
                fire(Key(idx), node.waker.take());
            }
        }
    }

    fn node(&self, key: Key) -> &Node {
        let node = &self.nodes[key.0 as usize];
        debug_assert!(node.state != NodeState::Free, "timer wheel: stale key");
        node
    }

    fn list_for(&self, when: u64) -> usize {
        if when <= self.elapsed {
            return EXPIRED;
        }
        let masked = (self.elapsed ^ when) | (SLOTS as u64 - 1);
        let significant = u64::BITS - 1 - masked.leading_zeros();
        let level = (significant / SLOT_BITS) as usize;
        if level >= LEVELS {
            return OVERFLOW;
        }
        let slot = (when >> (level as u32 * SLOT_BITS)) as usize & (SLOTS - 1);
        level * SLOTS + slot
    }

    fn link(&mut self, idx: u32) {
        let when = self.nodes[idx as usize].when;
        let list = self.list_for(when);
        let head = self.heads[list];
        if head != NIL {
            self.nodes[head as usize].prev = idx;
        }
        let node = &mut self.nodes[idx as usize];
        node.prev = NIL;
        node.next = head;
        node.list = list as u16;
        self.heads[list] = idx;
        if list < EXPIRED {
            self.occupied[list / SLOTS] |= 1 << (list % SLOTS);
        } else if list == OVERFLOW {
            self.overflow_min = self.overflow_min.min(when);
        }
    }

    fn unlink(&mut self, idx: u32) {
        let node = &mut self.nodes[idx as usize];
        if node.list == UNLINKED {
            return;
        }
        let (list, prev, next) = (node.list as usize, node.prev, node.next);
        node.list = UNLINKED;
        node.prev = NIL;
        node.next = NIL;
        if prev != NIL {
            self.nodes[prev as usize].next = next;
        } else {
            self.heads[list] = next;
        }
        if next != NIL {
            self.nodes[next as usize].prev = prev;
        }
        if self.heads[list] == NIL {
            if list < EXPIRED {
                self.occupied[list / SLOTS] &= !(1 << (list % SLOTS));
            } else if list == OVERFLOW {
                self.overflow_min = u64::MAX;
            }
        }
    }
}

impl std::fmt::Debug for Wheel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wheel")
            .field("elapsed", &self.elapsed)
            .field("len", &self.len)
            .field("pending", &self.pending)
            .field("next_expiration", &self.next_expiration())
            .field("shutdown", &self.shutdown)
            .finish()
    }
}
