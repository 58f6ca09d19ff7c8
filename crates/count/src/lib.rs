//! The report's counting, below both `ingest` and `report`: a dataset's games and their events
//! read back, selected, grouped and counted into a [`model::Report`]; the same counting writes
//! the `summary` table at ingest, where each game is counted as a report that reads the games
//! would count it.
//!
//! - Reading: [`tables`] streams a dataset's tables with only the named columns, one record batch
//!   at a time; [`piece`] cuts the reading into row groups the filter does not rule out.
//! - Selecting: [`filter`] says which games count, [`group`] which group each is in (`--by`).
//! - Counting: [`aggregate`] streams each part's games with their events, each made a
//!   `dataset::schema::summary::Game` (whose counts are declared there with what a game adds to
//!   each), into a [`tally`] per group and one for all, and finds [`copies`] (a [`sketch`] of the
//!   games' fingerprints says about how many there are).
//! - The summary: [`summary`] writes each part's counts per month, time class, Elo band,
//!   variant, venue and claimant at ingest, and adds the rows up for a report whose filters fall
//!   on those keys' edges.
//!
//! The counts follow the rules of `queries/*.sql` (the report's tests compare them).

mod aggregate;
mod copies;
pub mod filter;
pub mod group;
pub mod model;
mod piece;
mod sketch;
pub mod summary;
mod tables;
pub mod tally;

// The layers below under their own names, as the code of every crate names them.
use threefold_core::{engine, pgn, read};
use threefold_dataset as dataset;

/// A report from every selected game (`--scan`, `--dedup`, or where the summary cannot answer).
pub use aggregate::compute as from_games;
