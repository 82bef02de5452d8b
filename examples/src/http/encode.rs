//! Encoding response heads (and chunk framing) into the connection's write buffer.
//!
//! `encode_head` writes the status line, the handler's headers as they are, then what the
//! server owes the client: `content-length` for a body of known length (unless the handler
//! set one), `transfer-encoding: chunked` for a stream to an HTTP/1.1 client (an HTTP/1.0
//! client gets a close-delimited body instead), `connection: close` when the connection
//! ends after this response (or `keep-alive` for an HTTP/1.0 client that asked for it), and
//! `date`. 1xx, 204 and 304 responses carry no body. The date string is cached per
//! connection and reformatted at most once a second. All writes are appends to one `Vec`.

use std::io::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use http::header::{self, HeaderMap};
use http::{StatusCode, Version};

/// What the request says about how to answer it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReqInfo {
    pub(crate) version: Version,
    pub(crate) is_head: bool,
    pub(crate) keep_alive: bool,
}

/// How the body that follows a head goes on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// Nothing follows (HEAD, 1xx/204/304).
    NoBody,
    /// The body's bytes as they are (known length, or close-delimited).
    Raw,
    /// `transfer-encoding: chunked`.
    Chunked,
}

/// The `date` header value, formatted at most once per second.
#[derive(Debug)]
pub(crate) struct DateCache {
    secs: u64,
    text: [u8; 29],
}

impl DateCache {
    pub(crate) fn new() -> DateCache {
        DateCache {
            secs: u64::MAX,
            text: [b' '; 29],
        }
    }

    fn get(&mut self) -> &[u8] {
        let now = SystemTime::now();
        let secs = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        if secs != self.secs {
            self.secs = secs;
            let mut w = &mut self.text[..];
            // An IMF-fixdate is always 29 bytes (years 1000..=9999); a failure leaves spaces.
            let _ = write!(w, "{}", httpdate::HttpDate::from(now));
        }
        &self.text
    }
}

/// Writes a response head; returns how the body goes and whether the connection stays open.
pub(crate) fn encode_head(
    out: &mut Vec<u8>,
    status: StatusCode,
    headers: &HeaderMap,
    body_len: Option<usize>,
    req: ReqInfo,
    date: &mut DateCache,
) -> (Framing, bool) {
    status_line(out, status);

    let mut has_length = false;
    let mut has_te = false;
    let mut has_date = false;
    let mut close = false;
    for (name, value) in headers {
        if name == header::CONTENT_LENGTH {
            has_length = true;
        } else if name == header::TRANSFER_ENCODING {
            has_te = true;
        } else if name == header::DATE {
            has_date = true;
        } else if name == header::CONNECTION {
            close |= value
                .as_bytes()
                .split(|&b| b == b',')
                .any(|t| t.trim_ascii().eq_ignore_ascii_case(b"close"));
        }
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }

    let mut keep_alive = req.keep_alive && !close;
    let no_body_status = status.is_informational()
        || status == StatusCode::NO_CONTENT
        || status == StatusCode::NOT_MODIFIED;
    let framing = if no_body_status {
        Framing::NoBody
    } else {
        match body_len {
            Some(n) => {
                if !has_length {
                    out.extend_from_slice(b"content-length: ");
                    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
                    out.extend_from_slice(b"\r\n");
                }
                Framing::Raw
            }
            // A stream with a length the handler vouches for, or already chunked by it.
            None if has_length || has_te => Framing::Raw,
            None if req.version == Version::HTTP_11 && !req.is_head => {
                out.extend_from_slice(b"transfer-encoding: chunked\r\n");
                Framing::Chunked
            }
            None => {
                // HTTP/1.0 has no chunked coding: the end of the body is the end of the
                // connection.
                keep_alive = false;
                Framing::Raw
            }
        }
    };
    let framing = if req.is_head {
        Framing::NoBody
    } else {
        framing
    };

    if !keep_alive && !close {
        out.extend_from_slice(b"connection: close\r\n");
    } else if keep_alive && req.version == Version::HTTP_10 {
        out.extend_from_slice(b"connection: keep-alive\r\n");
    }
    if !has_date {
        out.extend_from_slice(b"date: ");
        out.extend_from_slice(date.get());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    (framing, keep_alive)
}

/// Writes a complete bodiless response that closes the connection (400, 413, 431, ...).
pub(crate) fn encode_error(out: &mut Vec<u8>, status: StatusCode, date: &mut DateCache) {
    status_line(out, status);
    out.extend_from_slice(b"content-length: 0\r\nconnection: close\r\ndate: ");
    out.extend_from_slice(date.get());
    out.extend_from_slice(b"\r\n\r\n");
}

/// The line that announces a chunk of `len` bytes.
pub(crate) fn chunk_header(out: &mut Vec<u8>, len: usize) {
    let _ = write!(out, "{len:X}\r\n");
}

/// The last chunk and the (empty) trailer section.
pub(crate) const LAST_CHUNK: &[u8] = b"0\r\n\r\n";

/// An interim response telling the client to send the body it announced.
pub(crate) const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

fn status_line(out: &mut Vec<u8>, status: StatusCode) {
    if status == StatusCode::OK {
        out.extend_from_slice(b"HTTP/1.1 200 OK\r\n");
        return;
    }
    out.extend_from_slice(b"HTTP/1.1 ");
    out.extend_from_slice(status.as_str().as_bytes());
    out.push(b' ');
    out.extend_from_slice(status.canonical_reason().unwrap_or("Unknown").as_bytes());
    out.extend_from_slice(b"\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(version: Version, is_head: bool, keep_alive: bool) -> ReqInfo {
        ReqInfo {
            version,
            is_head,
            keep_alive,
        }
    }

    fn head(status: u16, len: Option<usize>, req: ReqInfo) -> (String, Framing, bool) {
        let mut out = Vec::new();
        let mut headers = HeaderMap::new();
        headers.insert("x-a", "b".parse().unwrap());
        let (f, ka) = encode_head(
            &mut out,
            StatusCode::from_u16(status).unwrap(),
            &headers,
            len,
            req,
            &mut DateCache::new(),
        );
        (String::from_utf8(out).unwrap(), f, ka)
    }

    #[test]
    fn framing_and_connection_headers() {
        let (s, f, ka) = head(200, Some(5), info(Version::HTTP_11, false, true));
        assert!(s.starts_with("HTTP/1.1 200 OK\r\nx-a: b\r\ncontent-length: 5\r\ndate: "));
        assert!(s.ends_with(" GMT\r\n\r\n"), "{s}");
        assert_eq!((f, ka), (Framing::Raw, true));

        let (s, f, ka) = head(404, None, info(Version::HTTP_11, false, false));
        assert!(s.starts_with("HTTP/1.1 404 Not Found\r\n"));
        assert!(s.contains("transfer-encoding: chunked\r\nconnection: close\r\n"));
        assert_eq!((f, ka), (Framing::Chunked, false));

        let (s, f, ka) = head(200, None, info(Version::HTTP_10, false, true));
        assert!(!s.contains("chunked") && s.contains("connection: close\r\n"));
        assert_eq!((f, ka), (Framing::Raw, false));

        let (s, f, _) = head(204, Some(0), info(Version::HTTP_11, false, true));
        assert!(!s.contains("content-length"));
        assert_eq!(f, Framing::NoBody);

        let (s, f, ka) = head(200, Some(7), info(Version::HTTP_10, true, true));
        assert!(s.contains("content-length: 7\r\nconnection: keep-alive\r\n"));
        assert_eq!((f, ka), (Framing::NoBody, true));
    }
}
