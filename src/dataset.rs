//! The dataset directory: Parquet partitions per source, written under temporary names and swapped
//! in whole; the manifest; the DuckDB views file.
//!
//! ```text
//! DIR/games/source=<name>/part-00000.parquet
//! DIR/events/source=<name>/part-00000.parquet
//! DIR/views.sql
//! DIR/_manifest.json
//! ```

use std::{
    fs::{self, File},
    io::{self, Write},
    path::{Path, PathBuf},
    sync::Arc,
};

use anyhow::{Context, Result, bail};
use arrow_array::RecordBatch;
use parquet::{
    basic::{Compression, Encoding, ZstdLevel},
    file::{
        metadata::KeyValue,
        properties::{EnabledStatistics, WriterProperties},
    },
    schema::types::ColumnPath,
};
use serde_json::{Value, json};

use crate::{
    parquet_file::ParallelWriter,
    schema::{events_schema, games_schema},
};

/// Version of the tool, recorded in every file and the manifest.
pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");
/// Which rules the engine applies, recorded in every file and the manifest.
pub const RULES_VERSION: &str = "FIDE Laws of Chess 2023, Art. 9.2 and 9.6";
/// Rows per row group: bounds the writer's memory and lets readers skip by statistics.
const ROW_GROUP_ROWS: usize = 128 * 1024;
const MANIFEST: &str = "_manifest.json";
const PART: &str = "part-00000.parquet";
const TABLES: [&str; 2] = ["games", "events"];

/// Writer settings for every file of the dataset, in one place.
fn writer_properties(source: &str) -> Result<WriterProperties> {
    // zstd level 1 (the parquet crate's default): level 3 made files 1-3% smaller for 4-12% more
    // of the writing thread's work (callgrind, pgnmentor and Lichess samples).
    let mut builder = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1)?))
        .set_dictionary_enabled(true);
    // Row numbers and offsets only grow (by one, or by a game's length): deltas store them in a
    // few bits, where a dictionary of unique values costs a hash per row and then gives up.
    for column in ["game_index", "byte_offset"] {
        builder = builder
            .set_column_dictionary_enabled(ColumnPath::from(column), false)
            .set_column_encoding(ColumnPath::from(column), Encoding::DELTA_BINARY_PACKED);
    }
    // Unique per game (lichess_id) or nearly per event (zobrist): a dictionary cannot help.
    for column in ["lichess_id", "zobrist"] {
        builder = builder.set_column_dictionary_enabled(ColumnPath::from(column), false);
    }
    Ok(builder
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_created_by(format!("threefold {TOOL_VERSION}"))
        .set_key_value_metadata(Some(vec![
            KeyValue::new("threefold.version".to_owned(), TOOL_VERSION.to_owned()),
            KeyValue::new("threefold.rules".to_owned(), RULES_VERSION.to_owned()),
            KeyValue::new("threefold.source".to_owned(), source.to_owned()),
        ]))
        .build())
}

/// An output directory that is, or is becoming, a threefold dataset.
pub struct Dataset {
    root: PathBuf,
}

