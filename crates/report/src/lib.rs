//! `threefold report DIR [filters] [--by …] [--html FILE] [--json]`: the figures of a dataset
//! written by `ingest`, read straight from its Parquet files (no DuckDB), in bounded memory.
//!
//! In parts: the counting ([`threefold_count`]: which games count and in which group, streamed
//! into a [`model::Report`], or added up from the summary); [`figures`], which turns it into
//! rows with formatted values and 95% Wilson intervals, and sentences; [`render`], which shows
//! those same rows as text, an HTML page with SVG charts, so the terminal, the page and `--json`
//! cannot disagree.

mod figures;
mod render;

// The layers below under their own names, as the code of every crate names them.
use threefold_count::{model, summary};
use threefold_dataset as dataset;

// The options' parts: which games a report is over, and their groups.
pub use render::svg;
pub use threefold_count::{filter, group};

use figures::{chart, many};
use render::{html, text};

use std::{
    io::{self, Write},
    path::Path,
    process::ExitCode,
};

use anyhow::Result;

/// The sources the manifest lists as written with other rules or another schema.
fn stale_sources(dir: &Path) -> Vec<String> {
    let Ok(manifest) = crate::dataset::manifest::Manifest::open(dir) else { return Vec::new() };
    manifest
        .entries()
        .filter(|e| e.status.is_complete() && crate::dataset::is_stale(e))
        .map(|e| e.source.clone())
        .collect()
}

/// What a report is over and how it is shown, checked before any work.
pub struct Options {
    pub filter: filter::Filter,
    pub by: Option<group::By>,
    /// Rates over fewer games are marked and greyed.
    pub min_games: u64,
    pub html: Option<std::path::PathBuf>,
    pub json: bool,
    /// Writes the `explain` page of an example game (dataset folder, source, key): with
    /// `html`, each example game the page names gets one beside it, linked from it.
    pub example_page: Option<ExamplePage>,
    /// Parts read at once; default: all cores.
    pub threads: Option<usize>,
    /// Read the games even where the summary could answer (`--scan`).
    pub scan: bool,
    /// Count each game once (`--dedup`): reads the games, twice.
    pub dedup: bool,
}

/// The `explain` page of the game at a key of a source of the dataset in a folder (the command
/// line's, which sits above the report).
pub type ExamplePage = fn(&Path, &str, threefold_core::read::key::GameKey) -> Result<String>;

/// Writes the `explain` page of every example game into the folder `<page's stem>-games` beside
/// the report page `html`; returns the link to each example's page (relative to the report
/// page), or `None` where it could not be written (said on stderr).
fn example_pages(dir: &Path, html: &Path, examples: &[model::Example], page: ExamplePage) -> Vec<Option<String>> {
    let stem = html.file_stem().map_or("report".into(), |s| s.to_string_lossy().into_owned());
    let folder_name = format!("{stem}-games");
    let folder = html.with_file_name(&folder_name);
    let mut written: Vec<(String, bool)> = Vec::new();
    let mut links = Vec::with_capacity(examples.len());
    for e in examples {
        let name = e.page_name();
        let ok = match written.iter().find(|(n, _)| *n == name) {
            Some((_, ok)) => *ok,
            None => {
                let result = std::fs::create_dir_all(&folder)
                    .map_err(anyhow::Error::from)
                    .and_then(|()| page(dir, &e.source, e.game_key()))
                    .and_then(|text| crate::dataset::write_atomic(&folder.join(&name), text.as_bytes()));
                if let Err(err) = &result {
                    eprintln!("threefold: warning: no page for the example game {}: {err:#}", e.place());
                }
                written.push((name.clone(), result.is_ok()));
                result.is_ok()
            }
        };
        links.push(ok.then(|| format!("{folder_name}/{name}")));
    }
    if written.iter().any(|(_, ok)| *ok) {
        eprintln!(
            "threefold: wrote {} example game page(s) to {}",
            written.iter().filter(|w| w.1).count(),
            folder.display()
        );
    }
    links
}

/// `--json`: the counts and, for every chart, its rows with their intervals.
#[derive(serde::Serialize)]
struct Json<'a> {
    #[serde(flatten)]
    report: &'a model::Report,
    figures: &'a [chart::Chart],
}

/// Every figure of the report, in display order: the groups side by side, or beyond
/// [`chart::SIDE_BY_SIDE`] of them as rows ([`many`]).
fn charts(r: &model::Report) -> Vec<chart::Chart> {
    if r.groups.len() > chart::SIDE_BY_SIDE {
        return many::charts(r);
    }
    figures::side_by_side_charts(r)
}

/// Runs the command: the text tables (or `--json`, the computed figures) on stdout, and the page.
pub fn run(dir: &Path, options: &Options) -> Result<ExitCode> {
    // Read only: a commit that a killed run left half done is reported, not finished.
    let unfinished = crate::dataset::commit::interrupted(dir).unwrap_or_default();
    if !unfinished.is_empty() {
        eprintln!(
            "threefold: warning: a killed run left the commit of source(s) {} unfinished: their games and events may come from different runs until the next `threefold ingest` into {} finishes it",
            unfinished.join(", "),
            dir.display()
        );
    }
    let (filter, by) = (&options.filter, options.by.as_ref());
    let why_scan = if options.scan || options.dedup {
        None
    } else if !unfinished.is_empty() {
        Some("a commit is unfinished".to_owned())
    } else if let Some(why) = summary::unanswerable(filter) {
        Some(format!("the summary counts whole months and bands of 100 Elo, and {why}"))
    } else {
        let missing = summary::missing(dir, filter)?;
        (!missing.is_empty()).then(|| {
            format!(
                "no summary for source(s) {} (written before summaries existed; ingesting them again writes one and makes this fast)",
                missing.join(", ")
            )
        })
    };
    let mut report = if options.scan || options.dedup || why_scan.is_some() {
        if let Some(why) = why_scan {
            eprintln!("threefold: reading every game: {why}");
        }
        threefold_count::from_games(dir, filter, by, options.min_games, &unfinished, options.threads, options.dedup)?
    } else {
        summary::compute(dir, filter, by, options.min_games)?
    };
    if report.unmatched_events > 0 {
        eprintln!(
            "threefold: warning: {} event(s) of the unfinished source(s) belong to no game of the games table (the two tables come from different runs): left out",
            report.unmatched_events
        );
    }
    report.stale_sources = stale_sources(dir);
    if !report.stale_sources.is_empty() {
        eprintln!(
            "threefold: warning: stale partition(s), written with other rules or another schema than this threefold's: {}; the next `threefold ingest` of their inputs re-ingests them",
            report.stale_sources.join(", ")
        );
    }
    let charts = charts(&report);
    let mut out = io::stdout().lock();
    if options.json {
        serde_json::to_writer_pretty(&mut out, &Json { report: &report, figures: &charts })?;
        out.write_all(b"\n")?;
    } else {
        out.write_all(text::render(&report, &charts).as_bytes())?;
    }
    out.flush()?;
    if let Some(path) = &options.html {
        let links = match options.example_page {
            Some(page) => example_pages(dir, path, &report.examples, page),
            None => Vec::new(),
        };
        crate::dataset::write_atomic(path, html::render(&report, &charts, &links).as_bytes())?;
        eprintln!("threefold: wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
