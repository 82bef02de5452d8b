#[runtime_macros::test]
fn not_async() {
    assert_eq!(1 + 1, 2);
}

fn main() {}
