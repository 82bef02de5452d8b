//! Parsing a request head: `httparse` over the read buffer, then the `http` types.
//!
//! `parse_head` runs httparse on whatever is buffered (with uninitialized header slots, so
//! a parse costs nothing per unused slot). On a complete head it copies the head's bytes
//! once into the connection's `arena` (a `BytesMut` whose buffer is reclaimed in place once
//! the previous requests are dropped, so in steady state this allocates nothing) and builds
//! the URI and every header value as zero-copy slices of that copy. While doing so it reads
//! the framing headers: `content-length` (all copies must agree), `transfer-encoding` (its
//! codings, over all its lines, must end in exactly one `chunked`; both headers at once is
//! refused, against request smuggling), `connection` and `expect: 100-continue`. A head
//! longer than `max_head` bytes, or with more than `MAX_HEADERS` headers, is too large
//! (431); a coding before the final `chunked` is one this server does not implement (501,
//! RFC 9112 section 6.1); any other defect is a bad request (400).
//!
//! The answer never depends on how the head arrived: httparse only ever sees the first
//! `max_head` bytes, so a head that is malformed past the limit is 431 whether it came in
//! one read (where a whole-buffer parse would have met the defect) or byte by byte (where
//! the limit is reached first).

use std::mem::MaybeUninit;

use bytes::BytesMut;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Method, Uri, Version};

/// Most headers in one request; more is answered 431 (hyper's default is 100 too).
pub(crate) const MAX_HEADERS: usize = 100;

/// How the request's body is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyKind {
    /// `content-length: n` (absent means 0).
    Length(u64),
    Chunked,
}

/// A parsed request head.
#[derive(Debug)]
pub(crate) struct Head {
    pub(crate) method: Method,
    pub(crate) uri: Uri,
    pub(crate) version: Version,
    pub(crate) headers: HeaderMap,
    pub(crate) body: BodyKind,
    /// Whether the connection may serve another request after this one.
    pub(crate) keep_alive: bool,
    pub(crate) expect_continue: bool,
}

/// Why a head was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParseError {
    /// 400 Bad Request.
    Malformed,
    /// 431 Request Header Fields Too Large.
    TooLarge,
    /// 501 Not Implemented: a transfer coding other than `chunked`.
    NotImplemented,
}

/// Parses one request head from the start of `buf`: `Ok(None)` while it is incomplete,
/// `Ok(Some((head, len)))` with the head's length in bytes once it is complete.
pub(crate) fn parse_head(
    buf: &[u8],
    max_head: usize,
    arena: &mut BytesMut,
) -> Result<Option<(Head, usize)>, ParseError> {
    let mut slots = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut []);
    // Never past the limit (see the module docs): a head that is not complete within the
    // first `max_head` bytes is too large, whatever follows.
    let limited = &buf[..buf.len().min(max_head)];
    let len = match req.parse_with_uninit_headers(limited, &mut slots) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) if limited.len() < max_head => return Ok(None),
        Ok(httparse::Status::Partial) => return Err(ParseError::TooLarge),
        Err(httparse::Error::TooManyHeaders) => return Err(ParseError::TooLarge),
        Err(_) => return Err(ParseError::Malformed),
    };

    let method = Method::from_bytes(req.method.unwrap_or_default().as_bytes())
        .map_err(|_| ParseError::Malformed)?;
    let version = match req.version {
        Some(1) => Version::HTTP_11,
        Some(0) => Version::HTTP_10,
        _ => return Err(ParseError::Malformed),
    };

    // One copy of the head backs the URI and all header values.
    arena.extend_from_slice(&buf[..len]);
    let bytes = arena.split().freeze();
    let base = buf.as_ptr() as usize;
    let slice_of = |s: &[u8]| {
        let start = s.as_ptr() as usize - base;
        bytes.slice(start..start + s.len())
    };

    let path = req.path.unwrap_or_default();
    let uri = if path == "/" {
        Uri::from_static("/")
    } else {
        Uri::from_maybe_shared(slice_of(path.as_bytes())).map_err(|_| ParseError::Malformed)?
    };

    let mut headers = HeaderMap::with_capacity(req.headers.len());
    let mut content_length: Option<u64> = None;
    let mut codings = Codings::default();
    let mut close = false;
    let mut keep_alive_token = false;
    let mut expect_continue = false;
    for h in req.headers.iter() {
        let name = HeaderName::from_bytes(h.name.as_bytes()).map_err(|_| ParseError::Malformed)?;
        let raw = h.value;
        if name == header::CONTENT_LENGTH {
            let n = parse_decimal(raw).ok_or(ParseError::Malformed)?;
            if content_length.is_some_and(|prev| prev != n) {
                return Err(ParseError::Malformed);
            }
            content_length = Some(n);
        } else if name == header::TRANSFER_ENCODING {
            codings.add_line(raw);
        } else if name == header::CONNECTION {
            for token in raw.split(|&b| b == b',') {
                let token = token.trim_ascii();
                close |= token.eq_ignore_ascii_case(b"close");
                keep_alive_token |= token.eq_ignore_ascii_case(b"keep-alive");
            }
        } else if name == header::EXPECT {
            expect_continue = raw.trim_ascii().eq_ignore_ascii_case(b"100-continue");
        }
        // SAFETY: httparse accepted this value, so every byte is HTAB, 0x20..=0x7E or
        // 0x80..=0xFF -- exactly the bytes a `HeaderValue` may hold (visible ASCII, space,
        // tab, obs-text); no CR, LF, NUL or DEL can be in it.
        let value = unsafe { HeaderValue::from_maybe_shared_unchecked(slice_of(raw)) };
        headers.append(name, value);
    }

    let body = match (codings.present, content_length) {
        (false, n) => BodyKind::Length(n.unwrap_or(0)),
        // Both framings, or chunked on HTTP/1.0: the length is ambiguous.
        (true, Some(_)) => return Err(ParseError::Malformed),
        (true, None) if version != Version::HTTP_11 => return Err(ParseError::Malformed),
        // Not ending in exactly one `chunked`: the body's end cannot be found (400, RFC 9112
        // section 6.3), whatever the other codings are.
        (true, None) if !codings.last_chunked || codings.chunked > 1 => {
            return Err(ParseError::Malformed)
        }
        // Framed correctly, but with a coding beneath `chunked` that we do not decode.
        (true, None) if codings.others => return Err(ParseError::NotImplemented),
        (true, None) => BodyKind::Chunked,
    };
    let keep_alive = match version {
        Version::HTTP_11 => !close,
        _ => keep_alive_token && !close,
    };

    Ok(Some((
        Head {
            method,
            uri,
            version,
            headers,
            body,
            keep_alive,
            expect_continue,
        },
        len,
    )))
}

