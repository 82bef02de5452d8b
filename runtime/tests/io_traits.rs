//! tokio's I/O traits on our I/O types: the `Ext` methods over `TcpStream`/`UnixStream`
//! and their halves, `ReadBuf` filling (uninitialized memory, the initialized part kept),
//! both trait families on one socket, the cooperative budget of `empty`/`sink`/`repeat`
//! and `duplex`, `DuplexStream`'s backpressure and closing, and that no tokio runtime is
//! ever entered. Every wait is bounded by a timeout so a bug fails instead of hanging.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::future::poll_fn;
use std::io;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::time::Duration;

use runtime::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, ReadBuf};
use runtime::net::{TcpListener, TcpStream};
use runtime::time::timeout;
use runtime::Runtime;

async fn tcp_pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (client, accepted) = futures::join!(TcpStream::connect(addr), listener.accept());
    (client.unwrap(), accepted.unwrap().0)
}

/// Runs `f` on `rt` under a `GENEROUS` timeout that panics with `what`.
fn run<F: std::future::Future>(rt: &Runtime, what: &str, f: F) -> F::Output {
    rt.block_on(async {
        timeout(GENEROUS, f)
            .await
            .unwrap_or_else(|_| panic!("{what}: timed out"))
    })
}

rt_test! {
    #[test]
    fn ext_methods_over_tcp() {
        watchdog("the TCP reads and writes", || {
            let rt = rt();
            run(&rt, "ext methods", async {
                let (mut a, mut b) = tcp_pair().await;
                a.write_u32(0xDEAD_BEEF).await.unwrap();
                a.write_all_buf(&mut &b"buffered"[..]).await.unwrap();
                a.write_i64_le(-5).await.unwrap();
                a.shutdown().await.unwrap();
                assert_eq!(b.read_u32().await.unwrap(), 0xDEAD_BEEF);
                let mut word = [0; 8];
                b.read_exact(&mut word).await.unwrap();
                assert_eq!(&word, b"buffered");
                assert_eq!(b.read_i64_le().await.unwrap(), -5);
                let mut rest = Vec::new();
                assert_eq!(
                    b.read_to_end(&mut rest).await.unwrap(),
                    0,
                    "EOF after shutdown"
                );
                // This side can still write after the peer shut down its write direction.
                b.write_all(b"still open").await.unwrap();
                drop(b);
                let mut back = String::new();
                a.read_to_string(&mut back).await.unwrap();
                assert_eq!(back, "still open");
            });
        })
    }
}

#[test]
fn read_buf_filled_from_uninit_memory_keeps_initialized_part() {
    watchdog("the read into uninitialized memory", || {
        let rt = current_thread();
        run(&rt, "read_buf", async {
            let (mut a, mut b) = tcp_pair().await;
            a.write_all(&[7; 10]).await.unwrap();

            // 40 bytes already initialized: a 10-byte read leaves them initialized.
            let mut storage = [MaybeUninit::<u8>::uninit(); 64];
            let mut rb = ReadBuf::uninit(&mut storage);
            rb.initialize_unfilled_to(40);
            poll_fn(|cx| Pin::new(&mut b).poll_read(cx, &mut rb))
                .await
                .unwrap();
            assert_eq!(rb.filled(), &[7; 10]);
            assert_eq!(rb.initialized().len(), 40, "the initialized part is kept");

            // Fresh uninitialized memory: exactly the bytes read become initialized.
            a.write_all(&[9; 10]).await.unwrap();
            let mut storage = [MaybeUninit::<u8>::uninit(); 64];
            let mut rb = ReadBuf::uninit(&mut storage);
            poll_fn(|cx| Pin::new(&mut b).poll_read(cx, &mut rb))
                .await
                .unwrap();
            assert_eq!(rb.filled(), &[9; 10]);
            assert_eq!(
                rb.initialized().len(),
                10,
                "nothing past the read is claimed"
            );

            // A full ReadBuf returns at once, reading nothing.
            let mut none: [u8; 0] = [];
            let mut rb = ReadBuf::new(&mut none);
            poll_fn(|cx| Pin::new(&mut b).poll_read(cx, &mut rb))
                .await
                .unwrap();
            assert!(rb.filled().is_empty());

            // After a read that filled part of the buffer, the next one appends.
            a.write_all(b"abc").await.unwrap();
            let mut storage = [0u8; 8];
            let mut rb = ReadBuf::new(&mut storage);
            rb.put_slice(b"xy");
            poll_fn(|cx| Pin::new(&mut b).poll_read(cx, &mut rb))
                .await
                .unwrap();
            assert_eq!(rb.filled(), b"xyabc");
        });
    })
}

