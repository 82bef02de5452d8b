// tokio's `start_paused` is recognised, and refused until paused time exists.
#[runtime_macros::test(flavor = "current_thread", start_paused = true)]
async fn paused() {}

fn main() {}
