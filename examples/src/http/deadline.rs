//! The connection's one timer, and I/O that must keep making progress.
//!
//! A connection owns one [`Timer`] for every wait it bounds: the request-head deadline
//! (fixed for the whole head), and the progress timeouts of body reads and of writes. The
//! `Sleep` inside is created (boxed, as a `Sleep` is `!Unpin`: one allocation per
//! connection) on the first wait that needs it and then only moved: when it is armed later
//! than the deadline now wanted it is reset to that deadline; when it fires before the
//! deadline now wanted (it was armed for an earlier one) it is reset and polled again. So a
//! wait that is satisfied before its deadline -- the common case -- costs one poll of the
//! timer, never an allocation.
//!
//! A progress timeout ([`timed`]) bounds the time one I/O operation stays pending: the
//! deadline is taken (one clock read) the first time the operation returns `Pending`, and
//! every operation that completes starts afresh. Looping `timed` over the reads of a body
//! or the writes of a response therefore drops a peer only after `timeout` with no byte
//! moving, however long the whole transfer takes.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use runtime::time::{sleep_until, Instant, Sleep};

/// The connection's timer (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Timer {
    sleep: Option<Pin<Box<Sleep>>>,
}

impl Timer {
    pub(crate) fn new() -> Timer {
        Timer { sleep: None }
    }

    /// Ready once `deadline` has passed; until then registers `cx` to be woken at it.
    pub(crate) fn poll_reached(&mut self, cx: &mut Context<'_>, deadline: Instant) -> Poll<()> {
        let sleep = self
            .sleep
            .get_or_insert_with(|| Box::pin(sleep_until(deadline)));
        if sleep.deadline() > deadline {
            sleep.as_mut().reset(deadline);
        }
        // Armed for an earlier deadline than this one: move it on and wait again.
        while sleep.as_mut().poll(cx).is_ready() {
            if Instant::now() >= deadline {
                return Poll::Ready(());
            }
            sleep.as_mut().reset(deadline);
        }
        Poll::Pending
    }
}

/// Runs the I/O operation `op` to completion unless it stays pending for `timeout`:
/// `Some(output)`, or `None` when the time ran out first.
pub(crate) async fn timed<T>(
    timer: &mut Timer,
    timeout: Duration,
    mut op: impl FnMut(&mut Context<'_>) -> Poll<T>,
) -> Option<T> {
    let mut deadline = None;
    poll_fn(|cx| {
        if let Poll::Ready(out) = op(cx) {
            return Poll::Ready(Some(out));
        }
        let deadline = *deadline.get_or_insert_with(|| Instant::now() + timeout);
        timer.poll_reached(cx, deadline).map(|()| None)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timed_gives_up_only_on_an_operation_that_stays_pending() {
        let rt = runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut timer = Timer::new();
            // Ready at once: its output, however short the timeout.
            let out = timed(&mut timer, Duration::ZERO, |_| Poll::Ready(7)).await;
            assert_eq!(out, Some(7));
            // Never ready: gives up.
            let out = timed(&mut timer, Duration::from_millis(10), |_| {
                Poll::<()>::Pending
            })
            .await;
            assert_eq!(out, None);
            // Ready on a later poll (woken by the timer armed for a far deadline moving
            // nearer): its output.
            let mut polls = 0;
            let out = timed(&mut timer, Duration::from_secs(60), |cx| {
                polls += 1;
                if polls < 3 {
                    cx.waker().wake_by_ref();
                    Poll::Pending
                } else {
                    Poll::Ready("done")
                }
            })
            .await;
            assert_eq!(out, Some("done"));
        });
    }
}
