//! Multi-producer, single-consumer channels, as tokio's `sync::mpsc`.
//!
//! - [`channel`]: bounded. Room for `buffer` messages; [`Sender::send`] waits while the
//!   channel is full (backpressure). The queue is a ring of slots allocated once with a
//!   sequence stamp per slot (`ring`), so the bounded path allocates nothing per message;
//!   capacity is the crate's FIFO semaphore of permits (`semaphore`, over
//!   `sync::batch_semaphore`) whose fast path is one CAS.
//! - [`unbounded_channel`]: sending never waits; the queue is a linked list of blocks of
//!   slots (`list`), recycled, so the steady state allocates nothing per message. The
//!   list's claim word also holds the CLOSED bit, so a send is one claim `fetch_add` (no
//!   message count beside it, as tokio keeps) and a receive writes no shared counter.
//!
//! A sender wakes the receiver through an `AtomicWaker` that a busy receiver (one not
//! registered) costs a fence and a load, not two read-modify-writes of a word every sender
//! shares (`atomic_waker`).
//!
//! Both flavors share `chan` (the receiver's waker, the sender counts and the closing
//! protocol) and `handle`'s internal handles (`Tx`, `WeakTx`, `Rx`: the counting, and the
//! receiving by the one `Rx`, whose `&mut self` is the queue's single-consumer contract). Guarantees (see each file's doc for the invariants that give them):
//! - Messages from one sender arrive in the order sent; every message sent before the
//!   channel closed is delivered; each message is dropped exactly once (received, drained
//!   when the receiver is dropped, or dropped with the channel), and a message whose `Drop`
//!   panics skips none of the others (the panic goes on once they are dropped).
//! - A cancelled wait (`send`, `reserve*`, `recv`, `closed`) leaves the channel consistent;
//!   room a cancelled `reserve` was given passes on to the next waiting sender, or back to a
//!   closed channel, whose receiver it wakes if nothing else is outstanding.
//! - The receiver's drop drops its registered waker at once, whatever senders remain.
//! - Every wait that completes ready spends one unit of the task's cooperative budget.
//! - Wakers are woken and dropped outside every internal lock.
//! - The channels work outside any runtime; the `blocking_*` methods block a plain thread
//!   and panic inside a runtime.
//!
//! ```
//! # runtime::Runtime::new().unwrap().block_on(async {
//! use runtime::sync::mpsc;
//!
//! let (tx, mut rx) = mpsc::channel(16);
//! for id in 0..4 {
//!     let tx = tx.clone();
//!     runtime::spawn(async move { tx.send(id).await.unwrap() });
//! }
//! drop(tx);
//! let mut ids = Vec::new();
//! while let Some(id) = rx.recv().await {
//!     ids.push(id);
//! }
//! ids.sort();
//! assert_eq!(ids, [0, 1, 2, 3]);
//! # });
//! ```

mod bounded;
mod chan;
pub mod error;
mod handle;
mod list;
mod permit;
mod queue;
mod ring;
mod semaphore;
mod unbounded;

pub use bounded::{channel, Receiver, Sender, WeakSender};
pub use permit::{OwnedPermit, Permit, PermitIterator};
pub use unbounded::{unbounded_channel, UnboundedReceiver, UnboundedSender, WeakUnboundedSender};

// Not API: public only so that the loom suites (loom-tests/, another crate) can drive the
// bounded channel's ring on its own, without the semaphore that also orders its laps.
#[doc(hidden)]
pub use queue::{Pop, Queue};
#[doc(hidden)]
pub use ring::Ring;
