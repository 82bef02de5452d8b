//! `AsyncReadExt`: every read method, numbers both byte orders, end-of-file errors, the
//! reads into `Vec`/`String`/`BufMut`, the standard readers (`&[u8]`, `Cursor`, pointer
//! types), and the `Take` and `Chain` adapters.

use std::io::{self, Cursor};
use std::pin::Pin;

use super::{pattern, run, Mock, Step};
use crate::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt};

#[test]
fn read_fills_what_fits_then_zero_at_eof() {
    run(async {
        let mut src: &[u8] = b"hello";
        let mut buf = [0; 3];
        assert_eq!(src.read(&mut buf).await.unwrap(), 3);
        assert_eq!(&buf, b"hel");
        assert_eq!(src.read(&mut buf).await.unwrap(), 2);
        assert_eq!(&buf[..2], b"lo");
        assert_eq!(src.read(&mut buf).await.unwrap(), 0);
        assert_eq!(src.read(&mut []).await.unwrap(), 0);
    })
}

#[test]
fn read_exact_across_pending_and_early_eof() {
    run(async {
        let mut src = Mock::trickle(b"abcdefg", 2);
        let mut buf = [0; 5];
        assert_eq!(src.read_exact(&mut buf).await.unwrap(), 5);
        assert_eq!(&buf, b"abcde");
        let err = src.read_exact(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(err.to_string(), "early eof");
    })
}

#[test]
fn read_exact_retries_interrupted_and_passes_other_errors() {
    run(async {
        let mut src = Mock::reader([
            Step::Err(io::ErrorKind::Interrupted),
            Step::Data(b"ab".to_vec()),
            Step::Err(io::ErrorKind::ConnectionReset),
        ]);
        let mut buf = [0; 2];
        src.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ab");
        let err = src.read_exact(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionReset);
    })
}

#[test]
fn numbers_big_and_little_endian() {
    run(async {
        let mut src: &[u8] = &[
            0x01, 0x02, // u16 be
            0x01, 0x02, // u16 le
            0xff, 0xfe, // i16 be = -2
            0xfe, 0xff, // i16 le = -2
            0x80, // i8 = -128
            0x7f, // u8
            0, 0, 0, 1, // u32 be
            1, 0, 0, 0, // u32 le
            0xff, 0xff, 0xff, 0xff, // i32 = -1
            0xff, 0xff, 0xff, 0x7f, // i32 le = i32::MAX
        ];
        assert_eq!(src.read_u16().await.unwrap(), 0x0102);
        assert_eq!(src.read_u16_le().await.unwrap(), 0x0201);
        assert_eq!(src.read_i16().await.unwrap(), -2);
        assert_eq!(src.read_i16_le().await.unwrap(), -2);
        assert_eq!(src.read_i8().await.unwrap(), -128);
        assert_eq!(src.read_u8().await.unwrap(), 0x7f);
        assert_eq!(src.read_u32().await.unwrap(), 1);
        assert_eq!(src.read_u32_le().await.unwrap(), 1);
        assert_eq!(src.read_i32().await.unwrap(), -1);
        assert_eq!(src.read_i32_le().await.unwrap(), i32::MAX);
        assert!(src.is_empty());
    })
}

/// Every number type both ways: the bytes `read_*` decodes are `to_*_bytes`.
#[test]
fn every_number_method_decodes_its_encoding() {
    run(async {
        let mut data = Vec::new();
        data.extend(0x0123_4567_89ab_cdefu64.to_be_bytes());
        data.extend((-0x0123_4567_89ab_cdefi64).to_le_bytes());
        data.extend(u128::MAX.wrapping_sub(12345).to_be_bytes());
        data.extend(i128::MIN.wrapping_add(9).to_le_bytes());
        data.extend(1.5f32.to_be_bytes());
        data.extend((-2.25f32).to_le_bytes());
        data.extend(std::f64::consts::PI.to_be_bytes());
        data.extend((-1e300f64).to_le_bytes());
        data.extend(i64::MIN.to_be_bytes());
        data.extend(u64::MAX.to_le_bytes());
        data.extend(u128::from(u64::MAX).to_le_bytes());
        data.extend(i128::MAX.to_be_bytes());
        data.extend(0xbeefu16.to_be_bytes());
        data.extend(0xfeed_f00du32.to_le_bytes());
        // One byte per read, with a `Pending` before each: partial numbers survive.
        let mut src = Mock::trickle(&data, 1);
        assert_eq!(src.read_u64().await.unwrap(), 0x0123_4567_89ab_cdef);
        assert_eq!(src.read_i64_le().await.unwrap(), -0x0123_4567_89ab_cdef);
        assert_eq!(src.read_u128().await.unwrap(), u128::MAX - 12345);
        assert_eq!(src.read_i128_le().await.unwrap(), i128::MIN + 9);
        assert_eq!(src.read_f32().await.unwrap(), 1.5);
        assert_eq!(src.read_f32_le().await.unwrap(), -2.25);
        assert_eq!(src.read_f64().await.unwrap(), std::f64::consts::PI);
        assert_eq!(src.read_f64_le().await.unwrap(), -1e300);
        assert_eq!(src.read_i64().await.unwrap(), i64::MIN);
        assert_eq!(src.read_u64_le().await.unwrap(), u64::MAX);
        assert_eq!(src.read_u128_le().await.unwrap(), u128::from(u64::MAX));
        assert_eq!(src.read_i128().await.unwrap(), i128::MAX);
        assert_eq!(src.read_u16().await.unwrap(), 0xbeef);
        assert_eq!(src.read_u32_le().await.unwrap(), 0xfeed_f00d);
        let err = src.read_u8().await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    })
}

#[test]
fn number_eof_mid_value_is_unexpected_eof() {
    run(async {
        let mut src: &[u8] = &[1, 2, 3];
        let err = src.read_u32().await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(
            err.to_string(),
            io::Error::from(io::ErrorKind::UnexpectedEof).to_string()
        );
        let mut empty: &[u8] = &[];
        let err = empty.read_i8().await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    })
}

#[test]
fn read_to_end_appends_and_counts() {
    run(async {
        let data = pattern(100_000);
        let mut src = Mock::trickle(&data, 7000);
        let mut out = b"prefix".to_vec();
        assert_eq!(src.read_to_end(&mut out).await.unwrap(), data.len());
        assert_eq!(&out[..6], b"prefix");
        assert_eq!(&out[6..], &data[..]);
        assert_eq!(src.read_to_end(&mut out).await.unwrap(), 0);
    })
}

#[test]
fn read_to_end_into_a_full_vec_does_not_grow_it_at_eof() {
    run(async {
        let mut out = Vec::with_capacity(64);
        out.extend_from_slice(&[9; 64]);
        let cap = out.capacity();
        let mut empty: &[u8] = &[];
        assert_eq!(empty.read_to_end(&mut out).await.unwrap(), 0);
        assert_eq!(out.capacity(), cap);
        // A little data after a full vector still lands.
        let mut src: &[u8] = b"xyz";
        assert_eq!(src.read_to_end(&mut out).await.unwrap(), 3);
        assert_eq!(&out[64..], b"xyz");
    })
}

/// A reader of one byte per read that also zeroes the byte after it, and checks that
/// the `ReadBuf` it is handed reports as initialized (beyond the filled part) exactly
/// the bytes it initialized itself and that are still there.
struct CountsInit {
    produced: usize,
    /// The initialized, unfilled byte it left in the vector's spare capacity last time.
    left_one: bool,
}

impl AsyncRead for CountsInit {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        buf: &mut crate::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        // A vector of capacity 64 with under 32 bytes spare is read through a fresh probe
        // buffer (nothing initialized, and what it initializes is not kept); at 64 the
        // probe's byte makes the vector grow, which keeps nothing initialized either.
        let probe = (33..=64).contains(&self.produced);
        let told = buf.initialized().len() - buf.filled().len();
        let want = usize::from(self.left_one && !probe);
        assert_eq!(told, want, "after {} bytes", self.produced);
        if self.produced == 80 {
            return std::task::Poll::Ready(Ok(()));
        }
        buf.initialize_unfilled_to(2);
        buf.advance(1);
        self.produced += 1;
        self.left_one = !probe;
        std::task::Poll::Ready(Ok(()))
    }
}

