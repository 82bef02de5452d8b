//! A binary's real `fn main` returning a `Result`, built by the macro.

#[path = "../../mock/mod.rs"]
mod mock;

use std::error::Error;

#[runtime_macros::main(crate = "mock")]
async fn main() -> Result<(), Box<dyn Error>> {
    let n: u32 = mock::from_thread(|| "21").await.parse()?;
    if n != 21 {
        return Err(format!("parsed {n}").into());
    }
    assert_eq!(mock::current().flavor, mock::Flavor::MultiThread);
    Ok(())
}
