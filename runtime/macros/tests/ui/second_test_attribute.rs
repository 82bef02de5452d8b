#[runtime_macros::test]
#[test]
async fn twice() {}

#[runtime_macros::test(crate = "mock")]
#[core::prelude::v1::test]
async fn twice_by_path() {}

fn main() {}
