//! The server's answer to a byte stream does not depend on how the stream was cut into
//! reads. Every request of a corpus (valid ones, malformed ones, limits just met and just
//! exceeded, smuggling attempts) is fed to `serve_connection` over the in-memory duplex in
//! one piece, byte by byte, and in pieces of 7 and 1000 bytes; the answers must be the
//! same, and the one-piece answer must be the expected one.
#![cfg(not(loom))]

mod http_common;

use std::time::Duration;

use examples::http::duplex::duplex;
use examples::http::Server;
use futures::io::{AsyncReadExt, AsyncWriteExt};
use http_common::{runtime, test_service};

/// Serves one connection that receives `input` cut into `piece`-byte writes (then EOF);
/// returns everything the server wrote, until it closed.
async fn serve(input: &[u8], piece: usize) -> Vec<u8> {
    // A pipe no bigger than a piece, so that every read sees exactly one piece.
    let (client, server_io) = duplex(piece.min(1 << 20));
    let server = runtime::spawn(async move {
        let svc = test_service();
        Server::new().serve_connection(server_io, &svc).await
    });
    let (mut rx, mut tx) = client.split();
    let input = input.to_vec();
    let writer = runtime::spawn(async move {
        for part in input.chunks(piece) {
            // The server may close early (a refusal): the rest is not wanted.
            if tx.write_all(part).await.is_err() {
                return;
            }
        }
        let _ = tx.close().await;
    });
    let mut out = Vec::new();
    runtime::time::timeout(Duration::from_secs(20), rx.read_to_end(&mut out))
        .await
        .expect("the server neither answered nor closed")
        .expect("read");
    writer.await.unwrap();
    let _ = server.await.unwrap();
    out
}

/// Drops what legitimately depends on timing: `date` headers, and the `100 Continue`
/// interim response (sent only when the body is not already buffered).
fn normalize(out: &[u8]) -> String {
    let text = String::from_utf8_lossy(out).replace("HTTP/1.1 100 Continue\r\n\r\n", "");
    let mut kept = String::new();
    for line in text.split_inclusive("\r\n") {
        if !line.starts_with("date: ") {
            kept.push_str(line);
        }
    }
    kept
}

/// Status codes of the responses in `out`, in order.
fn statuses(out: &str) -> Vec<u16> {
    out.match_indices("HTTP/1.1 ")
        .filter_map(|(i, _)| out[i + 9..].get(..3)?.parse().ok())
        .collect()
}

fn corpus() -> Vec<(&'static str, Vec<u8>, Vec<u16>)> {
    let long_ext = |len: usize| {
        // A chunk-size line of exactly `len` bytes, CRLF included.
        let ext = "a".repeat(len - "5;x=\r\n".len());
        format!(
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n\
             5;x={ext}\r\nHello\r\n0\r\n\r\n"
        )
    };
    let late_garbage = {
        // A head over the 8 KiB limit, malformed only past the limit.
        let pad = "v".repeat(8500);
        format!("GET / HTTP/1.1\r\nX-Pad: {pad}\r\nBad Header: x\r\n\r\n")
    };
    let trailers = |n: usize| {
        let lines: String = (0..n)
            .map(|i| format!("X-T{i:04}: {}\r\n", "t".repeat(90)))
            .collect();
        format!(
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n\
             2\r\nok\r\n0\r\n{lines}\r\n"
        )
    };
    let s = |text: &str| text.as_bytes().to_vec();
    vec![
        ("get", s("GET / HTTP/1.1\r\nHost: t\r\n\r\n"), vec![200]),
        (
            "pipelined",
            s("GET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n\r\n"),
            vec![200, 200],
        ),
        (
            "content-length body",
            s("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhello worldGET / HTTP/1.1\r\n\r\n"),
            vec![200, 200],
        ),
        (
            "expect-continue",
            s("POST /echo HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nok"),
            vec![200],
        ),
        (
            "chunked body",
            s("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nHello\r\n3;e=1\r\n, W\r\n0\r\nX-T: 1\r\n\r\nGET / HTTP/1.1\r\n\r\n"),
            vec![200, 200],
        ),
        ("chunk-size line at the limit", long_ext(4096).into_bytes(), vec![200]),
        ("chunk-size line over the limit", long_ext(4097).into_bytes(), vec![400]),
        ("chunk-size line of 4,500 bytes", long_ext(4500).into_bytes(), vec![400]),
        (
            "bare LF in a chunk extension",
            s("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;a\nb\r\nHello\r\n0\r\n\r\n"),
            vec![400],
        ),
        ("trailers under the limit", trailers(80).into_bytes(), vec![200]),
        ("trailers over the limit", trailers(90).into_bytes(), vec![400]),
        ("head malformed past the size limit", late_garbage.into_bytes(), vec![431]),
        (
            "head over the limit",
            format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(9000)).into_bytes(),
            vec![431],
        ),
        ("garbage", s("NOT HTTP AT ALL\r\n\r\n"), vec![400]),
        (
            "both framings",
            s("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc"),
            vec![400],
        ),
        (
            "conflicting lengths",
            s("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"),
            vec![400],
        ),
        (
            "gzip, chunked",
            s("POST /echo HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"),
            vec![501],
        ),
        (
            "chunked body over the limit",
            s("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n900000\r\n"),
            vec![413],
        ),
        (
            "bad chunk data end",
            s("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXY0\r\n\r\n"),
            vec![400],
        ),
        (
            "http/1.0 keep-alive",
            s("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /b HTTP/1.0\r\n\r\nGET /c HTTP/1.0\r\n\r\n"),
            vec![200, 200],
        ),
        (
            "connection close stops the pipeline",
            s("GET /a HTTP/1.1\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\n\r\n"),
            vec![200],
        ),
    ]
}

#[test]
fn answers_do_not_depend_on_segmentation() {
    let rt = runtime();
    rt.block_on(async {
        let mut failures = Vec::new();
        for (name, input, want) in corpus() {
            let whole = normalize(&serve(&input, input.len()).await);
            if statuses(&whole) != want {
                failures.push(format!(
                    "{name}: in one piece answered {:?}, expected {want:?}",
                    statuses(&whole)
                ));
            }
            for piece in [1, 7, 1000] {
                let split = normalize(&serve(&input, piece).await);
                if split != whole {
                    failures.push(format!(
                        "{name}: in {piece}-byte pieces answered {:?}, in one piece {:?}",
                        statuses(&split),
                        statuses(&whole)
                    ));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}
