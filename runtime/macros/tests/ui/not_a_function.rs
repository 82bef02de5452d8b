#[runtime_macros::main]
struct Main;

fn main() {}
