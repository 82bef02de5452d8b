//! A task's identity: its id, its name and where it was spawned, kept in one word of the
//! task's cold trailer (`MetaSlot`), so naming and locating every task costs no memory and
//! no instruction beyond the store a spawn already made.
//!
//! The slot's word holds one of five values, told apart by its low two bits:
//!
//! | low bits | value | meaning |
//! |---|---|---|
//! | `00`, zero | `0` | no spawn location, no id yet |
//! | `00`, nonzero | `&'static Location` | spawned there; no id yet (a `Location` is 8-aligned) |
//! | `01` | `id << 16 \| site << 2 \| 1` | id assigned (48 bits); `site`: the spawn location's index in `SITES` (14 bits, 0 = none) |
//! | `10` | pointer to an `Arc<Named>` | a named task: the `Arc` holds name, location and its own lazy id |
//! | `11` | pointer to a `Cold` block | the task has inline wait slots (`wait_block.rs`); the block's own slot holds one of the values above |
//!
//! A `Cold` block is installed by the task's first inline wait record (a CAS from the
//! word the installer read, which it copied into the block's slot; a CAS that loses to an
//! id assignment copies the new word and retries) and freed with the task; from then on
//! every reader and the id assignment go through the block's slot. The `0b11` word is
//! published with Release and loaded with Acquire by whoever follows it.
//!
//! An unnamed spawn stores its caller's `Location` (a constant the `#[track_caller]` chain
//! passes down) where it used to store a zero. The id stays lazy (most tasks never have
//! theirs read): the first reader interns the location into `SITES` (a fixed table of
//! spawn sites, filled by CAS, never emptied: a program has a bounded number of spawn
//! call sites), takes a fresh id and installs the packed word with a CAS; racing first
//! readers agree on the word that won. A named spawn (`task::Builder::name`) allocates the
//! `Arc<Named>` (the name has to live somewhere) and stores its pointer for the task's
//! life; the task's drop releases that reference.
//!
//! Everything a reader does is atomics on static or task memory: no lock, no allocation.
//! So the current task's identity can be taken from a signal handler on the thread that
//! polls it (`current_raw_meta`, for the stall monitor's stack capture), where the fresh
//! id comes straight from the global counter (a thread's id block lives in a thread-local
//! that the handler may have interrupted mid-update).
//!
//! Ids: unique for the process's life and never reused, up to 2^48 of them (assigned only
//! when read: a process would have to read a new task's id a million times a second for
//! nine years). The spawn-site table holds `SITES_LEN - 1` distinct call sites; a task
//! spawned at a site past that keeps its id and reports no location.
//!
//! The slot's atomics are std ones even under loom: they carry no synchronization that
//! the models need (ids and locations publish nothing; a `Named` is written before the
//! task is published by its spawn and immutable after, except its id, itself a CAS).

use std::fmt;
use std::num::NonZeroU64;
use std::panic::Location;
use std::ptr::NonNull;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicPtr, AtomicU64};
use std::sync::Arc;

use crate::core::Header;
use crate::id::Id;

const TAG_MASK: u64 = 0b11;
const TAG_LOCATION: u64 = 0b00;
const TAG_PACKED: u64 = 0b01;
const TAG_NAMED: u64 = 0b10;
const TAG_COLD: u64 = 0b11;
const SITE_BITS: u32 = 14;
const SITES_LEN: usize = 1 << SITE_BITS;
const ID_SHIFT: u32 = 16;
/// The largest id the packed word holds.
pub(crate) const MAX_ID: u64 = (1 << (64 - ID_SHIFT)) - 1;

/// How many table slots a lookup probes before it gives up on a site.
const PROBES: usize = 64;

