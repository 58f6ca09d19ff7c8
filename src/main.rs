use std::process::ExitCode;

// Why jemalloc: Cargo.toml's feature `jemalloc`; and why not for every block: src/allocator.rs.
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
mod allocator;

#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator;

fn main() -> ExitCode {
    threefold::main()
}
