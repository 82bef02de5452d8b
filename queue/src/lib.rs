//! Run queues for the runtime, generic over the item type and knowing nothing of tasks.
//!
//! - [`Local`] / [`Steal`] (module `local`): each worker's fixed-capacity ring
//!   ([`CAPACITY`] slots), pushed and popped by its owner without a lock, robbed of half
//!   its items at a time by idle siblings. It never grows: when full, half of it moves to
//!   the [`Inject`] queue in one batch.
//! - [`Inject`] (module `inject`): the global queue, an intrusive FIFO: pushes take no
//!   lock (one CAS onto a stack), consumers take one mutex and move the stack, reversed,
//!   behind what they have not popped yet; a lock-free length makes "anything there?" free.
//!   Tasks spawned from outside the runtime and overflow from the rings land here;
//!   [`Chain`] is a detached run of its items, iterated without the lock.
//! - [`LifoSlot`] (module `lifo`): a worker's one-item LIFO slot, which a sibling may
//!   empty when the owner is stuck in a long poll (owner pushes without an RMW).
//! - [`Link`] (module `link`): the intrusive `next` pointer the item provides.
//! - [`claim_and_requeue`] (module `claim`): a thread other than the owner takes every
//!   item of a ring and its LIFO slot (steals, repeated a bounded number of rounds) and
//!   pushes them to an [`Inject`] queue in one batch, looking at each on the way.
//!
//! All atomics, cells and locks come from `shim`, so `--cfg loom` model-checks this code.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]

mod claim;
mod inject;
mod lifo;
mod link;
mod local;

pub use claim::{claim_and_requeue, CLAIM_ROUNDS};
pub use inject::{Chain, Inject};
pub use lifo::LifoSlot;
pub use link::Link;
pub use local::{local, local_with_start, Local, Steal, CAPACITY};
