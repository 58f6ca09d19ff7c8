use std::process::ExitCode;

// The command's allocator, jemalloc (why: Cargo.toml's feature `jemalloc`, src/allocator.rs).
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
mod allocator;

fn main() -> ExitCode {
    #[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "jemalloc")))]
    keep_freed_memory();
    threefold::main()
}

/// Without jemalloc, has glibc's allocator keep freed memory for the next allocation rather than
/// give it back to the system. A Parquet input's pages are each decompressed into a block of
/// their own (about 1 MiB of movetext), freed once its rows are written; by default glibc
/// returns such blocks (mapped on their own, or at the top of a heap beyond twice the largest
/// freed) and the next page's block is faulted in and zeroed again, page by page: that was a
/// tenth of the reading's time, and ten times the page faults of a PGN input (`perf stat -e
/// page-faults`). With blocks up to 32 MiB taken from the heap and up to 64 MiB of free heap
/// kept, they are reused. jemalloc keeps freed pages a while of itself.
#[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "jemalloc")))]
fn keep_freed_memory() {
    // SAFETY: mallopt only changes the allocator's thresholds; any value is valid.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
}