/// Spawn sites, interned by `Location` address: index 0 is "none". Filled by CAS from null,
/// never changed after; a `Location` is `'static` and immutable, so Relaxed reads suffice.
static SITES: [AtomicPtr<Location<'static>>; SITES_LEN] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SITES_LEN];

/// The index of `loc` in `SITES`, inserted now if it is new; 0 when the table is full.
fn intern(loc: &'static Location<'static>) -> u64 {
    let ptr = loc as *const Location<'static> as *mut Location<'static>;
    let hash = ((ptr as u64) >> 3).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SITE_BITS);
    for probe in 0..PROBES {
        // Index 0 is reserved: probe 1..SITES_LEN only.
        let i = ((hash as usize + probe) % (SITES_LEN - 1)) + 1;
        let slot = &SITES[i];
        let cur = slot.load(Relaxed);
        if cur == ptr {
            return i as u64;
        }
        if cur.is_null() {
            match slot.compare_exchange(std::ptr::null_mut(), ptr, Relaxed, Relaxed) {
                Ok(_) => return i as u64,
                Err(won) if won == ptr => return i as u64,
                Err(_) => continue,
            }
        }
    }
    0
}

fn site(index: u64) -> Option<&'static Location<'static>> {
    if index == 0 {
        return None;
    }
    let ptr = SITES[index as usize].load(Relaxed);
    // SAFETY: only `&'static Location` addresses are ever stored in the table.
    unsafe { ptr.as_ref() }
}

/// A named task's identity, shared by the task and every `TaskMeta` taken of it.
struct Named {
    name: Box<str>,
    location: Option<&'static Location<'static>>,
    /// 0 until first read, then the id for good (as `MetaSlot`'s packed id).
    id: AtomicU64,
}

/// Where ids come from: the thread's block (normal code) or the global counter alone
/// (a signal handler, which may have interrupted the thread's own block update).
#[derive(Clone, Copy)]
enum IdSource {
    Thread,
    Global,
}

impl IdSource {
    fn fresh(self) -> Option<u64> {
        let id = match self {
            IdSource::Thread => crate::id::next().as_u64(),
            IdSource::Global => crate::id::next_global()?,
        };
        (id <= MAX_ID).then_some(id)
    }
}

/// What a spawn records about the task it creates: its location, and its name if it has
/// one. Consumed by the allocation, which stores its word in the task's trailer.
pub struct SpawnMeta(u64);

impl SpawnMeta {
    /// No location, no name (tasks the runtime spawns for itself).
    pub const NONE: SpawnMeta = SpawnMeta(0);

    /// A task spawned at `location` (a `#[track_caller]` spawn's `Location::caller()`).
    #[inline(always)]
    pub fn at(location: &'static Location<'static>) -> SpawnMeta {
        SpawnMeta(location as *const Location<'static> as u64)
    }

    /// A task named `name`, spawned at `location`.
    pub fn named(name: &str, location: Option<&'static Location<'static>>) -> SpawnMeta {
        let named = Arc::new(Named {
            name: name.into(),
            location,
            id: AtomicU64::new(0),
        });
        SpawnMeta(Arc::into_raw(named) as u64 | TAG_NAMED)
    }

    pub(crate) fn into_word(self) -> u64 {
        let word = self.0;
        std::mem::forget(self);
        word
    }
}

impl Drop for SpawnMeta {
    fn drop(&mut self) {
        release(self.0);
    }
}

impl fmt::Debug for SpawnMeta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SpawnMeta").finish_non_exhaustive()
    }
}

/// Gives up the `Arc<Named>` reference a word holds, if it holds one (a word of a
/// `TaskMeta` or a `SpawnMeta`: never `0b11`, so one bit test).
#[inline(always)]
fn release(word: u64) {
    if word & TAG_NAMED != 0 {
        // SAFETY: a named word owns one strong count of the `Arc<Named>` it points to.
        unsafe { Arc::decrement_strong_count((word & !TAG_MASK) as *const Named) };
    }
}

/// Takes one more reference on the `Arc<Named>` a word points to (atomics only).
fn retain(word: u64) {
    if word & TAG_MASK == TAG_NAMED {
        // SAFETY: the word's holder (the task, or a `TaskMeta`) keeps one count alive
        // while we add ours.
        unsafe { Arc::increment_strong_count((word & !TAG_MASK) as *const Named) };
    }
}

/// The trailer's identity word (see the module doc).
pub(crate) struct MetaSlot(AtomicU64);

/// What a `0b11` word points to: the identity word it replaced, and the task's inline
/// wait slots.
struct Cold {
    ident: MetaSlot,
    waits: crate::wait_block::WaitBlock,
}