#[test]
fn halves_speak_tokio_traits() {
    watchdog("the split halves' reads and writes", || {
        let rt = multi_thread(2);
        run(&rt, "halves", async {
            let (a, mut b) = tcp_pair().await;
            let (rd, mut wr) = a.into_split();
            let echo = runtime::spawn(async move {
                let (mut r, mut w) = b.split();
                runtime::io::copy(&mut r, &mut w).await.unwrap()
            });
            let writer = runtime::spawn(async move {
                for i in 0..100u32 {
                    wr.write_all(format!("line {i}\n").as_bytes())
                        .await
                        .unwrap();
                }
                wr.shutdown().await.unwrap();
                wr
            });
            let mut lines = BufReader::new(rd).lines();
            let mut n = 0u32;
            while let Some(line) = lines.next_line().await.unwrap() {
                assert_eq!(line, format!("line {n}"));
                n += 1;
            }
            assert_eq!(n, 100);
            let copied = echo.await.unwrap();
            assert_eq!(
                copied as usize,
                (0..100).map(|i| format!("line {i}\n").len()).sum()
            );
            let wr = writer.await.unwrap();
            let rd = lines.into_inner().into_inner();
            rd.reunite(wr).expect("same stream");
        });
    })
}

#[test]
fn copy_bidirectional_over_unix_pair() {
    watchdog("copy_bidirectional over the unix pair", || {
        let rt = current_thread();
        run(&rt, "unix", async {
            let (mut a, mut a_peer) = runtime::net::UnixStream::pair().unwrap();
            let (mut b, mut b_peer) = runtime::net::UnixStream::pair().unwrap();
            let proxy = runtime::spawn(async move {
                runtime::io::copy_bidirectional(&mut a_peer, &mut b_peer)
                    .await
                    .unwrap()
            });
            a.write_all(b"to b").await.unwrap();
            b.write_all(b"to a!").await.unwrap();
            a.shutdown().await.unwrap();
            b.shutdown().await.unwrap();
            let mut at_b = Vec::new();
            b.read_to_end(&mut at_b).await.unwrap();
            let mut at_a = Vec::new();
            a.read_to_end(&mut at_a).await.unwrap();
            assert_eq!(at_b, b"to b");
            assert_eq!(at_a, b"to a!");
            assert_eq!(proxy.await.unwrap(), (4, 5));
        });
    })
}

#[test]
fn both_trait_families_on_one_socket() {
    watchdog("the reads and writes of both trait families", || {
        let rt = current_thread();
        run(&rt, "both families", async {
            let (mut a, mut b) = tcp_pair().await;
            // Both extension traits are in scope here, so each call names its trait.
            futures::io::AsyncWriteExt::write_all(&mut a, b"futures ")
                .await
                .unwrap();
            AsyncWriteExt::write_all(&mut a, b"tokio").await.unwrap();
            let mut buf = [0; 13];
            futures::io::AsyncReadExt::read_exact(&mut b, &mut buf[..8])
                .await
                .unwrap();
            AsyncReadExt::read_exact(&mut b, &mut buf[8..])
                .await
                .unwrap();
            assert_eq!(&buf, b"futures tokio");
        });
    })
}

#[test]
fn no_tokio_runtime_is_entered() {
    watchdog("the tokio-trait I/O", || {
        let rt = multi_thread(2);
        run(&rt, "no tokio runtime", async {
            let (mut a, mut b) = tcp_pair().await;
            a.write_all(b"x").await.unwrap();
            let mut one = [0];
            b.read_exact(&mut one).await.unwrap();
            assert!(
                tokio::runtime::Handle::try_current().is_err(),
                "our tasks run with no tokio runtime entered"
            );
        });
    })
}

/// An endless copy between two always-ready objects still yields: the `timeout` beside it
/// fires. With objects that spent no budget of ours this would spin forever on the one
/// thread (the test's own watchdog is the outer `run`).
#[test]
fn endless_in_memory_copy_spends_the_budget() {
    watchdog("the endless copy to yield to the other task", || {
        // A copy that never yields would also starve the timer of `run`'s timeout on this one
        // thread, so the whole test runs on a thread watched from here.
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            endless_copy_body();
            done.send(()).unwrap();
        });
        finished
            .recv_timeout(GENEROUS)
            .expect("an endless in-memory copy never yielded (or the body panicked)");
    })
}

