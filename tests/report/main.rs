//! `queries/*.sql` and `threefold report` against DuckDB over the same games: one test binary
//! (`cargo test --test report`).

#[path = "../common/mod.rs"]
mod common;

mod copies;
mod queries;
