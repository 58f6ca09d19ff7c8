//! `threefold report DIR [--html FILE] [--json]`: the headline figures of a dataset written by
//! `ingest`, read straight from its Parquet files (no DuckDB), in bounded memory.
//!
//! [`aggregate`] streams the files into one [`model::Report`]; [`figures`] turns it into rows with
//! formatted values; [`text`] and [`html`] draw those same rows, so the terminal and the page show
//! the same numbers. The figures follow the rules of `queries/*.sql` (tests compare them).

pub mod aggregate;
pub mod clocks;
pub mod figures;
pub mod html;
pub mod model;
pub mod read;
pub mod text;

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

/// Runs the command: the text table (or `--json`, the computed figures) on stdout, and the page.
pub fn run(dir: &Path, html_file: Option<&Path>, json: bool) -> Result<ExitCode> {
    // Read only: a commit that a killed run left half done is reported, not finished.
    if let Ok(sources) = crate::dataset::commit::interrupted(dir)
        && !sources.is_empty()
    {
        eprintln!(
            "threefold: warning: a killed run left the commit of source(s) {} unfinished: their games and events may come from different runs until the next `threefold ingest` into {} finishes it",
            sources.join(", "),
            dir.display()
        );
    }
    let mut report = aggregate::compute(dir)?;
    report.stale_sources = stale_sources(dir);
    if !report.stale_sources.is_empty() {
        eprintln!(
            "threefold: warning: stale partition(s), written with other rules or another schema than this threefold's: {}; the next `threefold ingest` of their inputs re-ingests them",
            report.stale_sources.join(", ")
        );
    }
    let charts = figures::charts(&report);
    let mut out = io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        out.write_all(b"\n")?;
    } else {
        out.write_all(text::render(&report, &charts).as_bytes())?;
    }
    out.flush()?;
    if let Some(path) = html_file {
        crate::dataset::write_atomic(path, html::render(&report, &charts).as_bytes())?;
        eprintln!("threefold: wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
