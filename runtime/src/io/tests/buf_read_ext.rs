//! `AsyncBufReadExt`: `read_until`, `read_line` (UTF-8 handling), `fill_buf`/`consume`,
//! and the `Lines` and `Split` adapters, over readers that deliver a few bytes at a time.

use std::io;

use super::{run, Mock, Step};
use crate::io::{AsyncBufReadExt, BufReader};

/// A `BufReader` of capacity 3 over `data` read 2 bytes at a time with `Pending`s between.
fn slow(data: &[u8]) -> BufReader<Mock> {
    BufReader::with_capacity(3, Mock::trickle(data, 2))
}

#[test]
fn read_until_includes_the_delimiter() {
    run(async {
        let mut r = slow(b"ab,cdefg,,h");
        let mut buf = b"<".to_vec();
        assert_eq!(r.read_until(b',', &mut buf).await.unwrap(), 3);
        assert_eq!(buf, b"<ab,");
        buf.clear();
        assert_eq!(r.read_until(b',', &mut buf).await.unwrap(), 6);
        assert_eq!(buf, b"cdefg,");
        buf.clear();
        assert_eq!(r.read_until(b',', &mut buf).await.unwrap(), 1);
        assert_eq!(r.read_until(b',', &mut buf).await.unwrap(), 1);
        assert_eq!(buf, b",h");
        assert_eq!(r.read_until(b',', &mut buf).await.unwrap(), 0);
    })
}

#[test]
fn read_line_appends_and_reports_eof_as_zero() {
    run(async {
        let mut r = slow("first\nsécond\nlast".as_bytes());
        let mut s = String::from("> ");
        assert_eq!(r.read_line(&mut s).await.unwrap(), 6);
        assert_eq!(s, "> first\n");
        s.clear();
        assert_eq!(r.read_line(&mut s).await.unwrap(), 8);
        assert_eq!(s, "sécond\n");
        s.clear();
        assert_eq!(r.read_line(&mut s).await.unwrap(), 4);
        assert_eq!(s, "last");
        assert_eq!(r.read_line(&mut s).await.unwrap(), 0);
        assert_eq!(s, "last");
    })
}

#[test]
fn read_line_invalid_utf8_restores_the_string() {
    run(async {
        let mut r: &[u8] = &[b'o', b'k', 0xc3, b'\n', b'n', b'e', b'x', b't', b'\n'];
        let mut s = String::from("kept");
        let err = r.read_line(&mut s).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(s, "kept");
        // The bad line was consumed; the next one reads normally.
        assert_eq!(r.read_line(&mut s).await.unwrap(), 5);
        assert_eq!(s, "keptnext\n");
    })
}

#[test]
fn read_line_io_error_keeps_the_valid_part_read() {
    run(async {
        let mut r = BufReader::new(Mock::reader([
            Step::Data(b"partial".to_vec()),
            Step::Err(io::ErrorKind::ConnectionReset),
        ]));
        let mut s = String::new();
        let err = r.read_line(&mut s).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionReset);
        assert_eq!(s, "partial");
    })
}

#[test]
fn fill_buf_and_consume() {
    run(async {
        let mut r = BufReader::with_capacity(4, &b"abcdef"[..]);
        assert_eq!(r.fill_buf().await.unwrap(), b"abcd");
        r.consume(3);
        assert_eq!(r.fill_buf().await.unwrap(), b"d");
        r.consume(1);
        assert_eq!(r.fill_buf().await.unwrap(), b"ef");
        r.consume(2);
        assert_eq!(r.fill_buf().await.unwrap(), b"");
    })
}

#[test]
fn lines_strip_line_endings() {
    run(async {
        let mut lines = slow(b"one\r\ntwo\n\nthree\rx\nfour").lines();
        let mut got = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            got.push(line);
        }
        assert_eq!(got, ["one", "two", "", "three\rx", "four"]);
        assert!(lines.next_line().await.unwrap().is_none());
        assert!(lines.get_ref().buffer().is_empty());
        let _reader: BufReader<Mock> = lines.into_inner();
    })
}

#[test]
fn lines_invalid_utf8_is_invalid_data() {
    run(async {
        let mut lines = (&[0xff, b'\n', b'o', b'k'][..]).lines();
        let err = lines.next_line().await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("ok"));
    })
}

#[test]
fn split_yields_segments_without_the_delimiter() {
    run(async {
        let mut segs = slow(b"a,bc,,d,").split(b',');
        let mut got = Vec::new();
        while let Some(seg) = segs.next_segment().await.unwrap() {
            got.push(seg);
        }
        let want: [&[u8]; 4] = [b"a", b"bc", b"", b"d"];
        assert_eq!(got, want);
    })
}
