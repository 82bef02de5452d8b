//! [`AsyncReadExt`]: the utility methods of every [`AsyncRead`], each returning a future
//! (or an adapter) that drives `poll_read`.
//!
//! A method taking `&mut self` needs `Self: Unpin` so the future can poll a plain
//! `&mut Self`; pin a `!Unpin` reader first (`Box::pin`, `std::pin::pin!`).

use bytes::BufMut;

use super::chain::{chain, Chain};
use super::read::{read, read_buf, read_exact, Read, ReadBuf, ReadExact};
use super::read_int::{
    ReadF32, ReadF32Le, ReadF64, ReadF64Le, ReadI128, ReadI128Le, ReadI16, ReadI16Le, ReadI32,
    ReadI32Le, ReadI64, ReadI64Le, ReadI8, ReadU128, ReadU128Le, ReadU16, ReadU16Le, ReadU32,
    ReadU32Le, ReadU64, ReadU64Le, ReadU8,
};
use super::read_to_end::{read_to_end, read_to_string, ReadToEnd, ReadToString};
use super::take::{take, Take};
use crate::io::AsyncRead;

/// One `read_<number>` method per integer/float future: reads the value's bytes in full
/// (an `UnexpectedEof` error if the source ends first) and decodes them.
macro_rules! read_number {
    ($($(#[$doc:meta])* fn $name:ident -> $fut:ident;)*) => {$(
        $(#[$doc])*
        fn $name(&mut self) -> $fut<&mut Self>
        where
            Self: Unpin,
        {
            $fut::new(self)
        }
    )*};
}

/// Reading utilities for every [`AsyncRead`] (tokio's `AsyncReadExt`); implemented for
/// all of them.
///
/// ```
/// use runtime::io::AsyncReadExt;
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut src: &[u8] = &[0, 1, 0xff, 0xfe, b'h', b'i'];
/// assert_eq!(src.read_u16().await?, 1);
/// assert_eq!(src.read_i16_le().await?, -257);
/// let mut rest = String::new();
/// src.read_to_string(&mut rest).await?;
/// assert_eq!(rest, "hi");
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub trait AsyncReadExt: AsyncRead {
    /// An adapter that reads all of `self`, then all of `next`.
    fn chain<R>(self, next: R) -> Chain<Self, R>
    where
        Self: Sized,
        R: AsyncRead,
    {
        chain(self, next)
    }

    /// Reads some bytes into `buf`, resolving to how many (0: end of file, or an empty
    /// `buf`). Cancel safe: nothing was read if the future is dropped before completing.
    fn read<'a>(&'a mut self, buf: &'a mut [u8]) -> Read<'a, Self>
    where
        Self: Unpin,
    {
        read(self, buf)
    }

    /// Reads some bytes into a [`BufMut`]'s spare room, advancing it, and resolves to how
    /// many (0: end of file, or no room left). Cancel safe.
    fn read_buf<'a, B>(&'a mut self, buf: &'a mut B) -> ReadBuf<'a, Self, B>
    where
        Self: Unpin,
        B: BufMut + ?Sized,
    {
        read_buf(self, buf)
    }

    /// Reads exactly `buf.len()` bytes, resolving to that count; an `UnexpectedEof`
    /// error ("early eof") if the source ends first. Not cancel safe: bytes read before
    /// a drop are lost.
    fn read_exact<'a>(&'a mut self, buf: &'a mut [u8]) -> ReadExact<'a, Self>
    where
        Self: Unpin,
    {
        read_exact(self, buf)
    }

    read_number! {
        /// Reads a `u8`.
        fn read_u8 -> ReadU8;
        /// Reads an `i8`.
        fn read_i8 -> ReadI8;
        /// Reads a big-endian `u16`.
        fn read_u16 -> ReadU16;
        /// Reads a big-endian `i16`.
        fn read_i16 -> ReadI16;
        /// Reads a big-endian `u32`.
        fn read_u32 -> ReadU32;
        /// Reads a big-endian `i32`.
        fn read_i32 -> ReadI32;
        /// Reads a big-endian `u64`.
        fn read_u64 -> ReadU64;
        /// Reads a big-endian `i64`.
        fn read_i64 -> ReadI64;
        /// Reads a big-endian `u128`.
        fn read_u128 -> ReadU128;
        /// Reads a big-endian `i128`.
        fn read_i128 -> ReadI128;
        /// Reads a big-endian IEEE 754 `f32`.
        fn read_f32 -> ReadF32;
        /// Reads a big-endian IEEE 754 `f64`.
        fn read_f64 -> ReadF64;
        /// Reads a little-endian `u16`.
        fn read_u16_le -> ReadU16Le;
        /// Reads a little-endian `i16`.
        fn read_i16_le -> ReadI16Le;
        /// Reads a little-endian `u32`.
        fn read_u32_le -> ReadU32Le;
        /// Reads a little-endian `i32`.
        fn read_i32_le -> ReadI32Le;
        /// Reads a little-endian `u64`.
        fn read_u64_le -> ReadU64Le;
        /// Reads a little-endian `i64`.
        fn read_i64_le -> ReadI64Le;
        /// Reads a little-endian `u128`.
        fn read_u128_le -> ReadU128Le;
        /// Reads a little-endian `i128`.
        fn read_i128_le -> ReadI128Le;
        /// Reads a little-endian IEEE 754 `f32`.
        fn read_f32_le -> ReadF32Le;
        /// Reads a little-endian IEEE 754 `f64`.
        fn read_f64_le -> ReadF64Le;
    }

    /// Reads until end of file, appending to `buf`, and resolves to the number of bytes
    /// appended. On an error, what was read so far stays appended.
    fn read_to_end<'a>(&'a mut self, buf: &'a mut Vec<u8>) -> ReadToEnd<'a, Self>
    where
        Self: Unpin,
    {
        read_to_end(self, buf)
    }

    /// Reads until end of file, appending to `dst`, and resolves to the number of bytes
    /// appended. If the data is not valid UTF-8 (an `InvalidData` error) or reading
    /// fails, `dst` is left as it was.
    fn read_to_string<'a>(&'a mut self, dst: &'a mut String) -> ReadToString<'a, Self>
    where
        Self: Unpin,
    {
        read_to_string(self, dst)
    }

    /// An adapter that reads at most `limit` bytes from `self`, then reports end of file.
    fn take(self, limit: u64) -> Take<Self>
    where
        Self: Sized,
    {
        take(self, limit)
    }
}

impl<R: AsyncRead + ?Sized> AsyncReadExt for R {}
