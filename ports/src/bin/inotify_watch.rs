//! A directory watcher: prints `Watching: DIR`, then one line per file created in the
//! directory (`created NAME`), read from an inotify descriptor driven by
//! `io::unix::AsyncFd`; it exits once a file named `stop` is created.
//!
//! Ported from tokio by renaming `tokio::` to `runtime::`; nothing else changed.

use runtime::io::unix::AsyncFd;

use std::env;
use std::error::Error;
use std::ffi::{CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

const HEADER: usize = std::mem::size_of::<libc::inotify_event>();

fn inotify(dir: &OsStr) -> io::Result<OwnedFd> {
    // SAFETY: inotify_init1 takes flags only.
    let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor we own.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let path = CString::new(dir.as_bytes().to_vec())?;
    // SAFETY: `path` is a NUL-terminated string alive for the call.
    let wd = unsafe {
        libc::inotify_add_watch(
            fd.as_raw_fd(),
            path.as_ptr(),
            libc::IN_CREATE | libc::IN_MOVED_TO,
        )
    };
    if wd < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(fd)
}

/// The names in one read's worth of events.
fn names(buf: &[u8]) -> Vec<std::ffi::OsString> {
    let mut out = Vec::new();
    let mut off = 0;
    while off + HEADER <= buf.len() {
        // SAFETY: the kernel wrote a whole event header at `off` (read_unaligned: the
        // buffer is a byte array).
        let ev: libc::inotify_event =
            unsafe { std::ptr::read_unaligned(buf[off..].as_ptr().cast()) };
        let name = &buf[off + HEADER..off + HEADER + ev.len as usize];
        let name = name.split(|&b| b == 0).next().unwrap_or_default();
        out.push(std::ffi::OsString::from_vec(name.to_vec()));
        off += HEADER + ev.len as usize;
    }
    out
}

#[runtime::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let dir = env::args_os().nth(1).ok_or("usage: inotify_watch DIR")?;
    let fd = AsyncFd::new(inotify(&dir)?)?;
    println!("Watching: {}", dir.to_string_lossy());

    let mut buf = vec![0u8; 64 * (HEADER + 256)];
    loop {
        let mut guard = fd.readable().await?;
        let n = match guard.try_io(|inner| {
            // SAFETY: `buf` is a live, writable buffer of `buf.len()` bytes.
            let n = unsafe { libc::read(inner.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n < 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(n as usize)
            }
        }) {
            Ok(result) => result?,
            Err(_would_block) => continue,
        };
        for name in names(&buf[..n]) {
            if name == "stop" {
                println!("stopping");
                return Ok(());
            }
            println!("created {}", name.to_string_lossy());
        }
    }
}
