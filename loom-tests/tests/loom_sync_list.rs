//! loom suite for the unbounded channel's block list (`runtime/src/sync/mpsc/list.rs`, the
//! shipping code through the shim; 2 slots per block under loom): a producer still walking
//! through a block while another moves `block_tail` past it and the consumer releases and
//! recycles blocks.
//!
//! The list's contract under test: a block is recycled only once every producer that may
//! walk through it is done (the producer that moves `block_tail` records `observed_tail`,
//! and the consumer recycles only after taking every message below it). A block recycled
//! too early is reset (`next` cleared, `start` moved) under a walking producer, which then
//! writes its message into the wrong block or walks on without end: a message is lost,
//! duplicated or out of order (the consumer's assertions), or loom reports the endless walk
//! ("Model exceeded maximum number of branches"); loom also checks every slot's cell, which
//! the consumer touches before it recycles a block.
//!
//! `producer_walking_a_block_released_from_a_stale_tail`: the same race a block further
//! on, with blocks recycled ahead of `block_tail` beforehand, so that the consumer's head
//! can pass the released block while a producer still walks it and has not grown the
//! chain: one producer sends the first message (and moves `block_tail`), the receiver's
//! thread the second, a producer it starts after that the third. It reaches a mover that
//! reads `tail_pos` before its move (`observed_tail` too low). Without the recycled blocks
//! the consumer passes the block only once the walking producer grew the chain past it,
//! which takes a fourth sender and more preemptions (not measured).
//!
//! The larger block-list models (recycled blocks reused by one producer, two producers
//! crossing into the second block) are in `loom_sync_chan::mpsc`.
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 2 when unset;
//! `producer_walking_a_block_released_from_a_stale_tail` runs at 3 at least: the schedule
//! it needs has two preemptions (the mover after its claim, the walker after its load of
//! `block_tail`), but loom's bounded partial-order search reaches it only at bound 3.

#![cfg(loom)]

use loom::thread;
use runtime::sync::mpsc::{self, error::TryRecvError};

/// Runs `f` under loom at `LOOM_MAX_PREEMPTIONS` (2 when unset) and prints how many
/// executions it explored (run with `--nocapture` to see it).
fn model(f: impl Fn() + Sync + Send + 'static) {
    loom_tests::model(f, 2);
}

/// Receives one message by polling `try_recv` (a sender that never sends leaves loom
/// spinning, which it reports); `None` once every sender is gone.
fn spin_recv<T>(rx: &mut mpsc::UnboundedReceiver<T>) -> Option<T> {
    loop {
        match rx.try_recv() {
            Ok(v) => return Some(v),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => thread::yield_now(),
        }
    }
}

/// Block 0 (messages 0 and 1) is written before the threads start. Two producers send one
/// message each into block 1: the one that claims index 2 moves `block_tail` past block 0,
/// records `observed_tail` and releases block 0; the one with index 3 may have loaded
/// `block_tail` before the move and still walk through block 0. The consumer takes all
/// four, recycling block 0 once it reaches block 1. Every message arrives once, 0 and 1
/// first.
#[test]
fn producer_walking_a_block_the_consumer_recycles() {
    model(|| {
        let (tx, mut rx) = mpsc::unbounded_channel::<u8>();
        tx.send(0).unwrap();
        tx.send(1).unwrap();
        let (ta, tb) = (tx.clone(), tx);
        let a = thread::spawn(move || ta.send(2).unwrap());
        let b = thread::spawn(move || tb.send(3).unwrap());
        let mut got = Vec::new();
        while let Some(v) = spin_recv(&mut rx) {
            got.push(v);
        }
        got[2..].sort();
        assert_eq!(got, [0, 1, 2, 3], "every message once");
        a.join().unwrap();
        b.join().unwrap();
    });
}

/// Runs `f` at bound 3 (or `LOOM_MAX_PREEMPTIONS` when that is higher), for the one model
/// whose race loom's bounded search reaches only there, and prints the executions.
fn model_3(f: impl Fn() + Sync + Send + 'static) {
    let env = loom::model::Builder::new().preemption_bound.unwrap_or(0);
    loom_tests::model_at(f, env.max(3));
}

/// The chain is longer than the claims: eight messages sent and taken one by one leave
/// `block_tail` on the full block of 6 and 7, and the consumer's recycled blocks linked
/// after it for 8-9 and 10-11, so the consumer can move its head into 10's block without a
/// producer growing the chain. A producer sends the next message (index 8: it moves
/// `block_tail` past the block of 6 and records `observed_tail`), the receiver's thread
/// sends 9, then starts a second producer, which sends 10, and takes the three. The second
/// producer may load `block_tail` before the first one's move and still walk through the
/// block of 6; the consumer must not recycle that block before 10 is written, though it
/// can take 8 and 9 and reach 10's block first. A mover that reads `tail_pos` before its
/// move records a tail without 10 and lets the consumer recycle the block under that
/// producer, which then walks a reset block (its `start` past the claim, its `next` at the
/// end of the chain) without end.
#[test]
fn producer_walking_a_block_released_from_a_stale_tail() {
    model_3(|| {
        let (tx, mut rx) = mpsc::unbounded_channel::<u8>();
        for i in 0..8 {
            tx.send(i).unwrap();
        }
        for i in 0..8 {
            assert_eq!(rx.try_recv(), Ok(i), "the warm-up messages in order");
        }
        let ta = tx.clone();
        let a = thread::spawn(move || ta.send(8).unwrap());
        // The first producer claims first (or not: loom tries both).
        thread::yield_now();
        tx.send(9).unwrap();
        let tb = tx.clone();
        let b = thread::spawn(move || tb.send(10).unwrap());
        drop(tx);
        let mut got = Vec::new();
        while let Some(v) = spin_recv(&mut rx) {
            got.push(v);
        }
        got.sort();
        assert_eq!(got, [8, 9, 10], "every message once");
        a.join().unwrap();
        b.join().unwrap();
    });
}
