//! A program that handles the stall-capture signal itself keeps it: the runtime never
//! installs its handler over the program's, and the stall report says it has no native
//! frames because the signal is taken. (Its own binary: the handler is process-wide, and
//! must be in place before any runtime asks for a capture.)

#![cfg(target_os = "linux")]

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

/// Deliveries of the program's own handler.
static OURS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn program_handler(_sig: libc::c_int) {
    OURS.fetch_add(1, SeqCst);
}

#[test]
fn a_signal_the_program_owns_is_left_alone_and_the_report_says_so() {
    // The runtime's capture signal (stack_capture/linux.rs): SIGRTMAX - 3.
    let sig = libc::SIGRTMAX() - 3;
    // SAFETY: a plain handler that only bumps an atomic.
    let previous = unsafe {
        libc::signal(
            sig,
            program_handler as extern "C" fn(libc::c_int) as libc::sighandler_t,
        )
    };
    assert_ne!(previous, libc::SIG_ERR);
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let rt = runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .on_stall(Duration::from_millis(10), move |stall| {
            let _ = tx.lock().unwrap().send(stall.clone());
        })
        .build()
        .unwrap();
    let blocker = rt.spawn(async { std::thread::sleep(Duration::from_millis(200)) });
    let stall = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("watchdog: no stall report within 30 s");
    rt.block_on(blocker).unwrap();
    drop(rt);
    assert!(stall.backtrace.ips().is_empty(), "{stall}");
    assert!(
        stall
            .backtrace
            .missing()
            .is_some_and(|why| why.contains("owned by another handler")),
        "{stall}"
    );
    assert!(stall.to_string().contains("owned by another handler"));
    assert_eq!(
        OURS.load(SeqCst),
        0,
        "the runtime sent the program's signal"
    );
}
