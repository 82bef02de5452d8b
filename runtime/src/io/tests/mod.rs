//! Unit tests of the I/O trait family and io-util, written against `crate::io` only so
//! they run in both configurations: with `tokio-traits` they check the registry tokio's
//! items, without it ours, against the same expectations (values, error kinds and texts,
//! panic messages, `Debug` output).
//!
//! [`Mock`] is a scripted reader/writer: it reads a queue of steps (data, a `Pending`
//! that wakes at once, an error) and reports end of file after the last, and it records
//! writes, flushes and shutdowns as [`Event`]s, optionally accepting at most a few bytes
//! per write or answering every other write `Pending`. Every test runs under [`run`],
//! which fails it if it has not finished within a bound instead of letting it hang.

mod adapters;
mod buf_read_ext;
mod buffered;
mod copy;
mod read_buf;
mod read_ext;
mod write_ext;

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Runs `fut` on a current-thread runtime, failing if it takes longer than 20 seconds.
fn run<F: Future>(fut: F) -> F::Output {
    let rt = crate::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        crate::time::timeout(Duration::from_secs(20), fut)
            .await
            .expect("the test did not finish within 20 s")
    })
}

/// The panic message of `f`, which must panic.
fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let err = std::panic::catch_unwind(f).expect_err("expected a panic");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// One step of a [`Mock`]'s reads.
#[derive(Debug)]
enum Step {
    Data(Vec<u8>),
    Pending,
    Err(io::ErrorKind),
}

/// What a [`Mock`] writer saw.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Event {
    Write(Vec<u8>),
    Flush,
    Shutdown,
}

#[derive(Debug, Default)]
struct Mock {
    steps: VecDeque<Step>,
    reads: usize,
    /// The most bytes one write accepts (`usize::MAX` by default; 0: writes nothing).
    max_write: usize,
    /// Every other write is `Pending` (waking at once).
    pending_writes: bool,
    write_toggle: bool,
    events: Vec<Event>,
}

impl Mock {
    fn new() -> Mock {
        Mock {
            max_write: usize::MAX,
            ..Mock::default()
        }
    }

    fn reader(steps: impl IntoIterator<Item = Step>) -> Mock {
        Mock {
            steps: steps.into_iter().collect(),
            ..Mock::new()
        }
    }

    /// Reads `data` `chunk` bytes at a time, with a `Pending` before each chunk.
    fn trickle(data: &[u8], chunk: usize) -> Mock {
        Mock::reader(
            data.chunks(chunk)
                .flat_map(|c| [Step::Pending, Step::Data(c.to_vec())]),
        )
    }

    fn max_write(mut self, n: usize) -> Mock {
        self.max_write = n;
        self
    }

    fn pending_writes(mut self) -> Mock {
        self.pending_writes = true;
        self
    }

    /// Everything written, concatenated.
    fn written(&self) -> Vec<u8> {
        self.events
            .iter()
            .flat_map(|e| match e {
                Event::Write(b) => b.clone(),
                _ => Vec::new(),
            })
            .collect()
    }
}

impl AsyncRead for Mock {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.reads += 1;
        match self.steps.pop_front() {
            None => Poll::Ready(Ok(())),
            Some(Step::Pending) => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Some(Step::Err(kind)) => Poll::Ready(Err(kind.into())),
            Some(Step::Data(mut d)) => {
                let n = d.len().min(buf.remaining());
                buf.put_slice(&d[..n]);
                if n < d.len() {
                    d.drain(..n);
                    self.steps.push_front(Step::Data(d));
                }
                Poll::Ready(Ok(()))
            }
        }
    }
}

impl AsyncWrite for Mock {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.pending_writes {
            self.write_toggle = !self.write_toggle;
            if self.write_toggle {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
        }
        let n = buf.len().min(self.max_write);
        if n > 0 {
            self.events.push(Event::Write(buf[..n].to_vec()));
        }
        Poll::Ready(Ok(n))
    }

    fn poll_flush(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.events.push(Event::Flush);
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.events.push(Event::Shutdown);
        Poll::Ready(Ok(()))
    }
}

/// Bytes `0, 1, .., 250, 0, 1, ..` (a prime period, so misplaced chunks show).
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}
