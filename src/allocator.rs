//! The command's allocator (a module of `src/main.rs`, not of the library): jemalloc, and the
//! system's for very large blocks.
//!
//! jemalloc serves the many small and mid-sized blocks of a replay faster than glibc's malloc
//! (docs/performance.md). But it grows a block by allocating a new one and copying, so a buffer
//! that grows to hundreds of MiB (a line or a game that does not end, in a broken input, up to
//! `MAX_GAME`) holds its old and new copies at once: 320 MB of RSS for a 200 MB line
//! (`tests/cli/broken_inputs.rs`). glibc moves such a mapping in place (`mremap`). So blocks of
//! [`LARGE`] bytes or more are the system's. Every call is given a block's size, which says whose
//! it is.

use std::{
    alloc::{GlobalAlloc, Layout, System},
    ptr,
};

use tikv_jemallocator::Jemalloc;

/// No block of a normal run is this large (chunks are about 1 MiB, Parquet pages too).
pub(crate) const LARGE: usize = 16 << 20;

pub(crate) struct Allocator;

#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

fn large(layout: &Layout) -> bool {
    layout.size() >= LARGE
}

// SAFETY: each call goes to the allocator that owns the block by its size, with the caller's
// layout unchanged, so each allocator's contract is the caller's; a block that changes owner in
// `realloc` is copied to a new block of the other, and the old block freed by its own.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { if large(&layout) { System.alloc(layout) } else { Jemalloc.alloc(layout) } }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        unsafe { if large(&layout) { System.alloc_zeroed(layout) } else { Jemalloc.alloc_zeroed(layout) } }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        unsafe { if large(&layout) { System.dealloc(block, layout) } else { Jemalloc.dealloc(block, layout) } }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `realloc`'s contract: `new_size` with `layout`'s alignment is a valid layout.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        unsafe {
            match (large(&layout), large(&new)) {
                (false, false) => Jemalloc.realloc(block, layout, new_size),
                (true, true) => System.realloc(block, layout, new_size),
                _ => {
                    let moved = self.alloc(new);
                    if !moved.is_null() {
                        ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                        self.dealloc(block, layout);
                    }
                    moved
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block keeps its bytes whichever way it crosses `LARGE`, and each size frees cleanly.
    #[test]
    fn a_block_growing_past_large_and_back_keeps_its_bytes() {
        let a = Allocator;
        let small = Layout::from_size_align(LARGE / 2, 64).unwrap();
        unsafe {
            let p = a.alloc(small);
            assert!(!p.is_null());
            for i in 0..small.size() {
                *p.add(i) = i as u8;
            }
            let p = a.realloc(p, small, 2 * LARGE);
            let grown = Layout::from_size_align(2 * LARGE, 64).unwrap();
            assert!((0..small.size()).all(|i| *p.add(i) == i as u8));
            assert_eq!(p as usize % 64, 0);
            let p = a.realloc(p, grown, 3 * LARGE);
            let larger = Layout::from_size_align(3 * LARGE, 64).unwrap();
            assert!((0..small.size()).all(|i| *p.add(i) == i as u8));
            let p = a.realloc(p, larger, 100);
            assert!((0..100).all(|i| *p.add(i) == i as u8));
            a.dealloc(p, Layout::from_size_align(100, 64).unwrap());
            let z = a.alloc_zeroed(grown);
            assert!((0..grown.size()).step_by(4096).all(|i| *z.add(i) == 0));
            a.dealloc(z, grown);
        }
    }
}
