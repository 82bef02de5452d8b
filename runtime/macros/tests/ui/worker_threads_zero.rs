#[runtime_macros::main(flavor = "multi_thread", worker_threads = 0)]
async fn main() {}
