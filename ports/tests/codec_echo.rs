//! `codec_echo` (tokio_util's `Framed` + `LinesCodec` on our `TcpStream`): lines come
//! back as sent, on several connections at once, and a line longer than one socket read
//! is framed correctly.

mod common;

use std::io::{BufRead, BufReader, Write};

use common::Server;

#[test]
fn lines_echo_back_on_concurrent_connections() {
    let server = Server::start(env!("CARGO_BIN_EXE_codec_echo"), &["127.0.0.1:0"]);
    let mut conns: Vec<_> = (0..4).map(|_| server.connect()).collect();
    for (i, c) in conns.iter_mut().enumerate() {
        writeln!(c, "hello {i}").unwrap();
        writeln!(c, "second line of {i}").unwrap();
    }
    for (i, c) in conns.into_iter().enumerate() {
        let mut r = BufReader::new(c);
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        assert_eq!(line, format!("hello {i}\n"));
        line.clear();
        r.read_line(&mut line).unwrap();
        assert_eq!(line, format!("second line of {i}\n"));
    }
}

#[test]
fn long_line_spanning_many_reads_is_one_frame() {
    let server = Server::start(env!("CARGO_BIN_EXE_codec_echo"), &["127.0.0.1:0"]);
    let c = server.connect();
    let long: String = (0..200_000)
        .map(|i| (b'a' + (i % 26) as u8) as char)
        .collect();
    let mut w = c.try_clone().unwrap();
    let sent = long.clone();
    let writer = std::thread::spawn(move || {
        w.write_all(sent.as_bytes()).unwrap();
        w.write_all(b"\r\nshort\n").unwrap();
    });
    let mut r = BufReader::new(c);
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    assert_eq!(line.len(), long.len() + 1, "LinesCodec strips the \\r");
    assert_eq!(&line[..long.len()], long);
    line.clear();
    r.read_line(&mut line).unwrap();
    assert_eq!(line, "short\n");
    writer.join().unwrap();
}
