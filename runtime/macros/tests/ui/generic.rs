#[runtime_macros::main]
async fn main<T: Default>() {
    let _ = T::default();
}
