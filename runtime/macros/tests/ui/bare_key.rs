#[runtime_macros::main(multi_thread)]
async fn main() {}
