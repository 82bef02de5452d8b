const THREADS: usize = 4;

#[runtime_macros::main(flavor = multi_thread, worker_threads = THREADS, crate = mock)]
async fn main() {}
