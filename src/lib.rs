//! threefold: every repetition of a position under the FIDE Laws (Art. 9.2, 9.6), game by game.
//!
//! Data flow: [`pgn`] reads a game's tags and mainline moves with `pgn-reader`; [`start`] decides
//! its variant and first position; [`replay`] plays the moves with `shakmaty`, asks the
//! [`tracker`] how often each position occurred (by its exact FIDE [`identity`]) and records
//! [`event`]s and a [`summary`]. [`json`] writes those records as JSON lines and [`explain`] as a
//! readable timeline.

pub mod chunk;
pub mod cli;
pub mod dataset;
pub mod event;
pub mod explain;
pub mod identity;
pub mod ingest;
pub mod input;
pub mod json;
pub mod movetext;
pub mod pgn;
pub mod progress;
pub mod replay;
pub mod report;
pub mod schema;
pub mod start;
pub mod summary;
pub mod tags;
pub mod tracker;
