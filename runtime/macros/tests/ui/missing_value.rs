#[runtime_macros::main(flavor)]
async fn main() {}