/// The `Cold` block a `0b11` word points to.
///
/// # Safety
/// `word` was loaded with Acquire (or later) from a live task's slot, and is `0b11`.
unsafe fn cold<'a>(word: u64) -> &'a Cold {
    debug_assert_eq!(word & TAG_MASK, TAG_COLD);
    // SAFETY: the caller's contract: the block lives as long as the task.
    unsafe { &*((word & !TAG_MASK) as *const Cold) }
}

impl MetaSlot {
    pub(crate) fn new(meta: SpawnMeta) -> MetaSlot {
        MetaSlot(AtomicU64::new(meta.into_word()))
    }

    /// The word with an id assigned: packed (`01`) or named (`10`). Borrowed: a named
    /// word's reference stays the slot's.
    fn assigned(&self, source: IdSource) -> Option<u64> {
        // Acquire: a `0b11` word is followed (module doc).
        let mut word = self.0.load(Acquire);
        loop {
            if word & TAG_MASK == TAG_COLD {
                // SAFETY: loaded with Acquire from this live slot.
                return unsafe { cold(word) }.ident.assigned(source);
            }
            if word & TAG_MASK != TAG_LOCATION {
                return Some(word);
            }
            let site = if word == 0 {
                0
            } else {
                // SAFETY: a nonzero untagged word is a `&'static Location` (module doc).
                intern(unsafe { &*(word as *const Location<'static>) })
            };
            let packed = (source.fresh()? << ID_SHIFT) | (site << 2) | TAG_PACKED;
            // Acquire on failure: the winner's word may be `0b11`, followed above.
            match self.0.compare_exchange(word, packed, Relaxed, Acquire) {
                Ok(_) => return Some(packed),
                // Another first reader won (its word is the task's, our id is skipped), or
                // a `Cold` block was installed.
                Err(won) => word = won,
            }
        }
    }

    /// The task's id, assigned now if this is its first use.
    pub(crate) fn id(&self) -> Id {
        let word = self.assigned(IdSource::Thread).expect(ID_OVERFLOW);
        word_id(word, IdSource::Thread).expect(ID_OVERFLOW)
    }

    /// The task's identity.
    pub(crate) fn meta(&self) -> TaskMeta {
        let word = self.assigned(IdSource::Thread).expect(ID_OVERFLOW);
        retain(word);
        TaskMeta::from_assigned(word)
    }

    /// As `meta`, with atomics only (see `current_raw_meta`). `None` only when ids ran out.
    fn meta_signal_safe(&self) -> Option<TaskMeta> {
        let word = self.assigned(IdSource::Global)?;
        if word & TAG_MASK == TAG_NAMED {
            // SAFETY: a named word points to a live `Named` (the slot holds a count).
            let named = unsafe { &*((word & !TAG_MASK) as *const Named) };
            lazy_named_id(named, IdSource::Global)?;
        }
        retain(word);
        Some(TaskMeta::from_assigned(word))
    }
}

impl MetaSlot {
    /// The task's inline wait slots, installed now if it has none.
    // Under loom no task records inline (wait_block.rs).
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn wait_block(&self) -> &crate::wait_block::WaitBlock {
        // Acquire: a `0b11` word is followed.
        let mut word = self.0.load(Acquire);
        if word & TAG_MASK == TAG_COLD {
            // SAFETY: loaded with Acquire from this live slot.
            return &unsafe { cold(word) }.waits;
        }
        self.install_cold(&mut word)
    }

    /// `wait_block`'s first time: allocates the block (from this thread's cache of freed
    /// blocks of its size, as a task's cell: cell_cache.rs) and installs it over `word`.
    #[cold]
    #[cfg_attr(loom, allow(dead_code))]
    fn install_cold(&self, word: &mut u64) -> &crate::wait_block::WaitBlock {
        let block = crate::cell_cache::alloc::<Cold>();
        // SAFETY: fresh memory with room and alignment for a `Cold` (cell_cache.rs).
        unsafe {
            block.as_ptr().write(Cold {
                ident: MetaSlot(AtomicU64::new(*word)),
                waits: crate::wait_block::WaitBlock::new(),
            })
        };
        loop {
            // Release: publishes the block's contents to whoever follows the word;
            // Acquire on failure: the word seen may be another's block, followed below.
            let cold_word = block.as_ptr() as u64 | TAG_COLD;
            match self.0.compare_exchange(*word, cold_word, Release, Acquire) {
                // SAFETY: installed: the block lives until the slot's drop.
                Ok(_) => return &unsafe { block.as_ref() }.waits,
                Err(now) if now & TAG_MASK == TAG_COLD => {
                    // Another installer won: ours holds a copy that owns nothing.
                    // SAFETY: ours, never published: its slot forgets the copy, then the
                    // block is dropped and freed once.
                    unsafe {
                        (*block.as_ptr()).ident.0.store(0, Relaxed);
                        free_cold(block);
                    }
                    // SAFETY: loaded with Acquire from this live slot.
                    return &unsafe { cold(now) }.waits;
                }
                Err(now) => {
                    // An id was assigned meanwhile: the block takes that word instead (a
                    // named word never changes, so the count it owns moves exactly once).
                    *word = now;
                    // SAFETY: ours, not published yet.
                    unsafe { (*block.as_ptr()).ident.0.store(now, Relaxed) };
                }
            }
        }
    }

    /// The task's inline wait slots, if it ever recorded into them.
    pub(crate) fn wait_block_if_any(&self) -> Option<&crate::wait_block::WaitBlock> {
        // Acquire: a `0b11` word is followed.
        let word = self.0.load(Acquire);
        // SAFETY: loaded with Acquire from this live slot.
        (word & TAG_MASK == TAG_COLD).then(|| &unsafe { cold(word) }.waits)
    }
}

impl Drop for MetaSlot {
    fn drop(&mut self) {
        let word = *self.0.get_mut();
        // One bit test on a task's drop: set for a named word and a `Cold` block's.
        if word & TAG_NAMED != 0 {
            drop_tagged(word);
        }
    }
}

/// The drop of a slot holding a named word or a `Cold` block (the block's own slot then
/// releases what it holds).
#[cold]
fn drop_tagged(word: u64) {
    if word & TAG_MASK == TAG_COLD {
        let block = NonNull::new((word & !TAG_MASK) as *mut Cold).expect("a block is never null");
        // SAFETY: a slot owns its block; the slot is being dropped, so nobody reads it.
        unsafe { free_cold(block) };
    } else {
        release(word);
    }
}

/// Drops a `Cold` block (its slot releases what it holds) and frees its memory.
///
/// # Safety
/// `block` came from `install_cold`'s allocation, and nobody reads or frees it after.
unsafe fn free_cold(block: NonNull<Cold>) {
    // SAFETY: the caller's contract: ours alone, dropped once, then freed once.
    unsafe {
        std::ptr::drop_in_place(block.as_ptr());
        crate::cell_cache::free(block);
    }
}

const ID_OVERFLOW: &str = "task id counter overflowed";

fn lazy_named_id(named: &Named, source: IdSource) -> Option<u64> {
    match named.id.load(Relaxed) {
        0 => {
            let fresh = source.fresh()?;
            match named.id.compare_exchange(0, fresh, Relaxed, Relaxed) {
                Ok(_) => Some(fresh),
                Err(won) => Some(won),
            }
        }
        id => Some(id),
    }
}

/// The id an assigned word carries.
fn word_id(word: u64, source: IdSource) -> Option<Id> {
    let id = match word & TAG_MASK {
        TAG_PACKED => word >> ID_SHIFT,
        _ => {
            // SAFETY: an assigned word is packed or named; a named one points to a live
            // `Named` (its holder keeps a count).
            let named = unsafe { &*((word & !TAG_MASK) as *const Named) };
            lazy_named_id(named, source)?
        }
    };
    Some(Id::from_raw(
        NonZeroU64::new(id).expect("an assigned id is never 0"),
    ))
}

/// What identifies a task: its id, its name (given with `task::Builder::name`) and where
/// it was spawned (the caller of the spawn function, through `#[track_caller]`).
///
/// Cheap to clone (a word, and a reference count for a named task); it stays valid after
/// the task is gone. `Display` writes `task 'conn' (id 42, spawned at src/server.rs:88:5)`,
/// or `task 42 (spawned at ...)` for an unnamed task.
pub struct TaskMeta {
    /// An assigned word (`01` or `10`: never 0, which gives `JoinError` and the task's
    /// stage a niche), owning its reference when named.
    word: NonZeroU64,
}

// SAFETY: the word is an integer or a counted reference to an immutable `Named` (its id is
// an atomic), which `Arc` lets any thread hold and release.
unsafe impl Send for TaskMeta {}
// SAFETY: as above; `&TaskMeta` only reads.
unsafe impl Sync for TaskMeta {}

impl TaskMeta {
    /// Takes over an assigned word and the reference it holds, if named.
    fn from_assigned(word: u64) -> TaskMeta {
        TaskMeta {
            word: NonZeroU64::new(word).expect("an assigned identity word is never 0"),
        }
    }

    fn named(&self) -> Option<&Named> {
        let word = self.word.get();
        (word & TAG_MASK == TAG_NAMED)
            // SAFETY: our count keeps the `Named` alive.
            .then(|| unsafe { &*((word & !TAG_MASK) as *const Named) })
    }

    /// The task's id.
    pub fn id(&self) -> Id {
        word_id(self.word.get(), IdSource::Thread).expect(ID_OVERFLOW)
    }

    /// The task's name, if it was spawned with one (`task::Builder::name`).
    pub fn name(&self) -> Option<&str> {
        self.named().map(|n| &*n.name)
    }

    /// Where the task was spawned: the caller of the spawn function. `None` for tasks the
    /// runtime spawns for itself, and for a task spawned at a call site past the first
    /// 16,383 distinct ones of the process.
    pub fn spawned_at(&self) -> Option<&'static Location<'static>> {
        match self.named() {
            Some(named) => named.location,
            None => site((self.word.get() >> 2) & ((1 << SITE_BITS) - 1)),
        }
    }
}

impl Clone for TaskMeta {
    fn clone(&self) -> TaskMeta {
        retain(self.word.get());
        TaskMeta { word: self.word }
    }
}

impl Drop for TaskMeta {
    fn drop(&mut self) {
        release(self.word.get());
    }
}

impl PartialEq for TaskMeta {
    fn eq(&self, other: &TaskMeta) -> bool {
        self.id() == other.id()
    }
}

impl Eq for TaskMeta {}

impl fmt::Debug for TaskMeta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskMeta")
            .field("id", &self.id())
            .field("name", &self.name())
            .field("spawned_at", &self.spawned_at())
            .finish()
    }
}

impl fmt::Display for TaskMeta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.name(), self.spawned_at()) {
            (Some(name), Some(at)) => {
                write!(f, "task '{name}' (id {}, spawned at {at})", self.id())
            }
            (Some(name), None) => write!(f, "task '{name}' (id {})", self.id()),
            (None, Some(at)) => write!(f, "task {} (spawned at {at})", self.id()),
            (None, None) => write!(f, "task {}", self.id()),
        }
    }
}