fn endless_copy_body() {
    let rt = current_thread();
    run(&rt, "repeat -> sink", async {
        let (mut zeros, mut bin) = (runtime::io::repeat(1), runtime::io::sink());
        let endless = runtime::io::copy(&mut zeros, &mut bin);
        assert!(
            timeout(Duration::from_millis(20), endless).await.is_err(),
            "an endless copy only ends by the timeout"
        );
    });
    run(&rt, "empty reads", async {
        // A reader stuck at EOF polled in a loop by hand: the budget still forces yields,
        // so a task spawned beside it gets to run.
        let other = runtime::spawn(async { 5 });
        let mut spins = 0u64;
        let mut e = runtime::io::empty();
        while !other.is_finished() {
            let mut b = [0; 1];
            assert_eq!(e.read(&mut b).await.unwrap(), 0);
            spins += 1;
        }
        assert!(spins > 0);
        assert_eq!(other.await.unwrap(), 5);
    });
}

#[test]
fn duplex_backpressure_eof_and_broken_pipe() {
    watchdog("the duplex reader and writer", || {
        let rt = multi_thread(2);
        run(&rt, "duplex", async {
            let (mut a, mut b) = runtime::io::duplex(16);
            // 1,000 bytes through a 16-byte pipe: the writer waits for the reader.
            let data: Vec<u8> = (0..1000u32).map(|i| i as u8).collect();
            let sent = data.clone();
            let writer = runtime::spawn(async move {
                a.write_all(&sent).await.unwrap();
                a.shutdown().await.unwrap();
                // Our write side is closed now.
                let err = a.write_all(b"late").await.unwrap_err();
                assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
                a
            });
            let mut got = Vec::new();
            b.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, data);
            let mut a = writer.await.unwrap();

            // The other direction still works; then dropping `a` breaks b's writes.
            b.write_all(b"back").await.unwrap();
            let mut four = [0; 4];
            a.read_exact(&mut four).await.unwrap();
            assert_eq!(&four, b"back");
            drop(a);
            let err = b.write_all(b"nobody").await.unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
            assert_eq!(
                b.read(&mut four).await.unwrap(),
                0,
                "EOF once the peer is gone"
            );
        });
    })
}

/// As tokio's: a vectored write takes what fits of every buffer, not only the first.
#[test]
fn duplex_write_vectored_takes_every_buffer() {
    use runtime::io::AsyncWrite;
    use std::io::IoSlice;
    watchdog("the duplex vectored writes", || {
        let rt = current_thread();
        run(&rt, "duplex write_vectored", async {
            let (mut client, mut server) = runtime::io::duplex(64);
            assert!(client.is_write_vectored());
            let n = client
                .write_vectored(&[IoSlice::new(b"hello "), IoSlice::new(b"world")])
                .await
                .unwrap();
            assert_eq!(n, 11);
            // Only what fits: 4 bytes of room, split over the buffers in order.
            let (mut a, mut b) = runtime::io::duplex(4);
            let n = a
                .write_vectored(&[
                    IoSlice::new(b"ab"),
                    IoSlice::new(b""),
                    IoSlice::new(b"cdef"),
                ])
                .await
                .unwrap();
            assert_eq!(n, 4);
            drop(a);
            let mut got = Vec::new();
            b.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, b"abcd");

            client.shutdown().await.unwrap();
            drop(client);
            let mut got = Vec::new();
            server.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, b"hello world");

            // The futures-io side takes them all too.
            let (mut c, mut d) = runtime::io::duplex(64);
            let n = futures::io::AsyncWriteExt::write_vectored(
                &mut c,
                &[IoSlice::new(b"12"), IoSlice::new(b"34")],
            )
            .await
            .unwrap();
            assert_eq!(n, 4);
            drop(c);
            let mut got = Vec::new();
            d.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, b"1234");
        });
    })
}

/// As tokio's: `sink` and `empty` write every buffer of a vectored write at once, and a loop
/// of vectored writes spends the budget (the `yield_now` beside it gets to finish).
#[test]
fn sink_and_empty_write_vectored_take_every_buffer() {
    use runtime::io::AsyncWrite;
    use std::io::IoSlice;
    watchdog("the sink's vectored writes", || {
        let rt = current_thread();
        run(&rt, "sink write_vectored", async {
            let bufs = [
                IoSlice::new(b""),
                IoSlice::new(b"hello"),
                IoSlice::new(b""),
                IoSlice::new(b"world"),
            ];
            let mut sink = runtime::io::sink();
            assert!(sink.is_write_vectored());
            assert_eq!(sink.write_vectored(&bufs).await.unwrap(), 10);
            let mut empty = runtime::io::empty();
            assert!(empty.is_write_vectored());
            assert_eq!(empty.write_vectored(&bufs).await.unwrap(), 10);
            let n = futures::io::AsyncWriteExt::write_vectored(&mut sink, &bufs)
                .await
                .unwrap();
            assert_eq!(n, 10);
            let yielded = runtime::select! {
                biased;
                _ = async {
                    loop {
                        assert_eq!(runtime::io::sink().write_vectored(&bufs).await.unwrap(), 10);
                    }
                } => false,
                _ = runtime::task::yield_now() => true,
            };
            assert!(yielded);
        });
    })
}

