// `fail_on_stall` needs the multi-thread runtime's monitor: another flavor is refused, as is
// `fail_on_stall` on `main`, and a duration it cannot read.

#[runtime_macros::test(flavor = "current_thread", fail_on_stall = "20ms")]
async fn on_the_current_thread() {}

#[runtime_macros::test(fail_on_stall = "20 parsecs")]
async fn unknown_unit() {}

#[runtime_macros::test(fail_on_stall = "0ms")]
async fn zero() {}

#[runtime_macros::main(fail_on_stall = "20ms", shutdown_timeout = 1)]
async fn main() {}
