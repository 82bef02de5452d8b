struct Server;

impl Server {
    #[runtime_macros::main]
    async fn run(&self) {}
}

fn main() {}
