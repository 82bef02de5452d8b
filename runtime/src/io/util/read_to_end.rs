//! The futures of [`read_to_end`](crate::io::AsyncReadExt::read_to_end) ([`ReadToEnd`])
//! and [`read_to_string`](crate::io::AsyncReadExt::read_to_string) ([`ReadToString`]).
//!
//! Both read straight into a `Vec<u8>`'s spare capacity through a `ReadBuf`, remembering
//! how much of that spare capacity is already initialized (`spare_init`) so no byte is
//! zeroed twice and the reader may skip zeroing; the count resets whenever the vector
//! grows, since a reallocation keeps only the bytes up to its length. Growth is the
//! vector's own (amortized doubling), asked for 32 bytes at a time. When a vector that
//! came with room is nearly full (under 32 bytes spare), a probe read into 32 uninitialized
//! bytes on the stack comes first: at
//! end of file it returns 0 and the vector never reallocates.
//!
//! `read_to_string` reads into the string's own bytes (taken out of it while it runs)
//! and checks UTF-8 once at the end; on invalid UTF-8 (an `InvalidData` error carrying
//! the `Utf8Error`) or a read error, the string is put back as it was.

use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::mem::{self, MaybeUninit};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::io::{AsyncRead, ReadBuf};

/// The size of the probe read and of each growth request.
const PROBE: usize = 32;

/// A vector being read into: how many bytes past its length are initialized, and the
/// capacity it came with.
#[derive(Debug)]
pub(super) struct Filling {
    spare_init: usize,
    start_capacity: usize,
}

impl Filling {
    pub(super) fn new(vec: &Vec<u8>) -> Filling {
        Filling {
            spare_init: 0,
            start_capacity: vec.capacity(),
        }
    }

