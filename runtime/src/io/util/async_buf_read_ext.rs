//! [`AsyncBufReadExt`]: the utility methods of every [`AsyncBufRead`]: delimiter and
//! line scanning over the reader's own buffer, and direct access to that buffer.

use std::pin::Pin;

use super::fill_buf::{fill_buf, FillBuf};
use super::lines::{lines, Lines};
use super::read_until::{read_line, read_until, ReadLine, ReadUntil};
use super::split_segments::{split, Split};
use crate::io::AsyncBufRead;

/// Buffered-reading utilities for every [`AsyncBufRead`] (tokio's `AsyncBufReadExt`);
/// implemented for all of them.
///
/// ```
/// use runtime::io::AsyncBufReadExt;
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut src: &[u8] = b"one\ntwo\r\nthree";
/// let mut first = String::new();
/// src.read_line(&mut first).await?;
/// assert_eq!(first, "one\n");
/// let mut lines = src.lines();
/// assert_eq!(lines.next_line().await?.as_deref(), Some("two"));
/// assert_eq!(lines.next_line().await?.as_deref(), Some("three"));
/// assert_eq!(lines.next_line().await?, None);
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub trait AsyncBufReadExt: AsyncBufRead {
    /// Reads up to and including `byte` (or to end of file), appending to `buf`, and
    /// resolves to the number of bytes appended (0: end of file). Cancel safe: bytes of a
    /// segment read before a drop stay appended to `buf`, and a new call continues it.
    fn read_until<'a>(&'a mut self, byte: u8, buf: &'a mut Vec<u8>) -> ReadUntil<'a, Self>
    where
        Self: Unpin,
    {
        read_until(self, byte, buf)
    }

    /// Reads up to and including `\n` (or to end of file), appending to `buf`, and
    /// resolves to the number of bytes appended (0: end of file). Invalid UTF-8 is an
    /// `InvalidData` error and leaves `buf` as it was. Not cancel safe: the future holds
    /// `buf`'s contents while it runs, so dropping it early may lose them.
    fn read_line<'a>(&'a mut self, buf: &'a mut String) -> ReadLine<'a, Self>
    where
        Self: Unpin,
    {
        read_line(self, buf)
    }

    /// The segments of `self` between `byte`s (delimiter removed), as a [`Split`].
    fn split(self, byte: u8) -> Split<Self>
    where
        Self: Sized + Unpin,
    {
        split(self, byte)
    }

    /// Resolves to the reader's buffered bytes, reading more first if none are left (an
    /// empty slice: end of file). Pair with [`consume`](AsyncBufReadExt::consume).
    fn fill_buf(&mut self) -> FillBuf<'_, Self>
    where
        Self: Unpin,
    {
        fill_buf(self)
    }

    /// Marks `amt` buffered bytes used.
    fn consume(&mut self, amt: usize)
    where
        Self: Unpin,
    {
        Pin::new(self).consume(amt)
    }

    /// The lines of `self` (without `\n` or `\r\n`), as a [`Lines`].
    fn lines(self) -> Lines<Self>
    where
        Self: Sized,
    {
        lines(self)
    }
}

impl<R: AsyncBufRead + ?Sized> AsyncBufReadExt for R {}
