//! threefold: every repetition of a position under the FIDE Laws (Art. 9.2, 9.6), game by game.
//!
//! # Data flow (and where each stage lives)
//!
//! ```text
//! file ─▶ read ─────────▶ pgn ──────────▶ engine ─────────────▶ dataset (Parquet) ─▶ report
//!         open, decode,    tags, moves     start, replay,        schema, writers,
//!         cut into chunks  (movetext, san) tracker, identity     commit, manifest
//!         of whole games                   → events + summary ─▶ cmd::dump (JSON), cmd::explain
//! ```
//!
//! - [`read`]: [`read::input`] opens and decompresses a file; [`read::frames`] decodes a pzstd
//!   file's frames on many threads, [`read::survey`] finds game starts in each block on the thread
//!   that decoded it, and [`read::chunk`] / [`read::blocks`] cut the stream into chunks of whole
//!   games (sharing the decoded blocks).
//! - [`pgn`]: each game of a chunk read with the [`pgn::movetext`] scanner, which reads exactly
//!   the tags and mainline moves `pgn-reader` would (`pgn-reader` itself reads what the scanner
//!   cannot be sure of); [`pgn::san`] finds most moves without generating the move list.
//! - [`engine`]: [`engine::start`] decides the variant and first position, [`engine::replay`]
//!   plays the moves with `shakmaty` and asks the [`engine::tracker`] how often each position
//!   occurred by its exact FIDE [`engine::identity`], recording [`engine::event`]s and a
//!   [`engine::summary`].
//! - [`ingest`] runs the whole flow on every core and writes Parquet through [`dataset`]: the
//!   tables' columns ([`dataset::schema`]), column-parallel writers, and a source's two table
//!   folders replaced as a pair even across a kill ([`dataset::commit`]).
//! - [`report`] reads a dataset back; [`cmd`] is the command line (one module per subcommand).

pub mod cmd;
pub mod dataset;
pub mod engine;
pub mod ingest;
pub mod pgn;
pub mod read;
pub mod report;

/// Test inputs: the shared corpus where it is, samples and generated PGN where it is not.
#[cfg(test)]
#[path = "../tests/common/mod.rs"]
pub(crate) mod testdata;
