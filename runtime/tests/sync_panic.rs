//! The misuse panics of `sync` name the caller's line: every API that panics on a bad
//! argument or a wrong context is `#[track_caller]` down to the panic itself, so a panic
//! hook sees this file as the panic's location (tokio's `sync_panic` suite).

#[macro_use]
mod support;

use std::sync::Arc;

use runtime::sync::{broadcast, mpsc, oneshot, Mutex, RwLock, Semaphore};
use support::{current_thread, panic_location_file as panic_file};

#[test]
fn broadcast_channel_zero() {
    let file = panic_file(|| {
        let _ = broadcast::channel::<u32>(0);
    });
    assert_eq!(file, file!());
}

#[test]
fn broadcast_sender_new_zero() {
    let file = panic_file(|| {
        let _ = broadcast::Sender::<u32>::new(0);
    });
    assert_eq!(file, file!());
}

#[test]
fn mpsc_channel_zero() {
    let file = panic_file(|| {
        let _ = mpsc::channel::<u8>(0);
    });
    assert_eq!(file, file!());
}

#[test]
fn mutex_blocking_lock_in_runtime() {
    let file = panic_file(|| {
        current_thread().block_on(async {
            let m = Mutex::new(5_u32);
            let _g = m.blocking_lock();
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn mutex_blocking_lock_owned_in_runtime() {
    let file = panic_file(|| {
        current_thread().block_on(async {
            let m = Arc::new(Mutex::new(5_u32));
            let _g = m.blocking_lock_owned();
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn oneshot_blocking_recv_in_runtime() {
    let file = panic_file(|| {
        current_thread().block_on(async {
            let (_tx, rx) = oneshot::channel::<u8>();
            let _ = rx.blocking_recv();
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn broadcast_blocking_recv_in_runtime() {
    let file = panic_file(|| {
        current_thread().block_on(async {
            let (_tx, mut rx) = broadcast::channel::<u8>(1);
            let _ = rx.blocking_recv();
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn rwlock_with_max_readers_zero() {
    let file = panic_file(|| {
        let _ = RwLock::<u8>::with_max_readers(0, 0);
    });
    assert_eq!(file, file!());
}

#[test]
fn rwlock_with_max_readers_too_many() {
    let file = panic_file(|| {
        let _ = RwLock::<u8>::with_max_readers(0, (u32::MAX >> 3) + 1);
    });
    assert_eq!(file, file!());
}

#[test]
fn rwlock_blocking_read_in_runtime() {
    let file = panic_file(|| {
        current_thread().block_on(async {
            let l = RwLock::new(0_u8);
            let _ = l.blocking_read();
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn rwlock_blocking_write_in_runtime() {
    let file = panic_file(|| {
        current_thread().block_on(async {
            let l = RwLock::new(0_u8);
            let _ = l.blocking_write();
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn mpsc_blocking_send_in_runtime() {
    let file = panic_file(|| {
        let (tx, _rx) = mpsc::channel::<u8>(1);
        current_thread().block_on(async {
            let _ = tx.blocking_send(3);
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn mpsc_blocking_recv_in_runtime() {
    let file = panic_file(|| {
        let (_tx, mut rx) = mpsc::channel::<u8>(1);
        current_thread().block_on(async {
            let _ = rx.blocking_recv();
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn mpsc_blocking_recv_many_in_runtime() {
    let file = panic_file(|| {
        let (_tx, mut rx) = mpsc::channel::<u8>(1);
        let mut got = Vec::new();
        current_thread().block_on(async {
            let _ = rx.blocking_recv_many(&mut got, 1);
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn unbounded_blocking_recv_in_runtime() {
    let file = panic_file(|| {
        let (_tx, mut rx) = mpsc::unbounded_channel::<u8>();
        current_thread().block_on(async {
            let _ = rx.blocking_recv();
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn unbounded_blocking_recv_many_in_runtime() {
    let file = panic_file(|| {
        let (_tx, mut rx) = mpsc::unbounded_channel::<u8>();
        let mut got = Vec::new();
        current_thread().block_on(async {
            let _ = rx.blocking_recv_many(&mut got, 1);
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn semaphore_blocking_acquire_in_runtime() {
    let file = panic_file(|| {
        current_thread().block_on(async {
            let s = Semaphore::new(1);
            let _ = s.blocking_acquire();
        });
    });
    assert_eq!(file, file!());
}

#[test]
fn semaphore_merge_unrelated_permits() {
    let file = panic_file(|| {
        let a = Semaphore::new(42);
        let b = Semaphore::new(42);
        let mut p = a.try_acquire().unwrap();
        p.merge(b.try_acquire().unwrap());
    });
    assert_eq!(file, file!());
}

#[test]
fn semaphore_merge_unrelated_owned_permits() {
    let file = panic_file(|| {
        let a = Arc::new(Semaphore::new(42));
        let b = Arc::new(Semaphore::new(42));
        let mut p = a.try_acquire_owned().unwrap();
        p.merge(b.try_acquire_owned().unwrap());
    });
    assert_eq!(file, file!());
}
