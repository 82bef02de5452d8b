//! [`copy_bidirectional`]: copies both ways between two streams at once, until each
//! direction has seen end of file.
//!
//! Each direction is a [`CopyBuffer`] copy; when one ends, its destination is shut down
//! (so the peer on that side sees end of file), and the direction is done. Both
//! directions are polled on every poll, so one waiting does not hold up the other; the
//! whole ends when both are done, with the two byte counts, or at the first error.

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::copy::CopyBuffer;
use super::DEFAULT_BUF_SIZE;
use crate::io::{AsyncRead, AsyncWrite};

/// Where one direction stands.
enum Transfer {
    Running(CopyBuffer),
    ShuttingDown(u64),
    Done(u64),
}

fn poll_transfer<A, B>(
    cx: &mut Context<'_>,
    state: &mut Transfer,
    from: &mut A,
    to: &mut B,
) -> Poll<io::Result<u64>>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    loop {
        match state {
            Transfer::Running(buf) => {
                let n = ready!(buf.poll_copy(cx, Pin::new(&mut *from), Pin::new(&mut *to)))?;
                *state = Transfer::ShuttingDown(n);
            }
            Transfer::ShuttingDown(n) => {
                ready!(Pin::new(&mut *to).poll_shutdown(cx))?;
                *state = Transfer::Done(*n);
            }
            Transfer::Done(n) => return Poll::Ready(Ok(*n)),
        }
    }
}

/// Copies from `a` to `b` and from `b` to `a` at the same time, shutting each destination
/// down once its source reaches end of file; resolves to `(a to b, b to a)` byte counts
/// when both are done, or to the first error. Like tokio's `copy_bidirectional`, with an
/// 8 KiB buffer each way.
///
/// ```
/// use runtime::io::{self, AsyncReadExt, AsyncWriteExt};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let (mut client, mut proxy_in) = io::duplex(64);
/// let (mut proxy_out, mut server) = io::duplex(64);
/// let proxy = runtime::spawn(async move {
///     io::copy_bidirectional(&mut proxy_in, &mut proxy_out).await
/// });
/// client.write_all(b"hi").await?;
/// client.shutdown().await?;
/// let mut got = Vec::new();
/// server.read_to_end(&mut got).await?;
/// assert_eq!(got, b"hi");
/// server.shutdown().await?;
/// assert_eq!(proxy.await.unwrap()?, (2, 0));
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub async fn copy_bidirectional<A, B>(a: &mut A, b: &mut B) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    copy_both(
        a,
        b,
        CopyBuffer::new(DEFAULT_BUF_SIZE),
        CopyBuffer::new(DEFAULT_BUF_SIZE),
    )
    .await
}

/// [`copy_bidirectional`] with a buffer of `a_to_b_buf_size` bytes from `a` to `b` and
/// one of `b_to_a_buf_size` bytes the other way.
///
/// # Panics
///
/// If either size is 0 ("`a_to_b_buf_size` must be greater than 0").
pub async fn copy_bidirectional_with_sizes<A, B>(
    a: &mut A,
    b: &mut B,
    a_to_b_buf_size: usize,
    b_to_a_buf_size: usize,
) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    assert!(
        a_to_b_buf_size > 0,
        "`a_to_b_buf_size` must be greater than 0: give each direction at least 1 byte"
    );
    assert!(
        b_to_a_buf_size > 0,
        "`b_to_a_buf_size` must be greater than 0: give each direction at least 1 byte"
    );
    copy_both(
        a,
        b,
        CopyBuffer::new(a_to_b_buf_size),
        CopyBuffer::new(b_to_a_buf_size),
    )
    .await
}

async fn copy_both<A, B>(
    a: &mut A,
    b: &mut B,
    a_to_b: CopyBuffer,
    b_to_a: CopyBuffer,
) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    let mut a_to_b = Transfer::Running(a_to_b);
    let mut b_to_a = Transfer::Running(b_to_a);
    poll_fn(|cx| {
        let ab = poll_transfer(cx, &mut a_to_b, a, b)?;
        let ba = poll_transfer(cx, &mut b_to_a, b, a)?;
        // A direction that is done keeps answering `Done` on later polls.
        Poll::Ready(Ok((ready!(ab), ready!(ba))))
    })
    .await
}
