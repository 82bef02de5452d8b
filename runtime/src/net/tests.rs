//! Unit tests that look inside the driver: every socket gives its registration back when
//! dropped (or converted with `into_std`), halves included.

use crate::net::{TcpListener, TcpStream, UdpSocket, UnixStream};
use crate::Builder;

fn live() -> usize {
    crate::scheduler::Handle::current_io().registrations()
}

#[test]
fn dropped_sockets_free_their_registrations() {
    let rt = Builder::new_current_thread().enable_io().build().unwrap();
    rt.block_on(async {
        let base = live();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (client, accepted) = futures::join!(TcpStream::connect(addr), listener.accept());
        let (client, (server, _)) = (client.unwrap(), accepted.unwrap());
        let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let (ua, ub) = UnixStream::pair().unwrap();
        assert_eq!(live(), base + 6);

        let (r, w) = client.into_split();
        drop(r);
        assert_eq!(live(), base + 6, "one half still holds the stream");
        drop(w);
        assert_eq!(live(), base + 5);
        drop(listener);
        drop(ua);
        assert_eq!(live(), base + 3);
        let std_server = server.into_std().unwrap();
        let std_udp = udp.into_std().unwrap();
        assert_eq!(live(), base + 1);
        drop(ub);
        assert_eq!(live(), base);

        // The std sockets still work after leaving the driver, and can come back.
        let back = TcpStream::from_std(std_server).unwrap();
        let udp = UdpSocket::from_std(std_udp).unwrap();
        assert_eq!(live(), base + 2);
        drop((back, udp));
        assert_eq!(live(), base);
    });
}

fn assert_send<T: Send>(_: &T) {}
fn assert_send_sync_unpin<T: Send + Sync + Unpin>() {}

/// Compile-time: the socket types are `Send + Sync + Unpin`, and the futures of their
/// async methods are `Send` (so they can be awaited inside `runtime::spawn`).
#[test]
fn types_and_futures_are_send() {
    use crate::net::{tcp, unix, UnixListener};
    assert_send_sync_unpin::<TcpListener>();
    assert_send_sync_unpin::<TcpStream>();
    assert_send_sync_unpin::<UdpSocket>();
    assert_send_sync_unpin::<UnixListener>();
    assert_send_sync_unpin::<UnixStream>();
    assert_send_sync_unpin::<tcp::OwnedReadHalf>();
    assert_send_sync_unpin::<tcp::OwnedWriteHalf>();
    assert_send_sync_unpin::<tcp::ReadHalf<'static>>();
    assert_send_sync_unpin::<unix::OwnedWriteHalf>();

    let rt = Builder::new_current_thread().enable_io().build().unwrap();
    rt.block_on(async {
        let host = String::from("localhost:1");
        assert_send(&TcpListener::bind("127.0.0.1:0"));
        assert_send(&TcpListener::bind(host.as_str()));
        assert_send(&TcpStream::connect(("localhost", 1)));
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        assert_send(&l.accept());
        let u = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let mut buf = [0u8; 4];
        assert_send(&u.send_to(b"x", host.as_str()));
        assert_send(&u.connect("127.0.0.1:1"));
        assert_send(&u.recv_from(&mut buf));
        assert_send(&UnixStream::connect("/nonexistent"));
    });
}
