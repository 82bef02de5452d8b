//! [`split`]: one `AsyncRead + AsyncWrite` value as a [`ReadHalf`] and a [`WriteHalf`]
//! that can be used (and moved) separately.
//!
//! Both halves share the value in an `Arc` behind a mutex: each poll locks it for the
//! duration of that one poll, so the halves never touch the value at the same time, and
//! it never moves while shared (so it may be polled pinned). [`ReadHalf::unsplit`] takes
//! it back once the matching write half is given up. A half is `Send` when the value is
//! `Send`, and `Sync` when it is `Sync` (a shared half exposes nothing of the value).

use std::fmt;
use std::io;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use parking_lot::Mutex;

use crate::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The read half of a value [`split`] in two: tokio's `ReadHalf`.
pub struct ReadHalf<T> {
    inner: Arc<Inner<T>>,
    /// Opts out of the auto `Send`/`Sync`; the impls below give tokio's bounds.
    _not_auto: PhantomData<*const ()>,
}

/// The write half of a value [`split`] in two: tokio's `WriteHalf`.
pub struct WriteHalf<T> {
    inner: Arc<Inner<T>>,
    _not_auto: PhantomData<*const ()>,
}

struct Inner<T> {
    stream: Mutex<T>,
    is_write_vectored: bool,
}

impl<T> Inner<T> {
    fn with_lock<R>(&self, f: impl FnOnce(Pin<&mut T>) -> R) -> R {
        let mut guard = self.stream.lock();
        // SAFETY: the value lives in the `Arc` at a fixed address until `unsplit`, which
        // needs `T: Unpin` to move it out, so it is never moved after being pinned here.
        f(unsafe { Pin::new_unchecked(&mut *guard) })
    }
}

/// Splits a value that reads and writes into a read half and a write half.
///
/// ```
/// use runtime::io::{self, AsyncReadExt, AsyncWriteExt};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let (a, mut b) = io::duplex(64);
/// let (mut rd, mut wr) = io::split(a);
/// wr.write_all(b"out").await?;
/// b.write_all(b"in").await?;
/// let mut got = [0; 2];
/// rd.read_exact(&mut got).await?;
/// assert_eq!(&got, b"in");
/// let _a = rd.unsplit(wr);
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub fn split<T>(stream: T) -> (ReadHalf<T>, WriteHalf<T>)
where
    T: AsyncRead + AsyncWrite,
{
    let inner = Arc::new(Inner {
        is_write_vectored: stream.is_write_vectored(),
        stream: Mutex::new(stream),
    });
    (
        ReadHalf {
            inner: inner.clone(),
            _not_auto: PhantomData,
        },
        WriteHalf {
            inner,
            _not_auto: PhantomData,
        },
    )
}

impl<T> ReadHalf<T> {
    /// Whether `other` is the write half split off together with this one.
    pub fn is_pair_of(&self, other: &WriteHalf<T>) -> bool {
        other.is_pair_of(self)
    }

    /// Puts the value back together from its two halves.
    ///
    /// # Panics
    ///
    /// If `wr` is not this half's pair ("Unrelated `split::Write` passed to
    /// `split::Read::unsplit`.").
    #[track_caller]
    pub fn unsplit(self, wr: WriteHalf<T>) -> T
    where
        T: Unpin,
    {
        assert!(
            self.is_pair_of(&wr),
            "Unrelated `split::Write` passed to `split::Read::unsplit`. Pass the write half \
             that `split` returned with this read half (check with `is_pair_of`)."
        );
        drop(wr);
        let inner = Arc::try_unwrap(self.inner)
            .ok()
            .expect("`Arc::try_unwrap` failed: the two halves are the only owners");
        inner.stream.into_inner()
    }
}

impl<T> WriteHalf<T> {
    /// Whether `other` is the read half split off together with this one.
    pub fn is_pair_of(&self, other: &ReadHalf<T>) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl<T: AsyncRead> AsyncRead for ReadHalf<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.inner.with_lock(|s| s.poll_read(cx, buf))
    }
}

impl<T: AsyncWrite> AsyncWrite for WriteHalf<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.inner.with_lock(|s| s.poll_write(cx, buf))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.inner.with_lock(|s| s.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.inner.with_lock(|s| s.poll_shutdown(cx))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.inner.with_lock(|s| s.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored
    }
}

// SAFETY: the value is only reached under the mutex, one half at a time, so moving a half
// to another thread needs only `T: Send`.
unsafe impl<T: Send> Send for ReadHalf<T> {}
// SAFETY: as for `ReadHalf`.
unsafe impl<T: Send> Send for WriteHalf<T> {}
// SAFETY: a shared `&ReadHalf` reaches nothing of the value (`is_pair_of` compares
// pointers), so sharing one needs only `T: Sync`.
unsafe impl<T: Sync> Sync for ReadHalf<T> {}
// SAFETY: a shared `&WriteHalf` reaches only `is_write_vectored`, a plain `bool`.
unsafe impl<T: Sync> Sync for WriteHalf<T> {}

impl<T: fmt::Debug> fmt::Debug for ReadHalf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("split::ReadHalf").finish()
    }
}

impl<T: fmt::Debug> fmt::Debug for WriteHalf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("split::WriteHalf").finish()
    }
}
