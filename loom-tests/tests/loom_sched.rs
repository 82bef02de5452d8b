//! The loom suites over the schedulers and what runs beside them (the multi-thread worker,
//! its idle word, LIFO slot and monitor handshake; `block_in_place`; the blocking pool;
//! `LocalSet` and `JoinSet`), in one test binary: every test binary is a fat-LTO link of
//! the workspace, so the suites share two binaries (this one and `loom_prims`) rather than
//! each paying its own. Each suite is a module named after its file in this directory,
//! so a model is `<suite>::<model>`, or `<suite>::<module>::<model>` in a suite whose models
//! sit in modules (`loom_scheduler`, its files in `loom_scheduler/`): `--exact
//! loom_scheduler::wake::multi_spawn_one_worker`, or `loom_scheduler::` as a filter for the
//! whole suite; `loom-tests/run.py` runs them.
#![cfg(loom)]

#[path = "loom_block_in_place.rs"]
mod loom_block_in_place;
#[path = "loom_blocking.rs"]
mod loom_blocking;
#[path = "loom_idle.rs"]
mod loom_idle;
#[path = "loom_join_set.rs"]
mod loom_join_set;
#[path = "loom_lifo.rs"]
mod loom_lifo;
#[path = "loom_local_set.rs"]
mod loom_local_set;
#[path = "loom_monitor.rs"]
mod loom_monitor;
#[path = "loom_scheduler.rs"]
mod loom_scheduler;
#[path = "loom_worker_view.rs"]
mod loom_worker_view;
