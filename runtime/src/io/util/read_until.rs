//! Delimiter scanning over an [`AsyncBufRead`]'s buffer: [`poll_read_until`] (shared with
//! `Lines` and `Split`), and the futures of
//! [`read_until`](crate::io::AsyncBufReadExt::read_until) ([`ReadUntil`]) and
//! [`read_line`](crate::io::AsyncBufReadExt::read_line) ([`ReadLine`]).
//!
//! Each step takes the reader's buffered bytes, appends them up to and including the
//! delimiter (or all of them if it is absent) to the output and consumes what it
//! appended; it ends at the delimiter or at end of file (an empty buffer). Since every
//! appended byte is consumed at once, a `Pending` step loses nothing: the bytes stay in
//! the output and the count of them in the caller's `read`.
//!
//! `read_line` appends to the string's own bytes (taken out of it while it runs) and
//! checks UTF-8 once at the end (see `read_to_end::finish_string`): on invalid UTF-8
//! the string is put back as it was; on an I/O error what was read stays appended.

use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::mem;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::read_to_end::finish_string;
use crate::io::AsyncBufRead;

/// Appends to `buf` up to and including `delim` or to end of file, adding to `*read` as
/// it goes; resolves to the total appended, resetting `*read`. `Interrupted` errors are
/// retried.
pub(super) fn poll_read_until<R: AsyncBufRead + ?Sized>(
    mut reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    delim: u8,
    buf: &mut Vec<u8>,
    read: &mut usize,
) -> Poll<io::Result<usize>> {
    loop {
        let (found, used) = {
            let available = match ready!(reader.as_mut().poll_fill_buf(cx)) {
                Ok(available) => available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Poll::Ready(Err(e)),
            };
            match available.iter().position(|&b| b == delim) {
                Some(i) => {
                    buf.extend_from_slice(&available[..=i]);
                    (true, i + 1)
                }
                None => {
                    buf.extend_from_slice(available);
                    (false, available.len())
                }
            }
        };
        reader.as_mut().consume(used);
        *read += used;
        if found || used == 0 {
            return Poll::Ready(Ok(mem::take(read)));
        }
    }
}

/// The future of [`read_until`](crate::io::AsyncBufReadExt::read_until).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadUntil<'a, R: ?Sized> {
    reader: &'a mut R,
    delimiter: u8,
    buf: &'a mut Vec<u8>,
    read: usize,
    _pin: PhantomPinned,
}

pub(super) fn read_until<'a, R>(
    reader: &'a mut R,
    delimiter: u8,
    buf: &'a mut Vec<u8>,
) -> ReadUntil<'a, R>
where
    R: AsyncBufRead + ?Sized + Unpin,
{
    ReadUntil {
        reader,
        delimiter,
        buf,
        read: 0,
        _pin: PhantomPinned,
    }
}

impl<R: AsyncBufRead + ?Sized + Unpin> Future for ReadUntil<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        poll_read_until(
            Pin::new(&mut *me.reader),
            cx,
            me.delimiter,
            me.buf,
            &mut me.read,
        )
    }
}

/// The future of [`read_line`](crate::io::AsyncBufReadExt::read_line).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadLine<'a, R: ?Sized> {
    reader: &'a mut R,
    /// The caller's string, empty while the read runs.
    output: &'a mut String,
    /// The string's bytes, being appended to.
    buf: Vec<u8>,
    read: usize,
    _pin: PhantomPinned,
}

pub(super) fn read_line<'a, R>(reader: &'a mut R, output: &'a mut String) -> ReadLine<'a, R>
where
    R: AsyncBufRead + ?Sized + Unpin,
{
    ReadLine {
        reader,
        buf: mem::take(output).into_bytes(),
        output,
        read: 0,
        _pin: PhantomPinned,
    }
}

impl<R: AsyncBufRead + ?Sized + Unpin> Future for ReadLine<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        let res = ready!(poll_read_until(
            Pin::new(&mut *me.reader),
            cx,
            b'\n',
            &mut me.buf,
            &mut me.read
        ));
        // `poll_read_until` resets `read` on success; on error it still counts the appended.
        let appended = match &res {
            Ok(n) => *n,
            Err(_) => mem::take(&mut me.read),
        };
        Poll::Ready(finish_string(
            res,
            mem::take(&mut me.buf),
            appended,
            me.output,
            true,
        ))
    }
}
