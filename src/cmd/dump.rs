//! `threefold dump`: games as JSON lines, in the record format shared with the python-chess oracle
//! ([`crate::pgn::record`]). A Parquet input (a `.parquet` file or a folder of them) gives one
//! game per row, read as `ingest` reads it ([`crate::ingest::rows`]).

use std::{
    io::{self, BufWriter, Write},
    ops::ControlFlow,
    path::Path,
    process::ExitCode,
};

use anyhow::{Context, Result};

use super::{input_failed, open};
use crate::{
    ingest::{
        parquet_input::{self, ParquetInput, RefuseParquet},
        rows,
    },
    pgn::{self, GameVisitor, record::write_game},
    read::{
        chunk::{Chunk, ChunkBytes},
        input,
    },
};

/// Writes every game of `file` (up to `limit`) as a JSON line to stdout.
pub fn run(file: &Path, limit: Option<u64>) -> Result<ExitCode> {
    if file.is_dir() || parquet_input::is_parquet_file(file) {
        return run_parquet(file, limit);
    }
    let input = if file.as_os_str() == "-" {
        // Parquet cannot come through a pipe: said at once rather than read as text.
        input::decompress(RefuseParquet::new(io::stdin())).map(|(_, r)| r).context("cannot read stdin")
    } else {
        open(file)
    };
    let input = match input {
        Ok(input) => input,
        Err(err) => return Ok(input_failed(err)),
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let mut index = 0u64;
    let mut write_error = None;
    let limit = limit.unwrap_or(u64::MAX);
    let read = pgn::for_each_game(input, |game| {
        if index >= limit {
            return ControlFlow::Break(());
        }
        if let Err(e) = write_game(&mut out, index, &game).and_then(|_| out.write_all(b"\n")) {
            write_error = Some(e);
            return ControlFlow::Break(());
        }
        index += 1;
        ControlFlow::Continue(())
    });
    if let Some(e) = write_error {
        return Err(e.into());
    }
    // The games read before a read error are written out first.
    out.flush()?;
    match read {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(err) => Ok(input_failed(
            anyhow::Error::new(err).context(format!("error reading {} after {index} games", file.display())),
        )),
    }
}

/// `run` for a Parquet input: each row's game, in the order of the input's keys (row groups over
/// its files in name order, rows within them), `index` counting the rows from 0.
fn run_parquet(file: &Path, limit: Option<u64>) -> Result<ExitCode> {
    let input = match parquet_input::files_of(file).and_then(|files| ParquetInput::open(&files)) {
        Ok(input) => input,
        Err(err) => {
            return Ok(input_failed(anyhow::Error::new(err).context(format!("cannot open {}", file.display()))));
        }
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let mut visitor = GameVisitor::new();
    let mut index = 0u64;
    let mut write_error = None;
    let limit = limit.unwrap_or(u64::MAX);
    let read = input.for_each_piece(|_, _, rendered| {
        let text = std::mem::take(&mut rendered.text);
        let games = rendered.starts.clone();
        let chunk = Chunk { seq: 0, offset: 0, data: ChunkBytes::Owned(text), games, starts_input: false };
        let mut flow = ControlFlow::Continue(());
        for game in rows::row_games(&mut visitor, &chunk, rendered) {
            if index >= limit {
                flow = ControlFlow::Break(());
                break;
            }
            if let Err(e) = write_game(&mut out, index, &game).and_then(|_| out.write_all(b"\n")) {
                write_error = Some(e);
                flow = ControlFlow::Break(());
                break;
            }
            index += 1;
        }
        if let ChunkBytes::Owned(text) = chunk.data {
            rendered.text = text;
        }
        flow
    });
    if let Some(e) = write_error {
        return Err(e.into());
    }
    out.flush()?;
    match read {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(err) => Ok(input_failed(
            anyhow::Error::new(err).context(format!("error reading {} after {index} games", file.display())),
        )),
    }
}