/// The transfer codings of a request, over all its `transfer-encoding` lines, in order.
#[derive(Debug, Default)]
struct Codings {
    present: bool,
    /// How many times `chunked` appears.
    chunked: usize,
    /// Whether the last coding is `chunked`.
    last_chunked: bool,
    /// Whether any coding other than `chunked` appears.
    others: bool,
}

impl Codings {
    /// Adds the codings of one header line (a comma-separated list; empty elements are
    /// ignored, as RFC 9110 section 5.6.1 asks of a recipient).
    fn add_line(&mut self, raw: &[u8]) {
        self.present = true;
        for coding in raw.split(|&b| b == b',') {
            let coding = coding.trim_ascii();
            if coding.is_empty() {
                continue;
            }
            // `chunked` takes no parameters: `chunked;x=1` is some other coding.
            self.last_chunked = coding.eq_ignore_ascii_case(b"chunked");
            if self.last_chunked {
                self.chunked += 1;
            } else {
                self.others = true;
            }
        }
    }
}

/// Parses a `content-length` value: ASCII digits only, no sign, no overflow.
fn parse_decimal(raw: &[u8]) -> Option<u64> {
    let raw = raw.trim_ascii();
    if raw.is_empty() {
        return None;
    }
    raw.iter().try_fold(0u64, |acc, &b| {
        if b.is_ascii_digit() {
            acc.checked_mul(10)?.checked_add(u64::from(b - b'0'))
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Option<(Head, usize)>, ParseError> {
        parse_head(s.as_bytes(), 8192, &mut BytesMut::new())
    }

    #[test]
    fn complete_partial_and_framing() {
        let (head, len) = parse("GET /a?b=1 HTTP/1.1\r\nHost: x\r\nX-Y: z\r\n\r\nrest")
            .unwrap()
            .unwrap();
        assert_eq!(len, 40); // everything before "rest"
        assert_eq!(head.method, Method::GET);
        assert_eq!(head.uri.path(), "/a");
        assert_eq!(head.uri.query(), Some("b=1"));
        assert_eq!(head.headers["x-y"], "z");
        assert_eq!(head.body, BodyKind::Length(0));
        assert!(head.keep_alive);

        assert!(parse("GET / HTTP/1.1\r\nHost: x\r\n").unwrap().is_none());

        let (head, _) = parse("POST / HTTP/1.1\r\nTransfer-Encoding: ,Chunked\r\n\r\n")
            .unwrap()
            .unwrap();
        assert_eq!(head.body, BodyKind::Chunked);
        let (head, _) = parse("POST / HTTP/1.0\r\nContent-Length: 12\r\n\r\n")
            .unwrap()
            .unwrap();
        assert_eq!(head.body, BodyKind::Length(12));
        assert!(!head.keep_alive);
        let (head, _) = parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")
            .unwrap()
            .unwrap();
        assert!(head.keep_alive);
        let (head, _) = parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
            .unwrap()
            .unwrap();
        assert!(!head.keep_alive);
    }

    #[test]
    fn refusals() {
        let bad = [
            "GARBAGE\r\n\r\n",
            "GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            "GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked;x=1\r\n\r\n",
            "POST / HTTP/1.0\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
        ];
        for b in bad {
            assert_eq!(parse(b).unwrap_err(), ParseError::Malformed, "{b:?}");
        }
        let unimplemented = [
            "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: deflate\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: identity , Chunked\r\n\r\n",
        ];
        for b in unimplemented {
            assert_eq!(parse(b).unwrap_err(), ParseError::NotImplemented, "{b:?}");
        }
        // Malformed past the size limit is too large, as it would be byte by byte.
        let late = format!(
            "GET / HTTP/1.1\r\nX: {}\r\nBad Name: x\r\n\r\n",
            "a".repeat(8200)
        );
        assert_eq!(parse(&late).unwrap_err(), ParseError::TooLarge);
        let big = format!("GET / HTTP/1.1\r\nX: {}\r\n", "a".repeat(9000));
        assert_eq!(parse(&big).unwrap_err(), ParseError::TooLarge);
        let many: String = (0..MAX_HEADERS + 1)
            .map(|i| format!("H{i}: v\r\n"))
            .collect();
        let many = format!("GET / HTTP/1.1\r\n{many}\r\n");
        assert_eq!(parse(&many).unwrap_err(), ParseError::TooLarge);
    }
}
