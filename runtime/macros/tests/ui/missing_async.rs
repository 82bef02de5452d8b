#[runtime_macros::main(crate = "mock")]
fn main() {}
