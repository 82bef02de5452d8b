#[runtime_macros::test]
async fn takes_one(n: u32) {
    assert_eq!(n, n);
}

fn main() {}
