//! The one-byte doorbell a signal handler rings: one `write(2)` of one byte to a
//! non-blocking socket, with the interrupted code's `errno` saved and restored.
//!
//! Both of the runtime's signal handlers ring it: `runtime::signal`'s (`registry.rs`: the
//! `pending` flag of the signal's slot carries what happened, the byte only makes the
//! receiver ends the drivers watch readable) and the dump on a signal's
//! (`observe/dump/on_signal.rs`: the byte wakes the `runtime-dump` thread). Ringing is
//! async-signal-safe: no allocation, no lock, no panic. A full socket returns `EAGAIN` and
//! the byte is dropped, never waited for: the bytes already in the socket are unread, so
//! the reader is still coming, and a byte carries nothing but "look".

use std::os::fd::RawFd;

/// Writes one byte to `fd`, the non-blocking sending end of a doorbell, and leaves the
/// calling thread's `errno` as it found it. Async-signal-safe; the caller keeps `fd` open
/// while a handler that rings it is installed.
pub(crate) fn ring(fd: RawFd) {
    let errno = errno_location();
    // SAFETY: this thread's errno (null where unknown), saved to be restored below, so
    // that the interrupted code sees its own value.
    let saved = (!errno.is_null()).then(|| unsafe { *errno });
    let byte = 1u8;
    // SAFETY: the buffer is one valid byte; `fd` is the caller's non-blocking socket (a
    // full one returns EAGAIN, ignored).
    unsafe { libc::write(fd, (&byte as *const u8).cast(), 1) };
    if let Some(saved) = saved {
        // SAFETY: as above.
        unsafe { *errno = saved };
    }
}

/// The calling thread's `errno` (null on platforms where we do not know its name).
fn errno_location() -> *mut libc::c_int {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    // SAFETY: returns a pointer to this thread's errno; no preconditions.
    return unsafe { libc::__errno_location() };
    #[cfg(any(target_vendor = "apple", target_os = "freebsd"))]
    // SAFETY: as above.
    return unsafe { libc::__error() };
    #[allow(unreachable_code)]
    std::ptr::null_mut()
}
