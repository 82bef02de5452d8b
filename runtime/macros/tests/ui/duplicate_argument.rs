#[runtime_macros::main(flavor = "current_thread", crate = "mock", flavor = "multi_thread")]
async fn main() {}
