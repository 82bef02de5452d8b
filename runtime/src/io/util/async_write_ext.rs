//! [`AsyncWriteExt`]: the utility methods of every [`AsyncWrite`], each returning a
//! future that drives `poll_write`, `poll_flush` or `poll_shutdown`.
//!
//! A method taking `&mut self` needs `Self: Unpin` so the future can poll a plain
//! `&mut Self`; pin a `!Unpin` writer first.

use std::io::IoSlice;

use bytes::Buf;

use super::flush::{flush, shutdown, Flush, Shutdown};
use super::write::{
    write, write_all, write_all_buf, write_buf, write_vectored, Write, WriteAll, WriteAllBuf,
    WriteBuf, WriteVectored,
};
use super::write_int::{
    WriteF32, WriteF32Le, WriteF64, WriteF64Le, WriteI128, WriteI128Le, WriteI16, WriteI16Le,
    WriteI32, WriteI32Le, WriteI64, WriteI64Le, WriteI8, WriteU128, WriteU128Le, WriteU16,
    WriteU16Le, WriteU32, WriteU32Le, WriteU64, WriteU64Le, WriteU8,
};
use crate::io::AsyncWrite;

/// One `write_<number>` method per integer/float future: encodes the value and writes
/// all its bytes (a `WriteZero` error if the writer accepts none).
macro_rules! write_number {
    ($($(#[$doc:meta])* fn $name:ident($ty:ty) -> $fut:ident;)*) => {$(
        $(#[$doc])*
        fn $name(&mut self, n: $ty) -> $fut<&mut Self>
        where
            Self: Unpin,
        {
            $fut::new(self, n)
        }
    )*};
}

/// Writing utilities for every [`AsyncWrite`] (tokio's `AsyncWriteExt`); implemented for
/// all of them.
///
/// ```
/// use runtime::io::AsyncWriteExt;
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut out = Vec::new();
/// out.write_u16(0x0102).await?;
/// out.write_u16_le(0x0102).await?;
/// out.write_all(b"!").await?;
/// out.flush().await?;
/// assert_eq!(out, [1, 2, 2, 1, b'!']);
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub trait AsyncWriteExt: AsyncWrite {
    /// Writes some of `src`, resolving to how many bytes were written. Cancel safe:
    /// nothing was written if the future is dropped before completing.
    fn write<'a>(&'a mut self, src: &'a [u8]) -> Write<'a, Self>
    where
        Self: Unpin,
    {
        write(self, src)
    }

    /// Writes some of the buffers, in order, resolving to how many bytes were written.
    fn write_vectored<'a, 'b>(&'a mut self, bufs: &'a [IoSlice<'b>]) -> WriteVectored<'a, 'b, Self>
    where
        Self: Unpin,
    {
        write_vectored(self, bufs)
    }

    /// Writes some of a [`Buf`] (vectored when the writer is), advancing it by what was
    /// written, and resolves to that count (0 when `src` is empty).
    fn write_buf<'a, B>(&'a mut self, src: &'a mut B) -> WriteBuf<'a, Self, B>
    where
        Self: Sized + Unpin,
        B: Buf,
    {
        write_buf(self, src)
    }

    /// Writes all of a [`Buf`], advancing it as it goes; a `WriteZero` error if the
    /// writer accepts no more. Cancel safe in that `src` shows what is left.
    fn write_all_buf<'a, B>(&'a mut self, src: &'a mut B) -> WriteAllBuf<'a, Self, B>
    where
        Self: Sized + Unpin,
        B: Buf,
    {
        write_all_buf(self, src)
    }

    /// Writes all of `src`; a `WriteZero` error if the writer accepts no more. Not
    /// cancel safe: how much was written before a drop is unknown.
    fn write_all<'a>(&'a mut self, src: &'a [u8]) -> WriteAll<'a, Self>
    where
        Self: Unpin,
    {
        write_all(self, src)
    }

    write_number! {
        /// Writes a `u8`.
        fn write_u8(u8) -> WriteU8;
        /// Writes an `i8`.
        fn write_i8(i8) -> WriteI8;
        /// Writes a big-endian `u16`.
        fn write_u16(u16) -> WriteU16;
        /// Writes a big-endian `i16`.
        fn write_i16(i16) -> WriteI16;
        /// Writes a big-endian `u32`.
        fn write_u32(u32) -> WriteU32;
        /// Writes a big-endian `i32`.
        fn write_i32(i32) -> WriteI32;
        /// Writes a big-endian `u64`.
        fn write_u64(u64) -> WriteU64;
        /// Writes a big-endian `i64`.
        fn write_i64(i64) -> WriteI64;
        /// Writes a big-endian `u128`.
        fn write_u128(u128) -> WriteU128;
        /// Writes a big-endian `i128`.
        fn write_i128(i128) -> WriteI128;
        /// Writes a big-endian IEEE 754 `f32`.
        fn write_f32(f32) -> WriteF32;
        /// Writes a big-endian IEEE 754 `f64`.
        fn write_f64(f64) -> WriteF64;
        /// Writes a little-endian `u16`.
        fn write_u16_le(u16) -> WriteU16Le;
        /// Writes a little-endian `i16`.
        fn write_i16_le(i16) -> WriteI16Le;
        /// Writes a little-endian `u32`.
        fn write_u32_le(u32) -> WriteU32Le;
        /// Writes a little-endian `i32`.
        fn write_i32_le(i32) -> WriteI32Le;
        /// Writes a little-endian `u64`.
        fn write_u64_le(u64) -> WriteU64Le;
        /// Writes a little-endian `i64`.
        fn write_i64_le(i64) -> WriteI64Le;
        /// Writes a little-endian `u128`.
        fn write_u128_le(u128) -> WriteU128Le;
        /// Writes a little-endian `i128`.
        fn write_i128_le(i128) -> WriteI128Le;
        /// Writes a little-endian IEEE 754 `f32`.
        fn write_f32_le(f32) -> WriteF32Le;
        /// Writes a little-endian IEEE 754 `f64`.
        fn write_f64_le(f64) -> WriteF64Le;
    }

    /// Flushes: every buffered byte reaches its destination.
    fn flush(&mut self) -> Flush<'_, Self>
    where
        Self: Unpin,
    {
        flush(self)
    }

    /// Shuts the write side down (flushing first).
    fn shutdown(&mut self) -> Shutdown<'_, Self>
    where
        Self: Unpin,
    {
        shutdown(self)
    }
}

impl<W: AsyncWrite + ?Sized> AsyncWriteExt for W {}
