//! `Handle::unpark` against a driver parked with no timeout.

mod common;

use std::sync::mpsc;
use std::time::Duration;

use common::EVENTUALLY;
use io_driver::Driver;

#[test]
fn unpark_wakes_a_parked_driver() {
    let mut driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let (tx, rx) = mpsc::channel();
    let t = std::thread::spawn(move || {
        for _ in 0..5 {
            driver.park(None);
            tx.send(()).unwrap();
        }
    });
    for round in 0..5 {
        // Give the driver time to block (not required for correctness).
        std::thread::sleep(Duration::from_millis(20));
        handle.unpark();
        rx.recv_timeout(EVENTUALLY)
            .unwrap_or_else(|_| panic!("round {round}: park(None) did not return"));
    }
    t.join().unwrap();
}

#[test]
fn unpark_before_park_makes_park_return() {
    let mut driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let (tx, rx) = mpsc::channel();
    handle.unpark();
    std::thread::spawn(move || {
        driver.park(None);
        tx.send(()).unwrap();
    });
    rx.recv_timeout(EVENTUALLY)
        .expect("an unpark issued before park was lost");
}

/// A zero-timeout turn with nothing registered skips `epoll_wait`; an unpark it did not
/// consume still ends the next sleeping park.
#[test]
fn an_unpark_survives_zero_timeout_turns_with_nothing_registered() {
    let mut driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    assert_eq!(handle.registrations(), 0);
    let (tx, rx) = mpsc::channel();
    handle.unpark();
    std::thread::spawn(move || {
        for _ in 0..3 {
            driver.park(Some(Duration::ZERO));
        }
        driver.park(None);
        tx.send(()).unwrap();
    });
    rx.recv_timeout(EVENTUALLY)
        .expect("an unpark left pending by zero-timeout turns was lost");
}

/// A zero-timeout turn with a resource registered still dispatches its readiness.
#[test]
fn a_zero_timeout_turn_dispatches_a_registered_resource() {
    use std::io::Write;
    use std::task::{Context, Poll, Waker};
    let mut driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mut peer = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (ours, _) = listener.accept().unwrap();
    ours.set_nonblocking(true).unwrap();
    let mut stream = mio::net::TcpStream::from_std(ours);
    let reg = handle
        .register(&mut stream, mio::Interest::READABLE)
        .unwrap();
    assert!(handle.registrations() > 0);
    let mut cx = Context::from_waker(Waker::noop());
    // Nothing to read yet: the poll registers interest.
    assert!(reg
        .poll_ready(&mut cx, io_driver::Direction::Read)
        .is_pending());
    peer.write_all(b"x").unwrap();
    let mut ready = false;
    for _ in 0..1000 {
        driver.park(Some(Duration::ZERO));
        if let Poll::Ready(r) = reg.poll_ready(&mut cx, io_driver::Direction::Read) {
            r.unwrap();
            ready = true;
            break;
        }
        std::thread::yield_now();
    }
    assert!(
        ready,
        "zero-timeout turns never dispatched the readable event"
    );
}

#[test]
fn driver_and_handle_are_send_and_sync_where_promised() {
    fn send<T: Send>() {}
    fn sync<T: Sync>() {}
    fn unpin<T: Unpin>() {}
    send::<Driver>();
    send::<io_driver::Handle>();
    sync::<io_driver::Handle>();
    send::<io_driver::Registration>();
    sync::<io_driver::Registration>();
    send::<io_driver::Timer>();
    sync::<io_driver::Timer>();
    unpin::<io_driver::Timer>();
}

/// A poll that does not wait takes at most the busy capacity of events
/// (`set_busy_events_capacity`); the rest stay in the kernel for the next polls, and a
/// poll that may wait takes up to the full capacity.
#[test]
fn a_busy_poll_takes_at_most_the_busy_capacity() {
    let mut driver = Driver::with_events_capacity(64).unwrap();
    driver.set_busy_events_capacity(1);
    let handle = driver.handle().clone();
    let mut pairs = Vec::new();
    let mut regs = Vec::new();
    for _ in 0..4 {
        let (mut a, b) = mio::net::UnixStream::pair().unwrap();
        regs.push(handle.register(&mut a, mio::Interest::WRITABLE).unwrap());
        pairs.push((a, b));
    }
    let writable = |regs: &[io_driver::Registration]| {
        regs.iter().filter(|r| r.readiness().is_writable()).count()
    };
    driver.park(Some(Duration::ZERO));
    assert_eq!(writable(&regs), 1, "one event per busy poll");
    driver.park(Some(Duration::ZERO));
    assert_eq!(writable(&regs), 2, "the next one stayed pending");
    driver.park(Some(Duration::from_millis(1)));
    assert_eq!(writable(&regs), 4, "a poll that may wait takes the rest");
}