#[test]
fn duplex_speaks_futures_io_too() {
    watchdog("the duplex futures-io reads and writes", || {
        let rt = current_thread();
        run(&rt, "duplex futures-io", futures_only::duplex_roundtrip());
    })
}

/// Only futures' extension traits in scope here: plain method calls resolve.
mod futures_only {
    use futures::io::{AsyncReadExt, AsyncWriteExt};

    pub(super) async fn duplex_roundtrip() {
        let (mut a, mut b) = runtime::io::duplex(4);
        let w = runtime::spawn(async move {
            a.write_all(b"0123456789").await.unwrap();
            a.close().await.unwrap();
        });
        let mut s = String::new();
        b.read_to_string(&mut s).await.unwrap();
        assert_eq!(s, "0123456789");
        w.await.unwrap();
    }
}

#[test]
#[should_panic(expected = "could never pass a byte")]
fn duplex_of_zero_is_refused() {
    let _ = runtime::io::duplex(0);
}

#[test]
fn stdout_and_stderr_write_and_flush() {
    watchdog("the stdout and stderr writes", || {
        let rt = current_thread();
        run(&rt, "stdio", async {
            let mut out = runtime::io::stdout();
            out.write_all(b"io_traits: stdout works\n").await.unwrap();
            out.flush().await.unwrap();
            let mut err = runtime::io::stderr();
            err.write_all(b"io_traits: stderr works\n").await.unwrap();
            err.shutdown().await.unwrap();
        });
    })
}

/// As tokio's: once the runtime is shut down, a stdout or stderr write (started under
/// `Handle::block_on`) fails at once with the runtime-shutdown error, and so does the
/// next write on the same handle.
#[test]
fn stdout_and_stderr_after_shutdown_report_it() {
    watchdog("the writes after shutdown", || {
        use runtime::runtime::is_rt_shutdown_err;
        for rt in [current_thread(), support::multi_thread(2)] {
            let handle = rt.handle().clone();
            let _enter = rt.enter();
            rt.shutdown_timeout(Duration::from_secs(10));
            let mut out = runtime::io::stdout();
            let err = handle.block_on(out.write_all(b"x")).unwrap_err();
            assert!(is_rt_shutdown_err(&err), "{err}");
            let err = handle.block_on(out.write_all(b"y")).unwrap_err();
            assert!(is_rt_shutdown_err(&err), "{err}");
            let err = handle
                .block_on(runtime::io::stderr().write_all(b"x"))
                .unwrap_err();
            assert!(is_rt_shutdown_err(&err), "{err}");
        }
    })
}

#[test]
fn ready_reports_interest() {
    watchdog("the socket readiness", || {
        use runtime::io::{Interest, Ready};
        let rt = current_thread();
        run(&rt, "ready", async {
            let (a, b) = tcp_pair().await;
            // A fresh connection is writable, not readable.
            let r = a
                .ready(Interest::READABLE | Interest::WRITABLE)
                .await
                .unwrap();
            assert!(r.is_writable() && !r.is_readable(), "{r:?}");
            b.try_write(b"x").unwrap();
            let r = a.ready(Interest::READABLE).await.unwrap();
            assert_eq!(r, Ready::READABLE);
            let mut one = [0; 1];
            assert_eq!(a.try_read(&mut one).unwrap(), 1);
            // No error pending: a wait on errors alone waits.
            assert!(
                futures::FutureExt::now_or_never(a.ready(Interest::ERROR)).is_none(),
                "no error is pending"
            );
            // The halves forward it.
            let (rd, wr) = a.into_split();
            assert!(wr.ready(Interest::WRITABLE).await.unwrap().is_writable());
            b.try_write(b"y").unwrap();
            assert!(rd.ready(Interest::READABLE).await.unwrap().is_readable());
        });
    })
}

#[test]
fn simplex_passes_bytes_one_way_between_tasks() {
    watchdog("the simplex reader and writer tasks", || {
        let rt = multi_thread(2);
        run(&rt, "simplex", async {
            let (mut rx, mut tx) = runtime::io::simplex(8);
            let data: Vec<u8> = (0..10_000u32).map(|i| (i * 13) as u8).collect();
            let sent = data.clone();
            let writer = runtime::spawn(async move {
                tx.write_all(&sent).await.unwrap();
                tx.shutdown().await.unwrap();
                let err = tx.write_all(b"late").await.unwrap_err();
                assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
            });
            let mut got = Vec::new();
            rx.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, data);
            writer.await.unwrap();
        });
    })
}
