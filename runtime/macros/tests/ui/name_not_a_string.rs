#[runtime_macros::main(name = 7)]
async fn main() {}
