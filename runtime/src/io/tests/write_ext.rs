//! `AsyncWriteExt`: every write method, numbers both byte orders, `WriteZero` errors,
//! vectored and `Buf` writes, flush/shutdown, and the standard writers (`Vec`, the
//! cursors, pointer types).

use std::io::{self, Cursor, IoSlice};
use std::pin::Pin;

use bytes::Buf;

use super::{run, Event, Mock};
use crate::io::{AsyncWrite, AsyncWriteExt};

#[test]
fn write_returns_what_the_writer_took() {
    run(async {
        let mut w = Mock::new().max_write(3).pending_writes();
        assert_eq!(w.write(b"abcdef").await.unwrap(), 3);
        assert_eq!(w.events, [Event::Write(b"abc".to_vec())]);
    })
}

#[test]
fn write_all_loops_through_short_and_pending_writes() {
    run(async {
        let mut w = Mock::new().max_write(2).pending_writes();
        w.write_all(b"hello world").await.unwrap();
        assert_eq!(w.written(), b"hello world");
        assert_eq!(w.events.len(), 6);
        w.write_all(b"").await.unwrap();
        assert_eq!(w.events.len(), 6, "an empty write_all writes nothing");
    })
}

#[test]
fn write_zero_is_a_write_zero_error() {
    run(async {
        let text = io::Error::from(io::ErrorKind::WriteZero).to_string();
        let mut w = Mock::new().max_write(0);
        let err = w.write_all(b"x").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
        assert_eq!(err.to_string(), text);
        let err = w.write_u32(7).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
        let err = w.write_u8(7).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
        let err = w.write_all_buf(&mut &b"x"[..]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
        assert_eq!(err.to_string(), text);
    })
}

#[test]
fn every_number_method_writes_its_encoding() {
    run(async {
        // One byte per write, with a `Pending` before each: partial numbers survive.
        let mut w = Mock::new().max_write(1).pending_writes();
        w.write_u8(0xab).await.unwrap();
        w.write_i8(-2).await.unwrap();
        w.write_u16(0x0102).await.unwrap();
        w.write_i16(-3).await.unwrap();
        w.write_u32(0x0102_0304).await.unwrap();
        w.write_i32(i32::MIN).await.unwrap();
        w.write_u64(u64::MAX - 1).await.unwrap();
        w.write_i64(-5).await.unwrap();
        w.write_u128(u128::MAX / 3).await.unwrap();
        w.write_i128(i128::MIN + 1).await.unwrap();
        w.write_f32(1.5).await.unwrap();
        w.write_f64(-0.1).await.unwrap();
        w.write_u16_le(0x0102).await.unwrap();
        w.write_i16_le(-3).await.unwrap();
        w.write_u32_le(0x0102_0304).await.unwrap();
        w.write_i32_le(i32::MIN).await.unwrap();
        w.write_u64_le(u64::MAX - 1).await.unwrap();
        w.write_i64_le(-5).await.unwrap();
        w.write_u128_le(u128::MAX / 3).await.unwrap();
        w.write_i128_le(i128::MIN + 1).await.unwrap();
        w.write_f32_le(1.5).await.unwrap();
        w.write_f64_le(-0.1).await.unwrap();
        let mut want = vec![0xab, 0xfe];
        want.extend(0x0102u16.to_be_bytes());
        want.extend((-3i16).to_be_bytes());
        want.extend(0x0102_0304u32.to_be_bytes());
        want.extend(i32::MIN.to_be_bytes());
        want.extend((u64::MAX - 1).to_be_bytes());
        want.extend((-5i64).to_be_bytes());
        want.extend((u128::MAX / 3).to_be_bytes());
        want.extend((i128::MIN + 1).to_be_bytes());
        want.extend(1.5f32.to_be_bytes());
        want.extend((-0.1f64).to_be_bytes());
        want.extend(0x0102u16.to_le_bytes());
        want.extend((-3i16).to_le_bytes());
        want.extend(0x0102_0304u32.to_le_bytes());
        want.extend(i32::MIN.to_le_bytes());
        want.extend((u64::MAX - 1).to_le_bytes());
        want.extend((-5i64).to_le_bytes());
        want.extend((u128::MAX / 3).to_le_bytes());
        want.extend((i128::MIN + 1).to_le_bytes());
        want.extend(1.5f32.to_le_bytes());
        want.extend((-0.1f64).to_le_bytes());
        assert_eq!(w.written(), want);
    })
}

#[test]
fn vectored_writes() {
    run(async {
        let bufs = [IoSlice::new(b""), IoSlice::new(b"ab"), IoSlice::new(b"cd")];
        // `Vec` writes vectored: everything at once.
        let mut v = Vec::new();
        assert!(v.is_write_vectored());
        assert_eq!(v.write_vectored(&bufs).await.unwrap(), 4);
        assert_eq!(v, b"abcd");
        // The default: the first non-empty buffer only.
        let mut m = Mock::new();
        assert!(!m.is_write_vectored());
        assert_eq!(m.write_vectored(&bufs).await.unwrap(), 2);
        assert_eq!(m.written(), b"ab");
    })
}

#[test]
fn write_buf_and_write_all_buf_advance_the_buf() {
    run(async {
        let mut w = Mock::new().max_write(3);
        let mut src = Cursor::new(b"abcdefgh".to_vec());
        assert_eq!(w.write_buf(&mut src).await.unwrap(), 3);
        assert_eq!(src.position(), 3);
        let mut rest = (&b"12"[..]).chain(&b"345"[..]);
        w.write_all_buf(&mut rest).await.unwrap();
        assert!(!rest.has_remaining());
        assert_eq!(w.written(), b"abc12345");
        let mut empty = &b""[..];
        assert_eq!(w.write_buf(&mut empty).await.unwrap(), 0);
        // Vectored: chunks of a chained `Buf` go in one write.
        let mut v = Vec::new();
        let mut two = (&b"ab"[..]).chain(&b"cd"[..]);
        assert_eq!(v.write_buf(&mut two).await.unwrap(), 4);
        assert_eq!(v, b"abcd");
    })
}

#[test]
fn flush_and_shutdown_reach_the_writer() {
    run(async {
        let mut w = Mock::new();
        w.write_all(b"x").await.unwrap();
        w.flush().await.unwrap();
        w.shutdown().await.unwrap();
        assert_eq!(
            w.events,
            [Event::Write(b"x".to_vec()), Event::Flush, Event::Shutdown]
        );
    })
}

#[test]
fn cursors_write_at_their_position() {
    run(async {
        let mut storage = [0u8; 4];
        let mut c = Cursor::new(&mut storage[..]);
        assert_eq!(
            c.write(b"abcdef").await.unwrap(),
            4,
            "a slice takes what fits"
        );
        assert_eq!(c.write(b"g").await.unwrap(), 0);
        let err = c.write_all(b"g").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
        c.shutdown().await.unwrap();
        assert_eq!(&storage, b"abcd");

        let mut c = Cursor::new(b"hello".to_vec());
        c.set_position(1);
        c.write_all(b"EY").await.unwrap();
        c.set_position(5);
        c.write_all(b"!").await.unwrap();
        assert_eq!(c.get_ref(), b"hEYlo!");

        let mut v = Vec::new();
        let mut c = Cursor::new(&mut v);
        c.write_all(b"vec").await.unwrap();
        c.flush().await.unwrap();
        assert_eq!(v, b"vec");

        let mut c = Cursor::new(vec![0u8; 3].into_boxed_slice());
        assert_eq!(c.write(b"boxed").await.unwrap(), 3);
        assert_eq!(&**c.get_ref(), b"box");
    })
}

#[test]
fn pointer_types_forward_writes() {
    run(async {
        let mut boxed: Box<dyn AsyncWrite + Unpin> = Box::new(Vec::new());
        boxed.write_all(b"box").await.unwrap();
        assert!(boxed.is_write_vectored());
        let mut pinned: Pin<Box<Mock>> = Box::pin(Mock::new());
        pinned.write_all(b"pin").await.unwrap();
        pinned.shutdown().await.unwrap();
        assert_eq!(
            pinned.events,
            [Event::Write(b"pin".to_vec()), Event::Shutdown]
        );
        let mut v = Vec::new();
        let mut by_ref = &mut v;
        <&mut Vec<u8> as AsyncWriteExt>::write_all(&mut by_ref, b"ref")
            .await
            .unwrap();
        assert_eq!(v, b"ref");
    })
}
