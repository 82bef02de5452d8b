fn main() {
    let rt = runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        runtime::select! {};
    });
}
