#[path = "../mock/mod.rs"]
mod mock;

// The function's attributes keep applying to the body the macro moved.
#[runtime_macros::main(crate = "mock")]
#[deny(unused_variables)]
async fn main() {
    let unused = mock::yield_now().await;
}
