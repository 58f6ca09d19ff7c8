//! threefold: every repetition of a position under the FIDE Laws (Art. 9.2, 9.6), game by game,
//! written to Parquet and counted into a report.
//!
//! # Data flow (and where each stage lives)
//!
//! ```text
//! file ─▶ read ─────────▶ pgn ──────────▶ engine ─────────────▶ dataset (Parquet) ─▶ report
//!         open, decode,    tags, moves     start, replay,        schema, writers,
//!         cut into chunks  (movetext)      tracker, identity,    commit, manifest
//!                                          san
//!         of whole games                   → events + summary ─▶ cmd::dump (JSON), explain
//! ```
//!
//! Each layer is a crate of the workspace, and Cargo lets a crate use only the ones below it:
//!
//! - `threefold-core` (`crates/core`): [`read`](threefold_core::read) opens, decompresses and
//!   cuts an input into chunks of whole games, [`pgn`](threefold_core::pgn) reads each game's
//!   tags and moves, [`engine`](threefold_core::engine) replays them and counts each position by
//!   its exact FIDE identity, recording events and a summary.
//! - `threefold-dataset` (`crates/dataset`): the tables' columns, column-parallel writers, and a
//!   source's table folders (games, events, summary) replaced together even across a kill.
//! - `threefold-ingest` (`crates/ingest`): the whole flow on every core, written through the
//!   dataset.
//! - `threefold-report` (`crates/report`): a dataset read back and counted into figures, shown
//!   as text, an HTML page or JSON.
//! - this crate: the command line (`cmd`, one module per subcommand), `explain` (one game's
//!   events as a timeline and a page of boards) and the command's allocator.
//!
//! # As a library
//!
//! [`for_each_game`] reads PGN (any [`std::io::Read`]; [`open`] decompresses a file) and replays
//! each game: its tags, [`Venue`](crate::Game::venue), and the [`Analysis`] with its [`Summary`]
//! and [`Event`]s (`threefold_core`'s documentation has an example); [`ingest()`] writes a
//! dataset, [`report()`] reads it back.

mod cmd;
mod explain;

// The layers under their own names, as the code of every crate names them.
use threefold_core::{engine, pgn, read};
use threefold_dataset as dataset;
use threefold_ingest as ingest;
use threefold_report as report;

// What a library user needs: reading games, their records, and the stages the commands run.
pub use cmd::main;
pub use threefold_core::{
    Analysis, CHUNK_BYTES, Chunk, Claimant, Compression, Detail, Differs, DrawReason, EARLIER_PLIES_MAX, ErrorKind,
    Event, EventKind, FinalStatus, Fivefold, Game, GameError, GameStatus, GameVisitor, Identity, InForce, MAX_PLIES,
    Perpetual, ReadError, Replay, Splitter, Start, Summary, Variant, for_each_game, for_each_game_with, game_json,
    open, result_of_tag, score, write_game,
};
pub use threefold_dataset::schema::{BatchBuilder, col, events_schema, games_schema};
pub use threefold_ingest::{Options as IngestOptions, run as ingest};
pub use threefold_report::run as report;
