//! I/O readiness through real TCP sockets: blocking reads, WouldBlock handling, the
//! tick-checked clear, stale tokens after slot reuse, and shutdown.

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream as StdStream};
use std::task::{Context, Poll};
use std::time::Duration;

use common::{noop_cx, wait_until, DriverThread, Recorder};
use io_driver::{Direction, Driver, Ready};
use mio::net::TcpStream;
use mio::Interest;

/// A connected pair: (mio stream for the driver side, std stream for the peer).
fn pair() -> (TcpStream, StdStream) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let peer = StdStream::connect(listener.local_addr().unwrap()).unwrap();
    let (ours, _) = listener.accept().unwrap();
    ours.set_nonblocking(true).unwrap();
    (TcpStream::from_std(ours), peer)
}

fn read_into(stream: &TcpStream, buf: &mut [u8]) -> std::io::Result<usize> {
    (&*stream).read(buf)
}

#[test]
fn read_blocks_until_peer_writes_then_waits_again_after_would_block() {
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let (mut stream, mut peer) = pair();
    let reg = handle
        .register(&mut stream, Interest::READABLE | Interest::WRITABLE)
        .unwrap();
    let dt = DriverThread::spawn(driver);

    let (rec, waker) = Recorder::new();
    let mut cx = Context::from_waker(&waker);
    let mut buf = [0u8; 64];
    let poll = reg.poll_io(&mut cx, Direction::Read, || read_into(&stream, &mut buf));
    assert!(poll.is_pending(), "nothing was written yet: {poll:?}");

    peer.write_all(b"hello").unwrap();
    assert!(rec.wait_for(1), "reader never woken after the peer wrote");
    match reg.poll_io(&mut cx, Direction::Read, || read_into(&stream, &mut buf)) {
        Poll::Ready(Ok(n)) => assert_eq!(&buf[..n], b"hello"),
        other => panic!("expected data, got {other:?}"),
    }

    // Readiness is still set; the read hits WouldBlock, readiness is cleared, we wait again.
    assert!(reg.readiness().is_readable());
    let poll = reg.poll_io(&mut cx, Direction::Read, || read_into(&stream, &mut buf));
    assert!(poll.is_pending(), "drained socket must wait: {poll:?}");
    assert!(
        !reg.readiness().is_readable(),
        "WouldBlock must clear readable"
    );

    peer.write_all(b"again").unwrap();
    assert!(rec.wait_for(2), "reader not woken for the second write");
    match reg.poll_io(&mut cx, Direction::Read, || read_into(&stream, &mut buf)) {
        Poll::Ready(Ok(n)) => assert_eq!(&buf[..n], b"again"),
        other => panic!("expected data, got {other:?}"),
    }

    // Writes complete without waiting; EOF is observed as read-closed.
    let poll = reg.poll_io(&mut cx, Direction::Write, || (&stream).write(b"pong"));
    assert!(matches!(poll, Poll::Ready(Ok(4))), "{poll:?}");
    let mut got = [0u8; 4];
    peer.read_exact(&mut got).unwrap();
    assert_eq!(&got, b"pong");
    drop(peer);
    assert!(wait_until(|| reg.readiness().is_read_closed()));
    let poll = reg.poll_io(&mut cx, Direction::Read, || read_into(&stream, &mut buf));
    assert!(matches!(poll, Poll::Ready(Ok(0))), "EOF expected: {poll:?}");
    reg.deregister(&mut stream).unwrap();
    drop(dt);
}

#[test]
fn block_on_read_with_driver_thread() {
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let (mut stream, mut peer) = pair();
    let reg = handle.register(&mut stream, Interest::READABLE).unwrap();
    let _dt = DriverThread::spawn(driver);
    let writer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        peer.write_all(b"0123456789").unwrap();
        peer
    });
    let mut buf = [0u8; 16];
    let n = futures::executor::block_on(std::future::poll_fn(|cx| {
        reg.poll_io(cx, Direction::Read, || read_into(&stream, &mut buf))
    }))
    .unwrap();
    assert_eq!(&buf[..n], b"0123456789");
    drop(writer.join().unwrap());
}

