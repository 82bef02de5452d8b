//! The futures of `write_u8` .. `write_f64_le`: encode a number, then write all its bytes.
//!
//! Each future holds the encoded bytes (`to_be_bytes` / `to_le_bytes`) and how many are
//! written, so a `Pending` poll loses nothing. A write of 0 bytes is a `WriteZero`
//! error. `Interrupted` errors are retried.

use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::io::AsyncWrite;

/// A future writing one `$ty` encoded by `$encode` to a writer `W` (a `&mut` of it).
macro_rules! write_number_future {
    ($($name:ident: $ty:ty, $encode:ident;)*) => {$(
        #[doc(hidden)]
        #[derive(Debug)]
        #[must_use = "futures do nothing unless you `.await` or poll them"]
        pub struct $name<W> {
            dst: W,
            buf: [u8; std::mem::size_of::<$ty>()],
            written: usize,
            _pin: PhantomPinned,
        }

        impl<W> $name<W> {
            pub(super) fn new(dst: W, value: $ty) -> Self {
                $name {
                    dst,
                    buf: value.$encode(),
                    written: 0,
                    _pin: PhantomPinned,
                }
            }
        }

        impl<W: AsyncWrite + Unpin> Future for $name<W> {
            type Output = io::Result<()>;

            fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
                // SAFETY: no field is structurally pinned (`W` is `Unpin`), and nothing is
                // moved out of `self`.
                let me = unsafe { self.get_unchecked_mut() };
                while me.written < me.buf.len() {
                    match Pin::new(&mut me.dst).poll_write(cx, &me.buf[me.written..]) {
                        Poll::Pending => return Poll::Pending,
                        Poll::Ready(Ok(0)) => {
                            return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                        }
                        Poll::Ready(Ok(n)) => me.written += n,
                        Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                        Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    }
                }
                Poll::Ready(Ok(()))
            }
        }
    )*};
}

write_number_future! {
    WriteU8: u8, to_be_bytes;
    WriteI8: i8, to_be_bytes;
    WriteU16: u16, to_be_bytes;
    WriteI16: i16, to_be_bytes;
    WriteU32: u32, to_be_bytes;
    WriteI32: i32, to_be_bytes;
    WriteU64: u64, to_be_bytes;
    WriteI64: i64, to_be_bytes;
    WriteU128: u128, to_be_bytes;
    WriteI128: i128, to_be_bytes;
    WriteF32: f32, to_be_bytes;
    WriteF64: f64, to_be_bytes;
    WriteU16Le: u16, to_le_bytes;
    WriteI16Le: i16, to_le_bytes;
    WriteU32Le: u32, to_le_bytes;
    WriteI32Le: i32, to_le_bytes;
    WriteU64Le: u64, to_le_bytes;
    WriteI64Le: i64, to_le_bytes;
    WriteU128Le: u128, to_le_bytes;
    WriteI128Le: i128, to_le_bytes;
    WriteF32Le: f32, to_le_bytes;
    WriteF64Le: f64, to_le_bytes;
}
