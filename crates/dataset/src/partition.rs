//! Writing one source's partition in parts, so that a kill loses minutes, not the input.
//!
//! Games and events go to parts of about [`Partition::part_games`] games each (a part ends at
//! the first chunk boundary past that many; its games and their events are in the two tables'
//! part files of the same number, and the `summary` file of the same number holds their counts:
//! [`Summarizer`], merged into one file per source at the commit: [`merge_summary`]). A part's files are written under temporary names, synced and
//! renamed into the source's staging folders (`games/.staging-source=NAME/`,
//! `events/…`, `summary/…`) when the part is complete; then the staging record
//! (`DIR/.staging/source=NAME.json`) lists it, with the counts so far and the decompressed byte
//! where the next part starts. Readers never see staged parts (the views and `source=` globs do
//! not match them). When the input is read to its end, the staging folders are renamed to the
//! temporary names of [`commit`] and the whole source is put in place in one commit.
//!
//! A run killed while writing leaves the staged parts; the next run over the same input (same
//! fingerprint, rules, schema, part size and chunk size: then the chunks, and so the parts, fall
//! where they fell) resumes after the last staged part, reading the input up to there without
//! replaying it. Anything else starts the source afresh.

use std::{
    fs::{self, File},
    path::{Path, PathBuf},
    sync::Arc,
};

use anyhow::{Context, Result, bail};
use arrow_array::RecordBatch;
use serde::{Deserialize, Serialize};

use super::{
    TABLES, commit,
    manifest::{Committed, ManifestEntry},
    parquet_file::ParallelWriter,
    schema, summary_properties, write_atomic, writer_properties,
};
use crate::read::key::GameKey;

/// Counts a part's games for its `summary` file as they are written: the report's own counts
/// (`threefold-count`, which reads the dataset and so sits above it), handed in by `ingest`
/// ([`Summarize`]).
pub trait Summarizer: Send {
    /// Counts a chunk's games and their events (both tables' rows of the chunk).
    fn add(&mut self, games: &RecordBatch, events: &RecordBatch) -> Result<()>;
    /// Adds the rows of a summary batch that `finish` wrote for another part of the source: the
    /// parts' summaries are merged into one per source at its commit ([`merge_summary`]).
    fn merge(&mut self, summary: &RecordBatch) -> Result<()>;
    /// The summary rows of the games added (and rows merged) since the last call, every one
    /// under `source`.
    fn finish(&mut self, source: &str) -> Result<RecordBatch>;
}

/// Makes the [`Summarizer`] of a partition.
pub type Summarize = fn() -> Box<dyn Summarizer>;

/// A summarizer that counts nothing (an empty summary), for this folder's own tests.
#[cfg(test)]
pub(crate) fn empty_summary() -> Box<dyn Summarizer> {
    struct Empty;
    impl Summarizer for Empty {
        fn add(&mut self, _: &RecordBatch, _: &RecordBatch) -> Result<()> {
            Ok(())
        }
        fn merge(&mut self, _: &RecordBatch) -> Result<()> {
            Ok(())
        }
        fn finish(&mut self, source: &str) -> Result<RecordBatch> {
            Ok(schema::summary::Builder::default().finish(source)?)
        }
    }
    Box::new(Empty)
}

/// Games per part unless `--part-games` says otherwise: about 100 MB of `games` Parquet, a few
/// seconds to a minute of replay depending on the cores.
pub const PART_GAMES: u64 = 1_000_000;

/// The rows written, counted: games (with those whose replay stopped on an error and those
/// skipped apart) and events by kind; summed over chunks, parts and inputs.
#[derive(Default, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowCounts {
    pub games: u64,
    /// Games whose replay stopped on an error.
    pub errors: u64,
    /// Games in a variant that is not replayed.
    pub skipped: u64,
    /// Events by kind, in `EventKind::ALL` order.
    pub events: [u64; 4],
}

impl RowCounts {
    pub fn add(&mut self, other: &RowCounts) {
        self.games += other.games;
        self.errors += other.errors;
        self.skipped += other.skipped;
        for (a, b) in self.events.iter_mut().zip(other.events) {
            *a += b;
        }
    }

