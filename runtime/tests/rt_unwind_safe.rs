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
