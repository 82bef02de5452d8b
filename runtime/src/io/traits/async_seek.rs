//! [`AsyncSeek`]: moving the cursor of a seekable stream in two steps.
//!
//! `start_seek` submits the new position (it cannot wait) and `poll_complete` waits for
//! the seek to finish and returns the resulting offset from the start. `poll_complete`
//! without a pending seek returns the current position. Pointer types forward;
//! `std::io::Cursor` seeks at once.

use std::io::{self, SeekFrom};
use std::ops::DerefMut;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Seeks within a stream asynchronously: tokio's `AsyncSeek`.
///
/// Utility methods (`seek`, `rewind`, `stream_position`) are in
/// [`AsyncSeekExt`](crate::io::AsyncSeekExt).
pub trait AsyncSeek {
    /// Starts a seek to `position`. Call [`poll_complete`](AsyncSeek::poll_complete)
    /// first if another seek may be in progress: starting one while another is pending
    /// may return an error.
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()>;

    /// Waits for the seek started last to complete and returns the new position from
    /// the start of the stream; with no seek pending, returns the current position.
    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>>;
}

impl<T: ?Sized + AsyncSeek + Unpin> AsyncSeek for Box<T> {
    fn start_seek(mut self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        Pin::new(&mut **self).start_seek(pos)
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Pin::new(&mut **self).poll_complete(cx)
    }
}

impl<T: ?Sized + AsyncSeek + Unpin> AsyncSeek for &mut T {
    fn start_seek(mut self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        Pin::new(&mut **self).start_seek(pos)
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Pin::new(&mut **self).poll_complete(cx)
    }
}

impl<P> AsyncSeek for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncSeek,
{
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        super::pin_as_deref_mut(self).start_seek(pos)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        super::pin_as_deref_mut(self).poll_complete(cx)
    }
}

impl<T: AsRef<[u8]> + Unpin> AsyncSeek for io::Cursor<T> {
    fn start_seek(mut self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        io::Seek::seek(&mut *self, pos).map(drop)
    }

    fn poll_complete(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Poll::Ready(Ok(self.get_mut().position()))
    }
}
