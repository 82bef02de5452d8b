#[path = "../mock/mod.rs"]
mod mock;

#[runtime_macros::main(crate = "mock")]
async fn main() -> Result<(), String> {
    mock::yield_now().await;
    let n: u32 = "not a number";
    Ok(n)
}
