//! [`claim_and_requeue`]: moving every item of a worker's ring and LIFO slot, from a thread
//! that is not their owner, to an [`Inject`] queue, letting the caller look at each item on
//! the way (a task dump names the tasks that wait there).
//!
//! Nothing but a claim reads a ring: its slots belong to the owner and to whichever thief
//! claimed them, so a reader from outside has to take the items. The claim is what a
//! sibling's steal does, repeated: [`Steal::steal_into`] a scratch ring (half of what is
//! there each time, rounded up), popped empty after every round, for at most
//! [`CLAIM_ROUNDS`] rounds or until a steal returns nothing (the ring was empty, or another
//! thief was mid-steal on it: that thief's items are its own). Then the LIFO slot's
//! [`LifoSlot::steal`] (one swap: exactly one taker gets the item). The owner keeps pushing
//! and popping meanwhile; the bound on the rounds keeps a busy owner from holding the
//! claimer in the loop. So the claim takes every item that stays in the ring and the slot
//! throughout, and is no snapshot of the others: an item the owner pops first is the
//! owner's, one it pushes after the last round stays where it is.
//!
//! Every claimed item reaches `inject` in one [`Inject::push_batch`], ring items first in
//! ring order, then the slot's, after the caller saw each. While the caller holds them no
//! consumer can take them; once pushed, any consumer of `inject` takes each exactly once.
//! A closed `inject` refuses the batch and hands every item back (`Err`): the caller
//! disposes of them as it disposes of any push refused there.

use crate::{local, Chain, Inject, LifoSlot, Link, Steal, CAPACITY};

/// Steal rounds a claim makes at most: twice what emptying a full ring takes when nobody
/// pushes (each round takes half, rounded up: `log2(CAPACITY) + 1` rounds).
pub const CLAIM_ROUNDS: usize = 2 * (CAPACITY.trailing_zeros() as usize + 1);

/// Claims the items of `ring` and then of `lifo` (see the module docs), shows each to
/// `see`, and pushes them all to `inject` in one batch. `Ok(n)`: `n` items moved (0: none
/// found, nothing pushed). `Err(chain)`: `inject` was closed; the chain holds every
/// claimed item, in order.
pub fn claim_and_requeue<T: Link>(
    ring: &Steal<T>,
    lifo: &LifoSlot<T>,
    inject: &Inject<T>,
    mut see: impl FnMut(&T),
) -> Result<usize, Chain<T>> {
    let mut claimed = Vec::new();
    let (_, mut scratch) = local::<T>();
    for _ in 0..CLAIM_ROUNDS {
        // The scratch ring is empty at each steal, so only an empty ring or a rival thief
        // makes it return nothing.
        let Some(first) = ring.steal_into(&mut scratch) else {
            break;
        };
        claimed.push(first);
        while let Some(item) = scratch.pop() {
            claimed.push(item);
        }
    }
    claimed.extend(lifo.steal());
    for item in &claimed {
        see(item);
    }
    let n = claimed.len();
    inject.push_batch(claimed).map(|()| n)
}
