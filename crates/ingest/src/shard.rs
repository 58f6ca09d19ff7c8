//! `--shard K/N`: which games of each input the K-th of N runs replays, worked out by each run
//! alone from the input's bytes, so that N runs on N machines share the work without talking.
//!
//! - A pzstd file (the Lichess dumps) is cut by frames: shard K gets frames `m·K/N ..
//!   m·(K+1)/N` of its `m`. Its span starts at the first game of its first frame that every
//!   reading agrees on ([`crate::read::line::sure_start`], read from each state the text before
//!   the frame may leave but an open comment: the same start whether the frame is read from the
//!   file's start or on its own) and ends where the next shard's starts. Neither needs to decode
//!   the frames before; the shard before checks, reading up to it, that a game starts there.
//! - Plain text is cut the same way at bytes `size·K/N` (blocks of 4 MiB surveyed from there).
//! - Any other input (one gzip, bzip2 or zstd stream) cannot be entered in its middle: it goes
//!   whole to one shard, the inputs of that kind taking turns (the i-th to shard i mod N).
//!
//! Spans are game starts, named by keys ([`crate::read::key`]), so the N spans tile the input's
//! games, and each game's key is the one an unsharded run gives it.

use std::{fs::File, io, path::Path, str::FromStr};

use crate::{
    read::input::Layout,
    read::key::GameKey,
    read::line::sure_start,
    read::pzstd::{decode_frame_at, frame_offsets},
    reader::Span,
};

/// One of N runs (`K/N`, K counted from 0).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    pub k: u32,
    pub n: u32,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let parsed = text.split_once('/').and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
        match parsed {
            Some((k, n)) if k < n => Ok(Shard { k, n }),
            _ => Err(format!("{text:?} is not K/N with 0 <= K < N (e.g. 0/4 for the first of four)")),
        }
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// What one shard does with one input.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Share {
    /// The games of a span of it (possibly none).
    Span(Option<Span>),
    /// All of it: an input that is read whole, and this shard's turn.
    Whole,
    /// Nothing: an input read whole by shard `k`.
    OtherShard(u32),
}

/// Bytes of plain text surveyed at a time for a shard's start.
const TEXT_WINDOW: u64 = 4 << 20;

/// This shard's share of the input at `path` of `layout`; `whole_index` counts the inputs read
/// whole before it in the run's list.
pub fn share(path: &Path, layout: Layout, shard: Shard, whole_index: u32) -> io::Result<Share> {
    let file = File::open(path)?;
    let (k, n) = (u64::from(shard.k), u64::from(shard.n));
    let starts: Box<dyn Fn(u64) -> io::Result<Option<GameKey>>> = match layout {
        Layout::Stream => {
            let owner = whole_index % shard.n;
            return Ok(if owner == shard.k { Share::Whole } else { Share::OtherShard(owner) });
        }
        Layout::Frames => {
            let frames = frame_offsets(&file)?;
            let m = frames.len() as u64;
            Box::new(move |k| start_in_frames(&file, &frames, (m * k / n) as usize))
        }
        Layout::Text => {
            let size = file.metadata()?.len();
            Box::new(move |k| start_in_text(&file, size * k / n))
        }
    };
    let lo = if k == 0 { Some(GameKey::default()) } else { starts(k)? };
    let hi = if k + 1 == n { None } else { starts(k + 1)? };
    Ok(Share::Span(match (lo, hi) {
        (Some(lo), hi) if hi != Some(lo) => Some(Span { lo, hi }),
        _ => None,
    }))
}

/// This shard's share of a Parquet input: row groups `m·K/N .. m·(K+1)/N` of its `m` (counted
/// over its files, as keys count them), as for a pzstd file's frames; a row group starts with
/// a game, so no boundary needs looking for.
pub fn parquet_share(files: &[std::path::PathBuf], shard: Shard) -> io::Result<Share> {
    let m = crate::parquet_input::ParquetInput::open(files)?.groups.len() as u64;
    let (k, n) = (u64::from(shard.k), u64::from(shard.n));
    let at = |k: u64| GameKey { frame_offset: m * k / n, byte_offset: 0 };
    let (lo, hi) = (at(k), (k + 1 < n).then(|| at(k + 1)));
    Ok(Share::Span((Some(lo) != hi && lo.frame_offset < m).then_some(Span { lo, hi })))
}

/// The first game start every reading agrees on in the frames from `first` on (`None`: none to
/// the end).
fn start_in_frames(file: &File, frames: &[u64], first: usize) -> io::Result<Option<GameKey>> {
    for &frame in frames.iter().skip(first) {
        let data = decode_frame_at(file, frame)?;
        if let Some(at) = sure_start(&data) {
            return Ok(Some(GameKey { frame_offset: frame, byte_offset: at as u64 }));
        }
    }
    Ok(None)
}

/// The first game start every reading agrees on in plain text from byte `from` on.
fn start_in_text(file: &File, from: u64) -> io::Result<Option<GameKey>> {
    use std::os::unix::fs::FileExt;
    let mut block = vec![0u8; TEXT_WINDOW as usize];
    let mut at = from;
    loop {
        let mut n = 0;
        while n < block.len() {
            match file.read_at(&mut block[n..], at + n as u64)? {
                0 => break,
                k => n += k,
            }
        }
        if let Some(p) = sure_start(&block[..n]) {
            return Ok(Some(GameKey { frame_offset: 0, byte_offset: at + p as u64 }));
        }
        if n < block.len() {
            return Ok(None);
        }
        at += TEXT_WINDOW;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_k_of_n() {
        assert_eq!("2/3".parse(), Ok(Shard { k: 2, n: 3 }));
        assert!("3/3".parse::<Shard>().is_err());
        assert!("1".parse::<Shard>().is_err());
        assert!("0/0".parse::<Shard>().is_err());
    }

    /// Spans of N shards over plain text tile it: each starts where the one before ends, at a
    /// game start of the whole input's reading.
    #[test]
    fn text_spans_tile_the_input() {
        let game = |i: usize| {
            format!("[Event \"{i}\"]\n[Site \"?\"]\n\n1. e4 {{ a comment\n[Event \"not a tag\"]\n}} e5 1-0\n\n")
        };
        let text: String = (0..3000).map(game).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.pgn");
        std::fs::write(&path, &text).unwrap();
        let starts: Vec<usize> = text
            .match_indices("[Event \"")
            .filter(|(i, _)| text[..*i].ends_with("\n\n") || *i == 0)
            .map(|(i, _)| i)
            .collect();
        for n in [1u32, 2, 3, 7] {
            let spans: Vec<Option<Span>> = (0..n)
                .map(|k| match share(&path, Layout::Text, Shard { k, n }, 0).unwrap() {
                    Share::Span(span) => span,
                    other => panic!("{other:?}"),
                })
                .collect();
            let mut next = GameKey::default();
            for span in spans.iter().flatten() {
                assert_eq!(span.lo, next, "n = {n}: {spans:?}");
                assert!(starts.contains(&(span.lo.byte_offset as usize)));
                next = span.hi.unwrap_or(GameKey { frame_offset: 0, byte_offset: u64::MAX });
            }
            assert_eq!(next.byte_offset, u64::MAX, "the last span runs to the end (n = {n})");
        }
    }
}
