//! An input's games one at a time, outside a run: every game in order (`threefold dump`), or the
//! one at a key (`threefold explain`), for each [`Form`] of input, as a run reads them. Besides
//! `plan.rs`'s `Input`, the one place that reads each form, so a command never asks which it is.
//!
//! Finding a game by its key (`frame_offset`, `byte_offset`, written `BYTE` or `FRAME:BYTE`, as
//! `threefold report` prints it after `@`) enters the input near the key where it can (a pzstd
//! frame, a byte of plain text), so finding a game in a 30 GB dump is a seek and a frame's
//! decoding: at a game start every reading agrees on ([`sure_start`]) before the key, from where
//! the games read are the ones a reading from the input's start finds.

use std::{
    fs::File,
    io,
    ops::ControlFlow,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result};

use crate::{
    parquet_input::{ParquetInput, RefuseParquet, Rendered},
    pgn::{self, GameVisitor},
    plan::Form,
    read::{
        chunk::{CHUNK_BYTES, Chunk, ChunkBytes},
        input::{self, Layout},
        key::{GameKey, SegmentLog, key_in},
        line::sure_start,
        pzstd::{decode_frame_at, frame_offsets},
    },
    rows,
};

/// The games of an input, opened ([`Games::open`]).
pub enum Games {
    Pgn(Box<dyn io::Read>),
    Parquet(ParquetInput),
}

impl Games {
    /// Opens the input at `path` (`-`: stdin, read as PGN; Parquet cannot come through a pipe,
    /// which is said at once rather than read as text).
    pub fn open(path: &Path) -> Result<Games> {
        let cannot_open = || format!("cannot open {}", path.display());
        match Form::of(path).with_context(cannot_open)? {
            Form::Parquet(files) => Ok(Games::Parquet(ParquetInput::open(&files).with_context(cannot_open)?)),
            Form::Pgn if path.as_os_str() == "-" => {
                let (_, input) = input::decompress(RefuseParquet::new(io::stdin())).context("cannot read stdin")?;
                Ok(Games::Pgn(input))
            }
            Form::Pgn => Ok(Games::Pgn(input::open(path).with_context(cannot_open)?.1)),
        }
    }

    /// Hands each game to `f` in the input's order (a Parquet input's rows in the order of its
    /// keys: row groups over its files in name order, rows within them) until `f` breaks. On a
    /// read error, `f` gets the games read before it, then the error is returned.
    pub fn for_each(self, mut f: impl FnMut(&pgn::Game) -> ControlFlow<()>) -> io::Result<()> {
        match self {
            Games::Pgn(input) => pgn::for_each_game(input, |game| f(&game)),
            Games::Parquet(input) => {
                let mut visitor = GameVisitor::new();
                input.for_each_piece(|_, _, rendered| {
                    let text = std::mem::take(&mut rendered.text);
                    let games = rendered.starts.clone();
                    let chunk = Chunk { seq: 0, offset: 0, data: ChunkBytes::Owned(text), games, starts_input: false };
                    let flow = rows::row_games(&mut visitor, &chunk, rendered).iter().try_for_each(&mut f);
                    if let ChunkBytes::Owned(text) = chunk.data {
                        rendered.text = text;
                    }
                    flow
                })
            }
        }
    }
}

/// Whether `path` is a folder of games (of Parquet files), not a dataset's folder.
pub fn folder_of_games(path: &Path) -> bool {
    path.is_dir() && matches!(Form::of(path), Ok(Form::Parquet(files)) if !files.is_empty())
}

/// Where reading found the game, or why it did not.
pub enum Found {
    Game {
        key: GameKey,
        text: Vec<u8>,
    },
    /// No game starts at the key: the games around it.
    NotAt {
        before: Option<GameKey>,
        after: Option<GameKey>,
    },
}

/// The bytes of the game at `key` (the first game if `None`) of the input at `path` (`-`: stdin).
pub fn find(path: &Path, key: Option<GameKey>) -> io::Result<Found> {
    match Form::of(path)? {
        Form::Parquet(files) => find_row(&files, key),
        Form::Pgn => find_in_text(path, key),
    }
}

