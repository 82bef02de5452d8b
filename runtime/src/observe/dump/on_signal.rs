//! A dump on a signal ([`Builder::dump_on_signal`](crate::Builder::dump_on_signal),
//! [`Builder::on_dump_signal`](crate::Builder::on_dump_signal)): the handler only writes
//! a byte, a plain thread of its own takes the dump and hands it to the callback.
//!
//! At build, the runtime gets a socket pair and a thread named `runtime-dump` blocked in
//! `read` on one end; the signal's handler (installed through `signal-hook-registry`, so
//! it chains with other handlers, including `runtime::signal`'s) writes one byte to the
//! other end, non-blocking (a full socket drops the byte: dumps already asked for are
//! coming). The handler does nothing else: no allocation, no lock, errno saved and
//! restored. The thread holds only a weak reference to the runtime, so it keeps nothing
//! alive and needs no worker: a runtime whose every worker is stuck still dumps. For each
//! byte it upgrades that reference, dumps and calls the callback; once the runtime is gone
//! it removes the handler and exits, at the first delivery after the runtime's drop (until
//! then it sleeps in `read`, costing nothing).

use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Weak};

use super::Dump;
use crate::scheduler;

/// What receives each dump.
pub(crate) type DumpCallback = Arc<dyn Fn(&Dump) + Send + Sync>;

/// A runtime's scheduler, weakly.
enum WeakHandle {
    MultiThread(Weak<scheduler::multi_thread::Handle>),
    CurrentThread(Weak<scheduler::current_thread::Handle>),
}

impl WeakHandle {
    fn new(h: &scheduler::Handle) -> WeakHandle {
        match h {
            scheduler::Handle::MultiThread(h) => WeakHandle::MultiThread(Arc::downgrade(h)),
            scheduler::Handle::CurrentThread(h) => WeakHandle::CurrentThread(Arc::downgrade(h)),
        }
    }

    fn upgrade(&self) -> Option<scheduler::Handle> {
        match self {
            WeakHandle::MultiThread(w) => w.upgrade().map(scheduler::Handle::MultiThread),
            WeakHandle::CurrentThread(w) => w.upgrade().map(scheduler::Handle::CurrentThread),
        }
    }
}

/// Starts the dump thread of `handle`'s runtime and installs `signal`'s handler.
pub(crate) fn watch(
    signal: i32,
    handle: &scheduler::Handle,
    callback: DumpCallback,
) -> io::Result<()> {
    if signal_hook_registry::FORBIDDEN.contains(&signal) || signal <= 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "dump_on_signal: signal {signal} cannot be handled; pick another (e.g. SIGUSR1)"
            ),
        ));
    }
    let (mut reader, writer) = UnixStream::pair()?;
    writer.set_nonblocking(true)?;
    let fd = writer.as_raw_fd();
    let weak = WeakHandle::new(handle);
    // The thread owns `writer` and drops it only after the handler is gone (or was never
    // installed: it learns the handler's id, or that there is none, through `installed`).
    let (installed, handler_id) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("runtime-dump".into())
        .spawn(move || {
            let Ok(id) = handler_id.recv() else { return };
            let mut bytes = [0u8; 64];
            loop {
                match reader.read(&mut bytes) {
                    Ok(0) => break,
                    Ok(_) => match weak.upgrade() {
                        Some(h) => callback(&super::collect(&h)),
                        None => break,
                    },
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            signal_hook_registry::unregister(id);
            drop(writer);
        })?;
    // SAFETY: the handler is async-signal-safe: one write(2) on a non-blocking socket
    // that stays open while the handler is installed (see the thread above), with errno
    // saved and restored around it.
    let id = unsafe { signal_hook_registry::register(signal, move || poke(fd)) }?;
    installed.send(id).map_err(|_| {
        signal_hook_registry::unregister(id);
        io::Error::other("the runtime-dump thread exited at its start")
    })
}

/// The handler's body: one byte to the dump thread (async-signal-safe).
fn poke(fd: i32) {
    // `fd` is the non-blocking writer, open while the handler is installed.
    crate::signal::doorbell::ring(fd);
}