/// A real event dispatched between the read's WouldBlock and `clear_readiness` survives the
/// clear: `poll_io` sees it and reads the data in the same poll, without returning Pending.
#[test]
fn event_between_would_block_and_clear_is_not_lost() {
    let mut driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let (mut stream, mut peer) = pair();
    let reg = handle.register(&mut stream, Interest::READABLE).unwrap();
    // A spurious readable (as after a stale edge) so the first attempt hits WouldBlock.
    driver.inject_event(reg.token(), Ready::READABLE);
    let first_tick = match reg.poll_ready(&mut noop_cx(), Direction::Read) {
        Poll::Ready(Ok(ev)) => ev.tick(),
        other => panic!("{other:?}"),
    };

    let mut attempts = 0;
    let mut buf = [0u8; 8];
    let (_rec, waker) = Recorder::new();
    let res = reg.poll_io(&mut Context::from_waker(&waker), Direction::Read, || {
        attempts += 1;
        let r = read_into(&stream, &mut buf);
        if attempts == 1 {
            assert_eq!(
                r.as_ref().unwrap_err().kind(),
                std::io::ErrorKind::WouldBlock
            );
            // Now the data arrives and the driver dispatches it, before poll_io clears.
            peer.write_all(b"x").unwrap();
            let dispatched = wait_until(|| {
                driver.park(Some(Duration::from_millis(10)));
                matches!(reg.poll_ready(&mut noop_cx(), Direction::Read),
                         Poll::Ready(Ok(ev)) if ev.tick() != first_tick)
            });
            assert!(dispatched, "the real event never arrived");
        }
        r
    });
    assert!(matches!(res, Poll::Ready(Ok(1))), "event was lost: {res:?}");
    assert_eq!(attempts, 2);
    assert_eq!(buf[0], b'x');
}

#[test]
fn stale_tick_clear_is_a_no_op() {
    let mut driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let (mut stream, _peer) = pair();
    let reg = handle.register(&mut stream, Interest::READABLE).unwrap();
    driver.inject_event(reg.token(), Ready::READABLE);
    let Poll::Ready(Ok(old)) = reg.poll_ready(&mut noop_cx(), Direction::Read) else {
        panic!("expected readable")
    };
    driver.inject_event(reg.token(), Ready::READABLE);
    reg.clear_readiness(old);
    let Poll::Ready(Ok(new)) = reg.poll_ready(&mut noop_cx(), Direction::Read) else {
        panic!("the newer event was erased by a stale clear")
    };
    assert_ne!(new.tick(), old.tick());
    reg.clear_readiness(new);
    assert!(reg.poll_ready(&mut noop_cx(), Direction::Read).is_pending());
}

#[test]
fn stale_token_never_wakes_the_slots_next_occupant() {
    let mut driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let (mut old_stream, mut old_peer) = pair();
    let old = handle
        .register(&mut old_stream, Interest::READABLE)
        .unwrap();
    let old_token = old.token();
    // Drop the registration but keep the socket registered in epoll: its events keep the
    // old token, exactly like a socket closed while an event was in flight.
    drop(old);
    assert_eq!(handle.registrations(), 0);
    let (mut new_stream, _new_peer) = pair();
    let new = handle
        .register(&mut new_stream, Interest::READABLE)
        .unwrap();
    let mask = (1 << 24) - 1;
    assert_eq!(new.token().0 & mask, old_token.0 & mask, "slot reused");
    assert_ne!(new.token(), old_token, "with a new generation");

    let (rec, waker) = Recorder::new();
    assert!(new
        .poll_ready(&mut Context::from_waker(&waker), Direction::Read)
        .is_pending());
    driver.inject_event(old_token, Ready::READABLE | Ready::READ_CLOSED);
    old_peer.write_all(b"stale").unwrap();
    for _ in 0..20 {
        driver.park(Some(Duration::from_millis(5)));
    }
    assert_eq!(rec.count(), 0, "woken by an event for the old occupant");
    assert!(new.readiness().is_empty());

    driver.inject_event(new.token(), Ready::READABLE);
    assert_eq!(rec.count(), 1);
    assert!(new.readiness().is_readable());
}

