//! Finding one game by the name the dataset gives it: its key, in a file or in a dataset's source
//! (whose input the manifest names here); the input itself is read by `ingest::games::find`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::dataset::manifest::MANIFEST;
pub(crate) use crate::ingest::games::{Found, find};

/// The input of `source` in the dataset at `dir`, as its manifest records it.
pub(crate) fn source_input(dir: &Path, source: Option<&str>) -> Result<(PathBuf, String)> {
    let path = dir.join(MANIFEST);
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(&path)
            .with_context(|| format!("{} is not a threefold dataset (no {MANIFEST})", dir.display()))?,
    )
    .with_context(|| format!("cannot read {}", path.display()))?;
    let inputs = manifest["inputs"].as_array().map(Vec::as_slice).unwrap_or_default();
    let names: Vec<&str> = inputs.iter().filter_map(|e| e["source"].as_str()).collect();
    let source = match (source, names.as_slice()) {
        (Some(s), _) => s,
        (None, [only]) => only,
        (None, _) => bail!("{} holds {} sources: name one with --source", dir.display(), names.len()),
    };
    let Some(entry) = inputs.iter().find(|e| e["source"] == source) else {
        bail!("{} has no source {source:?} (it has {})", dir.display(), names.join(", "));
    };
    match entry["path"].as_str() {
        Some("-") | None => bail!("source {source:?} was read from stdin: explain the file it came from"),
        Some(p) => Ok((PathBuf::from(p), source.to_owned())),
    }
}
