//! The `threefold` command end to end, the real binary on real and made-up files: ingest and its
//! Parquet columns, broken inputs, nightly runs, shards, explain. One test binary
//! (`cargo test --test cli`), a module per topic.

#[path = "../common/mod.rs"]
mod common;

mod broken_inputs;
mod columns;
mod explain_boards;
mod ingest;
mod nightly;
mod parquet_input;
mod shards;
