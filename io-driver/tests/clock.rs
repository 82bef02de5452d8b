//! The driver's clock: pause/advance/resume, and auto-advance in `park` (a paused driver
//! with nothing to do jumps to the next timer instead of sleeping). A jump may stop at a
//! wheel cascade point first (the start of a higher level's slot), so the tests park until
//! the timer fires and check the clock never passed its deadline on the way.

use std::task::Poll;
use std::time::Duration;

use io_driver::{Driver, Handle, Timer};

mod common;
use common::noop_cx;

const HOUR: Duration = Duration::from_secs(3600);

/// Parks (no timeout) until `t` fires; the clock must not pass its deadline before.
fn park_until_fired(driver: &mut Driver, handle: &Handle, t: &mut Timer) {
    for _ in 0..64 {
        if t.poll_elapsed(&mut noop_cx()).is_ready() {
            return;
        }
        assert!(
            handle.now() < t.deadline(),
            "clock passed a pending deadline"
        );
        driver.park(None);
    }
    panic!("auto-advance did not reach the timer in 64 parks");
}

#[test]
fn paused_park_jumps_to_the_next_timer_in_deadline_order() {
    let mut driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    handle.pause().unwrap();
    assert!(handle.is_paused());
    let start = handle.now();
    let mut late = handle.timer(start + 2 * HOUR);
    let mut early = handle.timer(start + HOUR);
    assert!(late.poll_elapsed(&mut noop_cx()).is_pending());
    assert!(early.poll_elapsed(&mut noop_cx()).is_pending());
    // Nothing else happens: parking moves the clock to the first deadline and fires it.
    park_until_fired(&mut driver, &handle, &mut early);
    assert_eq!(handle.now(), start + HOUR);
    assert!(late.poll_elapsed(&mut noop_cx()).is_pending());
    park_until_fired(&mut driver, &handle, &mut late);
    assert_eq!(handle.now(), start + 2 * HOUR);
    assert_eq!(late.poll_elapsed(&mut noop_cx()), Poll::Ready(Ok(())));
}

#[test]
fn a_park_timeout_shorter_than_the_timer_bounds_the_jump() {
    let mut driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    handle.pause().unwrap();
    let start = handle.now();
    let mut t = handle.timer(start + HOUR);
    assert!(t.poll_elapsed(&mut noop_cx()).is_pending());
    driver.park(Some(Duration::from_secs(60)));
    let after = handle.now();
    assert!(
        after > start && after <= start + Duration::from_secs(60),
        "{:?}",
        after - start
    );
    assert!(t.poll_elapsed(&mut noop_cx()).is_pending());
    // A zero timeout never moves the clock.
    driver.park(Some(Duration::ZERO));
    assert_eq!(handle.now(), after);
}

#[test]
fn an_unpark_or_an_inhibitor_stops_auto_advance() {
    let mut driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    handle.pause().unwrap();
    let start = handle.now();
    let mut t = handle.timer(start + HOUR);
    assert!(t.poll_elapsed(&mut noop_cx()).is_pending());
    // Someone has work (an unpark is pending): the clock stays.
    handle.unpark();
    driver.park(None);
    assert_eq!(handle.now(), start);
    // Work the driver cannot see: it waits for real (bounded here) and the clock stays.
    handle.inhibit_auto_advance();
    driver.park(Some(Duration::from_millis(1)));
    assert_eq!(handle.now(), start);
    handle.allow_auto_advance();
    park_until_fired(&mut driver, &handle, &mut t);
    assert_eq!(handle.now(), start + HOUR);
}

#[test]
fn advance_and_resume_and_their_errors() {
    let driver = Driver::new().unwrap();
    let handle = driver.handle().clone();
    assert!(handle.advance(HOUR).is_err(), "advance while running");
    assert!(handle.resume().is_err(), "resume while running");
    handle.pause().unwrap();
    assert!(handle.pause().is_err(), "pause twice");
    let start = handle.now();
    handle.advance(HOUR).unwrap();
    assert_eq!(handle.now(), start + HOUR);
    assert!(handle.advance(Duration::MAX).is_err(), "overflow");
    handle.resume().unwrap();
    assert!(!handle.is_paused());
    let a = handle.now();
    let b = handle.now();
    assert!(a >= start + HOUR && b >= a, "running clock went backwards");
    // Pausing again never moves it backwards.
    handle.pause().unwrap();
    assert!(handle.now() >= b);
}