    /// One read into `vec`: resolves to the number of bytes appended (0: end of file).
    fn poll_once<R: AsyncRead + ?Sized>(
        &mut self,
        vec: &mut Vec<u8>,
        reader: Pin<&mut R>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<usize>> {
        let spare = vec.capacity() - vec.len();
        if spare < PROBE && vec.capacity() == self.start_capacity && self.start_capacity >= PROBE {
            let mut probe = [MaybeUninit::<u8>::uninit(); PROBE];
            let mut rb = ReadBuf::uninit(&mut probe);
            ready!(reader.poll_read(cx, &mut rb))?;
            let got = rb.filled();
            if got.len() > spare {
                vec.reserve(PROBE);
                self.spare_init = 0;
            }
            // The bytes appended within the old spare room were initialized already.
            self.spare_init = self.spare_init.saturating_sub(got.len());
            vec.extend_from_slice(got);
            return Poll::Ready(Ok(got.len()));
        }
        if spare < PROBE {
            vec.reserve(PROBE);
            self.spare_init = 0;
        }
        let len = vec.len();
        let spare: &mut [MaybeUninit<u8>] = vec.spare_capacity_mut();
        let mut rb = ReadBuf::uninit(spare);
        // SAFETY: `spare_init` counts the initialized bytes at the start of the spare
        // capacity (kept across reads, reset when the vector reallocates).
        unsafe { rb.assume_init(self.spare_init) };
        let res = reader.poll_read(cx, &mut rb);
        let n = rb.filled().len();
        let init = rb.initialized().len();
        // Whatever the outcome, the initialized count the reader left stands.
        self.spare_init = init - n;
        // SAFETY: the reader filled (so initialized) the first `n` spare bytes.
        unsafe { vec.set_len(len + n) };
        match res {
            Poll::Ready(Ok(())) => Poll::Ready(Ok(n)),
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }

    /// Reads into `vec` to end of file, adding to `*read` as it goes, and resolves to the
    /// total appended (resetting `*read`). `Interrupted` errors are retried.
    pub(super) fn poll_to_end<R: AsyncRead + ?Sized>(
        &mut self,
        vec: &mut Vec<u8>,
        mut reader: Pin<&mut R>,
        read: &mut usize,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<usize>> {
        loop {
            match ready!(self.poll_once(vec, reader.as_mut(), cx)) {
                Ok(0) => return Poll::Ready(Ok(mem::take(read))),
                Ok(n) => *read += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

/// The future of [`read_to_end`](crate::io::AsyncReadExt::read_to_end).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadToEnd<'a, R: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut Vec<u8>,
    filling: Filling,
    read: usize,
    _pin: PhantomPinned,
}

pub(super) fn read_to_end<'a, R>(reader: &'a mut R, buf: &'a mut Vec<u8>) -> ReadToEnd<'a, R>
where
    R: AsyncRead + Unpin + ?Sized,
{
    ReadToEnd {
        filling: Filling::new(buf),
        reader,
        buf,
        read: 0,
        _pin: PhantomPinned,
    }
}

impl<R: AsyncRead + Unpin + ?Sized> Future for ReadToEnd<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        me.filling
            .poll_to_end(me.buf, Pin::new(&mut *me.reader), &mut me.read, cx)
    }
}

/// The future of [`read_to_string`](crate::io::AsyncReadExt::read_to_string).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadToString<'a, R: ?Sized> {
    reader: &'a mut R,
    /// The caller's string, empty while the read runs.
    output: &'a mut String,
    /// The string's bytes, being appended to.
    buf: Vec<u8>,
    filling: Filling,
    read: usize,
    _pin: PhantomPinned,
}

pub(super) fn read_to_string<'a, R>(
    reader: &'a mut R,
    output: &'a mut String,
) -> ReadToString<'a, R>
where
    R: AsyncRead + Unpin + ?Sized,
{
    let buf = mem::take(output).into_bytes();
    ReadToString {
        filling: Filling::new(&buf),
        reader,
        output,
        buf,
        read: 0,
        _pin: PhantomPinned,
    }
}

/// Ends a read into a string's bytes `buf`, of which the last `appended` are new. With
/// valid UTF-8, `output` becomes `buf` (on an I/O error, without the appended bytes
/// unless `keep_on_io_error`). Invalid UTF-8 puts the original string back, and is an
/// `InvalidData` error carrying the `Utf8Error` unless an I/O error came first.
pub(super) fn finish_string(
    res: io::Result<usize>,
    buf: Vec<u8>,
    appended: usize,
    output: &mut String,
    keep_on_io_error: bool,
) -> io::Result<usize> {
    let original = buf.len() - appended;
    match (res, String::from_utf8(buf)) {
        (Ok(n), Ok(s)) => {
            *output = s;
            Ok(n)
        }
        (Err(e), Ok(mut s)) => {
            if !keep_on_io_error {
                s.truncate(original);
            }
            *output = s;
            Err(e)
        }
        (res, Err(bad)) => {
            let utf8 = bad.utf8_error();
            let mut bytes = bad.into_bytes();
            bytes.truncate(original);
            *output = String::from_utf8(bytes).expect("the original string is valid UTF-8");
            Err(res
                .err()
                .unwrap_or_else(|| io::Error::new(io::ErrorKind::InvalidData, utf8)))
        }
    }
}

impl<R: AsyncRead + Unpin + ?Sized> Future for ReadToString<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: no field is structurally pinned, and nothing is moved out of `self`.
        let me = unsafe { self.get_unchecked_mut() };
        let res = ready!(me.filling.poll_to_end(
            &mut me.buf,
            Pin::new(&mut *me.reader),
            &mut me.read,
            cx
        ));
        // `poll_to_end` resets `read` on success; on error it still counts the appended.
        let appended = match &res {
            Ok(n) => *n,
            Err(_) => mem::take(&mut me.read),
        };
        Poll::Ready(finish_string(
            res,
            mem::take(&mut me.buf),
            appended,
            me.output,
            false,
        ))
    }
}