#[test]
fn shutdown_fails_pending_read_and_pending_timer() {
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let (mut stream, _peer) = pair();
    let reg = handle.register(&mut stream, Interest::READABLE).unwrap();
    let dt = DriverThread::spawn(driver);

    let (read_rec, read_waker) = Recorder::new();
    let mut buf = [0u8; 4];
    let mut read_cx = Context::from_waker(&read_waker);
    assert!(reg
        .poll_io(&mut read_cx, Direction::Read, || read_into(
            &stream, &mut buf
        ))
        .is_pending());
    let (timer_rec, timer_waker) = Recorder::new();
    let mut timer = handle.timer(std::time::Instant::now() + Duration::from_secs(3600));
    assert!(timer
        .poll_elapsed(&mut Context::from_waker(&timer_waker))
        .is_pending());

    let mut driver = dt.stop();
    assert!(!handle.is_shutdown());
    driver.shutdown();
    driver.shutdown(); // idempotent
    assert!(handle.is_shutdown());
    assert_eq!(read_rec.count(), 1);
    assert_eq!(timer_rec.count(), 1);
    match reg.poll_io(&mut read_cx, Direction::Read, || {
        read_into(&stream, &mut buf)
    }) {
        Poll::Ready(Err(e)) => assert!(e.to_string().contains("shutting down"), "{e}"),
        other => panic!("expected shutdown error, got {other:?}"),
    }
    let res = timer.poll_elapsed(&mut Context::from_waker(&timer_waker));
    match res {
        Poll::Ready(Err(e)) => assert_eq!(e.to_string(), "timer driver shut down"),
        other => panic!("expected TimerShutdown, got {other:?}"),
    }
    // New work fails too.
    let (mut s2, _p2) = pair();
    assert!(handle.register(&mut s2, Interest::READABLE).is_err());
    let mut late = handle.timer(std::time::Instant::now() + Duration::from_secs(1));
    assert!(matches!(
        late.poll_elapsed(&mut noop_cx()),
        Poll::Ready(Err(_))
    ));
}

#[test]
fn dropping_the_driver_fails_pending_reads() {
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let (mut stream, _peer) = pair();
    let reg = handle.register(&mut stream, Interest::READABLE).unwrap();
    let (rec, waker) = Recorder::new();
    assert!(reg
        .poll_ready(&mut Context::from_waker(&waker), Direction::Read)
        .is_pending());
    drop(driver);
    assert_eq!(rec.count(), 1);
    assert!(matches!(
        reg.poll_ready(&mut noop_cx(), Direction::Read),
        Poll::Ready(Err(_))
    ));
}

#[test]
fn many_registrations_grow_and_free_the_slab() {
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    // Unix socket pairs: no listen backlog to overflow.
    let mut streams: Vec<_> = (0..300)
        .map(|_| mio::net::UnixStream::pair().unwrap())
        .collect();
    let regs: Vec<_> = streams
        .iter_mut()
        .map(|(a, _)| handle.register(a, Interest::WRITABLE).unwrap())
        .collect();
    assert_eq!(handle.registrations(), 300);
    let _dt = DriverThread::spawn(driver);
    // Every socket becomes writable: each event reached its own entry across slab pages.
    assert!(wait_until(|| regs
        .iter()
        .all(|r| r.readiness().is_writable())));
    for (r, (a, _)) in regs.iter().zip(streams.iter_mut()) {
        r.deregister(a).unwrap();
    }
    drop(regs);
    assert_eq!(handle.registrations(), 0);
}

/// Ping-pong over several socket pairs, both ends driven through registrations, while the
/// driver parks with no timeout: a lost readiness wakeup would hang a pair.
#[test]
fn concurrent_ping_pong_loses_no_wakeup() {
    use std::sync::Arc;
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let _dt = DriverThread::spawn_with(driver, None);
    let (tx, rx) = std::sync::mpsc::channel();
    const ROUNDS: usize = 300;
    for _ in 0..3 {
        let (mut a, mut b) = mio::net::UnixStream::pair().unwrap();
        let both = Interest::READABLE | Interest::WRITABLE;
        let ra = handle.register(&mut a, both).unwrap();
        let rb = handle.register(&mut b, both).unwrap();
        let ends = [(Arc::new(a), ra, true), (Arc::new(b), rb, false)];
        for (sock, reg, pinger) in ends {
            let tx = tx.clone();
            std::thread::spawn(move || {
                let io = |dir, f: &mut dyn FnMut() -> std::io::Result<usize>| {
                    futures::executor::block_on(std::future::poll_fn(|cx| {
                        reg.poll_io(cx, dir, &mut *f)
                    }))
                    .unwrap()
                };
                for round in 0..ROUNDS {
                    let byte = [round as u8];
                    let mut got = [0u8; 1];
                    if pinger {
                        assert_eq!(io(Direction::Write, &mut || (&*sock).write(&byte)), 1);
                        assert_eq!(io(Direction::Read, &mut || (&*sock).read(&mut got)), 1);
                    } else {
                        assert_eq!(io(Direction::Read, &mut || (&*sock).read(&mut got)), 1);
                        assert_eq!(io(Direction::Write, &mut || (&*sock).write(&got)), 1);
                    }
                    assert_eq!(got, byte);
                }
                tx.send(()).unwrap();
            });
        }
    }
    for _ in 0..6 {
        rx.recv_timeout(common::EVENTUALLY * 3)
            .expect("a ping-pong end hung: lost wakeup");
    }
}