    /// Counts one replayed game: its status and its events by kind.
    #[inline]
    pub fn add_game(&mut self, game: &crate::pgn::Game) {
        match game.status() {
            crate::pgn::GameStatus::Error => self.errors += 1,
            crate::pgn::GameStatus::Skipped => self.skipped += 1,
            crate::pgn::GameStatus::Ok => {}
        }
        for event in game.analysis.iter().flat_map(|a| &a.events) {
            self.events[event.kind() as usize] += 1;
        }
        self.games += 1;
    }

    pub fn event_total(&self) -> u64 {
        self.events.iter().sum()
    }
}

/// What must be the same for a run to go on from another's staged parts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResumeKey {
    pub size: Option<u64>,
    pub fingerprint: Option<String>,
    pub rules_version: String,
    pub schema_version: String,
    pub part_games: u64,
    pub chunk_bytes: usize,
    /// The shard (`K/N`) whose partition this is, if the source is sharded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// The files of a Parquet input whose rows a committed partition holds, when this one goes
    /// on from it with the files added after them ([`super::continuation`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_files: Option<u32>,
    /// The venue `ingest --venue` gave every game, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub venue: Option<String>,
}

/// The staging record of a source (or of one shard of it).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Staging {
    pub source: String,
    pub key: ResumeKey,
    /// Counts over the staged parts, the key of their last game (the next part starts after
    /// it), and the decompressed bytes they cover.
    pub counts: RowCounts,
    pub last: Option<GameKey>,
    pub bytes: u64,
    pub parts: u32,
    /// A shard's partition: all of it is staged ([`Partition::complete`]), with its manifest
    /// entry so far; the source is committed once every shard's is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complete: Option<ManifestEntry>,
    /// The first parts are a committed partition's, reopened ([`super::continuation`]): their
    /// summary is one file already merged, part 0's.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reopened_parts: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One table's files of the partition.
pub(crate) struct Table {
    writer: Option<ParallelWriter>,
    staging: PathBuf,
    final_dir: PathBuf,
    schema: arrow_schema::SchemaRef,
    /// The summary is written uncompressed: a reader of its many small columns then sets up no
    /// decompressor per column (that was half of a report's time from the summary).
    compressed: bool,
}

impl Table {
    pub(crate) fn part_name(part: u32) -> String {
        format!("part-{part:05}.parquet")
    }

    fn temp_file(&self, part: u32) -> PathBuf {
        self.staging.join(format!("{}.tmp", Table::part_name(part)))
    }

    fn open(&mut self, part: u32, source: &str, encoders: &Option<Arc<rayon::ThreadPool>>) -> Result<()> {
        let path = self.temp_file(part);
        let file = File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
        let properties =
            if self.compressed { writer_properties(source, &self.schema)? } else { summary_properties(source)? };
        self.writer = Some(ParallelWriter::try_new(file, self.schema.clone(), properties, encoders.clone())?);
        Ok(())
    }

    fn write(&mut self, batch: &RecordBatch, part: u32) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let Some(writer) = self.writer.as_mut() else { bail!("internal error: table already closed") };
        writer.write(batch).with_context(|| format!("cannot write {}", self.temp_file(part).display()))
    }

    /// Closes the part's file, syncs it and gives it its name in the staging folder.
    fn close(&mut self, part: u32) -> Result<()> {
        let Some(writer) = self.writer.take() else { return Ok(()) };
        let temp = self.temp_file(part);
        writer.close().with_context(|| format!("cannot finish {}", temp.display()))?;
        File::open(&temp).and_then(|f| f.sync_all()).with_context(|| format!("cannot sync {}", temp.display()))?;
        let done = self.staging.join(Table::part_name(part));
        fs::rename(&temp, &done).with_context(|| format!("cannot rename {} to {}", temp.display(), done.display()))
    }

    /// Drops the part being written (its staged parts stay).
    fn drop_current(&mut self, part: u32) {
        if self.writer.take().is_some() {
            let _ = fs::remove_file(self.temp_file(part));
        }
    }
}

