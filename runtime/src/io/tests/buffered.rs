//! `BufReader`, `BufWriter` and `BufStream`: what goes through the buffer and what
//! bypasses it, seeking (which discards or flushes the buffer), the passthrough impls,
//! panics and `Debug` output.

use std::io::{self, Cursor, IoSlice, SeekFrom};

use super::{panic_message, pattern, run, Event, Mock, Step};
use crate::io::{
    AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWrite, AsyncWriteExt, BufReader, BufStream,
    BufWriter,
};

#[test]
fn small_reads_are_served_from_the_buffer() {
    run(async {
        let mut r = BufReader::with_capacity(8, Mock::reader([Step::Data(pattern(20))]));
        let mut one = [0; 1];
        for i in 0..8 {
            r.read_exact(&mut one).await.unwrap();
            assert_eq!(one[0], i);
        }
        assert_eq!(r.get_ref().reads, 1, "eight 1-byte reads, one inner read");
        r.read_exact(&mut one).await.unwrap();
        assert_eq!(r.get_ref().reads, 2);
        assert_eq!(r.buffer(), &pattern(16)[9..]);
    })
}

#[test]
fn a_large_read_bypasses_the_empty_buffer() {
    run(async {
        let data = pattern(100);
        let mut r = BufReader::with_capacity(8, Mock::reader([Step::Data(data.clone())]));
        let mut big = [0; 50];
        r.read_exact(&mut big).await.unwrap();
        assert_eq!(&big[..], &data[..50]);
        assert_eq!(r.get_ref().reads, 1);
        assert!(r.buffer().is_empty(), "nothing went through the buffer");
        // With bytes buffered, a large read drains the buffer first.
        let mut small = [0; 1];
        r.read_exact(&mut small).await.unwrap();
        assert_eq!(r.buffer().len(), 7);
        let n = r.read(&mut big).await.unwrap();
        assert_eq!(n, 7);
        assert_eq!(&big[..7], &data[51..58]);
    })
}

#[test]
fn buf_reader_capacity_zero_panics() {
    let msg = panic_message(|| {
        let _ = BufReader::with_capacity(0, &b""[..]);
    });
    assert!(msg.contains("capacity must be greater than zero"), "{msg}");
}

#[test]
fn buf_reader_seek_discards_the_buffer_and_corrects_current() {
    run(async {
        let mut r = BufReader::with_capacity(4, Cursor::new(pattern(20)));
        assert_eq!(r.read_u8().await.unwrap(), 0);
        assert_eq!(r.buffer().len(), 3);
        assert_eq!(r.get_ref().position(), 4);
        // `Current` counts from our position (1), not the inner one (4).
        assert_eq!(r.seek(SeekFrom::Current(2)).await.unwrap(), 3);
        assert!(r.buffer().is_empty());
        assert_eq!(r.read_u8().await.unwrap(), 3);
        assert_eq!(r.stream_position().await.unwrap(), 4);
        assert_eq!(r.seek(SeekFrom::Start(10)).await.unwrap(), 10);
        assert_eq!(r.read_u8().await.unwrap(), 10);
        assert_eq!(r.seek(SeekFrom::End(-1)).await.unwrap(), 19);
        assert_eq!(r.read_u8().await.unwrap(), 19);
        // A correction that overflows is done as two seeks; this one then fails.
        r.rewind().await.unwrap();
        r.read_u8().await.unwrap();
        let err = r.seek(SeekFrom::Current(i64::MIN)).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    })
}

#[test]
fn buf_reader_passes_writes_through() {
    run(async {
        let mut r = BufReader::new(Mock::new());
        r.write_all(b"w").await.unwrap();
        r.flush().await.unwrap();
        r.shutdown().await.unwrap();
        assert_eq!(
            r.get_ref().events,
            [Event::Write(b"w".to_vec()), Event::Flush, Event::Shutdown]
        );
        let mut pinned = Box::pin(BufReader::new(&b"xy"[..]));
        assert_eq!(*pinned.as_mut().get_pin_mut(), b"xy");
        assert_eq!(pinned.get_mut().len(), 2);
        assert_eq!(
            format!("{:?}", BufReader::with_capacity(4, &b"ab"[..])),
            "BufReader { reader: [97, 98], buffer: 0/4 }"
        );
    })
}

#[test]
fn small_writes_wait_in_the_buffer_until_flush() {
    run(async {
        let mut w = BufWriter::with_capacity(8, Mock::new());
        w.write_all(b"abc").await.unwrap();
        w.write_all(b"de").await.unwrap();
        assert_eq!(w.buffer(), b"abcde");
        assert!(w.get_ref().events.is_empty());
        // Does not fit: the buffer is written out first, the new bytes buffered.
        w.write_all(b"fghi").await.unwrap();
        assert_eq!(w.get_ref().written(), b"abcde");
        assert_eq!(w.buffer(), b"fghi");
        w.flush().await.unwrap();
        assert_eq!(w.get_ref().written(), b"abcdefghi");
        assert_eq!(w.get_ref().events.last(), Some(&Event::Flush));
        assert!(w.buffer().is_empty());
    })
}

