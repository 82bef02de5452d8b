#[runtime_macros::test]
async unsafe fn not_safe() {}

#[runtime_macros::test]
const async fn constant() {}

#[runtime_macros::test]
async extern "C" fn foreign() {}

fn main() {}
