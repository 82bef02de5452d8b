#[runtime_macros::main(worker_threads = 2, flavor = "current_thread")]
async fn main() {}
