//! `threefold dump`: games as JSON lines, in the record format shared with the python-chess oracle
//! ([`crate::pgn::record`]).

use std::{
    io::{self, BufWriter, Write},
    ops::ControlFlow,
    path::Path,
    process::ExitCode,
};

use anyhow::Result;

use super::{input_failed, open};
use crate::pgn::{self, record::write_game};

/// Writes every game of `file` (up to `limit`) as a JSON line to stdout.
pub fn run(file: &Path, limit: Option<u64>) -> Result<ExitCode> {
    let input = match open(file) {
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
