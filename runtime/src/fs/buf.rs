//! `Buf`: the byte buffer a [`File`](super::File) moves into and out of its blocking
//! operations.
//!
//! It holds either bytes read ahead of the caller (`data[pos..]` not yet handed out) or
//! bytes accepted from a caller and not yet written; never both, because an idle `File`
//! with unread bytes seeks back over them (`discard_read`) before it writes or seeks.

use std::io::{self, Read, Write};

use crate::io::ReadBuf;

#[derive(Debug, Default)]
pub(crate) struct Buf {
    data: Vec<u8>,
    pos: usize,
}

impl Buf {
    pub(crate) fn is_empty(&self) -> bool {
        self.pos == self.data.len()
    }

    fn clear(&mut self) {
        self.data.clear();
        self.pos = 0;
    }

    /// Hands out buffered bytes into `dst`.
    pub(crate) fn copy_to(&mut self, dst: &mut ReadBuf<'_>) {
        let n = dst.remaining().min(self.data.len() - self.pos);
        dst.put_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        if self.is_empty() {
            self.clear();
        }
    }

    /// Accepts up to `max` bytes of `bufs`, in order (all of the first, then of the next,
    /// ...), for a later write; returns how many.
    pub(crate) fn copy_from_bufs(&mut self, bufs: &[io::IoSlice<'_>], max: usize) -> usize {
        debug_assert!(self.is_empty());
        let mut n = 0;
        for b in bufs {
            let take = (max - n).min(b.len());
            self.data.extend_from_slice(&b[..take]);
            n += take;
            if n == max {
                break;
            }
        }
        n
    }

    /// Drops the unread bytes; returns minus their count (the seek that puts the OS
    /// cursor back where the caller thinks it is).
    pub(crate) fn discard_read(&mut self) -> i64 {
        let unread = -((self.data.len() - self.pos) as i64);
        self.clear();
        unread
    }

    /// One blocking `read` of at most `max` bytes (retried on `EINTR`).
    pub(crate) fn read_from<T: Read>(&mut self, rd: &mut T, max: usize) -> io::Result<usize> {
        debug_assert!(self.is_empty());
        self.data.resize(max, 0);
        let res = loop {
            match rd.read(&mut self.data) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                res => break res,
            }
        };
        self.data.truncate(*res.as_ref().unwrap_or(&0));
        self.pos = 0;
        res
    }

    /// A blocking `write_all` of the buffered bytes; the buffer is empty afterwards.
    pub(crate) fn write_to<T: Write>(&mut self, wr: &mut T) -> io::Result<()> {
        let res = wr.write_all(&self.data[self.pos..]);
        self.clear();
        res
    }
}
