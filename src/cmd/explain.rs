//! `threefold explain`: the timeline of one game's repetition events on stdout, and with
//! `--html` / `--svg` its page of boards ([`crate::explain`]).

use std::{
    io::{self, Write as _},
    path::Path,
    process::ExitCode,
};

use anyhow::{Result, bail};

use super::input_failed;
use crate::{
    engine::vocabulary::printable,
    explain::{
        explain,
        locate::{Found, find, source_input},
        page, read_game,
    },
    ingest::games::folder_of_games,
    read::key::GameKey,
};

/// Prints the timeline of the game at `key` (the first game if `None`) of `target`: a PGN file,
/// or a dataset folder whose `source` (needed when it holds several) names the input. With
/// `html` or `svg`, also writes the page with boards and each board as an SVG file
/// ([`crate::explain::page`]).
pub(crate) fn run(
    target: &Path,
    source: Option<&str>,
    key: Option<GameKey>,
    html: Option<&Path>,
    svg: Option<&Path>,
) -> Result<ExitCode> {
    // A folder is a dataset, unless it is a folder of games in Parquet given without --source.
    let (file, source) = if target.is_dir() && (source.is_some() || !folder_of_games(target)) {
        let (file, source) = source_input(target, source)?;
        (file, Some(source))
    } else if source.is_some() {
        bail!("--source names a source of a dataset: give the dataset's folder, not {}", target.display());
    } else {
        (target.to_owned(), None)
    };
    let found = match find(&file, key) {
        Ok(found) => found,
        Err(err) => {
            return Ok(input_failed(anyhow::Error::new(err).context(format!("cannot read {}", file.display()))));
        }
    };
    let (key, text) = match found {
        Found::Game { key, text } => (key, text),
        Found::NotAt { before, after } => {
            let near: Vec<String> = [before, after].into_iter().flatten().map(|k| k.text()).collect();
            bail!(
                "no game starts at {} in {} (games start at {}); keys are the tables' frame_offset:byte_offset, or byte_offset alone when frame_offset is 0",
                key.map(|k| k.text()).unwrap_or_default(),
                file.display(),
                if near.is_empty() { "no key: the input has no game".to_owned() } else { near.join(" and ") }
            );
        }
    };
    let game = read_game(&text, key, &file)?;
    let mut out = io::stdout().lock();
    let site = printable(game.tag("Site").unwrap_or("?")).into_owned();
    let name = source.map_or_else(|| file.display().to_string(), |s| format!("source {s} ({})", file.display()));
    writeln!(out, "Game {} of {name}, Site {site}", key.text())?;
    out.write_all(explain(&game).as_bytes())?;
    if html.is_some() || svg.is_some() {
        out.flush()?;
        let heading = format!("Game {} of {name}, Site {site}", key.text());
        let page = page::render(&game, &heading, &explain(&game));
        page::write(&page, html, svg)?;
    }
    Ok(ExitCode::SUCCESS)
}
