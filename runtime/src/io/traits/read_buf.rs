//! [`ReadBuf`]: a borrowed byte buffer that may be partly uninitialized, as a read fills it.
//!
//! It tracks two cursors over the borrowed `[MaybeUninit<u8>]`, with the invariant
//! `filled <= initialized <= capacity`: bytes `..filled` hold data a reader wrote, bytes
//! `..initialized` have been written at some point (so may be handed out as `&mut [u8]`),
//! and the rest may be uninitialized. The safe methods keep the invariant; the two
//! `unsafe` ones hand out the raw storage or move `initialized` on the caller's word.
//! Nothing ever de-initializes a byte, so `initialized` only grows.

use std::fmt;
use std::mem::MaybeUninit;

/// A wrapper around a byte buffer that is incrementally filled and initialized: tokio's
/// `ReadBuf`.
///
/// ```
/// use runtime::io::ReadBuf;
/// use std::mem::MaybeUninit;
///
/// let mut storage = [MaybeUninit::<u8>::uninit(); 8];
/// let mut buf = ReadBuf::uninit(&mut storage);
/// buf.put_slice(b"abc");
/// assert_eq!(buf.filled(), b"abc");
/// assert_eq!(buf.remaining(), 5);
/// ```
pub struct ReadBuf<'a> {
    buf: &'a mut [MaybeUninit<u8>],
    filled: usize,
    initialized: usize,
}

/// Views initialized bytes as `u8`s.
///
/// # Safety
///
/// Every byte of `s` must be initialized.
unsafe fn assume_init_ref(s: &[MaybeUninit<u8>]) -> &[u8] {
    // SAFETY: `MaybeUninit<u8>` has `u8`'s layout and the caller vouches every byte is
    // initialized.
    unsafe { &*(s as *const [MaybeUninit<u8>] as *const [u8]) }
}

/// Views initialized bytes as mutable `u8`s.
///
/// # Safety
///
/// Every byte of `s` must be initialized.
unsafe fn assume_init_mut(s: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: as `assume_init_ref`; writing a `u8` through the result keeps the byte
    // initialized.
    unsafe { &mut *(s as *mut [MaybeUninit<u8>] as *mut [u8]) }
}

impl<'a> ReadBuf<'a> {
    /// A `ReadBuf` over a fully initialized buffer, with nothing filled yet.
    #[inline]
    pub fn new(buf: &'a mut [u8]) -> ReadBuf<'a> {
        let initialized = buf.len();
        // SAFETY: same layout; the `ReadBuf` never writes an uninitialized value into its
        // storage, so the `u8`s stay valid for the caller once the borrow ends.
        let buf = unsafe { &mut *(buf as *mut [u8] as *mut [MaybeUninit<u8>]) };
        ReadBuf {
            buf,
            filled: 0,
            initialized,
        }
    }

    /// A `ReadBuf` over a buffer taken as wholly uninitialized, with nothing filled yet.
    #[inline]
    pub fn uninit(buf: &'a mut [MaybeUninit<u8>]) -> ReadBuf<'a> {
        ReadBuf {
            buf,
            filled: 0,
            initialized: 0,
        }
    }

    /// The total size of the buffer.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The filled part of the buffer.
    #[inline]
    pub fn filled(&self) -> &[u8] {
        // SAFETY: `..filled` lies within `..initialized` (the type's invariant).
        unsafe { assume_init_ref(&self.buf[..self.filled]) }
    }

    /// The filled part of the buffer, mutably.
    #[inline]
    pub fn filled_mut(&mut self) -> &mut [u8] {
        // SAFETY: `..filled` lies within `..initialized` (the type's invariant).
        unsafe { assume_init_mut(&mut self.buf[..self.filled]) }
    }

    /// A new `ReadBuf` over the first `n` bytes (at most [`remaining`](Self::remaining))
    /// of this one's unfilled part, with nothing filled and nothing taken as initialized.
    /// What a reader puts into it lies in this buffer's storage; carry it over with
    /// [`assume_init`](Self::assume_init) and [`advance`](Self::advance).
    #[inline]
    pub fn take(&mut self, n: usize) -> ReadBuf<'_> {
        let n = n.min(self.remaining());
        let filled = self.filled;
        ReadBuf::uninit(&mut self.buf[filled..filled + n])
    }

    /// The initialized part of the buffer (filled or not).
    #[inline]
    pub fn initialized(&self) -> &[u8] {
        // SAFETY: `..initialized` is initialized (the type's invariant).
        unsafe { assume_init_ref(&self.buf[..self.initialized]) }
    }

    /// The initialized part of the buffer, mutably.
    #[inline]
    pub fn initialized_mut(&mut self) -> &mut [u8] {
        // SAFETY: `..initialized` is initialized (the type's invariant).
        unsafe { assume_init_mut(&mut self.buf[..self.initialized]) }
    }

    /// The whole storage, filled or not.
    ///
    /// # Safety
    ///
    /// The caller must not de-initialize any byte: no `MaybeUninit::uninit()` may be
    /// written into the first [`initialized`](Self::initialized) bytes.
    #[inline]
    pub unsafe fn inner_mut(&mut self) -> &mut [MaybeUninit<u8>] {
        self.buf
    }

    /// The unfilled part of the storage, possibly uninitialized.
    ///
    /// # Safety
    ///
    /// The caller must not de-initialize any byte: no `MaybeUninit::uninit()` may be
    /// written into the already initialized part.
    #[inline]
    pub unsafe fn unfilled_mut(&mut self) -> &mut [MaybeUninit<u8>] {
        &mut self.buf[self.filled..]
    }

    /// The whole unfilled part, zeroing what of it is not initialized yet.
    #[inline]
    pub fn initialize_unfilled(&mut self) -> &mut [u8] {
        self.initialize_unfilled_to(self.remaining())
    }

    /// The first `n` unfilled bytes, zeroing what of them is not initialized yet.
    ///
    /// # Panics
    ///
    /// If `n` exceeds [`remaining`](Self::remaining) ("n overflows remaining").
    #[inline]
    #[track_caller]
    pub fn initialize_unfilled_to(&mut self, n: usize) -> &mut [u8] {
        assert!(
            n <= self.remaining(),
            "n overflows remaining: ask for at most `remaining()` ({}) bytes, not {n}",
            self.remaining()
        );
        let end = self.filled + n;
        if self.initialized < end {
            self.buf[self.initialized..end].fill(MaybeUninit::new(0));
            self.initialized = end;
        }
        // SAFETY: `..end` is initialized now (it was, or was just zeroed).
        unsafe { assume_init_mut(&mut self.buf[self.filled..end]) }
    }

    /// How many bytes are unfilled.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.capacity() - self.filled
    }