#[test]
fn a_large_write_bypasses_the_buffer() {
    run(async {
        let mut w = BufWriter::with_capacity(4, Mock::new());
        w.write_all(b"ab").await.unwrap();
        assert_eq!(w.write(b"0123456789").await.unwrap(), 10);
        assert_eq!(
            w.get_ref().events,
            [
                Event::Write(b"ab".to_vec()),
                Event::Write(b"0123456789".to_vec())
            ]
        );
        assert!(w.buffer().is_empty());
    })
}

#[test]
fn buf_writer_flush_of_a_writer_that_takes_nothing_fails() {
    run(async {
        let mut w = BufWriter::new(Mock::new().max_write(0));
        w.write_all(b"stuck").await.unwrap();
        let err = w.flush().await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
        assert_eq!(err.to_string(), "failed to write the buffered data");
        assert_eq!(w.buffer(), b"stuck", "unwritten bytes stay buffered");
    })
}

#[test]
fn buf_writer_resumes_a_partial_flush() {
    run(async {
        let mut w = BufWriter::with_capacity(16, Mock::new().max_write(3).pending_writes());
        w.write_all(b"0123456789").await.unwrap();
        w.shutdown().await.unwrap();
        let m = w.into_inner();
        assert_eq!(m.written(), b"0123456789");
        assert_eq!(m.events.last(), Some(&Event::Shutdown));
    })
}

#[test]
fn buf_writer_vectored() {
    run(async {
        let bufs = [IoSlice::new(b"ab"), IoSlice::new(b""), IoSlice::new(b"cd")];
        // Inner writes vectored (`Vec`): the whole set is buffered.
        let mut w = BufWriter::with_capacity(8, Vec::new());
        assert!(w.is_write_vectored());
        assert_eq!(w.write_vectored(&bufs).await.unwrap(), 4);
        assert_eq!(w.buffer(), b"abcd");
        // Inner does not: as many slices as fit.
        let mut w = BufWriter::with_capacity(5, Mock::new());
        let three = [
            IoSlice::new(b"ab"),
            IoSlice::new(b"cd"),
            IoSlice::new(b"ef"),
        ];
        assert_eq!(w.write_vectored(&three).await.unwrap(), 4);
        assert_eq!(w.buffer(), b"abcd");
        assert!(w.get_ref().events.is_empty());
    })
}

#[test]
fn buf_writer_seek_flushes_first() {
    run(async {
        let mut w = BufWriter::new(Cursor::new(Vec::new()));
        w.write_all(b"abc").await.unwrap();
        assert_eq!(w.seek(SeekFrom::Start(1)).await.unwrap(), 1);
        assert!(w.buffer().is_empty());
        w.write_all(b"X").await.unwrap();
        w.flush().await.unwrap();
        assert_eq!(w.get_ref().get_ref(), b"aXc");
        assert_eq!(
            format!("{:?}", BufWriter::with_capacity(4, Vec::<u8>::new())),
            "BufWriter { writer: [], buffer: 0/4, written: 0 }"
        );
    })
}

#[test]
fn buf_writer_passes_reads_through() {
    run(async {
        let mut w = BufWriter::new(Cursor::new(b"read me".to_vec()));
        let mut s = String::new();
        w.read_to_string(&mut s).await.unwrap();
        assert_eq!(s, "read me");
    })
}

#[test]
fn buf_stream_buffers_both_ways() {
    run(async {
        let (a, mut b) = crate::io::duplex(1024);
        let mut s = BufStream::with_capacity(4, 16, a);
        s.write_all(b"ping").await.unwrap();
        b.write_all(b"pong\nrest").await.unwrap();
        let mut line = String::new();
        s.read_line(&mut line).await.unwrap();
        assert_eq!(line, "pong\n");
        s.flush().await.unwrap();
        let mut got = [0; 4];
        b.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"ping");
        let mut rest = [0; 4];
        s.read_exact(&mut rest).await.unwrap();
        assert_eq!(&rest, b"rest");
    })
}

#[test]
fn buf_stream_from_writer_over_reader_keeps_both_buffers() {
    run(async {
        let (a, mut b) = crate::io::duplex(1024);
        b.write_all(b"in").await.unwrap();
        let mut r = BufReader::new(a);
        assert_eq!(r.fill_buf().await.unwrap(), b"in");
        let mut w = BufWriter::new(r);
        w.write_all(b"out").await.unwrap();
        let mut s = BufStream::from(w);
        let mut got = [0; 2];
        s.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"in");
        s.flush().await.unwrap();
        let mut out = [0; 3];
        b.read_exact(&mut out).await.unwrap();
        assert_eq!(&out, b"out");
    })
}
