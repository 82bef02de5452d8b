#[runtime_macros::main]
async fn main(args: Vec<String>) {
    drop(args);
}