    /// Empties the filled part; the initialized part stays initialized.
    #[inline]
    pub fn clear(&mut self) {
        self.filled = 0;
    }

    /// Extends the filled part by `n` initialized bytes.
    ///
    /// # Panics
    ///
    /// If the filled part would pass the initialized one ("filled must not become larger
    /// than initialized"), or on overflow.
    #[inline]
    #[track_caller]
    pub fn advance(&mut self, n: usize) {
        let filled = self
            .filled
            .checked_add(n)
            .expect("filled overflow: `advance` by at most `remaining()` bytes");
        self.set_filled(filled);
    }

    /// Sets the length of the filled part (shrinking or growing it).
    ///
    /// # Panics
    ///
    /// If `n` passes the initialized part ("filled must not become larger than
    /// initialized"): initialize first ([`assume_init`](Self::assume_init) after writing,
    /// or [`initialize_unfilled_to`](Self::initialize_unfilled_to)).
    #[inline]
    #[track_caller]
    pub fn set_filled(&mut self, n: usize) {
        assert!(
            n <= self.initialized,
            "filled must not become larger than initialized: initialize the bytes first \
             ({n} asked, {} initialized)",
            self.initialized
        );
        self.filled = n;
    }

    /// Marks the first `n` unfilled bytes initialized (no effect if they already were).
    ///
    /// # Safety
    ///
    /// Those `n` bytes must have been initialized.
    #[inline]
    pub unsafe fn assume_init(&mut self, n: usize) {
        let end = self.filled + n;
        if end > self.initialized {
            self.initialized = end;
        }
    }

    /// Appends `buf` to the filled part.
    ///
    /// # Panics
    ///
    /// If `buf` is longer than [`remaining`](Self::remaining) ("buf.len() must fit in
    /// remaining()").
    #[inline]
    #[track_caller]
    pub fn put_slice(&mut self, buf: &[u8]) {
        assert!(
            buf.len() <= self.remaining(),
            "buf.len() must fit in remaining(); buf.len() = {}, remaining() = {}: put at \
             most `remaining()` bytes",
            buf.len(),
            self.remaining()
        );
        let end = self.filled + buf.len();
        let dst = &mut self.buf[self.filled..end];
        // SAFETY: `dst` and `buf` have the same length (checked above), `u8` and
        // `MaybeUninit<u8>` the same layout, and a `&[u8]` cannot overlap the storage we
        // borrow mutably.
        unsafe {
            dst.as_mut_ptr()
                .cast::<u8>()
                .copy_from_nonoverlapping(buf.as_ptr(), buf.len())
        };
        if self.initialized < end {
            self.initialized = end;
        }
        self.filled = end;
    }
}

// SAFETY: `remaining_mut` is exactly the length of `chunk_mut`, and `advance_mut`'s caller
// vouches that the `cnt` bytes it advances over were written, which is what `assume_init`
// then `advance` need.
unsafe impl bytes::BufMut for ReadBuf<'_> {
    fn remaining_mut(&self) -> usize {
        self.remaining()
    }

    unsafe fn advance_mut(&mut self, cnt: usize) {
        // SAFETY: the caller guarantees the first `cnt` unfilled bytes are initialized.
        unsafe { self.assume_init(cnt) };
        self.advance(cnt);
    }

    fn chunk_mut(&mut self) -> &mut bytes::buf::UninitSlice {
        // SAFETY: an `UninitSlice` only ever writes initialized bytes, so no byte is
        // de-initialized through it.
        let unfilled = unsafe { self.unfilled_mut() };
        let (ptr, len) = (unfilled.as_mut_ptr().cast::<u8>(), unfilled.len());
        // SAFETY: `ptr` is valid for writes of `len` bytes for as long as `self` is
        // borrowed, since it comes from a slice of that length borrowed from `self`.
        unsafe { bytes::buf::UninitSlice::from_raw_parts_mut(ptr, len) }
    }
}

impl fmt::Debug for ReadBuf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadBuf")
            .field("filled", &self.filled)
            .field("initialized", &self.initialized)
            .field("capacity", &self.capacity())
            .finish()
    }
}
