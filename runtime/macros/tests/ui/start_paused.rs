// `start_paused` takes a boolean literal.
#[runtime_macros::test(flavor = "current_thread", start_paused = "yes")]
async fn paused() {}

fn main() {}