/// A task's identity taken with atomics only, for a signal handler: see
/// [`current_raw_meta`]. Resolve it (or drop it) later, on any thread.
pub struct RawMeta(TaskMeta);

impl RawMeta {
    /// The identity it holds.
    pub fn resolve(self) -> TaskMeta {
        self.0
    }
}

impl fmt::Debug for RawMeta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RawMeta").field(&self.0.word.get()).finish()
    }
}

/// The identity of a live task.
///
/// # Safety
/// `header` points to a live task: the caller holds a reference to it (a list lock over a
/// listed task, a queue's or a poller's reference).
pub unsafe fn meta_of(header: NonNull<Header>) -> TaskMeta {
    // SAFETY: live task (caller).
    unsafe { Header::trailer(header) }.meta.meta()
}

/// The identity of the task this thread is polling (or whose future it is dropping).
pub fn current_meta() -> Option<TaskMeta> {
    let task = crate::id::current_header()?;
    // SAFETY: the current task is live for as long as it is current (id.rs).
    Some(unsafe { meta_of(task) })
}

/// The identity of the task this thread is polling, taken with atomics only (no lock, no
/// allocation, no thread-local other than the current-task pointer, which is a plain
/// `const` thread-local), so a signal handler that interrupted the poll may call it; the
/// interrupted poll keeps the task alive while it runs. Its id, if not assigned yet, is
/// taken from the global counter. `None` when no task is being polled on this thread.
pub fn current_raw_meta() -> Option<RawMeta> {
    let task = crate::id::current_header()?;
    // SAFETY: the current task is live while its poll runs, which the caller interrupted.
    let slot = &unsafe { Header::trailer(task) }.meta;
    slot.meta_signal_safe().map(RawMeta)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn an_unnamed_task_keeps_its_location_after_its_id_is_assigned() {
        let here = Location::caller();
        let slot = MetaSlot::new(SpawnMeta::at(here));
        let id = slot.id();
        let meta = slot.meta();
        assert_eq!(meta.id(), id);
        assert_eq!(meta.spawned_at(), Some(here));
        assert_eq!(meta.name(), None);
        assert_eq!(meta.to_string(), format!("task {id} (spawned at {here})"));
    }

    #[test]
    fn a_named_task_keeps_its_name_after_the_task_is_gone() {
        let here = Location::caller();
        let slot = MetaSlot::new(SpawnMeta::named("conn", Some(here)));
        let meta = slot.meta();
        drop(slot);
        assert_eq!(meta.name(), Some("conn"));
        assert_eq!(meta.spawned_at(), Some(here));
        let id = meta.id();
        assert_eq!(meta.clone().id(), id);
        assert_eq!(
            meta.to_string(),
            format!("task 'conn' (id {id}, spawned at {here})")
        );
    }

    #[test]
    fn racing_first_readers_agree_on_one_id() {
        let slot = Arc::new(MetaSlot::new(SpawnMeta::at(Location::caller())));
        let ids: Vec<Id> = (0..4)
            .map(|_| {
                let slot = slot.clone();
                std::thread::spawn(move || slot.id())
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect();
        assert!(ids.iter().all(|&id| id == ids[0]), "{ids:?}");
        assert!(slot.meta_signal_safe().unwrap().id() == ids[0]);
    }

    #[test]
    fn the_signal_safe_path_assigns_an_id_that_sticks() {
        let slot = MetaSlot::new(SpawnMeta::at(Location::caller()));
        let raw = slot.meta_signal_safe().unwrap();
        assert_eq!(raw.id(), slot.id());
        let named = MetaSlot::new(SpawnMeta::named("n", None));
        let raw = named.meta_signal_safe().unwrap();
        assert_eq!(raw.id(), named.id());
    }

    #[test]
    fn one_site_interns_to_one_index() {
        let here = Location::caller();
        let a = intern(here);
        let b = intern(here);
        assert_ne!(a, 0);
        assert_eq!(a, b);
        assert_eq!(site(a), Some(here));
    }

    #[test]
    fn a_wait_block_keeps_the_identity_it_is_installed_over() {
        let here = Location::caller();
        // Installed before the id is assigned, and after.
        let early = MetaSlot::new(SpawnMeta::at(here));
        early.wait_block();
        let id = early.id();
        let late = MetaSlot::new(SpawnMeta::at(here));
        let late_id = late.id();
        late.wait_block();
        assert_eq!(late.id(), late_id);
        for (slot, id) in [(&early, id), (&late, late_id)] {
            assert!(slot.wait_block_if_any().is_some());
            let meta = slot.meta();
            assert_eq!((meta.id(), meta.spawned_at()), (id, Some(here)));
            assert_eq!(slot.meta_signal_safe().unwrap().id(), id);
        }
        // A named task's name survives the block, and the block's drop releases it once.
        let named = MetaSlot::new(SpawnMeta::named("conn", Some(here)));
        assert!(named.wait_block_if_any().is_none());
        named.wait_block();
        let meta = named.meta();
        drop(named);
        assert_eq!(meta.name(), Some("conn"));
        assert_eq!(meta.spawned_at(), Some(here));
    }

    #[test]
    fn no_location_no_name() {
        let slot = MetaSlot::new(SpawnMeta::NONE);
        let meta = slot.meta();
        assert_eq!(meta.spawned_at(), None);
        assert_eq!(meta.to_string(), format!("task {}", meta.id()));
    }
}
