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
