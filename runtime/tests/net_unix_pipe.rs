//! `net::unix::pipe`: an anonymous pipe carrying a megabyte between tasks then EOF, the
//! non-waiting API (`try_read`/`try_write`/`try_read_buf`/`try_io`, `ready` with the
//! hang-up), FIFOs (`ENXIO` with no reader, read-write opening, the FIFO and access-mode
//! checks), and the `into_*_fd` conversions. Both flavors, under a watchdog.
#![cfg(all(target_os = "linux", not(loom)))]

#[macro_use]
mod support;

use support::*;

use std::io;
use std::os::fd::AsRawFd;
use std::path::PathBuf;

use futures::FutureExt;
use runtime::io::{AsyncReadExt, AsyncWriteExt, Interest};
use runtime::net::unix::pipe;

/// A fresh FIFO path in the temp dir, removed on drop.
struct Fifo(PathBuf);

impl Fifo {
    fn new() -> Fifo {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "runtime-fifo-{}-{}",
            std::process::id(),
            N.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        ));
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `c` is a NUL-terminated path alive for the call.
        assert_eq!(
            unsafe { libc::mkfifo(c.as_ptr(), 0o600) },
            0,
            "{}",
            io::Error::last_os_error()
        );
        Fifo(path)
    }
}

impl Drop for Fifo {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn is_nonblocking(fd: &impl AsRawFd) -> bool {
    // SAFETY: fcntl with an integer command on an open descriptor.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    assert!(flags >= 0);
    flags & libc::O_NONBLOCK != 0
}

rt_test! {
    #[test]
    fn a_megabyte_through_an_anonymous_pipe_then_eof() {
        watchdog("the pipe's bytes", || {
            on(&rt(), || async {
                let (mut tx, mut rx) = pipe::pipe().unwrap();
                let data: Vec<u8> = (0..1u32 << 20).map(|i| (i % 253) as u8).collect();
                let sent = data.clone();
                let writer = runtime::spawn(async move {
                    tx.write_all(&sent).await.unwrap();
                });
                let mut got = Vec::new();
                within("the bytes and EOF", rx.read_to_end(&mut got)).await.unwrap();
                within("the writer", writer).await.unwrap();
                assert!(got == data, "{} of {} bytes", got.len(), data.len());
            });
        });
    }

    #[test]
    fn the_non_waiting_api_and_the_hang_up() {
        watchdog("the try_ API", || {
            on(&rt(), || async {
                let (tx, rx) = pipe::pipe().unwrap();
                assert_eq!(rx.try_read(&mut [0; 4]).unwrap_err().kind(), io::ErrorKind::WouldBlock);
                tx.writable().await.unwrap();
                assert_eq!(tx.try_write(b"abc").unwrap(), 3);
                rx.readable().await.unwrap();
                let mut v = Vec::with_capacity(8);
                assert_eq!(rx.try_read_buf(&mut v).unwrap(), 3);
                assert_eq!(v, b"abc");
                // try_io: nothing readable now; the closure's WouldBlock clears readiness.
                let e = rx
                    .try_io(|| {
                        // SAFETY: a live 4-byte buffer, an open descriptor.
                        let n = unsafe { libc::read(rx.as_raw_fd(), [0u8; 4].as_mut_ptr().cast(), 4) };
                        if n < 0 { Err(io::Error::last_os_error()) } else { Ok(n as usize) }
                    })
                    .unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
                assert!(rx.ready(Interest::READABLE).now_or_never().is_none(), "cleared");
                let bufs = [io::IoSlice::new(b"de"), io::IoSlice::new(b"f")];
                assert_eq!(tx.try_write_vectored(&bufs).unwrap(), 3);
                drop(tx);
                let r = within("the hang-up", async {
                    loop {
                        let r = rx.ready(Interest::READABLE).await.unwrap();
                        if r.is_read_closed() {
                            break r;
                        }
                    }
                })
                .await;
                assert!(r.is_readable());
                let (mut a, mut b) = ([0; 2], [0; 4]);
                let mut bufs = [io::IoSliceMut::new(&mut a), io::IoSliceMut::new(&mut b)];
                assert_eq!(rx.try_read_vectored(&mut bufs).unwrap(), 3);
                assert_eq!((&a, &b[..1]), (b"de", &b"f"[..]));
                assert_eq!(rx.try_read(&mut [0; 4]).unwrap(), 0, "EOF");
            });
        });
    }

    #[test]
    fn fifos_open_check_and_convert() {
        watchdog("the FIFO", || {
            on(&rt(), || async {
                let fifo = Fifo::new();
                // No reader yet: a write-only open fails with ENXIO.
                let e = pipe::OpenOptions::new().open_sender(&fifo.0).unwrap_err();
                assert_eq!(e.raw_os_error(), Some(libc::ENXIO), "{e}");
                // Read-write opens anyway.
                let rw = pipe::OpenOptions::new().read_write(true).open_sender(&fifo.0).unwrap();
                drop(rw);
                let mut rx = pipe::OpenOptions::new().open_receiver(&fifo.0).unwrap();
                let mut tx = pipe::OpenOptions::new().open_sender(&fifo.0).unwrap();
                tx.write_all(b"via fifo").await.unwrap();
                drop(tx);
                let mut s = String::new();
                within("the FIFO's bytes", rx.read_to_string(&mut s)).await.unwrap();
                assert_eq!(s, "via fifo");

                // Checks: not a FIFO; a FIFO end in the wrong direction.
                let file = std::fs::File::open(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
                let e = pipe::Receiver::from_file(file).unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
                let e = pipe::OpenOptions::new()
                    .open_receiver(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
                    .unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
                let (tx, rx) = pipe::pipe().unwrap();
                let rx_fd = rx.into_nonblocking_fd().unwrap();
                assert!(is_nonblocking(&rx_fd));
                let e = pipe::Sender::from_owned_fd(rx_fd).unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "a read end is no sender");
                let tx_fd = tx.into_blocking_fd().unwrap();
                assert!(!is_nonblocking(&tx_fd));
                let tx = pipe::Sender::from_owned_fd(tx_fd).unwrap();
                assert!(is_nonblocking(&tx), "made non-blocking again");
            });
        });
    }
}