impl Dataset {
    /// Opens `dir`, creating it if needed. Refuses a non-empty directory without a manifest, so
    /// that nothing of someone else's is overwritten.
    pub fn open(dir: &Path) -> Result<Dataset> {
        fs::create_dir_all(dir).with_context(|| format!("cannot create output directory {}", dir.display()))?;
        let root = fs::canonicalize(dir).with_context(|| format!("cannot resolve {}", dir.display()))?;
        let has_manifest = root.join(MANIFEST).is_file();
        // A run killed while writing its first manifest leaves only that temporary file.
        let mut empty = true;
        for entry in fs::read_dir(&root).with_context(|| format!("cannot list {}", root.display()))? {
            let entry = entry?;
            if entry.file_name().to_string_lossy().starts_with("_manifest.tmp-") {
                let _ = fs::remove_file(entry.path());
            } else {
                empty = false;
            }
        }
        if !has_manifest && !empty {
            bail!(
                "{} is not empty and is not a threefold dataset (no {MANIFEST}); give --out a new or empty directory",
                root.display()
            );
        }
        let dataset = Dataset { root };
        if !has_manifest {
            // Mark the directory as a dataset before writing any data, so that a run killed
            // half-way can be rerun into it.
            dataset.update_manifest(Vec::new())?;
        }
        Ok(dataset)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Starts writing the partition of `source` under temporary names; columns are encoded on
    /// `encoders` (or on this thread).
    pub fn partition(&self, source: &str, encoders: &Option<Arc<rayon::ThreadPool>>) -> Result<Partition> {
        let tag = format!("source={source}");
        let mut tables = Vec::new();
        for (table, schema) in TABLES.into_iter().zip([games_schema(), events_schema()]) {
            let parent = self.root.join(table);
            fs::create_dir_all(&parent).with_context(|| format!("cannot create {}", parent.display()))?;
            remove_stale(&parent, &tag)?;
            let temp_dir = parent.join(format!(".tmp-{tag}-{}", std::process::id()));
            fs::create_dir_all(&temp_dir).with_context(|| format!("cannot create {}", temp_dir.display()))?;
            let temp_file = temp_dir.join(format!("{PART}.tmp"));
            let file = File::create(&temp_file).with_context(|| format!("cannot create {}", temp_file.display()))?;
            let writer = ParallelWriter::try_new(file, schema, writer_properties(source)?, encoders.clone())?;
            tables.push(Table { writer: Some(writer), temp_dir, temp_file, final_dir: parent.join(&tag), rows: 0 });
        }
        let events = tables.pop();
        let games = tables.pop();
        match (games, events) {
            (Some(games), Some(events)) => Ok(Partition { games, events }),
            _ => bail!("internal error: missing table writer"),
        }
    }

    /// Writes `views.sql`: DuckDB views over every partition, by absolute path.
    pub fn write_views(&self) -> Result<()> {
        let mut sql = String::from(
            "-- DuckDB views over this threefold dataset; in duckdb: .read views.sql (any working directory)\n",
        );
        for table in TABLES {
            let glob = self.root.join(table).join("source=*").join("*.parquet");
            let glob = glob.to_string_lossy().replace('\'', "''");
            sql.push_str(&format!(
                "CREATE OR REPLACE VIEW {table} AS SELECT * FROM read_parquet('{glob}', hive_partitioning = true, union_by_name = true);\n"
            ));
        }
        write_atomic(&self.root.join("views.sql"), sql.as_bytes())
    }

    /// Records `entries` (one per input, each with a `source`) in the manifest, replacing the
    /// entries of the same sources and keeping the others.
    pub fn update_manifest(&self, entries: Vec<Value>) -> Result<()> {
        let path = self.root.join(MANIFEST);
        let mut inputs: Vec<Value> = match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice::<Value>(&bytes)
                .ok()
                .and_then(|v| v.get("inputs").and_then(Value::as_array).cloned())
                .unwrap_or_default(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let source_of = |v: &Value| v.get("source").and_then(Value::as_str).map(str::to_owned);
        let replaced: Vec<Option<String>> = entries.iter().map(source_of).collect();
        inputs.retain(|v| !replaced.contains(&source_of(v)));
        inputs.extend(entries);
        inputs.sort_by_key(source_of);
        let totals = |key: &str| -> u64 { inputs.iter().filter_map(|v| v.get(key).and_then(Value::as_u64)).sum() };
        let manifest = json!({
            "tool": "threefold",
            "version": TOOL_VERSION,
            "rules_version": RULES_VERSION,
            "tables": { "games": "games/source=<name>/part-00000.parquet", "events": "events/source=<name>/part-00000.parquet" },
            "games": totals("games"),
            "events": totals("events"),
            "inputs": inputs,
        });
        let mut text = serde_json::to_vec_pretty(&manifest)?;
        text.push(b'\n');
        write_atomic(&path, &text)
    }

    /// Whether a complete partition of `source` exists.
    pub fn has_partition(&self, source: &str) -> bool {
        TABLES.iter().all(|t| self.root.join(t).join(format!("source={source}")).join(PART).is_file())
    }
}

/// Removes temporary or replaced partition directories of `tag` left by an interrupted run.
fn remove_stale(parent: &Path, tag: &str) -> Result<()> {
    let prefixes = [format!(".tmp-{tag}-"), format!(".old-{tag}-")];
    for entry in fs::read_dir(parent).with_context(|| format!("cannot list {}", parent.display()))? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if prefixes.iter().any(|p| name.starts_with(p.as_str())) {
            fs::remove_dir_all(entry.path()).with_context(|| format!("cannot remove {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Writes `bytes` to a temporary file next to `path`, then renames it over `path`: a reader never
/// sees half a file, and a failed run leaves the earlier file intact.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let temp = path.with_extension(format!("tmp-{}", std::process::id()));
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

struct Table {
    writer: Option<ParallelWriter>,
    temp_dir: PathBuf,
    temp_file: PathBuf,
    final_dir: PathBuf,
    rows: u64,
}

impl Table {
    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let Some(writer) = self.writer.as_mut() else { bail!("internal error: table already closed") };
        writer.write(batch).with_context(|| format!("cannot write {}", self.temp_file.display()))?;
        self.rows += batch.num_rows() as u64;
        Ok(())
    }

    /// Closes the writer and gives the file its final name inside the temporary directory.
    fn close(&mut self) -> Result<()> {
        let Some(writer) = self.writer.take() else { return Ok(()) };
        writer.close().with_context(|| format!("cannot finish {}", self.temp_file.display()))?;
        File::open(&self.temp_file).and_then(|f| f.sync_all())?;
        let done = self.temp_dir.join(PART);
        fs::rename(&self.temp_file, &done).with_context(|| format!("cannot rename to {}", done.display()))?;
        Ok(())
    }

    /// Puts the temporary directory in place of the final one: where the system can, in one
    /// atomic exchange, so that a reader or a crash never sees the partition missing or half
    /// replaced; otherwise by moving the old one aside first.
    fn swap(&self) -> Result<()> {
        let had_old = self.final_dir.exists();
        if had_old && exchange(&self.temp_dir, &self.final_dir)? {
            // The temporary name now holds the previous partition.
            return fs::remove_dir_all(&self.temp_dir)
                .with_context(|| format!("cannot remove the previous {}", self.temp_dir.display()));
        }
        let old = match (self.final_dir.file_name(), self.final_dir.parent()) {
            (Some(name), Some(parent)) => {
                parent.join(format!(".old-{}-{}", name.to_string_lossy(), std::process::id()))
            }
            _ => bail!("internal error: bad partition path {}", self.final_dir.display()),
        };
        if had_old {
            fs::rename(&self.final_dir, &old).with_context(|| format!("cannot move aside {}", self.final_dir.display()))?;
        }
        fs::rename(&self.temp_dir, &self.final_dir)
            .with_context(|| format!("cannot rename {} to {}", self.temp_dir.display(), self.final_dir.display()))?;
        if had_old {
            fs::remove_dir_all(&old).with_context(|| format!("cannot remove {}", old.display()))?;
        }
        Ok(())
    }

    fn abort(&mut self) {
        self.writer = None;
        let _ = fs::remove_dir_all(&self.temp_dir);
    }
}

/// Exchanges two directories atomically (Linux `renameat2` with `RENAME_EXCHANGE`). `Ok(false)`
/// when the system or file system cannot, so the caller falls back to two renames.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> Result<bool> {
    use std::{ffi::CString, os::unix::ffi::OsStrExt};
    let path = |p: &Path| CString::new(p.as_os_str().as_bytes()).context("path with a NUL byte");
    let (ca, cb) = (path(a)?, path(b)?);
    // SAFETY: both are valid NUL-terminated paths, relative to the working directory.
    let rc = unsafe { libc::renameat2(libc::AT_FDCWD, ca.as_ptr(), libc::AT_FDCWD, cb.as_ptr(), libc::RENAME_EXCHANGE) };
    if rc == 0 {
        return Ok(true);
    }
    match io::Error::last_os_error().raw_os_error() {
        Some(libc::EINVAL | libc::ENOSYS | libc::ENOTSUP) => Ok(false),
        _ => Err(io::Error::last_os_error()).with_context(|| format!("cannot exchange {} and {}", a.display(), b.display())),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> Result<bool> {
    Ok(false)
}

/// The games and events files of one source being written.
pub struct Partition {
    games: Table,
    events: Table,
}

impl Partition {
    pub fn write(&mut self, games: &RecordBatch, events: &RecordBatch) -> Result<()> {
        self.games.write(games)?;
        self.events.write(events)
    }

    /// Finishes both files and replaces the source's previous partition, if any, as a whole.
    pub fn commit(mut self) -> Result<()> {
        let closed = self.games.close().and_then(|_| self.events.close());
        if let Err(e) = closed {
            self.abort();
            return Err(e);
        }
        self.games.swap()?;
        self.events.swap()
    }

    /// Drops everything written: no file of this attempt remains.
    pub fn abort(&mut self) {
        self.games.abort();
        self.events.abort();
    }
}

impl Drop for Partition {
    fn drop(&mut self) {
        if self.games.writer.is_some() || self.events.writer.is_some() {
            self.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An exchange swaps two directories whole, or, where the file system cannot, changes nothing
    /// (the caller then renames).
    #[test]
    fn exchange_swaps_directories_or_leaves_them() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        for (dir, text) in [(&a, "new"), (&b, "old")] {
            fs::create_dir(dir).unwrap();
            fs::write(dir.join("part"), text).unwrap();
        }
        let swapped = exchange(&a, &b).unwrap();
        let read = |d: &Path| fs::read_to_string(d.join("part")).unwrap();
        let expected = if swapped { ("old", "new") } else { ("new", "old") };
        assert_eq!((read(&a).as_str(), read(&b).as_str()), expected);
        if cfg!(target_os = "linux") {
            eprintln!("RENAME_EXCHANGE supported here: {swapped}");
        }
    }
}
