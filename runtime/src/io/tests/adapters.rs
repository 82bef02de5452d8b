//! `split` (halves, `is_pair_of`, `unsplit` and its panic, `Send`/`Sync`) and `join`.

use super::{panic_message, run, Event, Mock};
use crate::io::{self, AsyncReadExt, AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};

#[test]
fn split_halves_read_and_write_the_same_value() {
    run(async {
        let (a, mut b) = io::duplex(64);
        let (mut rd, mut wr) = io::split(a);
        wr.write_all(b"to b").await.unwrap();
        b.write_all(b"to a").await.unwrap();
        let mut got = [0; 4];
        b.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"to b");
        rd.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"to a");
        assert!(rd.is_pair_of(&wr));
        assert!(wr.is_pair_of(&rd));
        let mut a = rd.unsplit(wr);
        a.write_all(b"whole").await.unwrap();
        let mut five = [0; 5];
        b.read_exact(&mut five).await.unwrap();
        assert_eq!(&five, b"whole");
    })
}

#[test]
fn split_write_half_flushes_and_shuts_down_the_value() {
    run(async {
        let (rd, mut wr) = io::split(io::join(&b""[..], Mock::new()));
        wr.write_all(b"x").await.unwrap();
        wr.flush().await.unwrap();
        wr.shutdown().await.unwrap();
        let joined = rd.unsplit(wr);
        assert_eq!(
            joined.writer().events,
            [Event::Write(b"x".to_vec()), Event::Flush, Event::Shutdown]
        );
    })
}

#[test]
fn unsplit_of_unrelated_halves_panics() {
    let (rd1, _wr1) = io::split(io::duplex(8).0);
    let (_rd2, wr2) = io::split(io::duplex(8).0);
    assert!(!rd1.is_pair_of(&wr2));
    let msg = panic_message(std::panic::AssertUnwindSafe(move || {
        let _ = rd1.unsplit(wr2);
    }));
    assert!(
        msg.contains("Unrelated `split::Write` passed to `split::Read::unsplit`."),
        "{msg}"
    );
}

#[test]
fn split_halves_debug_and_auto_traits() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    let (rd, wr) = io::split(io::duplex(8).0);
    send_sync(&rd);
    send_sync(&wr);
    let _: (&ReadHalf<DuplexStream>, &WriteHalf<DuplexStream>) = (&rd, &wr);
    assert_eq!(format!("{rd:?}"), "split::ReadHalf");
    assert_eq!(format!("{wr:?}"), "split::WriteHalf");
}

#[test]
fn join_reads_from_one_and_writes_to_the_other() {
    run(async {
        let mut rw = io::join(&b"in"[..], Vec::new());
        rw.write_all(b"out").await.unwrap();
        let mut s = String::new();
        rw.read_to_string(&mut s).await.unwrap();
        assert_eq!(s, "in");
        assert_eq!(rw.writer(), b"out");
        assert!(rw.reader().is_empty());
        rw.writer_mut().push(b'!');
        let (r, w) = rw.into_inner();
        assert!(r.is_empty());
        assert_eq!(w, b"out!");
    })
}

#[test]
fn futures_and_adapters_are_send_and_unpin_like_their_io() {
    use crate::io::{
        AsyncBufReadExt, AsyncSeekExt, BufReader, BufStream, BufWriter, Chain, Join, Lines, Split,
        Take,
    };
    fn send<T: Send>(_: &T) {}
    fn unpin<T: Unpin>() {}
    let (mut s, _peer) = io::duplex(8);
    let mut buf = [0u8; 4];
    let mut v = Vec::new();
    let mut text = String::new();
    send(&s.read(&mut buf));
    send(&s.read_exact(&mut buf));
    send(&s.read_to_end(&mut v));
    send(&s.read_to_string(&mut text));
    send(&s.read_u64_le());
    send(&s.write_all(b"x"));
    send(&s.write_i128(1));
    send(&s.flush());
    send(&s.shutdown());
    let mut r = BufReader::new(&b""[..]);
    send(&r.read_line(&mut text));
    send(&r.read_until(b'\n', &mut v));
    send(&r.fill_buf());
    let mut c = std::io::Cursor::new(Vec::<u8>::new());
    send(&c.seek(std::io::SeekFrom::Start(0)));
    let (mut a, mut b) = (io::duplex(8).0, io::duplex(8).0);
    send(&io::copy(&mut a, &mut b));
    send(&io::copy_bidirectional(&mut a, &mut b));
    unpin::<BufReader<DuplexStream>>();
    unpin::<BufWriter<DuplexStream>>();
    unpin::<BufStream<DuplexStream>>();
    unpin::<Lines<BufReader<DuplexStream>>>();
    unpin::<Split<BufReader<DuplexStream>>>();
    unpin::<Take<DuplexStream>>();
    unpin::<Chain<DuplexStream, DuplexStream>>();
    unpin::<Join<DuplexStream, DuplexStream>>();
}
