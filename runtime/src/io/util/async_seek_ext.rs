//! [`AsyncSeekExt`]: the utility methods of every [`AsyncSeek`], each a [`Seek`] future
//! that waits out any seek in progress, starts its own, and waits for it.

use std::io::SeekFrom;

use super::seek::{seek, Seek};
use crate::io::AsyncSeek;

/// Seeking utilities for every [`AsyncSeek`] (tokio's `AsyncSeekExt`); implemented for
/// all of them.
///
/// ```
/// use runtime::io::{AsyncReadExt, AsyncSeekExt, SeekFrom};
/// # runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut c = std::io::Cursor::new(b"abcdef".to_vec());
/// assert_eq!(c.seek(SeekFrom::End(-2)).await?, 4);
/// assert_eq!(c.read_u8().await?, b'e');
/// assert_eq!(c.stream_position().await?, 5);
/// c.rewind().await?;
/// assert_eq!(c.read_u8().await?, b'a');
/// # Ok::<_, std::io::Error>(()) }).unwrap();
/// ```
pub trait AsyncSeekExt: AsyncSeek {
    /// Seeks to `pos`, resolving to the new position from the start.
    fn seek(&mut self, pos: SeekFrom) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        seek(self, pos)
    }

    /// Seeks to the start.
    fn rewind(&mut self) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        self.seek(SeekFrom::Start(0))
    }

    /// Resolves to the current position from the start.
    fn stream_position(&mut self) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        self.seek(SeekFrom::Current(0))
    }
}

impl<S: AsyncSeek + ?Sized> AsyncSeekExt for S {}
