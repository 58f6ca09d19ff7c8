//! The performance floor of `threefold ingest`: what reading the same inputs with `pgn-reader`
//! and playing every mainline move with `shakmaty` costs, with no repetition logic and no output
//! but a count. `threefold` cannot be faster than this on one thread; `bench/run.sh` compares
//! the two.
//!
//! ```sh
//! cargo build --release --example floor
//! target/release/examples/floor FILE...      # prints: games plies decompressed_bytes seconds
//! ```
//!
//! Inputs are opened with `threefold::open`, so decompression costs the same as in
//! `threefold` (streaming, one thread). Games with a `FEN` tag start there (`Variant` Chess960
//! respected); variants other than standard and Chess960 are read but not played. A move that
//! does not resolve stops that game's replay, as in `threefold`.

use std::{
    io::{self, Read},
    ops::ControlFlow,
    path::PathBuf,
    time::Instant,
};

use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::{Chess, Position};
use threefold::{Start, Variant};

/// Counts what was read and played.
#[derive(Default)]
struct Floor {
    games: u64,
    plies: u64,
}

#[derive(Default)]
struct Tags {
    fen: Option<String>,
    variant: Option<String>,
}

impl Visitor for Floor {
    type Tags = Tags;
    /// The position being played, `None` once a move failed (or the variant is not played).
    type Movetext = Option<Chess>;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), Tags> {
        ControlFlow::Continue(Tags::default())
    }

    fn tag(&mut self, tags: &mut Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        match name {
            b"FEN" => tags.fen = Some(String::from_utf8_lossy(&value.decode()).into_owned()),
            b"Variant" => tags.variant = Some(String::from_utf8_lossy(&value.decode()).into_owned()),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<(), Option<Chess>> {
        if tags.fen.is_none() && tags.variant.is_none() {
            return ControlFlow::Continue(Some(Chess::default()));
        }
        let variant = Variant::from_tag(tags.variant.as_deref());
        if let Variant::Other(_) = variant {
            return ControlFlow::Continue(None);
        }
        ControlFlow::Continue(Start::new(&variant, tags.fen.as_deref()).ok().map(|s| s.pos))
    }

    fn san(&mut self, pos: &mut Option<Chess>, san_plus: SanPlus) -> ControlFlow<()> {
        if let Some(p) = pos {
            match san_plus.san.to_move(p) {
                Ok(m) => {
                    p.play_unchecked(m);
                    self.plies += 1;
                }
                Err(_) => *pos = None,
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _pos: &mut Option<Chess>) -> ControlFlow<(), Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn end_game(&mut self, _pos: Option<Chess>) {
        self.games += 1;
    }
}

/// Counts the decompressed bytes read.
struct Counted<R> {
    inner: R,
    bytes: u64,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
}

fn main() -> io::Result<()> {
    let paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() || paths.iter().any(|p| p.to_str().is_some_and(|s| s.starts_with("--"))) {
        eprintln!("usage: floor FILE...   (plain, zstd, bzip2 or gzip PGN; `-` for stdin)");
        std::process::exit(2);
    }
    let started = Instant::now();
    let mut floor = Floor::default();
    let mut bytes = 0u64;
    for path in &paths {
        let (_, stream) = threefold::open(path)?;
        let mut counted = Counted { inner: stream, bytes: 0 };
        let mut reader = Reader::new(&mut counted);
        while reader.read_game(&mut floor)?.is_some() {}
        drop(reader);
        bytes += counted.bytes;
    }
    println!("{} {} {} {:.3}", floor.games, floor.plies, bytes, started.elapsed().as_secs_f64());
    Ok(())
}
