//! The engine and the reading stages, checked against hand-worked cases, references and the
//! corpus: one test binary (`cargo test --test engine`), a module per topic.

#[path = "../common/mod.rs"]
mod common;

mod golden;
mod golden_clocks;
mod property;
mod rules_expected;
mod san_agrees;
mod scan_agrees;
mod zstd_frames;
