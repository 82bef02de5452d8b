//! `ReadBuf`'s invariants: filled within initialized within capacity, what each method
//! moves, its panics, its `BufMut` impl and its `Debug` output.

use std::mem::MaybeUninit;

use bytes::BufMut;

use super::panic_message;
use crate::io::ReadBuf;

#[test]
fn new_is_fully_initialized_and_empty() {
    let mut storage = [7u8; 8];
    let buf = ReadBuf::new(&mut storage);
    assert_eq!(buf.capacity(), 8);
    assert_eq!(buf.filled(), b"");
    assert_eq!(buf.initialized(), &[7; 8]);
    assert_eq!(buf.remaining(), 8);
}

#[test]
fn uninit_initializes_only_what_is_asked() {
    let mut storage = [MaybeUninit::<u8>::uninit(); 8];
    let mut buf = ReadBuf::uninit(&mut storage);
    assert!(buf.initialized().is_empty());
    assert_eq!(buf.initialize_unfilled_to(3), &[0, 0, 0]);
    assert_eq!(buf.initialized().len(), 3);
    assert!(buf.filled().is_empty());
    buf.advance(2);
    assert_eq!(buf.filled(), &[0, 0]);
    assert_eq!(buf.initialize_unfilled().len(), 6);
    assert_eq!(buf.initialized().len(), 8);
}

#[test]
fn put_slice_fills_and_initializes() {
    let mut storage = [MaybeUninit::<u8>::uninit(); 8];
    let mut buf = ReadBuf::uninit(&mut storage);
    buf.put_slice(b"abc");
    buf.put_slice(b"de");
    assert_eq!(buf.filled(), b"abcde");
    assert_eq!(buf.initialized(), b"abcde");
    assert_eq!(buf.remaining(), 3);
    buf.filled_mut()[0] = b'A';
    assert_eq!(buf.filled(), b"Abcde");
    buf.initialized_mut()[1] = b'B';
    assert_eq!(buf.filled(), b"ABcde");
}

#[test]
fn clear_and_set_filled_keep_initialized() {
    let mut storage = [0u8; 6];
    let mut buf = ReadBuf::uninit_from_test(&mut storage);
    buf.put_slice(b"xyz");
    buf.clear();
    assert!(buf.filled().is_empty());
    assert_eq!(buf.initialized(), b"xyz");
    buf.set_filled(2);
    assert_eq!(buf.filled(), b"xy");
    buf.set_filled(1);
    assert_eq!(buf.filled(), b"x");
}

/// `ReadBuf::uninit` over initialized storage (the test needs nothing initialized yet).
trait UninitFromTest<'a> {
    fn uninit_from_test(storage: &'a mut [u8]) -> ReadBuf<'a>;
}

impl<'a> UninitFromTest<'a> for ReadBuf<'a> {
    fn uninit_from_test(storage: &'a mut [u8]) -> ReadBuf<'a> {
        // SAFETY: same layout, and a `ReadBuf` never writes uninitialized bytes.
        let raw = unsafe { &mut *(storage as *mut [u8] as *mut [MaybeUninit<u8>]) };
        ReadBuf::uninit(raw)
    }
}

#[test]
fn assume_init_moves_initialized_forward_only() {
    let mut storage = [1u8; 8];
    let mut buf = ReadBuf::uninit_from_test(&mut storage);
    // SAFETY: the storage is initialized throughout.
    unsafe { buf.assume_init(4) };
    assert_eq!(buf.initialized().len(), 4);
    // SAFETY: as above.
    unsafe { buf.assume_init(2) };
    assert_eq!(buf.initialized().len(), 4, "initialized never shrinks");
    buf.advance(3);
    // SAFETY: as above; counted from the filled end.
    unsafe { buf.assume_init(3) };
    assert_eq!(buf.initialized().len(), 6);
}

#[test]
fn take_limits_to_remaining_and_shares_storage() {
    let mut storage = [0u8; 8];
    let mut buf = ReadBuf::new(&mut storage);
    buf.put_slice(b"ab");
    {
        let mut part = buf.take(100);
        assert_eq!(part.capacity(), 6);
        assert!(part.initialized().is_empty());
        part.put_slice(b"cd");
    }
    {
        let part = buf.take(3);
        assert_eq!(part.capacity(), 3);
    }
    // The bytes the part wrote are in our storage, not yet filled here.
    // SAFETY: the part initialized (wrote) 2 bytes.
    unsafe { buf.assume_init(2) };
    buf.advance(2);
    assert_eq!(buf.filled(), b"abcd");
}

#[test]
fn misuse_panics_with_tokio_texts() {
    let msg = panic_message(|| {
        let mut storage = [MaybeUninit::<u8>::uninit(); 4];
        ReadBuf::uninit(&mut storage).set_filled(1);
    });
    assert!(
        msg.contains("filled must not become larger than initialized"),
        "{msg}"
    );
    let msg = panic_message(|| {
        let mut storage = [MaybeUninit::<u8>::uninit(); 4];
        ReadBuf::uninit(&mut storage).advance(1);
    });
    assert!(
        msg.contains("filled must not become larger than initialized"),
        "{msg}"
    );
    let msg = panic_message(|| {
        let mut storage = [0u8; 2];
        ReadBuf::new(&mut storage).put_slice(b"abc");
    });
    assert!(msg.contains("buf.len() must fit in remaining()"), "{msg}");
    let msg = panic_message(|| {
        let mut storage = [0u8; 2];
        ReadBuf::new(&mut storage).initialize_unfilled_to(3);
    });
    assert!(msg.contains("n overflows remaining"), "{msg}");
}

#[test]
fn buf_mut_writes_into_the_unfilled_part() {
    let mut storage = [MaybeUninit::<u8>::uninit(); 8];
    let mut buf = ReadBuf::uninit(&mut storage);
    assert_eq!(buf.remaining_mut(), 8);
    buf.put_u16(0x0102);
    buf.put_slice(b"z");
    assert_eq!(buf.filled(), &[1, 2, b'z']);
    assert_eq!(buf.initialized().len(), 3);
    assert_eq!(buf.remaining_mut(), 5);
    assert_eq!(buf.chunk_mut().len(), 5);
}

#[test]
fn debug_shows_the_three_counts() {
    let mut storage = [0u8; 8];
    let mut buf = ReadBuf::uninit_from_test(&mut storage);
    buf.initialize_unfilled_to(4);
    buf.advance(2);
    assert_eq!(
        format!("{buf:?}"),
        "ReadBuf { filled: 2, initialized: 4, capacity: 8 }"
    );
}
