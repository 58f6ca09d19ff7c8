//! threefold: every repetition of a position under the FIDE Laws (Art. 9.2, 9.6), game by game.
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
//! - [`read`]: [`read::input`] opens and decompresses a file; [`read::frames`] decodes a pzstd
//!   file's frames on many threads, [`read::survey`] finds game starts in each block on the thread
//!   that decoded it, and [`read::chunk`] / [`read::blocks`] cut the stream into chunks of whole
//!   games (sharing the decoded blocks), both with the line model of [`read::line`].
//! - [`pgn`]: each game of a chunk read with the scanner ([`pgn::tag_section`], [`pgn::movetext`]),
//!   which reads exactly the tags and mainline moves `pgn-reader` would (`pgn-reader` itself reads what the scanner
//!   cannot be sure of).
//! - [`engine`]: [`engine::start`] decides the variant and first position, [`engine::replay`]
//!   plays the moves with `shakmaty`, one loop for every kind of game over its rules
//!   ([`engine::standard`], where [`engine::san`] finds most moves without a move list and the
//!   [`engine::tracker`] counts each position by its exact FIDE [`engine::identity`]; or a
//!   Lichess [`engine::variant`]), recording [`engine::event`]s and a [`engine::summary`].
//! - [`ingest`] runs the whole flow on every core (on one CPU, its threads take longer turns:
//!   [`ingest::turns`]) and writes Parquet through [`dataset`]: the tables' columns
//!   ([`dataset::schema`]), column-parallel writers, and a source's table folders (games,
//!   events, summary) replaced together even across a kill ([`dataset::commit`]).
//! - [`report`] reads a dataset back; [`explain`] shows one game's events as a timeline and a
//!   page of boards; [`cmd`] is the command line (one module per subcommand).
//!
//! # As a library
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
//! threefold::for_each_game(pgn.as_bytes(), |game| {
//!     summaries.push(game.analysis.expect("a standard game is replayed").summary);
//!     ControlFlow::Continue(())
//! })?;
//! // The start position stood on the board a third time after 4...Ng8.
//! assert_eq!(summaries[0].max_occurrence, 3);
//! assert_eq!(summaries[0].claim_opportunities_on_board, 1);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! Dependencies point one way, in this order: `engine` and `read` use no other folder, `pgn` uses
//! them, `dataset` uses `pgn`, `engine` and `read`, `ingest` all four, `report` these, `explain`
//! them and `report`, and `cmd` sits on top (a unit test below checks it).

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
mod explain;
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
    laws::{Claimant, Fivefold, InForce},
    replay::{Analysis, MAX_PLIES, Replay, result_of_tag, score},
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
        pgn::{movetext, reference, tags},
        read::{blocks, chunk, frames, input, line, pzstd, survey},
    };
}

/// Test inputs: the shared corpus where it is, samples and generated PGN where it is not.
#[cfg(test)]
#[path = "../tests/common/mod.rs"]
pub(crate) mod testdata;

#[cfg(test)]
mod tests {
    /// The folders of `src/` from the bottom up: each may use only folders before it.
    const FOLDERS: [&str; 8] = ["engine", "read", "pgn", "dataset", "ingest", "report", "explain", "cmd"];

    fn uses(code: &str, folder: &str) -> bool {
        code.contains(&format!("crate::{folder}"))
            || code.lines().any(|l| {
                let l = l.trim_start();
                !l.starts_with("//") && (l.starts_with(&format!("{folder}::")) || l.starts_with(&format!("{folder},")))
            })
    }

    /// Identifiers and the punctuation between them, comments left out.
    fn tokens(text: &str) -> Vec<String> {
        let code: String = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
        let mut tokens = Vec::new();
        let mut word = String::new();
        for c in code.chars() {
            if c.is_alphanumeric() || c == '_' {
                word.push(c);
                continue;
            }
            if !word.is_empty() {
                tokens.push(std::mem::take(&mut word));
            }
            if !c.is_whitespace() {
                tokens.push(c.to_string());
            }
        }
        tokens
    }