/// The game at `key` of a PGN input: read from the frame or block before it, cut into games as
/// ingest cuts them.
fn find_in_text(path: &Path, key: Option<GameKey>) -> io::Result<Found> {
    let stdin = path.as_os_str() == "-";
    let from = match key {
        Some(key) if !stdin => entry(path, Layout::of_file(path)?, key)?,
        _ => GameKey::default(),
    };
    let log = SegmentLog::starting_at(from);
    let (_, mut chunker) = if stdin {
        input::chunker_at(io::stdin(), 0, CHUNK_BYTES, from, Some(&log))?
    } else {
        input::chunker_file_at(File::open(path)?, |_| {}, 0, CHUNK_BYTES, from, Some(&log))?
    };
    let mut segments = Vec::new();
    let mut before = None;
    while let Some(chunk) = chunker.next_chunk().map_err(|e| e.error)? {
        log.covering(chunk.offset, chunk.offset + chunk.data.len() as u64, &mut segments);
        for (start, slice) in chunk.game_slices() {
            // Named as ingest names games: by their first byte that is not whitespace.
            let lead = slice.iter().take_while(|b| b.is_ascii_whitespace()).count();
            let at = key_in(&segments, chunk.offset + (start + lead) as u64);
            match key {
                None => return Ok(Found::Game { key: at, text: slice.to_vec() }),
                Some(k) if at == k => return Ok(Found::Game { key: at, text: slice.to_vec() }),
                Some(k) if at > k => return Ok(Found::NotAt { before, after: Some(at) }),
                _ => before = Some(at),
            }
        }
        chunker.recycle(chunk.data);
    }
    Ok(Found::NotAt { before, after: None })
}

/// The game at `key` of a Parquet input (a file, or a folder of them): the row of its key,
/// written as the PGN text ingest reads for it.
fn find_row(files: &[PathBuf], key: Option<GameKey>) -> io::Result<Found> {
    let input = ParquetInput::open(files)?;
    let groups = &input.groups;
    let row_key = |g: usize, row: u64| GameKey { frame_offset: g as u64, byte_offset: row };
    let first_from = |g: usize| (g..groups.len()).find(|&g| groups[g].rows > 0).map(|g| row_key(g, 0));
    let last_before =
        |g: usize| (0..g.min(groups.len())).rev().find(|&g| groups[g].rows > 0).map(|g| row_key(g, groups[g].rows - 1));
    let Some(key) = key.or_else(|| first_from(0)) else {
        return Ok(Found::NotAt { before: None, after: None });
    };
    let g = usize::try_from(key.frame_offset).unwrap_or(usize::MAX);
    match groups.get(g) {
        Some(group) if key.byte_offset < group.rows => {
            let mut rendered = Rendered::default();
            input.render(g, key.byte_offset..key.byte_offset + 1, &mut rendered)?;
            Ok(Found::Game { key, text: rendered.text })
        }
        Some(group) => Ok(Found::NotAt {
            before: (group.rows > 0).then(|| row_key(g, group.rows - 1)).or_else(|| last_before(g)),
            after: first_from(g + 1),
        }),
        None => Ok(Found::NotAt { before: last_before(groups.len()), after: None }),
    }
}

/// Where to start reading `path` to find the game at `key`: a game start every reading agrees on,
/// at or before it (the input's start if there is none, or if the input is one compressed stream).
fn entry(path: &Path, layout: Layout, key: GameKey) -> io::Result<GameKey> {
    let file = File::open(path)?;
    match layout {
        Layout::Stream => Ok(GameKey::default()),
        Layout::Frames => {
            let frames = frame_offsets(&file)?;
            let last = frames.partition_point(|&f| f <= key.frame_offset);
            for (i, &frame) in frames[..last].iter().enumerate().rev() {
                let found = sure_start(&decode_frame_at(&file, frame)?).map(|p| p as u64);
                match found {
                    _ if i == 0 => break,
                    Some(p) if frame < key.frame_offset || p <= key.byte_offset => {
                        return Ok(GameKey { frame_offset: frame, byte_offset: p });
                    }
                    _ => {}
                }
            }
            Ok(GameKey::default())
        }
        Layout::Text => {
            use std::os::unix::fs::FileExt;
            const WINDOW: u64 = 4 << 20;
            let mut at = key.byte_offset;
            let mut block = vec![0u8; WINDOW as usize];
            while at > 0 {
                at = at.saturating_sub(WINDOW);
                let n = file.read_at(&mut block, at)?;
                if let Some(p) = sure_start(&block[..n]).map(|p| at + p as u64)
                    && p <= key.byte_offset
                    && at > 0
                {
                    return Ok(GameKey { frame_offset: 0, byte_offset: p });
                }
            }
            Ok(GameKey::default())
        }
    }
}
