//! `copy`, `copy_buf`, `copy_bidirectional(_with_sizes)`: data integrity over readers and
//! writers that deliver and take a little at a time, the flushes (at the end, and while
//! the reader waits), `WriteZero`, shutdown propagation, and (ours) the coop budget.

use std::io::Cursor;
#[cfg(not(feature = "tokio-traits"))]
use std::{future::Future, pin::Pin, task::Poll};

use super::{panic_message, pattern, run, Event, Mock, Step};
use crate::io::{self, AsyncReadExt, AsyncWriteExt, BufReader};

#[test]
fn copy_moves_everything_and_flushes_at_the_end() {
    run(async {
        let data = pattern(100_000);
        let mut r = Mock::trickle(&data, 3000);
        let mut w = Mock::new().max_write(1000).pending_writes();
        let n = io::copy(&mut r, &mut w).await.unwrap();
        assert_eq!(n, data.len() as u64);
        assert_eq!(w.written(), data);
        assert_eq!(w.events.last(), Some(&Event::Flush));

        let mut src: &[u8] = b"small";
        let mut out = Vec::new();
        assert_eq!(io::copy(&mut src, &mut out).await.unwrap(), 5);
        assert_eq!(out, b"small");
    })
}

#[test]
fn copy_flushes_while_the_reader_waits() {
    run(async {
        let mut r = Mock::reader([
            Step::Data(b"ab".to_vec()),
            Step::Pending,
            Step::Data(b"cd".to_vec()),
        ]);
        let mut w = Mock::new();
        io::copy(&mut r, &mut w).await.unwrap();
        assert_eq!(
            w.events,
            [
                Event::Write(b"ab".to_vec()),
                Event::Flush,
                Event::Write(b"cd".to_vec()),
                Event::Flush,
            ]
        );
    })
}

#[test]
fn copy_into_a_writer_that_takes_nothing_fails() {
    run(async {
        let mut src: &[u8] = b"data";
        let err = io::copy(&mut src, &mut Mock::new().max_write(0))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::WriteZero);
        assert_eq!(err.to_string(), "write zero byte into writer");
        let mut src: &[u8] = b"data";
        let err = io::copy_buf(&mut src, &mut Mock::new().max_write(0))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::WriteZero);
    })
}

#[test]
fn copy_passes_read_errors() {
    run(async {
        let mut r = Mock::reader([
            Step::Data(b"ok".to_vec()),
            Step::Err(std::io::ErrorKind::Interrupted),
            Step::Err(std::io::ErrorKind::ConnectionReset),
        ]);
        let mut out = Vec::new();
        let err = io::copy(&mut r, &mut out).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::ConnectionReset);
    })
}

#[test]
fn copy_buf_writes_from_the_readers_buffer() {
    run(async {
        let data = pattern(50_000);
        let mut r = BufReader::with_capacity(700, Mock::trickle(&data, 900));
        let mut w = Mock::new().max_write(500).pending_writes();
        assert_eq!(
            io::copy_buf(&mut r, &mut w).await.unwrap(),
            data.len() as u64
        );
        assert_eq!(w.written(), data);
        assert_eq!(w.events.last(), Some(&Event::Flush));
        let mut c = Cursor::new(b"cursor".to_vec());
        let mut out = Vec::new();
        assert_eq!(io::copy_buf(&mut c, &mut out).await.unwrap(), 6);
        assert_eq!(out, b"cursor");
    })
}

