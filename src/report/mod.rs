//! `threefold report DIR [--html FILE] [--json]`: the headline figures of a dataset written by
//! `ingest`, read straight from its Parquet files (no DuckDB), in bounded memory.
//!
//! [`aggregate`] streams the files into one [`model::Report`]; [`figures`] turns it into rows with
//! formatted values; [`text`] and [`html`] draw those same rows, so the terminal and the page show
//! the same numbers. The figures follow the rules of `queries/*.sql` (tests compare them).

pub mod aggregate;
pub mod figures;
pub mod html;
pub mod model;
pub mod read;
pub mod text;

use std::{
    fs::{self, File},
    io::{self, Write},
    path::Path,
    process::ExitCode,
};

use anyhow::{Context, Result};

/// Runs the command: the text table (or `--json`, the computed figures) on stdout, and the page.
pub fn run(dir: &Path, html_file: Option<&Path>, json: bool) -> Result<ExitCode> {
    let report = aggregate::compute(dir)?;
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
        write_atomic(path, html::render(&report, &charts).as_bytes())?;
        eprintln!("threefold: wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes `bytes` to a temporary file next to `path`, then renames it over `path`: a reader never
/// sees half a page, and a failed run leaves an earlier page intact.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "report.html".into());
    let temp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| -> io::Result<()> {
        let mut file = File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result.with_context(|| format!("cannot write {}", path.display()))
}
