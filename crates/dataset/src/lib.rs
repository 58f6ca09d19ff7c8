//! The dataset directory: Parquet partitions per source, written under temporary names and swapped
//! in whole (games, events and summary together: [`crate::commit`]); the manifest; the DuckDB views file.
//!
//! ```text
//! DIR/games/source=<name>/part-00000.parquet
//! DIR/events/source=<name>/part-00000.parquet
//! DIR/summary/source=<name>/part-00000.parquet
//! DIR/views.sql
//! DIR/_manifest.json
//! DIR/.commit-source=<name>-<pid>.json   while a commit's entry is not yet in the manifest
//! ```

pub mod column;
pub mod commit;
pub mod continuation;
pub mod lock;
pub mod manifest;
mod parquet_file;
pub mod partition;
pub mod schema;
pub mod shards;

// The core's modules under their own names, as the code of every crate names them.
use threefold_core::{engine, pgn, read};

use std::{
    collections::{HashMap, HashSet},
    fs::{self, File},
    io::{self, Write},
    path::{Path, PathBuf},
    sync::Arc,
};

use anyhow::{Context, Result, bail};
use arrow_schema::Schema;
use parquet::{
    arrow::ArrowSchemaConverter,
    basic::{Compression, Encoding, Type as PhysicalType, ZstdLevel},
    file::{
        metadata::KeyValue,
        properties::{EnabledStatistics, WriterProperties},
    },
    schema::types::ColumnPath,
};

use self::{
    manifest::{MANIFEST, Manifest, ManifestEntry},
    partition::{Partition, ResumeKey},
};
use crate::manifest::Committed;

/// Version of the tool, recorded in every file and the manifest.
pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");
/// Which rules the engine applies, recorded in every file and the manifest: another makes a
/// partition stale (so a change of what a column means is named here, even without a schema change).
pub const RULES_VERSION: &str = "FIDE Laws of Chess 2023, Art. 9.2 and 9.6; Lichess variants as python-chess 1.11's \
     chess.variant; a claim missed only where play left the repetition, the recorded ending first; venue and time \
     class as docs/events.md reads the tags; claims and automatic endings by the rules in force on the venue and \
     date, the draw reasons too, chess.com's by its own (2026-12-06b)";
/// Rows per row group: bounds the writer's memory and lets readers skip by statistics.
const ROW_GROUP_ROWS: usize = 128 * 1024;
const PART: &str = "part-00000.parquet";
/// The tables of a partition, committed together: `summary` last (a commit record of an earlier
/// version names the first two only).
const TABLES: [&str; 3] = ["games", "events", "summary"];

