//! The bounded channel's reservations: [`Permit`] (borrows its sender), [`PermitIterator`]
//! (several at once) and [`OwnedPermit`] (owns its sender). Each holds capacity taken from
//! the channel's semaphore: sending moves it into the message (the receiver gives it back
//! when it takes the message out); dropping unused gives it back at once, waking the
//! receiver if the channel was closed and this was the last outstanding permit.

use std::fmt;

use super::bounded::{BChan, Sender};

/// Room for one message, reserved by [`Sender::reserve`]: [`send`](Permit::send) cannot
/// fail or wait. Dropping it unused gives the room back.
pub struct Permit<'a, T> {
    pub(super) chan: &'a BChan<T>,
}

/// Room for several messages, reserved by [`Sender::reserve_many`]: yields one [`Permit`]
/// each; those not taken are given back when it is dropped.
pub struct PermitIterator<'a, T> {
    pub(super) chan: &'a BChan<T>,
    pub(super) n: usize,
}

/// Room for one message, owning its sender ([`Sender::reserve_owned`]): can be moved
/// into another task. [`send`](OwnedPermit::send) gives the sender back.
pub struct OwnedPermit<T> {
    pub(super) tx: Option<Sender<T>>,
}

impl<'a, T> Permit<'a, T> {
    /// Sends `value` into the reserved room: cannot fail or wait (if the receiver is gone
    /// the value is dropped with the channel).
    pub fn send(self, value: T) {
        let chan = self.chan;
        std::mem::forget(self);
        chan.push(value);
    }
}

impl<T> Drop for Permit<'_, T> {
    fn drop(&mut self) {
        self.chan.sem.release(1);
        self.chan.permit_returned();
    }
}

impl<'a, T> Iterator for PermitIterator<'a, T> {
    type Item = Permit<'a, T>;

    fn next(&mut self) -> Option<Permit<'a, T>> {
        if self.n == 0 {
            return None;
        }
        self.n -= 1;
        Some(Permit { chan: self.chan })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.n, Some(self.n))
    }
}

impl<T> ExactSizeIterator for PermitIterator<'_, T> {}

impl<T> std::iter::FusedIterator for PermitIterator<'_, T> {}

impl<T> Drop for PermitIterator<'_, T> {
    fn drop(&mut self) {
        if self.n > 0 {
            self.chan.sem.release(self.n);
            self.chan.permit_returned();
        }
    }
}

impl<T> OwnedPermit<T> {
    /// Sends `value` into the reserved room and gives the sender back.
    pub fn send(mut self, value: T) -> Sender<T> {
        let tx = self.tx.take().expect("an OwnedPermit holds its sender");
        tx.chan.push(value);
        tx
    }

    /// Gives the room back unused, and the sender with it.
    pub fn release(mut self) -> Sender<T> {
        let tx = self.tx.take().expect("an OwnedPermit holds its sender");
        tx.chan.sem.release(1);
        tx.chan.permit_returned();
        tx
    }

    /// True when this permit belongs to `sender`'s channel.
    pub fn same_channel_as_sender(&self, sender: &Sender<T>) -> bool {
        self.tx.as_ref().is_some_and(|tx| tx.same_channel(sender))
    }

    /// True when both belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        match (&self.tx, &other.tx) {
            (Some(a), Some(b)) => a.same_channel(b),
            _ => false,
        }
    }
}

impl<T> Drop for OwnedPermit<T> {
    fn drop(&mut self) {
        if let Some(tx) = self.tx.take() {
            tx.chan.sem.release(1);
            tx.chan.permit_returned();
        }
    }
}

impl<T> fmt::Debug for Permit<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permit").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for PermitIterator<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PermitIterator")
            .field("remaining", &self.n)
            .finish()
    }
}

impl<T> fmt::Debug for OwnedPermit<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedPermit").finish_non_exhaustive()
    }
}
