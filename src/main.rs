use std::process::ExitCode;

// The command's allocator, jemalloc (why: Cargo.toml's feature `jemalloc`, src/allocator.rs).
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
mod allocator;

fn main() -> ExitCode {
    threefold::main()
}