/// Makes the summary of a partition being committed one file, `part-00000.parquet` in `dir`:
/// each part wrote its own rows, which a source of many parts (a monthly dump holds ninety)
/// would multiply; their counts add up by key, and the example candidates keep their first by
/// rank. `dir` is the summary's temporary folder, which nothing reads before the commit (a kill
/// here leaves it to be discarded like the rest of the uncommitted partition).
pub(crate) fn merge_summary(dir: &Path, source: &str, summarize: Summarize) -> Result<()> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    files.retain(|p| p.extension().is_some_and(|x| x == "parquet"));
    if files.len() < 2 {
        return Ok(());
    }
    files.sort();
    let mut summarizer = summarize();
    for path in &files {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .and_then(|b| b.build())
            .with_context(|| format!("cannot read {}", path.display()))?;
        for batch in reader {
            summarizer.merge(&batch?).with_context(|| format!("in {}", path.display()))?;
        }
    }
    let merged = summarizer.finish(source)?;
    let temp = dir.join(".merged.parquet.tmp");
    let file = File::create(&temp).with_context(|| format!("cannot create {}", temp.display()))?;
    let mut writer = ParallelWriter::try_new(file, schema::summary::schema(), summary_properties(source)?, None)?;
    writer.write(&merged)?;
    writer.close().with_context(|| format!("cannot finish {}", temp.display()))?;
    File::open(&temp).and_then(|f| f.sync_all()).with_context(|| format!("cannot sync {}", temp.display()))?;
    for path in &files {
        fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))?;
    }
    let done = dir.join(Table::part_name(0));
    fs::rename(&temp, &done).with_context(|| format!("cannot rename {} to {}", temp.display(), done.display()))
}

/// The games and events of one source being written.
pub struct Partition {
    root: PathBuf,
    source: String,
    encoders: Option<Arc<rayon::ThreadPool>>,
    tables: [Table; 3],
    summarizer: Box<dyn Summarizer>,
    summarize: Summarize,
    record: PathBuf,
    staging: Staging,
    /// Counts of the part being written, its last game's key and its decompressed bytes.
    current: RowCounts,
    current_last: Option<GameKey>,
    current_bytes: u64,
    /// Whether a staging record exists (written by this run or the one resumed).
    recorded: bool,
}

/// The name of a partition being written: a source's, or one shard's of it.
pub fn unit_name(source: &str, shard: Option<(u32, u32)>) -> String {
    match shard {
        None => format!("source={source}"),
        Some((k, n)) => format!("source={source},shard={k}-of-{n}"),
    }
}

pub(crate) fn record_path(root: &Path, unit: &str) -> PathBuf {
    root.join(".staging").join(format!("{unit}.json"))
}

pub(crate) fn staging_dir(table: &Path, unit: &str) -> PathBuf {
    table.join(format!(".staging-{unit}"))
}

/// The staging record of `unit`, if there is one that reads.
pub fn read_record(root: &Path, unit: &str) -> Option<Staging> {
    serde_json::from_slice(&fs::read(record_path(root, unit)).ok()?).ok()
}

/// Whether the staged parts `staging` lists are all there.
pub(crate) fn parts_present(root: &Path, unit: &str, staging: &Staging) -> bool {
    // A reopened partition's summary is merged: part 0's file holds its parts' rows.
    let merged = |table: &str, part: u32| table == "summary" && part > 0 && part < staging.reopened_parts;
    (0..staging.parts).all(|part| {
        TABLES
            .iter()
            .all(|t| merged(t, part) || staging_dir(&root.join(t), unit).join(Table::part_name(part)).is_file())
    })
}

/// The staging record of `unit` if it is one to resume with `key`: its parts all there.
pub fn resumable(root: &Path, source: &str, unit: &str, key: &ResumeKey) -> Option<Staging> {
    let staging = read_record(root, unit)?;
    (staging.source == source && staging.key == *key && parts_present(root, unit, &staging)).then_some(staging)
}

