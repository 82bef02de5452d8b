//! `io::unix::AsyncFd` against descriptors that are not sockets: a pipe (a megabyte each
//! way through the guards, then the hang-up), an eventfd (counts written from another
//! thread; retain / clear / clear-matching semantics; several waiters), a pty (both ends),
//! a regular file (refused, value handed back), re-registration after `into_inner`, and the
//! `_mut` guards. Both flavors; every test under a watchdog, every wait bounded.
#![cfg(all(target_os = "linux", not(loom)))]

#[macro_use]
mod support;

use support::*;

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Arc;

use futures::FutureExt;
use runtime::io::unix::AsyncFd;
use runtime::io::{Interest, Ready};

fn cvt(ret: isize) -> io::Result<usize> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret as usize)
    }
}

fn read_fd(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `buf` is a live, writable buffer of `buf.len()` bytes; `fd` is open.
    cvt(unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) })
}

fn write_fd(fd: RawFd, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: `buf` is a live buffer of `buf.len()` bytes; `fd` is open.
    cvt(unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) })
}

fn owned(fd: RawFd) -> OwnedFd {
    assert!(fd >= 0, "{}", io::Error::last_os_error());
    // SAFETY: a fresh descriptor just returned by the kernel, owned by nobody else.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

fn set_nonblocking(fd: RawFd) {
    // SAFETY: fcntl on an open descriptor with integer arguments.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    assert!(flags >= 0);
    // SAFETY: as above.
    assert_eq!(
        unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) },
        0
    );
}

fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: `fds` is a writable array of two ints, as pipe2 wants.
    let ret = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) };
    assert_eq!(ret, 0, "{}", io::Error::last_os_error());
    (owned(fds[0]), owned(fds[1]))
}

fn eventfd() -> OwnedFd {
    // SAFETY: eventfd with flags only; the result is checked by `owned`.
    owned(unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) })
}

/// (master, slave) of a fresh pty, both non-blocking, the slave in raw mode (no echo, no
/// line discipline: bytes pass as written).
fn pty() -> (OwnedFd, OwnedFd) {
    let (mut master, mut slave) = (0, 0);
    // SAFETY: the two out-pointers are live ints; name, termios and winsize may be null.
    let ret = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(ret, 0, "{}", io::Error::last_os_error());
    let (master, slave) = (owned(master), owned(slave));
    // SAFETY: a zeroed termios is a valid out-buffer for tcgetattr, which fills it.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: `slave` is an open tty; `t` is a live termios.
    assert_eq!(unsafe { libc::tcgetattr(slave.as_raw_fd(), &mut t) }, 0);
    // SAFETY: `t` is a live termios.
    unsafe { libc::cfmakeraw(&mut t) };
    // SAFETY: as tcgetattr.
    assert_eq!(
        unsafe { libc::tcsetattr(slave.as_raw_fd(), libc::TCSANOW, &t) },
        0
    );
    set_nonblocking(master.as_raw_fd());
    set_nonblocking(slave.as_raw_fd());
    (master, slave)
}

/// Reads from `fd` through its guards until `want` bytes came or EOF; returns them.
async fn read_all(fd: &AsyncFd<OwnedFd>, want: usize) -> (Vec<u8>, bool) {
    let mut got = Vec::new();
    let mut buf = vec![0; 8192];
    while got.len() < want {
        let mut guard = fd.readable().await.unwrap();
        match guard.try_io(|inner| read_fd(inner.as_raw_fd(), &mut buf)) {
            Ok(Ok(0)) => return (got, true),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Ok(Err(e)) => panic!("read: {e}"),
            Err(_would_block) => {}
        }
    }
    (got, false)
}