#[test]
fn read_to_end_tracks_the_initialized_spare_capacity() {
    run(async {
        let mut out = Vec::with_capacity(64);
        let mut r = CountsInit {
            produced: 0,
            left_one: false,
        };
        assert_eq!(r.read_to_end(&mut out).await.unwrap(), 80);
        assert_eq!(out.len(), 80);
    })
}

#[test]
fn read_to_end_keeps_what_was_read_on_error() {
    run(async {
        let mut src = Mock::reader([
            Step::Data(b"ab".to_vec()),
            Step::Err(io::ErrorKind::Interrupted),
            Step::Data(b"cd".to_vec()),
            Step::Err(io::ErrorKind::BrokenPipe),
        ]);
        let mut out = Vec::new();
        let err = src.read_to_end(&mut out).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(out, b"abcd");
    })
}

#[test]
fn read_to_string_checks_utf8_and_restores_on_failure() {
    run(async {
        let mut s = String::from("héllo ");
        let mut src: &[u8] = "wörld".as_bytes();
        assert_eq!(src.read_to_string(&mut s).await.unwrap(), 6);
        assert_eq!(s, "héllo wörld");

        let mut bad: &[u8] = &[b'o', b'k', 0xff, b'!'];
        let err = bad.read_to_string(&mut s).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(s, "héllo wörld", "the string is as it was");

        let mut failing = Mock::reader([
            Step::Data(b"more".to_vec()),
            Step::Err(io::ErrorKind::ConnectionAborted),
        ]);
        let err = failing.read_to_string(&mut s).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionAborted);
        assert_eq!(s, "héllo wörld", "an I/O error leaves the string as it was");
    })
}

