use std::process::ExitCode;

// Why jemalloc: Cargo.toml's feature `jemalloc`.
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    threefold::main()
}
