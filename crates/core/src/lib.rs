//! threefold's core: games read and replayed, every repetition of a position under the FIDE Laws
//! (Art. 9.2, 9.6) found and recorded, with no Parquet and no threads of its own.
//!
//! ```text
//! bytes ─▶ read ─────────▶ pgn ──────────▶ engine ─────────────▶ events + summary
//!          open, decode,    tags, moves     start, replay,
//!          cut into chunks  (movetext)      tracker, identity, san
//!          of whole games
//! ```
//!
//! - [`read`]: [`read::input`] opens and decompresses a file; [`read::frames`] decodes a pzstd
//!   file's frames on many threads, [`read::survey`] finds game starts in each block on the thread
//!   that decoded it, and [`read::chunk`] / [`read::blocks`] cut the stream into chunks of whole
//!   games (sharing the decoded blocks), both with the line model of [`read::line`].
//! - [`pgn`]: each game of a chunk read with the scanner ([`pgn::tag_section`],
//!   [`pgn::movetext`]), which reads exactly the tags and mainline moves `pgn-reader` would
//!   (`pgn-reader` itself reads what the scanner cannot be sure of).
//! - [`engine`]: [`engine::start`] decides the variant and first position, [`engine::replay`]
//!   plays the moves with `shakmaty`, one loop for every kind of game over its rules
//!   ([`engine::standard`], where [`engine::san`] finds most moves without a move list and the
//!   [`engine::tracker`] counts each position by its exact FIDE [`engine::identity`]; or a
//!   Lichess [`engine::variant`]), recording [`engine::event`]s and a [`engine::summary`].
//!
//! Dependencies point one way: `engine` and `read` use no other module of this crate, `pgn`
//! uses them. The modules are public for the crates above (`threefold-dataset`, `-ingest`,
//! `-report`, the command line), the tests and the fuzz targets; the names re-exported here are
//! what a library user needs.
//!
//! # Reading games
//!
//! [`for_each_game`] reads PGN (any [`std::io::Read`]; [`open`] decompresses a file) and replays
//! each game: its tags, [`Venue`](crate::Game::venue), and the [`Analysis`] with its [`Summary`]
//! and [`Event`]s. The same position a third time, the knight going out and back twice:
//!
//! ```
//! use std::ops::ControlFlow;
//!
//! let pgn = "[Event \"Casual\"]\n[Site \"Tilburg\"]\n[Result \"1/2-1/2\"]\n\n\
//!            1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2\n";
//! let mut summaries = Vec::new();
//! threefold_core::for_each_game(pgn.as_bytes(), |game| {
//!     summaries.push(game.analysis.expect("a standard game is replayed").summary);
//!     ControlFlow::Continue(())
//! })?;
//! // The start position stood on the board a third time after 4...Ng8.
//! assert_eq!(summaries[0].max_occurrence, 3);
//! assert_eq!(summaries[0].claim_opportunities_on_board, 1);
//! # Ok::<(), std::io::Error>(())
//! ```

pub mod engine;
pub mod pgn;
pub mod read;

pub use engine::{
    event::{Detail, Differs, Event, EventKind, Perpetual},
    identity::Identity,
    laws::{Claimant, Fivefold, InForce},
    replay::{Analysis, MAX_PLIES, Replay, result_of_tag, score},
    start::{ErrorKind, GameError, Start, Variant},
    summary::{DrawReason, FinalStatus, Summary},
    tracker::EARLIER_PLIES_MAX,
};
pub use pgn::{
    Game, GameStatus, GameVisitor, for_each_game, for_each_game_with,
    record::{game_json, write_game},
};
pub use read::{
    chunk::{CHUNK_BYTES, Chunk, ReadError, Splitter},
    input::{Compression, open},
};

/// Test inputs: the shared corpus where it is, samples and generated PGN where it is not.
#[cfg(test)]
#[path = "../../../tests/common/mod.rs"]
pub(crate) mod testdata;