/// Writer settings of the games and events files of `schema`: every setting of the dataset's
/// files is here or in [`summary_properties`].
fn writer_properties(source: &str, schema: &Schema) -> Result<WriterProperties> {
    // zstd level 1 (the parquet crate's default): level 3 made files hardly smaller for clearly
    // more of the writing thread's work (docs/performance.md, "Figures behind the code").
    let mut builder = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1)?))
        .set_dictionary_enabled(true);
    // Numbers are written plain and left to zstd: a dictionary costs a hash of every value on the
    // writing thread, for files only 2.5% smaller (docs/performance.md, "Figures behind the code").
    for column in columns_of(schema, &INTEGERS)? {
        builder = builder.set_column_dictionary_enabled(column, false);
    }
    // Offsets only grow (by a game's length, or stay with the frame): deltas store them in a
    // few bits.
    for column in ["frame_offset", "byte_offset"] {
        builder = builder.set_column_encoding(ColumnPath::from(column), Encoding::DELTA_BINARY_PACKED);
    }
    // Unique per game (lichess_id) or nearly per event (the identity texts, which came out
    // larger with a dictionary): a dictionary cannot help.
    for column in ["lichess_id", "placement", "fen"] {
        builder = builder.set_column_dictionary_enabled(ColumnPath::from(column), false);
    }
    // Texts keep no minimum and maximum, but the partition's source and the PGN `Date`: names,
    // identities and free-form tags are in no useful order, and a value of a few categories
    // (result, status, variant) spans them on any page. They would never let a reader skip a
    // page or row group, and cost two comparisons per value on the writing thread. Numbers and
    // dates keep theirs (Lichess dumps are in date order; the report skips row groups by them).
    for column in columns_of(schema, &[PhysicalType::BYTE_ARRAY])? {
        if !matches!(column.string().as_str(), "source" | "Date") {
            builder = builder.set_column_statistics_enabled(column, EnabledStatistics::None);
        }
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

/// The summary's writer settings: uncompressed, so that a reader of its many small columns sets
/// up no decompressor per column (that was half of a report's time from the summary); its counts
/// delta-coded, which keeps the file as small as a dictionary did without a hash per value.
pub(crate) fn summary_properties(source: &str) -> Result<WriterProperties> {
    let summary = schema::summary::schema();
    let mut builder = writer_properties(source, &summary)?.into_builder().set_compression(Compression::UNCOMPRESSED);
    for column in columns_of(&summary, &INTEGERS)? {
        builder = builder.set_column_encoding(column, Encoding::DELTA_BINARY_PACKED);
    }
    Ok(builder.build())
}

const INTEGERS: [PhysicalType; 2] = [PhysicalType::INT32, PhysicalType::INT64];

/// The Parquet columns of `schema` stored as one of `types`, nested ones included.
fn columns_of(schema: &Schema, types: &[PhysicalType]) -> Result<Vec<ColumnPath>> {
    let parquet = ArrowSchemaConverter::new().convert(schema)?;
    Ok(parquet.columns().iter().filter(|c| types.contains(&c.physical_type())).map(|c| c.path().clone()).collect())
}

/// An output directory that is, or is becoming, a threefold dataset.
pub struct Dataset {
    root: PathBuf,
    manifest: Manifest,
}

impl Dataset {
    /// Opens `dir`, creating it if needed. Refuses a non-empty directory without a manifest, so
    /// that nothing of someone else's is overwritten.
    pub fn open(dir: &Path) -> Result<Dataset> {
        fs::create_dir_all(dir).with_context(|| format!("cannot create output directory {}", dir.display()))?;
        let root = fs::canonicalize(dir).with_context(|| format!("cannot resolve {}", dir.display()))?;
        // A run killed while writing its first manifest leaves only that temporary file (and
        // another run may be writing its own right now: left alone), and the lock files. The
        // manifest is looked for in the same listing: a run that starts beside another one sees
        // the other's first manifest before anything else it writes.
        let (mut has_manifest, mut empty) = (false, true);
        for entry in fs::read_dir(&root).with_context(|| format!("cannot list {}", root.display()))? {
            let name = entry.with_context(|| format!("cannot list {}", root.display()))?.file_name();
            let name = name.to_string_lossy();
            has_manifest |= name == MANIFEST;
            empty &= name.starts_with("_manifest.tmp-") || name == ".locks" || name == MANIFEST;
        }
        if !has_manifest && !empty {
            bail!(
                "{} is not empty and is not a threefold dataset (no {MANIFEST}); give --out a new or empty directory",
                root.display()
            );
        }
        // Read once: later updates change these entries in memory and write them out.
        let mut dataset = Dataset { manifest: Manifest::open(&root)?, root };
        if !has_manifest {
            // Mark the directory as a dataset before writing any data, so that a run killed
            // half-way can be rerun into it.
            dataset.manifest.write()?;
        }
        // Commits that a killed run left half done are finished first, with their entries.
        for (entry, committed) in commit::recover(&dataset.root, &TABLES)? {
            dataset.update_manifest(entry, Some(committed))?;
        }
        dataset.flush_manifest()?;
        Ok(dataset)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Starts writing the partition of `source`, or of one shard of it: `unit`
    /// ([`Partition::open`]).
    pub fn partition(
        &self,
        source: &str,
        unit: &str,
        key: ResumeKey,
        encoders: &Option<Arc<rayon::ThreadPool>>,
        summarize: partition::Summarize,
    ) -> Result<Partition> {
        Partition::open(&self.root, source, unit, key, encoders, summarize)
    }

    /// Writes `views.sql` ([`write_views`]).
    pub fn write_views(&self) -> Result<()> {
        write_views(&self.root)
    }

    /// Records `entry` in the manifest ([`Manifest::update`]); `committed` is the commit that
    /// wrote its partition.
    pub fn update_manifest(&mut self, entry: ManifestEntry, committed: Option<Committed>) -> Result<()> {
        self.manifest.update(entry, committed)
    }

    /// Writes the manifest if it has changes not yet written.
    pub fn flush_manifest(&mut self) -> Result<()> {
        self.manifest.flush()
    }

    /// Whether a complete partition of `source` exists.
    pub fn has_partition(&self, source: &str) -> bool {
        TABLES.iter().all(|t| commit::final_dir(&self.root.join(t), source).join(PART).is_file())
    }

    /// The temporary or replaced partition folders of `sources` that an interrupted run left, by
    /// source: one pass over each table's folder for the whole run, not one per input. A
    /// source's are removed ([`remove_leftovers`]) only once this run holds its lock: until
    /// then they may be another run's, still writing.
    pub fn leftovers(&self, sources: &[&str]) -> Result<HashMap<String, Vec<PathBuf>>> {
        let sources: HashSet<&str> = sources.iter().copied().collect();
        let mut found: HashMap<String, Vec<PathBuf>> = HashMap::new();
        for table in TABLES {
            let parent = self.root.join(table);
            let entries = match fs::read_dir(&parent) {
                Ok(entries) => entries,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e).with_context(|| format!("cannot list {}", parent.display())),
            };
            for entry in entries {
                let entry = entry.with_context(|| format!("cannot list {}", parent.display()))?;
                let name = entry.file_name();
                if let Some(source) = stale_source(&name.to_string_lossy()).filter(|s| sources.contains(s)) {
                    found.entry(source.to_owned()).or_default().push(entry.path());
                }
            }
        }
        Ok(found)
    }

    /// The manifest entry of `source`, if there is one.
    pub fn entry(&self, source: &str) -> Option<&ManifestEntry> {
        self.manifest.entry(source)
    }
}

/// Writes `DIR/views.sql`: DuckDB views over every partition, by absolute path (DuckDB resolves
/// a relative path from its working directory, not from the file). A dataset moved or copied
/// elsewhere gets views of its new place from `threefold views DIR` (or its next ingest).
/// After `FROM read_parquet(games…)`: one row per fingerprint, the first by source and key, as
/// `report --dedup` counts; games without one (skipped variants) are never copies, each kept.
/// It reads the files itself, not the `games` view, so redefining that view leaves it alone.
const UNIQUE: &str = " QUALIFY fingerprint IS NULL OR row_number() OVER (PARTITION BY fingerprint ORDER BY source, frame_offset, byte_offset) = 1";

pub fn write_views(dir: &Path) -> Result<()> {
    let (root, sql) = views_sql(dir)?;
    write_atomic(&root.join("views.sql"), sql.as_bytes())
}

/// The SQL [`write_views`] writes for the dataset where `dir` is now, and the dataset's absolute
/// path (also for a dataset one cannot write to: `threefold views --print`).
pub fn views_sql(dir: &Path) -> Result<(PathBuf, String)> {
    let root = fs::canonicalize(dir).with_context(|| format!("cannot resolve {}", dir.display()))?;
    if !root.join(MANIFEST).is_file() {
        bail!("{} is not a threefold dataset (no {MANIFEST})", root.display());
    }
    let mut sql = String::from(
        "-- DuckDB views over this threefold dataset; in duckdb: .read views.sql (any working directory)\n",
    );
    for table in TABLES {
        let glob = root.join(table).join("source=*").join("*.parquet");
        let glob = glob.to_string_lossy().replace('\'', "''");
        sql.push_str(&format!(
            "CREATE OR REPLACE VIEW {table} AS SELECT * FROM read_parquet('{glob}', hive_partitioning = true, union_by_name = true);\n"
        ));
    }
    let glob = root.join("games").join("source=*").join("*.parquet");
    sql.push_str(&format!(
        "CREATE OR REPLACE VIEW games_unique AS SELECT * FROM read_parquet('{}', hive_partitioning = true, union_by_name = true){UNIQUE};\n",
        glob.to_string_lossy().replace('\'', "''")
    ));
    Ok((root, sql))
}

/// Removes leftover partition folders (a folder gone meanwhile is fine).
pub fn remove_leftovers(paths: &[PathBuf]) -> Result<()> {
    for path in paths {
        match fs::remove_dir_all(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("cannot remove the leftover folder {}", path.display()));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether a partition was written with other rules or another schema than this tool's, so
/// that the next run over its input re-ingests it.
pub fn is_stale(entry: &ManifestEntry) -> bool {
    entry.rules_version.as_deref() != Some(RULES_VERSION) || entry.schema_version.as_deref() != Some(schema::version())
}

impl Drop for Dataset {
    /// A run that stops on an error still leaves a manifest of every partition it committed.
    fn drop(&mut self) {
        let _ = self.flush_manifest();
    }
}

/// The source whose temporary (`.tmp-source=NAME-PID`) or replaced (`.old-source=NAME-PID`)
/// partition directory `name` is.
fn stale_source(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(".tmp-source=").or_else(|| name.strip_prefix(".old-source="))?;
    let (source, pid) = rest.rsplit_once('-')?;
    (!pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())).then_some(source)
}

/// Writes `bytes` to a temporary file next to `path`, then renames it over `path`: a reader never
/// sees half a file, and a failed run leaves the earlier file intact.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    // A name no other run uses: runs on other machines may share the folder.
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let temp = path.with_extension(format!("tmp-{}-{nanos}", std::process::id()));
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

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// Leftovers of a killed run are recognized by their source, which may itself hold `-`.
    #[test]
    fn stale_directories_name_their_source() {
        assert_eq!(stale_source(".tmp-source=a-b-123"), Some("a-b"));
        assert_eq!(stale_source(".old-source=2024-01-9"), Some("2024-01"));
        assert_eq!(stale_source(".tmp-source=a-"), None);
        assert_eq!(stale_source(".tmp-source=a-b"), None);
        assert_eq!(stale_source("source=a"), None);
    }

    /// Only the given sources' leftovers go: another source's may be another run's, still writing.
    #[test]
    fn removes_the_leftovers_of_the_given_sources_only() {
        let dir = tempfile::tempdir().unwrap();
        let dataset = Dataset::open(dir.path()).unwrap();
        let names = [".tmp-source=a-1", ".old-source=a-2", ".tmp-source=a-b-3", "source=a", ".tmp-source=b-4"];
        for table in TABLES {
            for name in names {
                fs::create_dir_all(dir.path().join(table).join(name)).unwrap();
            }
        }
        let found = dataset.leftovers(&["a", "c"]).unwrap();
        assert_eq!(found.keys().collect::<Vec<_>>(), ["a"]);
        remove_leftovers(&found["a"]).unwrap();
        remove_leftovers(&found["a"]).unwrap(); // already gone: fine
        for table in TABLES {
            let mut left: Vec<String> = fs::read_dir(dir.path().join(table))
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            left.sort();
            assert_eq!(left, [".tmp-source=a-b-3", ".tmp-source=b-4", "source=a"]);
        }
    }

    fn listed(dir: &Path) -> usize {
        let manifest: Value = serde_json::from_slice(&fs::read(dir.join(MANIFEST)).unwrap()).unwrap();
        manifest["inputs"].as_array().unwrap().len()
    }

    /// Up to 100 sources, each entry is on disk as soon as it is recorded; beyond, entries may
    /// wait (rewriting a large manifest per small input made a run over 2,000 small files
    /// quadratic: 60 s, 70% of it JSON), and flushing, or dropping the dataset, writes them.
    #[test]
    fn a_large_manifest_is_written_in_batches_and_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let mut dataset = Dataset::open(dir.path()).unwrap();
        let entry = |i: usize| ManifestEntry { source: format!("s{i:04}"), games: 1, events: 2, ..Default::default() };
        for i in 0..manifest::EVERY_INPUT_UP_TO {
            dataset.update_manifest(entry(i), None).unwrap();
            assert_eq!(listed(dir.path()), i + 1);
        }
        for i in manifest::EVERY_INPUT_UP_TO..250 {
            dataset.update_manifest(entry(i), None).unwrap();
        }
        assert!((manifest::EVERY_INPUT_UP_TO..=250).contains(&listed(dir.path())));
        dataset.flush_manifest().unwrap();
        assert_eq!(listed(dir.path()), 250);

        // Reopened: the entries are read back, replaced by source, and written on drop.
        let mut dataset = Dataset::open(dir.path()).unwrap();
        for i in 200..300 {
            dataset.update_manifest(entry(i), None).unwrap();
        }
        drop(dataset);
        let manifest: Value = serde_json::from_slice(&fs::read(dir.path().join(MANIFEST)).unwrap()).unwrap();
        let sources: Vec<&str> =
            manifest["inputs"].as_array().unwrap().iter().map(|e| e["source"].as_str().unwrap()).collect();
        assert_eq!(sources, (0..300).map(|i| format!("s{i:04}")).collect::<Vec<_>>());
        assert_eq!((manifest["games"].as_u64(), manifest["events"].as_u64()), (Some(300), Some(600)));
    }

    /// Two runs into one dataset: each keeps the other's entries (the manifest is read again
    /// when someone else wrote it).
    #[test]
    fn another_runs_entries_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let entry = |source: &str| ManifestEntry { source: source.into(), games: 1, ..Default::default() };
        let mut a = Dataset::open(dir.path()).unwrap();
        a.update_manifest(entry("a1"), None).unwrap();
        let mut b = Dataset::open(dir.path()).unwrap();
        b.update_manifest(entry("b1"), None).unwrap();
        a.update_manifest(entry("a2"), None).unwrap();
        b.update_manifest(entry("b2"), None).unwrap();
        drop((a, b));
        let manifest: Value = serde_json::from_slice(&fs::read(dir.path().join(MANIFEST)).unwrap()).unwrap();
        let sources: Vec<&str> =
            manifest["inputs"].as_array().unwrap().iter().map(|e| e["source"].as_str().unwrap()).collect();
        assert_eq!(sources, ["a1", "a2", "b1", "b2"]);
        assert_eq!(manifest["games"], 4);
    }
}