#[test]
fn read_buf_fills_spare_room_of_a_buf_mut() {
    run(async {
        let mut src: &[u8] = b"0123456789";
        let mut out = Vec::with_capacity(4);
        let n = src.read_buf(&mut out).await.unwrap();
        assert!(n > 0);
        assert_eq!(&out[..], &b"0123456789"[..n]);
        let mut b = bytes::BytesMut::with_capacity(64);
        b.extend_from_slice(b"<");
        let m = src.read_buf(&mut b).await.unwrap();
        assert_eq!(m, 10 - n);
        assert_eq!(&b[1..], &b"0123456789"[n..]);
        // No room: 0, without reading.
        let mut full: &mut [u8] = &mut [];
        assert_eq!(src.read_buf(&mut full).await.unwrap(), 0);
    })
}

#[test]
fn cursor_reads_seeks_and_reports_eof_past_the_end() {
    use crate::io::{AsyncSeekExt, SeekFrom};
    run(async {
        let mut c = Cursor::new(b"abcdef".to_vec());
        let mut two = [0; 2];
        c.read_exact(&mut two).await.unwrap();
        assert_eq!(&two, b"ab");
        assert_eq!(c.seek(SeekFrom::Current(2)).await.unwrap(), 4);
        assert_eq!(c.read_u8().await.unwrap(), b'e');
        assert_eq!(c.stream_position().await.unwrap(), 5);
        assert_eq!(c.seek(SeekFrom::End(-6)).await.unwrap(), 0);
        assert_eq!(c.fill_buf().await.unwrap(), b"abcdef");
        c.set_position(100);
        assert_eq!(c.read(&mut two).await.unwrap(), 0);
        assert_eq!(c.seek(SeekFrom::Start(1)).await.unwrap(), 1);
        assert_eq!(c.rewind().await.unwrap(), 0);
        assert!(c.seek(SeekFrom::Current(-1)).await.is_err());
    })
}

#[test]
fn pointer_types_forward_reads() {
    run(async {
        let mut boxed: Box<dyn AsyncRead + Unpin> = Box::new(&b"box"[..]);
        let mut s = String::new();
        boxed.read_to_string(&mut s).await.unwrap();
        assert_eq!(s, "box");

        let mut pinned: Pin<Box<dyn AsyncBufRead>> = Box::pin(&b"pin\nned"[..]);
        let mut line = String::new();
        pinned.read_line(&mut line).await.unwrap();
        assert_eq!(line, "pin\n");

        let mut inner: &[u8] = b"ref";
        let mut by_ref = &mut inner;
        assert_eq!((&mut by_ref).read_u8().await.unwrap(), b'r');
        assert_eq!(inner, b"ef");
    })
}

#[test]
fn take_stops_at_the_limit() {
    run(async {
        let src: &[u8] = b"0123456789";
        let mut t = src.take(4);
        let mut out = Vec::new();
        assert_eq!(t.read_to_end(&mut out).await.unwrap(), 4);
        assert_eq!(out, b"0123");
        assert_eq!(t.limit(), 0);
        t.set_limit(3);
        let mut buf = [0; 8];
        assert_eq!(t.read(&mut buf).await.unwrap(), 3);
        assert_eq!(&buf[..3], b"456");
        assert_eq!(*t.get_ref(), b"789");
        t.set_limit(2);
        assert_eq!(t.fill_buf().await.unwrap(), b"78");
        // An oversized consume cannot raise the limit.
        t.consume(10);
        assert_eq!(t.limit(), 0);
        assert_eq!(t.fill_buf().await.unwrap(), b"");
        assert_eq!(t.into_inner(), b"9");
    })
}

#[test]
fn take_at_limit_zero_does_not_poll_the_reader() {
    run(async {
        let mut t = Mock::reader([Step::Data(b"x".to_vec())]).take(0);
        let mut buf = [0; 4];
        assert_eq!(t.read(&mut buf).await.unwrap(), 0);
        assert_eq!(t.get_ref().reads, 0);
    })
}

#[test]
fn chain_reads_first_then_second() {
    run(async {
        let a = Mock::trickle(b"abc", 2);
        let b: &[u8] = b"def";
        let mut c = a.chain(b);
        // A read into a full buffer proves nothing about end of file.
        assert_eq!(c.read(&mut []).await.unwrap(), 0);
        let mut s = String::new();
        c.read_to_string(&mut s).await.unwrap();
        assert_eq!(s, "abcdef");
        let (a, b) = c.get_ref();
        assert!(a.steps.is_empty());
        assert!(b.is_empty());
        let (_, b) = c.into_inner();
        assert!(b.is_empty());
    })
}

#[test]
fn chain_buffered_reads_switch_at_eof() {
    run(async {
        let mut c = (&b"ab"[..]).chain(&b"cd"[..]);
        assert_eq!(c.fill_buf().await.unwrap(), b"ab");
        c.consume(2);
        assert_eq!(c.fill_buf().await.unwrap(), b"cd");
        let mut line = String::new();
        c.read_line(&mut line).await.unwrap();
        assert_eq!(line, "cd");
        assert_eq!(
            format!("{:?}", (&b"a"[..]).chain(&b"b"[..])),
            "Chain { t: [97], u: [98] }"
        );
    })
}
