//! The channel's internal handles over the shared [`Chan`], one set for both flavors:
//! [`Tx`] (a counted strong sender), [`WeakTx`] (a counted weak sender) and [`Rx`] (the
//! receiver). The public `Sender`/`Receiver` types of each flavor wrap these, so the
//! counting (`Clone` and `Drop`) and the receiving are written once.
//!
//! `Rx` is the type that carries the queue's single-consumer contract: [`channel`] makes
//! exactly one per channel, it is not `Clone`, and every method that moves the consumer's
//! position (`pop`, `close`, the receives, the drain at drop) takes `&mut self`. So
//! whoever holds `&mut Rx` is the queue's one consumer, and a `&Rx` (`len`) is a reader
//! that no consumer step can run beside. Each `unsafe` call into the queue below rests on
//! that, and no receiver-side function is `unsafe` any more.
//!
//! Receiving (`poll_recv`): take a message; else register the waker, look again (a send
//! between the first look and the registration is seen here), and if nothing more can
//! arrive (`is_done`: every sender gone, or closed and idle, see `chan`'s module doc)
//! take what a producer may still be finishing and report the end.

use std::ops::Deref;
use std::task::{Context, Poll};

use shim::sync::atomic::Ordering::Acquire;
use shim::sync::Arc;

use super::chan::{Chan, Semaphore};
use super::queue::{Pop, Queue};
use crate::sync::wait_list::notify_all;
use crate::sync::{poll_budget, spend_budget};
use task::waits::{Active, Wait, WaitKind, WaitSlot};

/// The second half of a receiver's wait-registry key (the first: the channel's address).
const RECV_KEY: usize = usize::MAX - 1;

/// A new channel over `sem`: one strong sender and the receiver.
pub(super) fn channel<T, S: Semaphore>(sem: S) -> (Tx<T, S>, Rx<T, S>) {
    let chan = Arc::new(Chan::new(sem));
    (
        Tx { chan: chan.clone() },
        Rx {
            chan,
            rec: WaitSlot::new(),
        },
    )
}

/// A strong sender: counted in `tx_count` while it lives.
pub(super) struct Tx<T, S: Semaphore> {
    chan: Arc<Chan<T, S>>,
}

/// A weak sender: counted in `weak_count`; does not keep the channel open.
pub(super) struct WeakTx<T, S: Semaphore> {
    chan: Arc<Chan<T, S>>,
}

/// The receiver: the queue's one consumer (module doc).
pub(super) struct Rx<T, S: Semaphore> {
    chan: Arc<Chan<T, S>>,
    /// Our wait record in the registry (task dumps). It stays between waits (it shows
    /// only while the receiver's waker is stored, `AtomicWaker::is_armed`) and goes with
    /// the receiver, so a receiver that waits again in the same task pays one compare.
    rec: WaitSlot,
}

impl<T, S: Semaphore> Deref for Tx<T, S> {
    type Target = Chan<T, S>;
    fn deref(&self) -> &Chan<T, S> {
        &self.chan
    }
}

impl<T, S: Semaphore> Deref for WeakTx<T, S> {
    type Target = Chan<T, S>;
    fn deref(&self) -> &Chan<T, S> {
        &self.chan
    }
}

impl<T, S: Semaphore> Deref for Rx<T, S> {
    type Target = Chan<T, S>;
    fn deref(&self) -> &Chan<T, S> {
        &self.chan
    }
}

impl<T, S: Semaphore> Tx<T, S> {
    /// True when both belong to the same channel.
    pub(super) fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.chan, &other.chan)
    }

    /// A weak sender of this channel.
    pub(super) fn downgrade(&self) -> WeakTx<T, S> {
        self.chan.inc_weak();
        WeakTx {
            chan: self.chan.clone(),
        }
    }
}

impl<T, S: Semaphore> Clone for Tx<T, S> {
    fn clone(&self) -> Self {
        self.chan.inc_tx();
        Tx {
            chan: self.chan.clone(),
        }
    }
}

impl<T, S: Semaphore> Drop for Tx<T, S> {
    fn drop(&mut self) {
        self.chan.dec_tx();
    }
}

impl<T, S: Semaphore> WeakTx<T, S> {
    /// A strong sender, unless every strong sender is already gone.
    pub(super) fn upgrade(&self) -> Option<Tx<T, S>> {
        self.chan.try_inc_tx().then(|| Tx {
            chan: self.chan.clone(),
        })
    }
}

impl<T, S: Semaphore> Clone for WeakTx<T, S> {
    fn clone(&self) -> Self {
        self.chan.inc_weak();
        WeakTx {
            chan: self.chan.clone(),
        }
    }
}

impl<T, S: Semaphore> Drop for WeakTx<T, S> {
    fn drop(&mut self) {
        self.chan.dec_weak();
    }
}

impl<T, S: Semaphore> Rx<T, S> {
    /// Closes the channel for sending; wakes the senders waiting for capacity (they fail)
    /// and those waiting in `closed()`.
    pub(super) fn close(&mut self) {
        // SAFETY: `&mut self` of the one `Rx`: we are the queue's one consumer.
        unsafe { self.chan.sem.close(&self.chan.queue) };
        notify_all(&self.chan.closed_waiters);
    }