/// Removes the staged parts of `unit` and their record: an interrupted attempt at an input
/// found up to date since (the caller holds the unit's lock).
pub fn discard_staging(root: &Path, unit: &str) -> Result<()> {
    for table in TABLES {
        let staging = staging_dir(&root.join(table), unit);
        match fs::remove_dir_all(&staging) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("cannot remove {}", staging.display()));
            }
            _ => {}
        }
    }
    let record = record_path(root, unit);
    if fs::remove_file(&record).is_ok()
        && let Some(dir) = record.parent()
    {
        let _ = fs::remove_dir(dir);
    }
    Ok(())
}

impl Partition {
    /// Starts writing `source`'s partition, going on from staged parts when `key` matches them
    /// (else removing them); columns are encoded on `encoders` (or on the writing thread). The
    /// caller holds the source's lock.
    pub fn open(
        root: &Path,
        source: &str,
        unit: &str,
        key: ResumeKey,
        encoders: &Option<Arc<rayon::ThreadPool>>,
        summarize: Summarize,
    ) -> Result<Partition> {
        let record = record_path(root, unit);
        let resumed = resumable(root, source, unit, &key);
        let mut tables = Vec::new();
        for (table, schema) in
            TABLES.into_iter().zip([schema::games_schema(), schema::events_schema(), schema::summary::schema()])
        {
            let parent = root.join(table);
            let staging = staging_dir(&parent, unit);
            if resumed.is_none() && staging.exists() {
                fs::remove_dir_all(&staging).with_context(|| format!("cannot remove {}", staging.display()))?;
            }
            fs::create_dir_all(&staging).with_context(|| format!("cannot create {}", staging.display()))?;
            let compressed = table != "summary";
            tables.push(Table {
                writer: None,
                staging,
                final_dir: commit::final_dir(&parent, source),
                schema,
                compressed,
            });
        }
        let Ok(tables) = <[Table; 3]>::try_from(tables) else { bail!("internal error: three tables") };
        let recorded = resumed.is_some() || record.exists();
        let staging = resumed.unwrap_or(Staging {
            source: source.to_owned(),
            key,
            counts: RowCounts::default(),
            last: None,
            bytes: 0,
            parts: 0,
            complete: None,
            reopened_parts: 0,
        });
        let mut partition = Partition {
            root: root.to_owned(),
            source: source.to_owned(),
            encoders: encoders.clone(),
            tables,
            summarizer: summarize(),
            summarize,
            record,
            staging,
            current: RowCounts::default(),
            current_last: None,
            current_bytes: 0,
            recorded,
        };
        partition.open_part()?;
        Ok(partition)
    }

    /// What staged parts already hold: their counts, the key of their last game (the input
    /// goes on after it; `None` when starting afresh), their decompressed bytes and their number.
    pub fn resumed(&self) -> (&RowCounts, Option<GameKey>, u64, u32) {
        (&self.staging.counts, self.staging.last, self.staging.bytes, self.staging.parts)
    }

    fn open_part(&mut self) -> Result<()> {
        let part = self.staging.parts;
        for table in &mut self.tables {
            table.open(part, &self.source, &self.encoders)?;
        }
        Ok(())
    }

    /// Writes one chunk's rows (games, events), and counts them for the part's summary.
    pub fn write(&mut self, games: &RecordBatch, events: &RecordBatch) -> Result<()> {
        let part = self.staging.parts;
        self.tables[0].write(games, part)?;
        self.tables[1].write(events, part)?;
        self.summarizer.add(games, events)
    }

    /// Counts the chunk just written: its last game's key and the decompressed bytes it
    /// covers; the part is staged once it holds `part_games` games.
    pub fn chunk_done(&mut self, counts: &RowCounts, last: Option<GameKey>, bytes: u64) -> Result<()> {
        self.current.add(counts);
        self.current_bytes += bytes;
        if last.is_some() {
            self.current_last = last;
        }
        if self.current.games < self.staging.key.part_games {
            return Ok(());
        }
        self.stage_part()?;
        self.write_record()?;
        self.open_part()
    }

