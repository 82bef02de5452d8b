//! `main` with a unit return on the single-threaded flavor; `return` exits early.

#[path = "../../mock/mod.rs"]
mod mock;

#[runtime_macros::main(flavor = "current_thread", crate = "mock")]
async fn main() {
    let rec = mock::current();
    assert_eq!(rec.flavor, mock::Flavor::CurrentThread);
    if rec.worker_threads.is_none() {
        return;
    }
    unreachable!("returned above");
}
