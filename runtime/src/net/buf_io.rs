//! Reads into a `bytes::BufMut` (tokio's `try_read_buf`, `recv_buf`, `recv_buf_from`,
//! `try_recv_buf(_from)`): the bytes land in the buffer's spare capacity, never zeroed
//! first, and the buffer advances by exactly what the kernel wrote.
//!
//! `BufMut::chunk_mut` hands out the next spare chunk (a `Vec` grows by at least 64 bytes
//! when it has none), which is passed to `read(2)` / `recv(2)` / `recvfrom(2)` (the last
//! two through socket2's `MaybeUninit` APIs) as uninitialized memory; `advance_mut(n)`
//! then claims the `n` bytes written. A buffer with no spare capacity at all (a full
//! fixed-size one) reads nothing and answers `Ok(0)`, as tokio's does.

use std::io;
use std::mem::MaybeUninit;
use std::os::fd::AsFd;

use bytes::BufMut;

/// How a read is made on a raw descriptor, into `len` bytes at a pointer that may be
/// uninitialized: `stream_io::recv_uninit` (sockets) or `stream_io::read_uninit` (pipes).
/// Both [`read_buf`] and `stream_io::poll_read_buf` take one.
pub(crate) type Reader = fn(std::os::fd::RawFd, *mut MaybeUninit<u8>, usize) -> io::Result<usize>;

/// Runs `f` on `buf`'s next spare chunk and advances `buf` by the count it returns.
pub(crate) fn fill<B: BufMut + ?Sized, R>(
    buf: &mut B,
    f: impl FnOnce(&mut [MaybeUninit<u8>]) -> io::Result<(usize, R)>,
) -> io::Result<(usize, R)> {
    let chunk = buf.chunk_mut();
    // SAFETY: the slice is only written to by the kernel (read/recv), never read, and
    // `advance_mut` below claims only the bytes `f` reports written.
    let dst = unsafe { chunk.as_uninit_slice_mut() };
    let cap = dst.len();
    let (n, extra) = f(dst)?;
    assert!(n <= cap, "the kernel reported {n} bytes written into {cap}");
    // SAFETY: the first `n` bytes of the chunk were initialized by the read.
    unsafe { buf.advance_mut(n) };
    Ok((n, extra))
}

/// One read with `reader` (`recv(2)` for a socket, `read(2)` for a pipe) from `fd` into
/// `buf`'s spare capacity.
pub(crate) fn read_buf<B: BufMut + ?Sized>(
    fd: std::os::fd::RawFd,
    buf: &mut B,
    reader: Reader,
) -> io::Result<usize> {
    if !buf.has_remaining_mut() {
        return Ok(0);
    }
    fill(buf, |dst| {
        reader(fd, dst.as_mut_ptr(), dst.len()).map(|n| (n, ()))
    })
    .map(|(n, ())| n)
}

/// One `recv(2)` from `sock` into `buf`'s spare capacity.
pub(crate) fn recv_buf<B: BufMut + ?Sized>(sock: &impl AsFd, buf: &mut B) -> io::Result<usize> {
    if !buf.has_remaining_mut() {
        return Ok(0);
    }
    let s = socket2::SockRef::from(sock);
    fill(buf, |dst| s.recv(dst).map(|n| (n, ()))).map(|(n, ())| n)
}

/// One `recvfrom(2)` from an IP socket into `buf`'s spare capacity, with the source.
pub(crate) fn recv_buf_from_ip<B: BufMut + ?Sized>(
    sock: &impl AsFd,
    buf: &mut B,
) -> io::Result<(usize, std::net::SocketAddr)> {
    if !buf.has_remaining_mut() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "recv_buf_from needs a buffer with spare capacity",
        ));
    }
    let s = socket2::SockRef::from(sock);
    let (n, from) = fill(buf, |dst| s.recv_from(dst))?;
    let from = from
        .as_socket()
        .ok_or_else(|| io::Error::other("recvfrom returned a non-IP source address"))?;
    Ok((n, from))
}