    /// True when nothing more can arrive (see `chan`'s module doc); the caller looks at
    /// the queue once more afterwards.
    fn is_done(&mut self) -> bool {
        let chan = &*self.chan;
        // Acquire: pairs with the senders' release decrements (their pushes).
        chan.tx_count.load(Acquire) == 0
            // SAFETY: `&mut self` of the one `Rx`: we are the queue's one consumer.
            || unsafe { chan.sem.is_closed_and_idle(&chan.queue) }
    }

    /// Takes one message if one is there.
    fn pop(&mut self) -> Option<T> {
        // SAFETY: `&mut self` of the one `Rx`: we are the queue's one consumer.
        match unsafe { self.chan.queue.pop() } {
            Pop::Value(v) => {
                self.chan.sem.add_permit();
                Some(v)
            }
            Pop::Empty | Pop::Busy => None,
        }
    }

    /// Takes one message, waiting out a producer caught between claim and write.
    fn pop_wait(&mut self) -> Option<T> {
        loop {
            // SAFETY: `&mut self` of the one `Rx`: we are the queue's one consumer.
            match unsafe { self.chan.queue.pop() } {
                Pop::Value(v) => {
                    self.chan.sem.add_permit();
                    return Some(v);
                }
                Pop::Empty => return None,
                // The producer is a few instructions from done (it runs no user code
                // between claim and write); let it finish.
                Pop::Busy => shim::thread::yield_now(),
            }
        }
    }

    /// Polls for the next message; `None` once the channel is done and drained.
    pub(super) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        std::task::ready!(poll_budget(cx));
        if let Some(v) = self.pop() {
            spend_budget(cx);
            return Poll::Ready(Some(v));
        }
        self.chan.rx_waker.register(cx.waker());
        if let Some(v) = self.pop() {
            spend_budget(cx);
            return Poll::Ready(Some(v));
        }
        if self.is_done() {
            let v = self.pop_wait();
            spend_budget(cx);
            return Poll::Ready(v);
        }
        self.record_wait(cx.waker());
        Poll::Pending
    }

    fn wait_key(&self) -> (usize, usize) {
        (Arc::as_ptr(&self.chan) as usize, RECV_KEY)
    }

    /// Records this receiver's wait for task dumps (`task::waits`): its task, until the
    /// receiver drops or another task's waker replaces it (once per new waker: the slot).
    /// The record counts while the channel's waker slot is armed.
    #[inline]
    fn record_wait(&mut self, waker: &std::task::Waker) {
        let wait = Wait::on(WaitKind::MpscRecv, Arc::as_ptr(&self.chan) as usize);
        let active = Active::of(&self.chan.rx_waker);
        let key = self.wait_key();
        // SAFETY: `active` tests the channel's waker slot, which our `Arc` keeps alive
        // until our drop forgets the record.
        unsafe { self.rec.record(key, waker, wait, None, Some(active)) };
    }

    /// Moves up to `limit` messages into `buf`, waiting for the first.
    pub(super) fn poll_recv_many(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        if limit == 0 {
            return Poll::Ready(0);
        }
        match self.poll_recv(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(None) => Poll::Ready(0),
            Poll::Ready(Some(v)) => {
                // Room for what is there now (claims in flight included), not for `limit`:
                // a large limit on a quiet channel does not grow the buffer.
                let queued = self.len();
                buf.reserve(queued.min(limit - 1) + 1);
                buf.push(v);
                let mut n = 1;
                while n < limit {
                    match self.pop() {
                        Some(v) => {
                            buf.push(v);
                            n += 1;
                        }
                        None => break,
                    }
                }
                Poll::Ready(n)
            }
        }
    }

    /// `Ok(Some)`: a message; `Ok(None)`: empty for now; `Err(())`: done.
    pub(super) fn try_recv(&mut self) -> Result<Option<T>, ()> {
        if let Some(v) = self.pop_wait() {
            return Ok(Some(v));
        }
        if self.is_done() {
            return self.pop_wait().map(Some).ok_or(());
        }
        Ok(None)
    }

    /// The number of messages queued (claims in flight included).
    pub(super) fn len(&self) -> usize {
        // SAFETY: `&self` of the one `Rx`: every consumer step takes `&mut self`, so none
        // runs while we read the consumer's position.
        unsafe { self.chan.queue.len() }
    }
}

impl<T, S: Semaphore> Drop for Rx<T, S> {
    /// Closes, drops the registered waker, and drops what is queued now (a message still
    /// being written goes with the queue). A message whose `Drop` panics does not keep
    /// the others queued: the guard drains them while the panic unwinds.
    fn drop(&mut self) {
        // Before the `Arc` goes: the record's test reads the channel.
        self.rec.forget();
        self.close();
        // No registration follows (the receiver is going): the waker, and the task it
        // keeps alive, go now rather than with the last sender.
        drop(self.chan.rx_waker.take());
        struct Drain<'a, T, S: Semaphore>(&'a mut Rx<T, S>);
        impl<T, S: Semaphore> Drain<'_, T, S> {
            fn run(&mut self) {
                // `pop` takes each message out (and returns its permit) before it is
                // dropped, so a message whose drop panics is not dropped again.
                while let Some(v) = self.0.pop() {
                    drop(v);
                }
            }
        }
        impl<T, S: Semaphore> Drop for Drain<'_, T, S> {
            fn drop(&mut self) {
                // Reached with messages left only while a message's drop unwinds.
                self.run();
            }
        }
        Drain(self).run();
    }
}
