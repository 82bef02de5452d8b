//! The five core items of the I/O trait family, owned by this crate when the
//! `tokio-traits` feature is off: [`AsyncRead`], [`AsyncWrite`], [`AsyncBufRead`],
//! [`AsyncSeek`] and [`ReadBuf`].
//!
//! Their signatures, provided methods and blanket implementations are tokio's (1.x), so
//! code written against `tokio::io` compiles against them unchanged: the traits are
//! implemented for `Box<T>`, `&mut T` and `Pin<P>` by forwarding, for `&[u8]` and
//! `std::io::Cursor<T>` as readers, and for `Vec<u8>` and the cursors over owned or
//! borrowed byte storage as writers. A read hands the reader a [`ReadBuf`], which tracks
//! how much of a possibly uninitialized buffer is filled and how much is initialized, so a
//! reader may write straight into uninitialized memory and a caller never sees bytes that
//! were not written.

mod async_buf_read;
mod async_read;
mod async_seek;
mod async_write;
mod read_buf;

pub use async_buf_read::AsyncBufRead;
pub use async_read::AsyncRead;
pub use async_seek::AsyncSeek;
pub use async_write::AsyncWrite;
pub use read_buf::ReadBuf;

/// The pinned target of a pinned `Pin<P>`: what the `Pin<P>` impls forward to
/// (`Pin::as_deref_mut`, written out for toolchains before it was stable).
pub(crate) fn pin_as_deref_mut<P: core::ops::DerefMut>(
    pin: core::pin::Pin<&mut core::pin::Pin<P>>,
) -> core::pin::Pin<&mut P::Target> {
    // SAFETY: the outer `Pin<P>` is only borrowed, never moved out of, and `Pin::as_mut`
    // hands out its target pinned again: the target stays where it was pinned.
    unsafe { pin.get_unchecked_mut() }.as_mut()
}
