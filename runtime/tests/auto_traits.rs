//! The auto traits tokio gives and withholds, checked as values: `Unpin` on the futures
//! that are `async fn`s or pinned state machines in tokio (`Sleep`, `Timeout`, the lock and
//! acquire futures, `LocalKey::scope`), `Send`/`Sync` where tokio's differ from what a
//! hand-written future would get by default (`EnterGuard`, `AsyncFd::readable_mut`). Code
//! written against tokio pins these futures, and code that compiles here must compile on
//! tokio: a future that became `Unpin` here would let a port rely on it.
//!
//! Each probe is decided at the call site by method resolution (an impl for `Probe<T>`
//! with the bound, found first, and a fallback for `&Probe<T>`), so the test reports every
//! wrong answer by name instead of failing to compile at the first.
#![cfg(all(unix, not(loom)))]

use std::cell::Cell;
use std::marker::PhantomData;
use std::os::fd::{AsRawFd, RawFd};

use runtime::sync::{Mutex, RwLock, Semaphore};
use runtime::time::{Duration, Instant};

struct Probe<T: ?Sized>(PhantomData<T>);

fn probe<T>(_: &T) -> Probe<T> {
    Probe(PhantomData)
}

trait HasUnpin {
    fn unpin(&self) -> bool {
        true
    }
}
impl<T: ?Sized + Unpin> HasUnpin for Probe<T> {}
trait LacksUnpin {
    fn unpin(&self) -> bool {
        false
    }
}
impl<T: ?Sized> LacksUnpin for &Probe<T> {}

trait HasSend {
    fn send(&self) -> bool {
        true
    }
}
impl<T: ?Sized + Send> HasSend for Probe<T> {}
trait LacksSend {
    fn send(&self) -> bool {
        false
    }
}
impl<T: ?Sized> LacksSend for &Probe<T> {}

trait HasSync {
    fn sync(&self) -> bool {
        true
    }
}
impl<T: ?Sized + Sync> HasSync for Probe<T> {}
trait LacksSync {
    fn sync(&self) -> bool {
        false
    }
}
impl<T: ?Sized> LacksSync for &Probe<T> {}

/// `(Send, Sync, Unpin)` of an expression's value, decided where the macro is expanded.
macro_rules! traits {
    ($e:expr) => {{
        let v = $e;
        let p = probe(&v);
        ((&p).send(), (&p).sync(), (&p).unpin())
    }};
}

/// Collects every mismatch, then fails once naming them all.
struct Checks(Vec<String>);

impl Checks {
    fn expect(&mut self, what: &str, got: (bool, bool, bool), want: (bool, bool, bool)) {
        if got != want {
            self.0.push(format!(
                "{what}: (Send, Sync, Unpin) = {got:?}, tokio's: {want:?}"
            ));
        }
    }

    fn done(self) {
        assert!(
            self.0.is_empty(),
            "auto traits unlike tokio's:\n{}",
            self.0.join("\n")
        );
    }
}

const SEND_SYNC_NOT_UNPIN: (bool, bool, bool) = (true, true, false);

runtime::task_local! {
    static KEY: u32;
}

/// A descriptor type that is `Send` but not `Sync`.
struct SendOnlyFd {
    fd: RawFd,
    _not_sync: Cell<u8>,
}

impl AsRawFd for SendOnlyFd {
    fn as_raw_fd(&self) -> RawFd {
        self.fd
    }
}

#[test]
fn the_probe_tells_each_trait_apart() {
    assert_eq!(traits!(std::future::ready(1u8)), (true, true, true));
    assert_eq!(traits!(std::marker::PhantomPinned), (true, true, false));
    assert_eq!(traits!(Cell::new(1u8)), (true, false, true));
    assert_eq!(traits!(std::rc::Rc::new(1u8)), (false, false, true));
}

#[test]
fn futures_are_not_unpin_where_tokio_s_are_not() {
    let rt = runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut c = Checks(Vec::new());
        let m = Mutex::new(0u8);
        let l = RwLock::new(0u8);
        let s = Semaphore::new(1);
        c.expect(
            "time::sleep",
            traits!(runtime::time::sleep(Duration::from_secs(1))),
            SEND_SYNC_NOT_UNPIN,
        );
        c.expect(
            "time::sleep_until",
            traits!(runtime::time::sleep_until(Instant::now())),
            SEND_SYNC_NOT_UNPIN,
        );
        c.expect(
            "time::timeout of an Unpin future",
            traits!(runtime::time::timeout(
                Duration::from_secs(1),
                std::future::ready(())
            )),
            SEND_SYNC_NOT_UNPIN,
        );
        c.expect(
            "time::interval",
            traits!(runtime::time::interval(Duration::from_secs(1))),
            (true, true, true),
        );
        c.expect("Mutex::lock", traits!(m.lock()), SEND_SYNC_NOT_UNPIN);
        c.expect("RwLock::read", traits!(l.read()), SEND_SYNC_NOT_UNPIN);
        c.expect("RwLock::write", traits!(l.write()), SEND_SYNC_NOT_UNPIN);
        c.expect(
            "Semaphore::acquire",
            traits!(s.acquire()),
            SEND_SYNC_NOT_UNPIN,
        );
        c.expect(
            "Semaphore::acquire_many",
            traits!(s.acquire_many(1)),
            SEND_SYNC_NOT_UNPIN,
        );
        c.expect(
            "LocalKey::scope of an Unpin future",
            traits!(KEY.scope(1, std::future::ready(()))),
            SEND_SYNC_NOT_UNPIN,
        );
        c.done();
    });
}

#[test]
fn enter_guard_is_sync_but_not_send() {
    let rt = runtime::Runtime::new().unwrap();
    let mut c = Checks(Vec::new());
    c.expect("Runtime::enter", traits!(rt.enter()), (false, true, true));
    c.expect(
        "Handle::enter",
        traits!(rt.handle().enter()),
        (false, true, true),
    );
    c.done();
}

#[test]
fn async_fd_mut_waits_are_send_for_a_send_only_value() {
    let rt = runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        let fd = SendOnlyFd {
            fd: a.as_raw_fd(),
            _not_sync: Cell::new(0),
        };
        let mut afd = runtime::io::unix::AsyncFd::new(fd).unwrap();
        let mut c = Checks(Vec::new());
        c.expect(
            "AsyncFd<Send + !Sync>::readable_mut",
            traits!(afd.readable_mut()),
            (true, false, false),
        );
        c.expect(
            "AsyncFd<Send + !Sync>::writable_mut",
            traits!(afd.writable_mut()),
            (true, false, false),
        );
        c.expect(
            "AsyncFd<Send + !Sync>::readable",
            traits!(afd.readable()),
            (false, false, false),
        );
        c.done();
        drop(afd);
        drop(a);
    });
}
