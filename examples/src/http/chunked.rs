//! Incremental decoder of a chunked request body (RFC 9112 section 7.1).
//!
//! The decoder is a small state machine fed whatever bytes the read buffer holds: it
//! consumes what it can (chunk-size lines via `httparse::parse_chunk_size`, chunk data
//! copied into the body, the CRLF after each chunk, then trailer lines, which are skipped)
//! and says how many bytes it consumed, so the connection can drop them and read more. It
//! never looks at a byte twice except a size or trailer line split across reads, whose
//! length is bounded (`MAX_LINE`, `MAX_TRAILERS`) so a peer cannot make that quadratic.
//!
//! The verdict on a body never depends on how it was cut into reads: a size line is parsed
//! from at most its first `MAX_LINE` bytes, so one longer than that is refused whether it
//! arrives whole or in pieces, and the trailer budget counts whole lines the same way. A
//! chunk's announced size reserves nothing: the body grows as its bytes arrive (a peer
//! announcing 8 MiB and sending 3 bytes holds 3 bytes' worth of buffer, not 8 MiB). A
//! bare LF inside a size line (which a lenient front end might take for the line's end) is
//! refused.

/// Longest chunk-size line accepted, extensions and CRLF included.
const MAX_LINE: usize = 4096;
/// Most trailer bytes accepted after the last chunk.
const MAX_TRAILERS: usize = 8192;

/// Why a chunked body was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ChunkedError {
    /// Malformed framing: 400.
    Invalid,
    /// More than `max_body` bytes of data: 413.
    TooLarge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Expecting a chunk-size line.
    Size,
    /// Inside a chunk's data, this many bytes left.
    Data(u64),
    /// Expecting the CRLF that ends a chunk's data.
    DataEnd,
    /// After the last (zero) chunk: trailer lines up to an empty one.
    Trailers,
    Done,
}

/// Decodes one chunked body across any number of reads.
#[derive(Debug)]
pub(crate) struct ChunkedDecoder {
    state: State,
    trailer_bytes: usize,
}

impl ChunkedDecoder {
    pub(crate) fn new() -> ChunkedDecoder {
        ChunkedDecoder {
            state: State::Size,
            trailer_bytes: 0,
        }
    }

    /// Decodes from `input`, appending chunk data to `body` (at most `max_body` bytes in
    /// all). Returns the bytes consumed and whether the body is complete; bytes after the
    /// end of the body are left alone (they start the next pipelined request).
    pub(crate) fn decode(
        &mut self,
        input: &[u8],
        body: &mut Vec<u8>,
        max_body: usize,
    ) -> Result<(usize, bool), ChunkedError> {
        let mut pos = 0;
        loop {
            let rest = &input[pos..];
            match self.state {
                State::Done => return Ok((pos, true)),
                State::Size => {
                    match httparse::parse_chunk_size(&rest[..rest.len().min(MAX_LINE)]) {
                        Ok(httparse::Status::Complete((used, size))) => {
                            // httparse takes any byte in an extension, LF included.
                            if rest[..used - 2].contains(&b'\n') {
                                return Err(ChunkedError::Invalid);
                            }
                            pos += used;
                            if size == 0 {
                                self.state = State::Trailers;
                            } else {
                                let total = (body.len() as u64).saturating_add(size);
                                if total > max_body as u64 {
                                    return Err(ChunkedError::TooLarge);
                                }
                                self.state = State::Data(size);
                            }
                        }
                        Ok(httparse::Status::Partial) if rest.len() < MAX_LINE => {
                            return Ok((pos, false))
                        }
                        _ => return Err(ChunkedError::Invalid),
                    }
                }
                State::Data(left) => {
                    if rest.is_empty() {
                        return Ok((pos, false));
                    }
                    let take = rest.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                    body.extend_from_slice(&rest[..take]);
                    pos += take;
                    let left = left - take as u64;
                    self.state = if left == 0 {
                        State::DataEnd
                    } else {
                        State::Data(left)
                    };
                }
                State::DataEnd => {
                    if rest.len() < 2 {
                        if rest.first().is_some_and(|&b| b != b'\r') {
                            return Err(ChunkedError::Invalid);
                        }
                        return Ok((pos, false));
                    }
                    if &rest[..2] != b"\r\n" {
                        return Err(ChunkedError::Invalid);
                    }
                    pos += 2;
                    self.state = State::Size;
                }
                State::Trailers => match find_crlf(rest) {
                    Some(0) => {
                        pos += 2;
                        self.state = State::Done;
                    }
                    Some(line) => {
                        self.trailer_bytes += line + 2;
                        if self.trailer_bytes > MAX_TRAILERS || rest[..line].contains(&b'\n') {
                            return Err(ChunkedError::Invalid);
                        }
                        pos += line + 2;
                    }
                    None => {
                        // Once its CRLF arrives, the line so far counts at least
                        // `rest.len() + 1` bytes -- unless it is the empty line that ends
                        // the trailers, which counts nothing. Refusing only when even that
                        // least is over budget gives the verdict a whole line would get.
                        let least = match rest {
                            b"" | b"\r" => 0,
                            _ => rest.len() + 1,
                        };
                        if self.trailer_bytes + least > MAX_TRAILERS {
                            return Err(ChunkedError::Invalid);
                        }
                        return Ok((pos, false));
                    }
                },
            }
        }
    }
}

