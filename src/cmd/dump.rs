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
        Form,
        parquet_input::{ParquetInput, RefuseParquet},
        rows,
    },
    pgn::{self, GameVisitor, record::write_game},
    read::{
        chunk::{Chunk, ChunkBytes},
        input,
    },
};

/// Writes every game of `file` (up to `limit`) as a JSON line to stdout.
pub(crate) fn run(file: &Path, limit: Option<u64>) -> Result<ExitCode> {
    let input = match Form::of(file) {
        Ok(Form::Parquet(files)) => return run_parquet(file, &files, limit),
        Ok(Form::Pgn) if file.as_os_str() == "-" => {
            // Parquet cannot come through a pipe: said at once rather than read as text.
            input::decompress(RefuseParquet::new(io::stdin())).map(|(_, r)| r).context("cannot read stdin")
        }
        Ok(Form::Pgn) => open(file),
        Err(err) => Err(anyhow::Error::new(err).context(format!("cannot open {}", file.display()))),
    };
    let input = match input {
        Ok(input) => input,
        Err(err) => return Ok(input_failed(err)),
    };
    let mut out = Lines::new(limit);
    let read = pgn::for_each_game(input, |game| out.game(&game));
    out.finish(read, file)
}

/// `run` for a Parquet input: each row's game, in the order of the input's keys (row groups over
/// its files in name order, rows within them), `index` counting the rows from 0.
fn run_parquet(file: &Path, files: &[std::path::PathBuf], limit: Option<u64>) -> Result<ExitCode> {
    let input = match ParquetInput::open(files) {
        Ok(input) => input,
        Err(err) => {
            return Ok(input_failed(anyhow::Error::new(err).context(format!("cannot open {}", file.display()))));
        }
    };
    let mut out = Lines::new(limit);
    let mut visitor = GameVisitor::new();
    let read = input.for_each_piece(|_, _, rendered| {
        let text = std::mem::take(&mut rendered.text);
        let games = rendered.starts.clone();
        let chunk = Chunk { seq: 0, offset: 0, data: ChunkBytes::Owned(text), games, starts_input: false };
        let flow = rows::row_games(&mut visitor, &chunk, rendered).iter().try_for_each(|game| out.game(game));
        if let ChunkBytes::Owned(text) = chunk.data {
            rendered.text = text;
        }
        flow
    });
    out.finish(read, file)
}

/// The JSON lines written to stdout: up to `limit` games, `index` counting them from 0.
struct Lines<'a> {
    out: BufWriter<io::StdoutLock<'a>>,
    index: u64,
    limit: u64,
    error: Option<io::Error>,
}

impl Lines<'_> {
    fn new(limit: Option<u64>) -> Self {
        Lines { out: BufWriter::new(io::stdout().lock()), index: 0, limit: limit.unwrap_or(u64::MAX), error: None }
    }

    /// Writes `game`'s line; breaks at the limit or on a write error.
    fn game(&mut self, game: &pgn::Game) -> ControlFlow<()> {
        if self.index >= self.limit {
            return ControlFlow::Break(());
        }
        if let Err(e) = write_game(&mut self.out, self.index, game).and_then(|_| self.out.write_all(b"\n")) {
            self.error = Some(e);
            return ControlFlow::Break(());
        }
        self.index += 1;
        ControlFlow::Continue(())
    }

    /// Ends the output: a write error fails the command; the games read before a read error are
    /// written out first, and the read error fails the input.
    fn finish<E: std::error::Error + Send + Sync + 'static>(
        mut self,
        read: std::result::Result<(), E>,
        file: &Path,
    ) -> Result<ExitCode> {
        if let Some(e) = self.error {
            return Err(e.into());
        }
        self.out.flush()?;
        match read {
            Ok(()) => Ok(ExitCode::SUCCESS),
            Err(err) => Ok(input_failed(anyhow::Error::new(err).context(format!(
                "error reading {} after {} games",
                file.display(),
                self.index
            )))),
        }
    }
}