rt_test! {
    /// Whether a "waits after a clear" check is exact on this flavor. On the
    /// current-thread flavor the driver only runs when the test's task yields, so after a
    /// clear nothing can set readiness again until the next write. On the multi-thread
    /// flavor a driver turn on another worker may dispatch an event epoll reported just
    /// before the test's last read (readiness can be spurious, as tokio documents), so
    /// there the check is skipped.
    #[allow(dead_code)]
    const STRICT: bool = matches!(FLAVOR.as_bytes(), b"current_thread");

    #[test]
    fn a_pipe_carries_a_megabyte_then_reports_the_hang_up() {
        watchdog("the pipe's bytes and hang-up", || {
            let rt = rt();
            on(&rt, || async {
                let (r, w) = pipe();
                let reader = AsyncFd::with_interest(r, Interest::READABLE).unwrap();
                let writer = AsyncFd::with_interest(w, Interest::WRITABLE).unwrap();
                let data: Vec<u8> = (0..1 << 20).map(|i: u32| (i * 7 + i / 251) as u8).collect();
                let sent = data.clone();
                let wtask = runtime::spawn(async move {
                    let mut off = 0;
                    while off < sent.len() {
                        let mut guard = writer.writable().await.unwrap();
                        assert!(guard.ready().is_writable(), "{:?}", guard.ready());
                        match guard.try_io(|inner| write_fd(inner.as_raw_fd(), &sent[off..])) {
                            Ok(res) => off += res.unwrap(),
                            Err(_would_block) => {}
                        }
                    }
                    // Dropped here: the read end sees the hang-up.
                });
                let (got, eof) = within("a megabyte", async {
                    let (mut got, _) = read_all(&reader, data.len()).await;
                    // Then EOF.
                    let (more, eof) = read_all(&reader, usize::MAX).await;
                    got.extend(more);
                    (got, eof)
                })
                .await;
                within("the writer task", wtask).await.unwrap();
                assert!(eof, "EOF after the writer closed");
                assert!(got == data, "{} bytes came of {}", got.len(), data.len());
                // The hang-up's event may still be on its way (the read saw EOF first):
                // readable left from the reads is cleared until it comes.
                let ready = within("read-closed", async {
                    loop {
                        let mut guard = reader.ready(Interest::READABLE).await.unwrap();
                        if guard.ready().is_read_closed() {
                            break guard.ready();
                        }
                        guard.clear_ready();
                    }
                })
                .await;
                assert!(ready.is_readable(), "read-closed counts as readable");
            });
        });
    }

    #[test]
    fn an_eventfd_counts_writes_from_another_thread() {
        watchdog("the eventfd's counts", || {
            let rt = rt();
            on(&rt, || async {
                let efd = Arc::new(AsyncFd::new(eventfd()).unwrap());
                let raw = efd.as_raw_fd();
                const N: u64 = 2_000;
                let efd2 = efd.clone();
                let writer = std::thread::spawn(move || {
                    for _ in 0..N {
                        assert_eq!(write_fd(efd2.as_raw_fd(), &1u64.to_ne_bytes()).unwrap(), 8);
                    }
                });
                let mut sum = 0;
                within("the counts", async {
                    while sum < N {
                        sum += efd
                            .async_io(Interest::READABLE, |fd| {
                                let mut b = [0; 8];
                                read_fd(fd.as_raw_fd(), &mut b).map(|_| u64::from_ne_bytes(b))
                            })
                            .await
                            .unwrap();
                    }
                })
                .await;
                writer.join().unwrap();
                assert_eq!(sum, N);
                // The last read left readiness set (no WouldBlock seen): a wait returns at
                // once, the read says WouldBlock and clears it; then a wait waits.
                let mut guard = efd.readable().now_or_never().expect("retained").unwrap();
                assert!(guard.try_io(|fd| read_fd(fd.as_raw_fd(), &mut [0; 8])).is_err());
                assert!(guard.ready().is_empty(), "cleared: {:?}", guard.ready());
                drop(guard);
                if STRICT {
                    assert!(efd.readable().now_or_never().is_none(), "waits after a clear");
                }
                // retain_ready keeps it.
                write_fd(raw, &5u64.to_ne_bytes()).unwrap();
                let mut guard = within("a new count", efd.readable()).await.unwrap();
                guard.retain_ready();
                drop(guard);
                assert!(efd.readable().now_or_never().is_some(), "retained");
            });
        });
    }

    #[test]
    fn clear_ready_matching_clears_only_those_bits() {
        watchdog("readable and writable of one eventfd", || {
            on(&rt(), || async {
                // Counted before registering: the first event reports both at once.
                let fd = eventfd();
                write_fd(fd.as_raw_fd(), &1u64.to_ne_bytes()).unwrap();
                let efd = AsyncFd::new(fd).unwrap();
                let mut guard = within(
                    "both",
                    efd.ready(Interest::READABLE | Interest::WRITABLE),
                )
                .await
                .unwrap();
                assert_eq!(guard.ready(), Ready::READABLE | Ready::WRITABLE);
                guard.clear_ready_matching(Ready::READABLE);
                assert_eq!(guard.ready(), Ready::WRITABLE);
                drop(guard);
                // Readable waits for a new edge (the count is still there: edge triggered);
                // writable stays.
                assert!(efd.readable().now_or_never().is_none());
                let w = efd.writable().now_or_never().expect("still writable").unwrap();
                assert_eq!(w.ready(), Ready::WRITABLE);
                drop(w);
                // A new write is a new edge.
                write_fd(efd.as_raw_fd(), &1u64.to_ne_bytes()).unwrap();
                let g = within("the new edge", efd.readable()).await.unwrap();
                assert!(g.ready().is_readable());
            });
        });
    }

    #[test]
    fn every_task_waiting_on_an_eventfd_is_woken() {
        watchdog("three readers of one eventfd", || {
            on(&rt(), || async {
                let efd = Arc::new(AsyncFd::with_interest(eventfd(), Interest::READABLE).unwrap());
                let waiters: Vec<_> = (0..3)
                    .map(|_| {
                        let efd = efd.clone();
                        runtime::spawn(async move {
                            let g = efd.readable().await.unwrap();
                            g.ready()
                        })
                    })
                    .collect();
                for _ in 0..3 {
                    runtime::task::yield_now().await;
                }
                write_fd(efd.as_raw_fd(), &1u64.to_ne_bytes()).unwrap();
                for w in waiters {
                    assert!(within("a reader", w).await.unwrap().is_readable());
                }
            });
        });
    }

    /// As tokio's: `poll_read_ready` keeps only the waker of its last call, so a task that
    /// polled it before another did is not woken by the event; `readable()` waiters still
    /// all are.
    #[test]
    fn poll_read_ready_wakes_only_its_last_poller() {
        watchdog("the eventfd's poll_read_ready wakers", || {
            on(&rt(), || async {
                let efd = Arc::new(AsyncFd::new(eventfd()).unwrap());
                // Not readable until the write below.
                let (first, first_waker) = counting_waker();
                let (last, last_waker) = counting_waker();
                let mut cx = std::task::Context::from_waker(&first_waker);
                assert!(efd.poll_read_ready(&mut cx).is_pending());
                let mut cx = std::task::Context::from_waker(&last_waker);
                assert!(efd.poll_read_ready(&mut cx).is_pending());
                let reader = {
                    let efd = efd.clone();
                    runtime::spawn(async move { efd.readable().await.unwrap().ready() })
                };
                runtime::task::yield_now().await;
                write_fd(efd.as_raw_fd(), &1u64.to_ne_bytes()).unwrap();
                assert!(within("the readable() waiter", reader).await.unwrap().is_readable());
                within("the last poller's wake-up", async {
                    while last.count() == 0 {
                        runtime::task::yield_now().await;
                    }
                })
                .await;
                assert_eq!(first.count(), 0, "a replaced poller was woken");
            });
        });
    }

    #[test]
    fn a_pty_carries_bytes_both_ways_and_reports_the_slave_closing() {
        watchdog("the pty", || {
            on(&rt(), || async {
                let (master, slave) = pty();
                let master = AsyncFd::new(master).unwrap();
                let mut slave = AsyncFd::new(slave).unwrap();
                // Slave -> master.
                slave
                    .async_io_mut(Interest::WRITABLE, |fd| write_fd(fd.as_raw_fd(), b"ping"))
                    .await
                    .unwrap();
                let (got, _) = within("ping", read_all(&master, 4)).await;
                assert_eq!(got, b"ping");
                // Master -> slave, through the mut guard.
                master
                    .async_io(Interest::WRITABLE, |fd| write_fd(fd.as_raw_fd(), b"pong"))
                    .await
                    .unwrap();
                let mut got = Vec::new();
                within("pong", async {
                    while got.len() < 4 {
                        let mut guard = slave.readable_mut().await.unwrap();
                        let mut buf = [0; 16];
                        if let Ok(res) = guard.try_io(|fd| read_fd(fd.as_raw_fd(), &mut buf)) {
                            got.extend_from_slice(&buf[..res.unwrap()]);
                        }
                    }
                })
                .await;
                assert_eq!(got, b"pong");
                // The slave closes: the master hangs up (EPOLLHUP), a read says EIO.
                drop(slave);
                let ready = within("the hang-up", async {
                    loop {
                        let mut guard = master.ready(Interest::READABLE).await.unwrap();
                        if guard.ready().is_read_closed() {
                            break guard.ready();
                        }
                        // Readable left from the last read: drop it, wait for the next edge.
                        guard.clear_ready();
                    }
                })
                .await;
                assert!(ready.is_readable(), "read-closed counts as readable");
                let err = read_fd(master.as_raw_fd(), &mut [0; 8]).unwrap_err();
                assert_eq!(err.raw_os_error(), Some(libc::EIO), "{err}");
            });
        });
    }

    #[test]
    fn a_regular_file_is_refused_and_handed_back() {
        watchdog("the refusal", || {
            on(&rt(), || async {
                let path = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
                let file = std::fs::File::open(path).unwrap();
                let fd = file.as_raw_fd();
                let err = AsyncFd::try_new(file).unwrap_err();
                let (file, cause) = err.into_parts();
                assert_eq!(file.as_raw_fd(), fd, "the same file came back");
                assert_eq!(cause.raw_os_error(), Some(libc::EPERM), "{cause}");
                // Still open and usable.
                let mut head = [0; 9];
                std::io::Read::read_exact(&mut &file, &mut head).unwrap();
                assert_eq!(&head, b"[package]");
                let err: io::Error = AsyncFd::try_with_interest(file, Interest::READABLE)
                    .unwrap_err()
                    .into();
                assert_eq!(err.raw_os_error(), Some(libc::EPERM));
                // tokio 1.54's name for it.
                let file = std::fs::File::open(path).unwrap();
                // SAFETY: `file` owns its descriptor for as long as the AsyncFd would.
                let err = unsafe { AsyncFd::register(file) }.unwrap_err();
                assert_eq!(err.into_parts().1.raw_os_error(), Some(libc::EPERM));
            });
        });
    }

    #[test]
    fn into_inner_deregisters_so_the_fd_registers_again() {
        watchdog("the re-registration", || {
            on(&rt(), || async {
                let efd = AsyncFd::new(eventfd()).unwrap();
                let raw = efd.as_raw_fd();
                let fd = efd.into_inner();
                assert_eq!(fd.as_raw_fd(), raw);
                // Registered twice would be EEXIST.
                let efd = AsyncFd::new(fd).unwrap();
                write_fd(raw, &3u64.to_ne_bytes()).unwrap();
                let v = within(
                    "a read",
                    efd.async_io(Interest::READABLE, |fd| {
                        let mut b = [0; 8];
                        read_fd(fd.as_raw_fd(), &mut b).map(|_| u64::from_ne_bytes(b))
                    }),
                )
                .await
                .unwrap();
                assert_eq!(v, 3);
            });
        });
    }

    #[test]
    fn mut_guards_lend_the_value_mutably() {
        struct Counted {
            fd: OwnedFd,
            reads: usize,
        }
        impl AsRawFd for Counted {
            fn as_raw_fd(&self) -> RawFd {
                self.fd.as_raw_fd()
            }
        }
        watchdog("the mut guards", || {
            on(&rt(), || async {
                let mut efd = AsyncFd::new(Counted { fd: eventfd(), reads: 0 }).unwrap();
                write_fd(efd.as_raw_fd(), &2u64.to_ne_bytes()).unwrap();
                let mut guard = within("readable", efd.ready_mut(Interest::READABLE))
                    .await
                    .unwrap();
                let v = guard
                    .try_io(|fd| {
                        fd.get_mut().reads += 1;
                        let mut b = [0; 8];
                        read_fd(fd.as_raw_fd(), &mut b).map(|_| u64::from_ne_bytes(b))
                    })
                    .expect("data was there")
                    .unwrap();
                assert_eq!(v, 2);
                guard.get_inner_mut().reads += 1;
                assert_eq!(guard.get_inner().reads, 2);
                drop(guard);
                write_fd(efd.as_raw_fd(), &4u64.to_ne_bytes()).unwrap();
                let v = efd
                    .async_io_mut(Interest::READABLE, |c| {
                        c.reads += 1;
                        let mut b = [0; 8];
                        read_fd(c.as_raw_fd(), &mut b).map(|_| u64::from_ne_bytes(b))
                    })
                    .await
                    .unwrap();
                assert_eq!(v, 4);
                assert!(efd.get_ref().reads >= 3);
                // try_io_mut clears on WouldBlock.
                let e = efd
                    .try_io_mut(Interest::READABLE, |c| read_fd(c.as_raw_fd(), &mut [0; 8]))
                    .unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
                if STRICT {
                    assert!(efd.readable_mut().now_or_never().is_none());
                }
                // Not ready (a fresh eventfd, nothing counted, watched for reading only: no
                // event at all): try_io answers WouldBlock without calling its closure.
                let mut quiet = AsyncFd::with_interest(eventfd(), Interest::READABLE).unwrap();
                let mut called = false;
                let e = quiet
                    .try_io_mut(Interest::READABLE, |_| {
                        called = true;
                        Ok(())
                    })
                    .unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
                assert!(!called, "the closure ran on a descriptor that is not ready");
                let e = quiet.try_io(Interest::READABLE, |_| -> io::Result<()> {
                    panic!("the closure ran on a descriptor that is not ready")
                });
                assert_eq!(e.unwrap_err().kind(), io::ErrorKind::WouldBlock);
                let mut w = efd.writable_mut().now_or_never().expect("writable").unwrap();
                w.clear_ready();
                assert!(w.ready().is_empty());
                drop(w);
                if STRICT {
                    assert!(std::future::poll_fn(|cx| {
                        std::task::Poll::Ready(efd.poll_write_ready_mut(cx).is_pending())
                    })
                    .await);
                }
            });
        });
    }
}
