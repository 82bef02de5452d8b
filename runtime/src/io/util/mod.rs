//! io-util, owned by this crate when the `tokio-traits` feature is off: the extension
//! traits and their futures, the buffered adapters, the combinators and the copies, with
//! tokio's (1.x) public API.
//!
//! Everything here is generic code over the traits of [`super::traits`]: no timer, no
//! driver, no task of its own. Each future borrows its reader or writer and keeps its
//! progress in its own fields, so a `Pending` poll loses nothing and the next poll goes
//! on where it stopped. Every future is `!Unpin`, as tokio's are (a `PhantomPinned`
//! marker; none of their fields is structurally pinned). The copies (`copy`, `copy_buf`,
//! `copy_bidirectional`) spend one unit of the task's cooperative budget per poll
//! ([`crate::task::coop::poll_proceed`]), kept only when the poll made progress, so a
//! copy between two values that are always ready still gives its worker back.

mod async_buf_read_ext;
mod async_read_ext;
mod async_seek_ext;
mod async_write_ext;
mod buf_reader;
mod buf_stream;
mod buf_writer;
mod chain;
mod copy;
mod copy_bidirectional;
mod copy_buf;
mod fill_buf;
mod flush;
mod join;
mod lines;
mod read;
mod read_int;
mod read_to_end;
mod read_until;
mod seek;
mod split;
mod split_segments;
mod take;
mod write;
mod write_int;

pub use async_buf_read_ext::AsyncBufReadExt;
pub use async_read_ext::AsyncReadExt;
pub use async_seek_ext::AsyncSeekExt;
pub use async_write_ext::AsyncWriteExt;
pub use buf_reader::BufReader;
pub use buf_stream::BufStream;
pub use buf_writer::BufWriter;
pub use chain::Chain;
pub use copy::copy;
pub use copy_bidirectional::{copy_bidirectional, copy_bidirectional_with_sizes};
pub use copy_buf::copy_buf;
pub use join::{join, Join};
pub use lines::Lines;
pub use split::{split, ReadHalf, WriteHalf};
pub use split_segments::Split;
pub use take::Take;

/// The buffer size of `BufReader`, `BufWriter` and the copies when none is given (std's).
const DEFAULT_BUF_SIZE: usize = 8 * 1024;
