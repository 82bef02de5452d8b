//! tokio's `tokio::runtime::...` paths resolve once renamed, and a tokio deployment's
//! `TOKIO_WORKER_THREADS` sets the default worker count.
#![cfg(not(loom))]

use runtime::runtime::{
    Builder, EnterGuard, Handle, Id, LocalOptions, LocalRuntime, Runtime, RuntimeFlavor,
    RuntimeMetrics, TryCurrentError,
};

#[test]
fn tokio_paths_resolve() {
    let rt: Runtime = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let guard: EnterGuard<'_> = rt.enter();
    let handle: Handle = Handle::current();
    drop(guard);
    assert_eq!(handle.runtime_flavor(), RuntimeFlavor::MultiThread);
    let _id: Id = handle.id();
    let metrics: RuntimeMetrics = handle.metrics();
    assert_eq!(metrics.num_workers(), 2);
    let err: TryCurrentError = Handle::try_current().unwrap_err();
    assert!(!err.to_string().is_empty());
    let local: LocalRuntime = Builder::new_current_thread()
        .build_local(LocalOptions::default())
        .unwrap();
    assert_eq!(local.block_on(async { 7 }), 7);
}

/// The default worker count: `TOKIO_WORKER_THREADS` first, then `RUNTIME_WORKER_THREADS`.
/// One test (the environment is process-wide), in its own binary's thread.
#[test]
fn tokio_worker_threads_is_honoured_first() {
    std::env::set_var("TOKIO_WORKER_THREADS", "3");
    std::env::set_var("RUNTIME_WORKER_THREADS", "5");
    let rt = Builder::new_multi_thread().build().unwrap();
    assert_eq!(rt.metrics().num_workers(), 3);
    drop(rt);
    std::env::remove_var("TOKIO_WORKER_THREADS");
    let rt = Builder::new_multi_thread().build().unwrap();
    assert_eq!(rt.metrics().num_workers(), 5);
    drop(rt);
    std::env::set_var("TOKIO_WORKER_THREADS", "zero");
    let err = std::panic::catch_unwind(|| Builder::new_multi_thread().build()).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("TOKIO_WORKER_THREADS"), "{msg}");
    std::env::remove_var("TOKIO_WORKER_THREADS");
    std::env::remove_var("RUNTIME_WORKER_THREADS");
}
