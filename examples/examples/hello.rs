//! The smallest program: spawn a task on the runtime and await its output.

#[runtime::main]
async fn main() {
    let h = runtime::spawn(async { 40 + 2 });
    let v = h.await.unwrap();
    assert_eq!(v, 42);
    println!("Hello from runtime: 40 + 2 = {v}");
}
