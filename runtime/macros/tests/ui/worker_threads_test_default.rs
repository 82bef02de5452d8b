#[runtime_macros::test(worker_threads = 2)]
async fn on_two_threads() {}

fn main() {}
