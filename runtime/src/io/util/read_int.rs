//! The futures of `read_u8` .. `read_f64_le`: read a number's bytes in full, then decode.
//!
//! Each future holds a fixed array of the number's size and how much of it is read, so
//! a `Pending` poll loses nothing. A ready read that adds nothing before the array is
//! full is end of file: an `UnexpectedEof` error. `Interrupted` errors are retried.
//! Decoding is `from_be_bytes` / `from_le_bytes`.

use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::io::{AsyncRead, ReadBuf};

/// A future reading one `$ty` through `$decode` from a reader `R` (a `&mut` of it).
macro_rules! read_number_future {
    ($($name:ident: $ty:ty, $decode:ident;)*) => {$(
        #[doc(hidden)]
        #[derive(Debug)]
        #[must_use = "futures do nothing unless you `.await` or poll them"]
        pub struct $name<R> {
            src: R,
            buf: [u8; std::mem::size_of::<$ty>()],
            read: usize,
            _pin: PhantomPinned,
        }

        impl<R> $name<R> {
            pub(super) fn new(src: R) -> Self {
                $name {
                    src,
                    buf: [0; std::mem::size_of::<$ty>()],
                    read: 0,
                    _pin: PhantomPinned,
                }
            }
        }

        impl<R: AsyncRead + Unpin> Future for $name<R> {
            type Output = io::Result<$ty>;

            fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
                // SAFETY: no field is structurally pinned (`R` is `Unpin`), and nothing is
                // moved out of `self`.
                let me = unsafe { self.get_unchecked_mut() };
                while me.read < me.buf.len() {
                    let mut rb = ReadBuf::new(&mut me.buf[me.read..]);
                    match Pin::new(&mut me.src).poll_read(cx, &mut rb) {
                        Poll::Pending => return Poll::Pending,
                        Poll::Ready(Ok(())) if rb.filled().is_empty() => {
                            return Poll::Ready(Err(io::ErrorKind::UnexpectedEof.into()));
                        }
                        Poll::Ready(Ok(())) => me.read += rb.filled().len(),
                        Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                        Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    }
                }
                Poll::Ready(Ok(<$ty>::$decode(me.buf)))
            }
        }
    )*};
}

read_number_future! {
    ReadU8: u8, from_be_bytes;
    ReadI8: i8, from_be_bytes;
    ReadU16: u16, from_be_bytes;
    ReadI16: i16, from_be_bytes;
    ReadU32: u32, from_be_bytes;
    ReadI32: i32, from_be_bytes;
    ReadU64: u64, from_be_bytes;
    ReadI64: i64, from_be_bytes;
    ReadU128: u128, from_be_bytes;
    ReadI128: i128, from_be_bytes;
    ReadF32: f32, from_be_bytes;
    ReadF64: f64, from_be_bytes;
    ReadU16Le: u16, from_le_bytes;
    ReadI16Le: i16, from_le_bytes;
    ReadU32Le: u32, from_le_bytes;
    ReadI32Le: i32, from_le_bytes;
    ReadU64Le: u64, from_le_bytes;
    ReadI64Le: i64, from_le_bytes;
    ReadU128Le: u128, from_le_bytes;
    ReadI128Le: i128, from_le_bytes;
    ReadF32Le: f32, from_le_bytes;
    ReadF64Le: f64, from_le_bytes;
}
