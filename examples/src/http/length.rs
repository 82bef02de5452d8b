//! Reading a `Content-Length` request body into a buffer that grows as its bytes arrive.
//!
//! The announced length is a promise the client need not keep, so it reserves nothing: the
//! buffer starts at what was already buffered plus one read's worth (`FIRST_READ`) and
//! doubles -- never past the announced length -- each time a read fills it. A client that
//! announces 8 MiB and sends 100 bytes holds about `FIRST_READ` bytes, not 8 MiB; an
//! honest one costs about log2(len / FIRST_READ) reallocations, each copying only bytes
//! that arrived. Reads go straight into the buffer's spare room (no copy through the
//! connection's read buffer); that room is zeroed once, when it is added, because
//! `AsyncRead` takes an initialized slice.
//!
//! Invariant: `filled <= buf.len() <= len`, and `buf[..filled]` is the body received so
//! far; `buf[filled..]` is zeroed room for the next read.

/// Room for the first read into a body that is not all buffered yet.
const FIRST_READ: usize = 16 * 1024;

/// A `Content-Length` body being received.
#[derive(Debug)]
pub(crate) struct LengthBody {
    buf: Vec<u8>,
    filled: usize,
    len: usize,
}

impl LengthBody {
    /// A body of `len` bytes of which `buffered` (at most `len` bytes) already arrived.
    pub(crate) fn new(len: usize, buffered: &[u8]) -> LengthBody {
        debug_assert!(buffered.len() <= len);
        let mut buf = Vec::with_capacity(len.min(buffered.len() + FIRST_READ));
        buf.extend_from_slice(buffered);
        LengthBody {
            filled: buf.len(),
            buf,
            len,
        }
    }

    /// Whether every announced byte has arrived.
    pub(crate) fn is_complete(&self) -> bool {
        self.filled == self.len
    }

    /// Room for the next read: never empty while the body is incomplete, never past the
    /// announced length. Grows the buffer (doubling) when the last read filled it.
    pub(crate) fn spare(&mut self) -> &mut [u8] {
        if self.filled == self.buf.len() && self.buf.len() < self.len {
            let target = self
                .len
                .min((self.buf.len() * 2).max(self.buf.len() + FIRST_READ));
            self.buf.reserve_exact(target - self.buf.len());
            self.buf.resize(target, 0);
        }
        &mut self.buf[self.filled..]
    }

    /// Records that a read put `n` bytes at the start of [`spare`](Self::spare).
    pub(crate) fn advance(&mut self, n: usize) {
        assert!(
            self.filled + n <= self.buf.len(),
            "advance past the room spare() gave"
        );
        self.filled += n;
    }

    /// The bytes received so far (all of them once [`is_complete`](Self::is_complete)).
    pub(crate) fn into_vec(mut self) -> Vec<u8> {
        self.buf.truncate(self.filled);
        self.buf
    }

    /// The buffer's capacity in bytes: what this body holds in memory right now.
    #[cfg(test)]
    fn capacity(&self) -> usize {
        self.buf.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1024 * 1024;

    #[test]
    fn a_big_announcement_with_few_bytes_reserves_little() {
        let mut body = LengthBody::new(8 * MIB, b"hello");
        assert!(body.capacity() <= 5 + FIRST_READ);
        let room = body.spare();
        room[..95].fill(b'x');
        body.advance(95);
        assert!(!body.is_complete());
        assert!(
            body.capacity() <= 5 + FIRST_READ,
            "100 bytes of an announced 8 MiB hold {} bytes",
            body.capacity()
        );
        assert_eq!(body.spare().len(), FIRST_READ - 95);
        assert_eq!(&body.into_vec()[..5], b"hello");
    }

    #[test]
    fn grows_by_doubling_up_to_exactly_the_length() {
        let len = 3 * MIB + 7;
        let mut body = LengthBody::new(len, &[]);
        let mut grows = 0;
        let mut last_cap = body.capacity();
        let mut next = 0u8;
        while !body.is_complete() {
            let room = body.spare();
            assert!(!room.is_empty());
            // Reads of odd sizes, so room is sometimes left over and sometimes not.
            let n = room.len().min(10_000);
            for b in &mut room[..n] {
                *b = next;
                next = next.wrapping_add(1);
            }
            body.advance(n);
            assert!(
                body.capacity() <= len,
                "never more than the announced length"
            );
            if body.capacity() != last_cap {
                grows += 1;
                last_cap = body.capacity();
            }
        }
        assert!(grows <= 10, "{grows} reallocations for 3 MiB");
        let v = body.into_vec();
        assert_eq!(v.len(), len);
        assert!(v.iter().enumerate().all(|(i, &b)| b == i as u8));
    }

    #[test]
    fn all_buffered_is_complete_at_once() {
        let mut body = LengthBody::new(3, b"abc");
        assert!(body.is_complete());
        assert!(body.spare().is_empty());
        assert_eq!(body.into_vec(), b"abc");
    }

    #[test]
    #[should_panic(expected = "advance past the room")]
    fn advancing_past_the_room_panics() {
        let mut body = LengthBody::new(10, b"");
        let _ = body.spare();
        body.advance(11);
    }
}
