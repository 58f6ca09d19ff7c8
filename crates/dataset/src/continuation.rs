//! A committed partition reopened as the staged parts of a run that goes on from it: a month of
//! Parquet files that gained files since it was ingested gets the new files' games appended,
//! with the keys a run over the whole month gives them.
//!
//! The committed files are linked (not copied, where the file system allows) into the source's
//! staging folders and listed in a staging record, as if a killed run had staged them; the run
//! then resumes after them, and commits as any run does: the staging folders become the new
//! partition in one commit, and the summary is merged with the new parts'. Until that commit
//! the old partition stays in place and readable; a kill leaves the staged parts and their
//! record, which the next run resumes (or discards). Parquet files are never written in place,
//! so a link shares nothing that changes.

use std::{
    fs,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result, bail};

use super::{
    TABLES, commit,
    partition::{self, ResumeKey, RowCounts, Staging, Table},
    write_atomic,
};

/// What the committed partition holds, as its manifest entry counts it.
pub struct Committed {
    pub counts: RowCounts,
    /// The decompressed bytes its games cover.
    pub bytes: u64,
}

/// The part files of a committed table, in order; they must be `part-00000` on, none missing.
fn parts_of(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("cannot list {}", dir.display()))?;
    names.retain(|n| n.ends_with(".parquet"));
    names.sort();
    if names.iter().enumerate().any(|(i, n)| *n != Table::part_name(i as u32)) {
        bail!("{} holds other files than part-00000.parquet on: {names:?}", dir.display());
    }
    Ok(names.into_iter().map(|n| dir.join(n)).collect())
}

/// A link to `from` at `to`, or a copy where the file system has no links.
fn link(from: &Path, to: &Path) -> Result<()> {
    if fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    fs::copy(from, to).map(|_| ()).with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))
}

/// Makes `source`'s committed partition the staged parts of `unit`, recorded under `key`
/// with `committed`'s counts, replacing whatever was staged for it. A kill part way leaves no
/// record (it is written last), so the next run starts again from the partition. The caller
/// holds the source's lock.
pub fn reopen(root: &Path, source: &str, unit: &str, key: ResumeKey, committed: Committed) -> Result<()> {
    partition::discard_staging(root, unit)?;
    let mut parts = None;
    for table in TABLES {
        let parent = root.join(table);
        let files = parts_of(&commit::final_dir(&parent, source))?;
        // The summary is merged into one file at every commit; games and events have a file per part.
        let expected = if table == "summary" { Some(1) } else { parts };
        if files.is_empty() || expected.is_some_and(|n| n != files.len()) {
            bail!("the partition of {source:?} has {} {table} file(s), not one per part", files.len());
        }
        if table == "games" {
            parts = Some(files.len());
        }
        let staging = partition::staging_dir(&parent, unit);
        fs::create_dir_all(&staging).with_context(|| format!("cannot create {}", staging.display()))?;
        for file in &files {
            link(file, &staging.join(file.file_name().unwrap_or_default()))?;
        }
    }
    let parts = parts.unwrap_or_default() as u32;
    let Committed { counts, bytes } = committed;
    let staging = Staging {
        source: source.to_owned(),
        key,
        counts,
        // The files read after the kept ones give keys after every kept game: the reader starts
        // at their first row group, not after a key.
        last: None,
        bytes,
        parts,
        complete: None,
        reopened_parts: parts,
    };
    let record = partition::record_path(root, unit);
    if let Some(dir) = record.parent() {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    write_atomic(&record, &serde_json::to_vec_pretty(&staging)?)
}