    /// The sibling modules a file of `folder` names: `super::NAME`, `crate::FOLDER::NAME`, and each
    /// path in a `use super::{…}` group.
    fn siblings_used(text: &str, folder: &str, siblings: &[String]) -> Vec<String> {
        let t = tokens(text);
        let mut used = Vec::new();
        let mut add = |name: &str| {
            if siblings.iter().any(|s| s == name) && !used.iter().any(|u: &String| u == name) {
                used.push(name.to_owned());
            }
        };
        for i in 0..t.len() {
            let after_super = t[i] == "super" && t.get(i + 1..i + 3).is_some_and(|c| c == [":", ":"]);
            let after_folder = t[i] == "crate"
                && t.get(i + 1..i + 6).is_some_and(|c| c[..2] == [":", ":"] && c[2] == folder && c[3..] == [":", ":"]);
            let start = if after_super {
                i + 3
            } else if after_folder {
                i + 6
            } else {
                continue;
            };
            match t.get(start).map(String::as_str) {
                Some("{") => {
                    // Each path of the group starts after `{` or `,` at the group's own depth.
                    let mut depth = 0;
                    for j in start..t.len() {
                        match t[j].as_str() {
                            "{" => depth += 1,
                            "}" => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            name if depth == 1 && (t[j - 1] == "{" || t[j - 1] == ",") => add(name),
                            _ => {}
                        }
                    }
                }
                Some(name) => add(name),
                None => {}
            }
        }
        used
    }

    /// The files of each folder use each other one way too: no circle of imports among them.
    #[test]
    fn files_of_a_folder_depend_one_way() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        for folder in FOLDERS {
            let mut files: Vec<(String, String)> = std::fs::read_dir(src.join(folder))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "rs"))
                .map(|p| {
                    let text = std::fs::read_to_string(&p).unwrap();
                    // A file's tests (its last module) may use anything: only its code counts.
                    let code = text.split("#[cfg(test)]\nmod ").next().unwrap_or_default().to_owned();
                    (p.file_stem().unwrap().to_string_lossy().into_owned(), code)
                })
                .filter(|(name, _)| name != "mod")
                .collect();
            files.sort();
            let names: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
            let edges: Vec<Vec<String>> = files.iter().map(|(_, text)| siblings_used(text, folder, &names)).collect();
            // A depth-first walk from each file: reaching a file still on the path is a circle.
            fn walk(at: usize, names: &[String], edges: &[Vec<String>], path: &mut Vec<usize>, done: &mut [bool]) {
                if let Some(k) = path.iter().position(|&p| p == at) {
                    let circle: Vec<&str> = path[k..].iter().chain([&at]).map(|&p| names[p].as_str()).collect();
                    panic!("an import circle among the files: {}", circle.join(" -> "));
                }
                if done[at] {
                    return;
                }
                path.push(at);
                for next in &edges[at] {
                    let to = names.iter().position(|n| n == next).unwrap();
                    walk(to, names, edges, path, done);
                }
                path.pop();
                done[at] = true;
            }
            let mut done = vec![false; names.len()];
            for at in 0..names.len() {
                walk(at, &names, &edges, &mut Vec::new(), &mut done);
            }
        }
    }

    /// The check itself: a circle of two files is found, a one-way use is not.
    #[test]
    fn a_use_group_names_its_modules() {
        let names = ["chart".to_owned(), "model".to_owned(), "tally".to_owned()];
        let text =
            "use super::{\n    chart::{Chart, Row},\n    model::Report, // tally::x\n};\nfn f() { super::tally::go() }";
        assert_eq!(siblings_used(text, "report", &names), ["chart", "model", "tally"]);
        assert_eq!(siblings_used("use crate::report::model::Report;", "report", &names), ["model"]);
        assert!(siblings_used("use crate::engine::chart;", "report", &names).is_empty());
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
                for other in &FOLDERS[level + 1..] {
                    assert!(!uses(&code, other), "{} uses {other}, a folder above {folder}", path.display());
                }
            }
        }
    }
}
