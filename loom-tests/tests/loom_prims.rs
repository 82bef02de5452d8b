//! The loom suites over the primitives the schedulers and users build on: the run queues
//! (`Local`, `Inject`), the task state machine, `runtime::sync` (channels, locks, `Notify`,
//! `Barrier`, the shim's `SpinMutex`) and the I/O driver's readiness word, waiter lists and
//! timer protocol, in one test binary (the schedulers' suites are `loom_sched`; why two
//! binaries and how a model is named: there). A model is `<suite>::<model>`, or
//! `<suite>::<module>::<model>` in `loom_task` and `loom_sync_chan` (their modules' files
//! in `loom_task/` and `loom_sync_chan/`).
#![cfg(loom)]

#[path = "loom_barrier.rs"]
mod loom_barrier;
#[path = "loom_driver.rs"]
mod loom_driver;
#[path = "loom_dump_claim.rs"]
mod loom_dump_claim;
#[path = "loom_inject.rs"]
mod loom_inject;
#[path = "loom_local.rs"]
mod loom_local;
#[path = "loom_notify.rs"]
mod loom_notify;
#[path = "loom_oneshot.rs"]
mod loom_oneshot;
#[path = "loom_readiness.rs"]
mod loom_readiness;
#[path = "loom_self_wake.rs"]
mod loom_self_wake;
#[path = "loom_spin_mutex.rs"]
mod loom_spin_mutex;
#[path = "loom_sync_chan.rs"]
mod loom_sync_chan;
#[path = "loom_sync_close.rs"]
mod loom_sync_close;
#[path = "loom_sync_list.rs"]
mod loom_sync_list;
#[path = "loom_sync_locks.rs"]
mod loom_sync_locks;
#[path = "loom_task.rs"]
mod loom_task;
#[path = "loom_timer.rs"]
mod loom_timer;
#[path = "loom_wait_block.rs"]
mod loom_wait_block;
