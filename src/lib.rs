//! threefold: every repetition of a position under the FIDE Laws (Art. 9.2, 9.6), game by game.
//!
//! Data flow: [`input`] opens and decompresses a file ([`frames`] decodes a pzstd file's frames on
//! many threads); [`chunk`] cuts the stream into runs of whole games (on many threads by [`blocks`]
//! for pzstd files and plain text, chunks sharing the decoded blocks); [`pgn`] reads each game with the [`movetext`] scanner (which reads exactly the tags and
//! mainline moves `pgn-reader` would; `pgn-reader` itself reads tags the scanner cannot be sure
//! of, and anything unusual left in a game's slice); [`start`] decides the
//! variant and first position; [`replay`] plays the moves with `shakmaty` ([`san`] finds most
//! of them without its move list), asks the [`tracker`] how often each position occurred (by its
//! exact FIDE [`identity`]) and records [`event`]s and a [`summary`]. [`json`] writes those records
//! as JSON lines and [`explain`] as a readable timeline; [`ingest`] runs the whole flow on every
//! core and writes Parquet through [`schema`], [`dataset`] and [`parquet_file`] (columns encoded
//! in parallel when many threads replay), replacing a source's two table folders as a pair even
//! across a kill ([`commit`]); [`report`] reads a dataset back.

pub mod blocks;
pub mod chunk;
pub mod cli;
pub mod column;
pub mod commit;
pub mod dataset;
pub mod event;
pub mod explain;
pub mod frames;
pub mod identity;
pub mod ingest;
pub mod input;
pub mod json;
pub mod movetext;
pub mod parquet_file;
pub mod pgn;
pub mod progress;
pub mod replay;
pub mod report;
pub mod san;
pub mod schema;
pub mod start;
pub mod summary;
pub mod tags;
pub mod tracker;
pub mod vocabulary;

/// Test inputs: the shared corpus where it is, samples and generated PGN where it is not.
#[cfg(test)]
#[path = "../tests/common/mod.rs"]
pub(crate) mod testdata;
