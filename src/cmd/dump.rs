//! `threefold dump`: games as JSON lines, in the record format shared with the python-chess oracle
//! ([`crate::pgn::record`]), read as `ingest` reads the input (`ingest::games`: a Parquet input,
//! a `.parquet` file or a folder of them, gives one game per row).

use std::{
    io::{self, BufWriter, Write},
    ops::ControlFlow,
    path::Path,
    process::ExitCode,
};

use anyhow::Result;

use super::input_failed;
use crate::{
    ingest::games::Games,
    pgn::{self, record::write_game},
};

/// Writes every game of `file` (up to `limit`) as a JSON line to stdout.
pub(crate) fn run(file: &Path, limit: Option<u64>) -> Result<ExitCode> {
    let games = match Games::open(file) {
        Ok(games) => games,
        Err(err) => return Ok(input_failed(err)),
    };
    let mut out = Lines::new(limit);
    let read = games.for_each(|game| out.game(game));
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
