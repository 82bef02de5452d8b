#[runtime_macros::main(foo = 1)]
async fn main() {}