fn find_crlf(buf: &[u8]) -> Option<usize> {
    buf.windows(2).position(|w| w == b"\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(input: &[u8], piece: usize) -> Result<(Vec<u8>, usize), ChunkedError> {
        let mut dec = ChunkedDecoder::new();
        let mut body = Vec::new();
        let mut buffered: Vec<u8> = Vec::new();
        let mut consumed_total = 0;
        for part in input.chunks(piece.max(1)) {
            buffered.extend_from_slice(part);
            let (used, done) = dec.decode(&buffered, &mut body, 1 << 20)?;
            buffered.drain(..used);
            consumed_total += used;
            if done {
                return Ok((body, consumed_total));
            }
        }
        panic!("body never completed: {:?}", String::from_utf8_lossy(&body));
    }

    #[test]
    fn decodes_whole_and_split_at_every_size() {
        let wire = b"5\r\nHello\r\n8;ext=1\r\n, World!\r\n0\r\nX-Trailer: 1\r\n\r\nNEXT";
        let body_end = wire.len() - 4;
        for piece in 1..=wire.len() {
            let (body, used) = decode_in_pieces(&wire[..], piece).unwrap();
            assert_eq!(body, b"Hello, World!", "piece size {piece}");
            assert_eq!(used, body_end, "piece size {piece}");
        }
    }

    #[test]
    fn rejects_bad_framing_and_oversize() {
        let mut body = Vec::new();
        assert_eq!(
            ChunkedDecoder::new().decode(b"zz\r\n", &mut body, 100),
            Err(ChunkedError::Invalid)
        );
        assert_eq!(
            ChunkedDecoder::new().decode(b"3\r\nabcX\r\n", &mut body, 100),
            Err(ChunkedError::Invalid)
        );
        assert_eq!(
            ChunkedDecoder::new().decode(b"65\r\n", &mut body, 100),
            Err(ChunkedError::TooLarge)
        );
        let long_line = vec![b'1'; MAX_LINE + 1];
        assert_eq!(
            ChunkedDecoder::new().decode(&long_line, &mut body, 100),
            Err(ChunkedError::Invalid)
        );
    }

    /// A chunk-size line of exactly `len` bytes (CRLF included) announcing 1 byte.
    fn size_line(len: usize) -> Vec<u8> {
        let mut line = b"1;".to_vec();
        line.resize(len - 2, b'x');
        line.extend_from_slice(b"\r\n");
        line
    }

    #[test]
    fn line_limit_is_the_same_whatever_the_segmentation() {
        for (len, ok) in [(MAX_LINE, true), (MAX_LINE + 1, false), (4500, false)] {
            let mut wire = size_line(len);
            wire.extend_from_slice(b"a\r\n0\r\n\r\n");
            for piece in [1, 2, 7, len - 1, len, len + 1, wire.len()] {
                let got = decode_in_pieces(&wire, piece);
                assert_eq!(got.is_ok(), ok, "a {len}-byte line in {piece}-byte pieces");
                if let Err(e) = got {
                    assert_eq!(e, ChunkedError::Invalid);
                }
            }
        }
    }

    #[test]
    fn a_bare_lf_in_a_size_line_is_refused() {
        let mut body = Vec::new();
        assert_eq!(
            ChunkedDecoder::new().decode(b"1;a\nb\r\nx\r\n0\r\n\r\n", &mut body, 100),
            Err(ChunkedError::Invalid)
        );
    }

    #[test]
    fn an_announced_chunk_is_not_reserved_before_it_arrives() {
        let mut body = Vec::new();
        let (used, done) = ChunkedDecoder::new()
            .decode(b"7fffff\r\nabc", &mut body, 8 << 20)
            .unwrap();
        assert_eq!((used, done), (11, false));
        assert_eq!(body, b"abc");
        assert!(
            body.capacity() < 64 * 1024,
            "3 bytes of an 8 MiB chunk hold {} bytes",
            body.capacity()
        );
    }

    #[test]
    fn trailer_budget_is_the_same_whatever_the_segmentation() {
        // Trailer lines totalling exactly the budget, then the empty line: accepted in any
        // pieces; one byte more: refused in any pieces.
        for (extra, ok) in [(0, true), (1, false)] {
            let mut wire = b"1\r\na\r\n0\r\n".to_vec();
            let line_len = 100;
            let mut left = MAX_TRAILERS + extra;
            while left > 0 {
                let len = left.min(line_len).max(5);
                let mut line = b"X:".to_vec();
                line.resize(len - 2, b'y');
                line.extend_from_slice(b"\r\n");
                wire.extend_from_slice(&line);
                left -= len;
            }
            wire.extend_from_slice(b"\r\n");
            for piece in [1, 3, 100, 101, wire.len()] {
                let got = decode_in_pieces(&wire, piece);
                assert_eq!(
                    got.is_ok(),
                    ok,
                    "+{extra} trailer bytes in {piece}-byte pieces"
                );
            }
        }
    }
}
