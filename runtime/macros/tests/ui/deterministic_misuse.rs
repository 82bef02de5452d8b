#[runtime_macros::main(deterministic)]
async fn main() {}

#[runtime_macros::test(deterministic, start_paused = true)]
async fn paused() {}

#[runtime_macros::test(seeds = 0)]
async fn no_seeds() {}

#[runtime_macros::test(flavor = "local", deterministic)]
async fn local() {}

#[runtime_macros::test(deterministic = 3)]
async fn not_a_flag() {}
