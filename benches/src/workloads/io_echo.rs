//! The I/O-traits pair: one echo round trip over loopback TCP on our runtime, written once
//! against tokio's `AsyncRead`/`AsyncWrite` (`runtime::io`'s Ext traits) and once against
//! futures-io (`futures::io`'s Ext traits), on the same socket type (`runtime::net::TcpStream`).
//!
//! Both sides of the connection use the family under test: a server task reads whatever
//! arrives and writes it back; an iteration is the client's `write_all` of one message and
//! `read_exact` of its echo, run in `block_on` on a `current_thread` runtime (the server
//! task runs on the same thread, so no cross-thread wakeups blur the comparison). Both
//! paths end in the same `IoSource` calls (one budget unit, the same readiness handling),
//! so the ratio of the pair is the cost of the trait layer itself: tokio's reads go
//! through a `ReadBuf` (`read(2)` into its unfilled part), futures-io's through a slice.

use runtime::net::{TcpListener, TcpStream};
use runtime::Runtime;

/// Which trait family both ends of the connection use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// `runtime::io::{AsyncReadExt, AsyncWriteExt}` (tokio's traits).
    Tokio,
    /// `futures::io::{AsyncReadExt, AsyncWriteExt}`.
    FuturesIo,
}

impl Family {
    /// The benchmark function id.
    pub fn id(self) -> &'static str {
        match self {
            Family::Tokio => "tokio_traits",
            Family::FuturesIo => "futures_io",
        }
    }
}

/// A connected client with its echo server running, and the message buffers.
pub struct Echo {
    rt: Runtime,
    client: TcpStream,
    family: Family,
    out: Vec<u8>,
    back: Vec<u8>,
}

impl Echo {
    /// A fresh runtime, listener, server task and client for `size`-byte messages.
    pub fn new(family: Family, size: usize) -> Echo {
        let rt = runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let client = rt.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let addr = listener.local_addr().expect("addr");
            runtime::spawn(async move {
                let (s, _) = listener.accept().await.expect("accept");
                s.set_nodelay(true).expect("nodelay");
                match family {
                    Family::Tokio => tokio_family::serve(s).await,
                    Family::FuturesIo => futures_family::serve(s).await,
                }
            });
            let c = TcpStream::connect(addr).await.expect("connect");
            c.set_nodelay(true).expect("nodelay");
            c
        });
        let out = (0..size).map(|i| (i * 31 % 251) as u8).collect();
        Echo {
            rt,
            client,
            family,
            out,
            back: vec![0; size],
        }
    }

    /// One message out and its echo back.
    pub fn round_trip(&mut self) {
        let Echo {
            rt,
            client,
            family,
            out,
            back,
        } = self;
        rt.block_on(async {
            match family {
                Family::Tokio => tokio_family::round_trip(client, out, back).await,
                Family::FuturesIo => futures_family::round_trip(client, out, back).await,
            }
        });
    }

    /// The last echo (equal to the message after a round trip).
    pub fn echoed(&self) -> bool {
        self.back == self.out
    }
}

/// Only tokio's extension traits in scope: the code a tokio user writes.
mod tokio_family {
    use runtime::io::{AsyncReadExt, AsyncWriteExt};
    use runtime::net::TcpStream;

    pub(super) async fn serve(mut s: TcpStream) {
        let mut buf = vec![0; 64 * 1024];
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    if s.write_all(&buf[..n]).await.is_err() {
                        return;
                    }
                }
            }
        }
    }

    pub(super) async fn round_trip(c: &mut TcpStream, out: &[u8], back: &mut [u8]) {
        c.write_all(out).await.expect("write");
        c.read_exact(back).await.expect("read");
    }
}

/// Only futures' extension traits in scope: the code a futures/smol user writes.
mod futures_family {
    use futures::io::{AsyncReadExt, AsyncWriteExt};
    use runtime::net::TcpStream;

    pub(super) async fn serve(mut s: TcpStream) {
        let mut buf = vec![0; 64 * 1024];
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    if s.write_all(&buf[..n]).await.is_err() {
                        return;
                    }
                }
            }
        }
    }

    pub(super) async fn round_trip(c: &mut TcpStream, out: &[u8], back: &mut [u8]) {
        c.write_all(out).await.expect("write");
        c.read_exact(back).await.expect("read");
    }
}
