//! A request that announces a large `Content-Length` but sends little reserves little: the
//! body buffer grows as bytes arrive. Measured with a counting global allocator, so it is
//! its own test binary (one test: nothing else allocates beside it).
#![cfg(not(loom))]

mod http_common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use examples::http::Server;
use http::StatusCode;
use http_common::{runtime, start, Client};

/// Bytes currently allocated through the global allocator.
static LIVE: AtomicIsize = AtomicIsize::new(0);

struct Counting;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the
// counter is bookkeeping only.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller upholds `alloc`'s contract, which `System` shares.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` came from this allocator (so from `System`) with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: as for `dealloc`, and the caller upholds `realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const MIB: isize = 1024 * 1024;

#[test]
fn announced_content_length_is_not_reserved_up_front() {
    let rt = runtime();
    let addr = start(&rt, Server::new());
    // Warm up: one full request, so the runtime's and the server's own one-time
    // allocations are behind us.
    assert_eq!(Client::connect(addr).get("/").status, StatusCode::OK);

    let before = LIVE.load(Ordering::Relaxed);
    // Four clients announce 8 MiB bodies (the default limit) and send 100 bytes each. The
    // server answers `100 Continue` once it is ready to read the body, i.e. after it has
    // set up whatever it reads the body into.
    let clients: Vec<Client> = (0..4)
        .map(|_| {
            let mut c = Client::connect(addr);
            c.send(
                b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 8388608\r\n\
                  Expect: 100-continue\r\n\r\n",
            );
            c.send(&[b'z'; 100]);
            assert_eq!(c.response().status, StatusCode::CONTINUE);
            c
        })
        .collect();
    let grown = LIVE.load(Ordering::Relaxed) - before;
    assert!(
        grown < 4 * MIB,
        "4 connections that sent 100 body bytes each hold {} KiB more than before",
        grown / 1024
    );
    drop(clients);
}
