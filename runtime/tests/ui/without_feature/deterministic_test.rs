#[runtime::test(deterministic, seeds = 10)]
async fn explores() {}

fn main() {}
