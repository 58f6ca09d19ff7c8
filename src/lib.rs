//! threefold: every repetition of a position under the FIDE Laws (Art. 9.2, 9.6), game by game.
//!
//! # Data flow (and where each stage lives)
//!
//! ```text
//! file ─▶ read ─────────▶ pgn ──────────▶ engine ─────────────▶ dataset (Parquet) ─▶ report
//!         open, decode,    tags, moves     start, replay,        schema, writers,
//!         cut into chunks  (movetext)      tracker, identity,    commit, manifest
//!                                          san
//!         of whole games                   → events + summary ─▶ cmd::dump (JSON), cmd::explain
//! ```
//!
//! - [`read`]: [`read::input`] opens and decompresses a file; [`read::frames`] decodes a pzstd
//!   file's frames on many threads, [`read::survey`] finds game starts in each block on the thread
//!   that decoded it, and [`read::chunk`] / [`read::blocks`] cut the stream into chunks of whole
//!   games (sharing the decoded blocks).
//! - [`pgn`]: each game of a chunk read with the [`pgn::movetext`] scanner, which reads exactly
//!   the tags and mainline moves `pgn-reader` would (`pgn-reader` itself reads what the scanner
//!   cannot be sure of).
//! - [`engine`]: [`engine::start`] decides the variant and first position, [`engine::replay`]
//!   plays the moves with `shakmaty` ([`engine::san`] finds most of them without a move list)
//!   and asks the [`engine::tracker`] how often each position
//!   occurred by its exact FIDE [`engine::identity`], recording [`engine::event`]s and a
//!   [`engine::summary`].
//! - [`ingest`] runs the whole flow on every core and writes Parquet through [`dataset`]: the
//!   tables' columns ([`dataset::schema`]), column-parallel writers, and a source's table
//!   folders (games, events, summary) replaced together even across a kill ([`dataset::commit`]).
//! - [`report`] reads a dataset back; [`cmd`] is the command line (one module per subcommand).
//!
//! Dependencies point one way, in this order: `engine` and `read` use no other folder, `pgn` uses
//! them, `dataset` uses `pgn` and `engine`, `ingest` all four, and `report` and `cmd` sit on top
//! (a unit test below checks it).

// Without `cli`, what only the command line calls is unused, on purpose.
#![cfg_attr(not(feature = "cli"), allow(dead_code))]

// Reading and replaying games needs only these three (and builds without the default feature
// `cli`, as the fuzz targets do, skipping arrow, parquet and clap: most of the compile).
mod engine;
mod pgn;
mod read;
// The dataset, the stages that write and read it, and the command line.
#[cfg(feature = "cli")]
mod cmd;
#[cfg(feature = "cli")]
mod dataset;
#[cfg(feature = "cli")]
mod ingest;
#[cfg(feature = "cli")]
mod report;

// What a library user needs: reading games, their records, and the stages the commands run.
#[cfg(feature = "cli")]
pub use cmd::main;
#[cfg(feature = "cli")]
pub use dataset::schema::{BatchBuilder, col, events_schema, games_schema};
pub use engine::{
    event::{Detail, Differs, Event, EventKind, Perpetual},
    identity::Identity,
    replay::{Analysis, GameResult, MAX_PLIES, Replay},
    start::{ErrorKind, GameError, Start, Variant},
    summary::{DrawReason, FinalStatus, Summary},
    tracker::EARLIER_PLIES_MAX,
};
#[cfg(feature = "cli")]
pub use ingest::{Options as IngestOptions, run as ingest};
pub use pgn::{
    Game, GameStatus, GameVisitor, for_each_game, for_each_game_with,
    record::{game_json, write_game},
};
pub use read::{
    chunk::{CHUNK_BYTES, Chunk, ReadError, Splitter},
    input::{Compression, open},
};
#[cfg(feature = "cli")]
pub use report::run as report;

/// The stages' own modules, for this project's tests, fuzz targets and examples (the cargo
/// feature `internals`, which the tests turn on): fast paths and the references they are checked
/// against, and instrumentation. Not a stable API.
#[cfg(feature = "internals")]
pub mod internals {
    #[cfg(feature = "cli")]
    pub use crate::ingest::Threads;
    pub use crate::{
        engine::{san, tracker},
        pgn::{movetext, tags},
        read::{blocks, chunk, frames, input, survey},
    };
}

/// Test inputs: the shared corpus where it is, samples and generated PGN where it is not.
#[cfg(test)]
#[path = "../tests/common/mod.rs"]
pub(crate) mod testdata;

#[cfg(test)]
mod tests {
    /// The folders of `src/` from the bottom up: each may use only folders before it.
    const FOLDERS: [&str; 7] = ["engine", "read", "pgn", "dataset", "ingest", "report", "cmd"];

    fn uses(code: &str, folder: &str) -> bool {
        code.contains(&format!("crate::{folder}"))
            || code.lines().any(|l| {
                let l = l.trim_start();
                !l.starts_with("//") && (l.starts_with(&format!("{folder}::")) || l.starts_with(&format!("{folder},")))
            })
    }

    #[test]
    fn folders_depend_one_way() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        for (level, folder) in FOLDERS.iter().enumerate() {
            for entry in std::fs::read_dir(src.join(folder)).unwrap() {
                let path = entry.unwrap().path();
                let text = std::fs::read_to_string(&path).unwrap();
                let code: String =
                    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
                // `report` has a module of its own named `read`.
                let above = FOLDERS[level + 1..].iter().filter(|&&f| !(folder == &"report" && f == "read"));
                for other in above {
                    assert!(!uses(&code, other), "{} uses {other}, a folder above {folder}", path.display());
                }
            }
        }
    }
}
