fn main() {
    let rt = runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let v: u32 = runtime::select! {
            else => 1,
        };
        drop(v);
    });
}