#[test]
fn copy_bidirectional_shuts_each_side_down_after_its_eof() {
    run(async {
        let (mut client, mut proxy_a) = io::duplex(16);
        let (mut proxy_b, mut server) = io::duplex(16);
        let proxy =
            crate::spawn(async move { io::copy_bidirectional(&mut proxy_a, &mut proxy_b).await });
        let up = pattern(5000);
        let down = pattern(3000);
        let up2 = up.clone();
        let client_task = crate::spawn(async move {
            client.write_all(&up2).await.unwrap();
            client.shutdown().await.unwrap();
            let mut got = Vec::new();
            client.read_to_end(&mut got).await.unwrap();
            got
        });
        let mut got = Vec::new();
        // Ends only because the proxy shut its side down after the client's EOF.
        server.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, up);
        server.write_all(&down).await.unwrap();
        server.shutdown().await.unwrap();
        assert_eq!(client_task.await.unwrap(), down);
        assert_eq!(
            proxy.await.unwrap().unwrap(),
            (up.len() as u64, down.len() as u64)
        );
    })
}

#[test]
fn copy_bidirectional_with_sizes_copies_and_rejects_zero() {
    run(async {
        let mut a = io::join(&b"from a"[..], Vec::new());
        let mut b = io::join(&b"from b!"[..], Vec::new());
        let counts = io::copy_bidirectional_with_sizes(&mut a, &mut b, 1, 3)
            .await
            .unwrap();
        assert_eq!(counts, (6, 7));
        assert_eq!(b.writer(), b"from a");
        assert_eq!(a.writer(), b"from b!");
    });
    // The check comes at the first poll; no runtime is needed to reach it.
    let msg = panic_message(|| {
        let mut a = io::join(&b""[..], Vec::new());
        let mut b = io::join(&b""[..], Vec::new());
        let fut = std::pin::pin!(io::copy_bidirectional_with_sizes(&mut a, &mut b, 0, 1));
        let _ = std::future::Future::poll(
            fut,
            &mut std::task::Context::from_waker(std::task::Waker::noop()),
        );
    });
    assert!(
        msg.contains("`a_to_b_buf_size` must be greater than 0"),
        "{msg}"
    );
}

/// Polls, inside a task, a loop of up to 10 000 `one()`s once: resolves to whether that
/// poll was `Pending` and how many completed in it.
#[cfg(not(feature = "tokio-traits"))]
fn first_poll_of_a_loop(one: fn() -> Pin<Box<dyn Future<Output = ()> + Send>>) -> (bool, u32) {
    const LIMIT: u32 = 10_000;
    let rt = crate::Builder::new_current_thread().build().unwrap();
    rt.block_on(rt.spawn(async move {
        let mut done = 0u32;
        let mut looping = Box::pin(async {
            while done < LIMIT {
                one().await;
                done += 1;
            }
        });
        let first = std::future::poll_fn(|cx| Poll::Ready(looping.as_mut().poll(cx))).await;
        drop(looping);
        assert!(
            done < LIMIT,
            "{done} operations in one poll without yielding"
        );
        (first.is_pending(), done)
    }))
    .unwrap()
}

/// Our copies spend our coop budget: between in-memory values that are always ready, a
/// loop of copies yields once the task's budget is spent. (tokio's spend tokio's budget,
/// inert on our runtime, so this holds without `tokio-traits`.)
#[cfg(not(feature = "tokio-traits"))]
#[test]
fn copies_are_cooperative() {
    let (yielded, n) = first_poll_of_a_loop(|| {
        Box::pin(async {
            let mut src: &[u8] = b"hello";
            io::copy(&mut src, &mut Vec::new()).await.unwrap();
        })
    });
    assert!(yielded && n > 0, "copy: {n}");
    let (yielded, n) = first_poll_of_a_loop(|| {
        Box::pin(async {
            let mut src: &[u8] = b"hello";
            io::copy_buf(&mut src, &mut Vec::new()).await.unwrap();
        })
    });
    assert!(yielded && n > 0, "copy_buf: {n}");
    let (yielded, n) = first_poll_of_a_loop(|| {
        Box::pin(async {
            let mut a = io::join(&b"ab"[..], Vec::new());
            let mut b = io::join(&b"cd"[..], Vec::new());
            io::copy_bidirectional(&mut a, &mut b).await.unwrap();
        })
    });
    assert!(yielded && n > 0, "copy_bidirectional: {n}");
}
