#[runtime_macros::test(flavor = "multi_thread", worker_threads = "4")]
async fn string() {}

#[runtime_macros::test(flavor = "multi_thread", worker_threads = 2.0)]
async fn float() {}

#[runtime_macros::test(flavor = "multi_thread", worker_threads = -1)]
async fn negative() {}

#[runtime_macros::test(flavor = "multi_thread", worker_threads = 4u8)]
async fn suffixed() {}

fn main() {}
