#[runtime_macros::main(crate = "not a path")]
async fn main() {}