    /// Closes the current part into the staging folders.
    fn stage_part(&mut self) -> Result<()> {
        let part = self.staging.parts;
        let summary = self.summarizer.finish(&self.source)?;
        self.tables[2].write(&summary, part)?;
        for table in &mut self.tables {
            table.close(part)?;
        }
        self.staging.parts += 1;
        self.staging.counts.add(&self.current);
        self.staging.bytes += std::mem::take(&mut self.current_bytes);
        self.staging.last = self.current_last.or(self.staging.last);
        self.current = RowCounts::default();
        Ok(())
    }

    /// A shard's partition is written: its last part is staged and its record says so, with
    /// `entry`, the shard's share of the source's manifest entry. The source is committed by
    /// [`crate::shards`] once every shard is complete.
    pub fn complete(mut self, entry: &ManifestEntry) -> Result<()> {
        let part = self.staging.parts;
        if self.current.games > 0 || part == 0 {
            self.stage_part()?;
        } else {
            self.tables.iter_mut().for_each(|t| t.drop_current(part));
        }
        self.staging.complete = Some(entry.clone());
        self.write_record()
    }

    /// Records the staged parts, for a later run to resume after them.
    fn write_record(&mut self) -> Result<()> {
        let dir = self.root.join(".staging");
        fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        write_atomic(&self.record, &serde_json::to_vec_pretty(&self.staging)?)?;
        self.recorded = true;
        Ok(())
    }

    /// Stages the last part and puts the whole source in place, replacing its previous
    /// partition, as one commit (see [`crate::commit`]); `entry` is the source's
    /// manifest entry, to be recorded with `Dataset::update_manifest`.
    pub fn commit(mut self, entry: &ManifestEntry) -> Result<Committed> {
        let committed = self.finish(entry);
        if committed.is_err() {
            // An output error: nothing of this attempt stays (what was swapped in already is the
            // commit record's, which the next run finishes).
            self.abort();
        }
        committed
    }

    fn finish(&mut self, entry: &ManifestEntry) -> Result<Committed> {
        let part = self.staging.parts;
        // The last part needs no record: the commit follows at once (a small input, one part,
        // writes none).
        if self.current.games > 0 || part == 0 {
            self.stage_part()?;
        } else {
            // The last chunk closed a part: the one opened after it stays empty.
            self.tables.iter_mut().for_each(|t| t.drop_current(part));
        }
        // The commit protocol knows a partition being committed by its temporary name.
        let pid = std::process::id();
        let mut temps = Vec::new();
        for (table, files) in TABLES.iter().zip(&self.tables) {
            let temp = commit::temp_dir(&self.root.join(table), &self.source, pid);
            fs::rename(&files.staging, &temp)
                .with_context(|| format!("cannot rename {} to {}", files.staging.display(), temp.display()))?;
            temps.push(temp);
        }
        merge_summary(&temps[2], &self.source, self.summarize)?;
        let temp_refs: Vec<&Path> = temps.iter().map(PathBuf::as_path).collect();
        let committed = commit::begin(&self.root, &self.source, &temp_refs, entry)?;
        for (temp, files) in temps.iter().zip(&self.tables) {
            commit::swap(temp, &files.final_dir)?;
        }
        self.remove_record();
        Ok(committed)
    }

    /// Drops everything written, staged parts too (the input failed): no file of it remains.
    pub fn abort(&mut self) {
        let part = self.staging.parts;
        for table in &mut self.tables {
            table.drop_current(part);
            let _ = fs::remove_dir_all(&table.staging);
        }
        self.remove_record();
    }

    /// Removes the staging record, and its folder once no source has one.
    fn remove_record(&self) {
        if !self.recorded {
            return;
        }
        let _ = fs::remove_file(&self.record);
        if let Some(dir) = self.record.parent() {
            let _ = fs::remove_dir(dir);
        }
    }
}

impl Drop for Partition {
    /// A partition dropped unfinished (an output error) leaves its staged parts for the next run.
    fn drop(&mut self) {
        let part = self.staging.parts;
        for table in &mut self.tables {
            table.drop_current(part);
        }
    }
}
