// Paused time needs the current-thread flavor, as in tokio.
#[runtime_macros::main(flavor = "multi_thread", worker_threads = 2, start_paused = true)]
async fn main() {}
