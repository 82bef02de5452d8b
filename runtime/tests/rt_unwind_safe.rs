//! tokio's `UnwindSafe` / `RefUnwindSafe` impls, asserted at compile time: a runtime,
//! its handles, task handles and the channels can be used across `catch_unwind` as in
//! tokio.
#![cfg(not(loom))]

use std::panic::{RefUnwindSafe, UnwindSafe};

fn unwind_safe<T: UnwindSafe + RefUnwindSafe + ?Sized>() {}

#[test]
fn runtime_and_task_handles_are_unwind_safe() {
    unwind_safe::<runtime::Runtime>();
    unwind_safe::<runtime::runtime::Handle>();
    unwind_safe::<runtime::runtime::LocalRuntime>();
    unwind_safe::<runtime::task::JoinHandle<std::cell::Cell<u8>>>();
    unwind_safe::<runtime::task::AbortHandle>();
    unwind_safe::<runtime::sync::Notify>();
    unwind_safe::<runtime::sync::mpsc::Sender<u8>>();
    unwind_safe::<runtime::sync::mpsc::Receiver<u8>>();
    unwind_safe::<runtime::sync::mpsc::UnboundedSender<u8>>();
    unwind_safe::<runtime::sync::mpsc::UnboundedReceiver<u8>>();
}

/// As tokio's `unwindsafe::net_types_are_unwind_safe` and
/// `unix_net_types_are_unwind_safe`: the sockets are unwind safe (a panic while one is
/// borrowed cannot leave it in a state that breaks a later use).
#[test]
fn net_types_are_unwind_safe() {
    unwind_safe::<runtime::net::TcpListener>();
    unwind_safe::<runtime::net::TcpSocket>();
    unwind_safe::<runtime::net::TcpStream>();
    unwind_safe::<runtime::net::UdpSocket>();
    #[cfg(unix)]
    {
        unwind_safe::<runtime::net::UnixDatagram>();
        unwind_safe::<runtime::net::UnixListener>();
        unwind_safe::<runtime::net::UnixStream>();
        unwind_safe::<runtime::net::UnixSocket>();
        unwind_safe::<runtime::net::unix::pipe::Sender>();
        unwind_safe::<runtime::net::unix::pipe::Receiver>();
    }
}
