//! `DIR/_manifest.json`: one entry per input (by its source), rewritten whole and atomically as
//! inputs finish, keeping the entries another run wrote meanwhile.

use std::{
    collections::{BTreeMap, HashSet},
    fs, io,
    path::{Path, PathBuf},
    time::{Duration, Instant, SystemTime},
};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{RULES_VERSION, TOOL_VERSION, lock, write_atomic};

pub const MANIFEST: &str = "_manifest.json";

/// A commit whose folders are in place ([`crate::commit`]); its record is removed once
/// the manifest lists its entry.
#[must_use]
pub struct Committed(pub(crate) PathBuf);

/// What the last run did with an input.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputStatus {
    /// Ingested: its partition holds every game of the input.
    #[default]
    Ok,
    /// Found unchanged since it was ingested (same size and sampled content, same rules and
    /// schema): its partition was left as it was.
    UpToDate,
    /// It could not be read to its end (or its SHA-256 was not the one expected); nothing of this
    /// attempt was written.
    Failed,
}

impl InputStatus {
    /// Whether the partition holds every game of the input as recorded.
    pub fn is_complete(self) -> bool {
        matches!(self, InputStatus::Ok | InputStatus::UpToDate)
    }
}

/// One input's entry. Fields in sorted order, as the manifest has always listed them; fields
/// another version wrote are kept as they were (`other`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ManifestEntry {
    /// `zstd`, `bzip2`, `gzip` or `none`; null when the input could not be opened.
    pub compression: Option<String>,
    pub decompressed_bytes: u64,
    /// Why the input failed.
    pub error: Option<String>,
    /// The decompressed byte where reading failed (from the start of the pzstd frame
    /// `error_frame_offset`, when that is given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_frame_offset: Option<u64>,
    pub error_offset: Option<u64>,
    pub events: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events_before_error: Option<u64>,
    pub events_by_kind: BTreeMap<String, u64>,
    /// A Parquet input's files in name order, each as it was when ingested: a later run that
    /// finds these unchanged and files added after them reads only the added ones.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileEntry>,
    /// Of `files`, how many the run that wrote the entry kept (their rows already in the
    /// partition) and how many it read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_kept: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_read: Option<u32>,
    /// SHA-256 of the input's size and sampled bytes ([`crate::ingest::fingerprint`]).
    pub fingerprint: Option<String>,
    pub games: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games_before_error: Option<u64>,
    pub games_with_errors: u64,
    /// When the input was last modified, in nanoseconds since the Unix epoch.
    pub modified_unix_ns: Option<u64>,
    /// The input's absolute path, or `-` for stdin.
    pub path: String,
    /// The rules and the tables' schema the partition was written with: another than the
    /// running tool's makes the partition stale (re-ingested by the next run).
    pub rules_version: Option<String>,
    pub schema_version: Option<String>,
    /// Seconds of ingest (for a sharded source, summed over its shards).
    pub seconds: f64,
    /// The input's SHA-256, when it was checked against `--verify-sha256`.
    pub sha256: Option<String>,
    /// The number of shards (`--shard K/N`) that wrote the partition; absent for one run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shards: Option<u32>,
    /// The input's size in bytes (null for stdin).
    pub size: Option<u64>,
    pub skipped_variants: u64,
    pub source: String,
    pub status: InputStatus,
    pub tool_version: Option<String>,
    /// The venue `ingest --venue` gave every game; absent where each game's tags decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub venue: Option<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// One file of a Parquet input, as its manifest entry records it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    /// The file's name (in the input's folder).
    pub name: String,
    pub size: u64,
    /// Its own fingerprint ([`crate::ingest::fingerprint`]).
    pub fingerprint: String,
    /// Its row groups: the keys of the next file's games count on from them.
    pub row_groups: u64,
}

/// The manifest is rewritten after every input while it lists at most this many; beyond, a
/// rewrite (parsing nothing, but serializing every entry) would cost more than a small input, so
/// it is rewritten at most every [`INTERVAL`] (and at the end).
pub const EVERY_INPUT_UP_TO: usize = 100;
const INTERVAL: Duration = Duration::from_secs(1);

/// A file's modification time and length.
type Stamp = (SystemTime, u64);

fn stamp(path: &Path) -> Option<Stamp> {
    fs::metadata(path).ok().and_then(|m| Some((m.modified().ok()?, m.len())))
}

/// The manifest as this run knows it.
pub struct Manifest {
    path: PathBuf,
    /// Entries by source (what is on disk plus `pending` changes), and entries that are not an
    /// input's (not ours, but kept), which are listed first.
    inputs: BTreeMap<String, ManifestEntry>,
    unnamed: Vec<Value>,
    pending: bool,
    /// When the manifest was last written, and how long that took.
    written: Option<(Instant, Duration)>,
    /// The sources this run recorded, and the file as this run last read or wrote it: if it
    /// changed since, another run wrote it, and its entries for other sources are kept.
    ours: HashSet<String>,
    stamp: Option<Stamp>,
    /// Commits whose entries are recorded but not yet written: their records go once they are.
    committed: Vec<Committed>,
}

/// The entries of the manifest at `path` (none if it does not exist or is not JSON).
fn read_entries(path: &Path) -> Result<(BTreeMap<String, ManifestEntry>, Vec<Value>)> {
    let listed = match fs::read(path) {
        Ok(bytes) => serde_json::from_slice::<Value>(&bytes)
            .ok()
            .and_then(|v| v.get("inputs").and_then(Value::as_array).cloned())
            .unwrap_or_default(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let (mut inputs, mut unnamed) = (BTreeMap::new(), Vec::new());
    for value in listed {
        let has_source = value.get("source").is_some_and(Value::is_string);
        match serde_json::from_value::<ManifestEntry>(value.clone()) {
            Ok(entry) if has_source => _ = inputs.insert(entry.source.clone(), entry),
            _ => unnamed.push(value),
        }
    }
    Ok((inputs, unnamed))
}

impl Manifest {
    /// Reads the manifest in `root` (empty if there is none).
    pub fn open(root: &Path) -> Result<Manifest> {
        let path = root.join(MANIFEST);
        let stamp = stamp(&path);
        let (inputs, unnamed) = read_entries(&path)?;
        Ok(Manifest {
            path,
            inputs,
            unnamed,
            pending: false,
            written: None,
            ours: HashSet::new(),
            stamp,
            committed: Vec::new(),
        })
    }

    /// The entry of `source`, if the manifest lists one.
    pub fn entry(&self, source: &str) -> Option<&ManifestEntry> {
        self.inputs.get(source)
    }

    /// Every input entry, by source.
    pub fn entries(&self) -> impl Iterator<Item = &ManifestEntry> {
        self.inputs.values()
    }

    /// Records `entry`, replacing the entry of its source and keeping the others, and rewrites
    /// the manifest: at once while it lists at most [`EVERY_INPUT_UP_TO`] inputs, otherwise once
    /// [`INTERVAL`] (or ten times the last rewrite's duration) has passed; [`Self::flush`] writes
    /// what is left. `committed`, the commit that wrote the entry's partition, has its record
    /// removed once the entry is written.
    pub fn update(&mut self, entry: ManifestEntry, committed: Option<Committed>) -> Result<()> {
        self.committed.extend(committed);
        self.ours.insert(entry.source.clone());
        self.inputs.insert(entry.source.clone(), entry);
        self.pending = true;
        let due = self.inputs.len() <= EVERY_INPUT_UP_TO
            || self.written.is_none_or(|(at, took)| at.elapsed() >= INTERVAL.max(took * 10));
        if due { self.write() } else { Ok(()) }
    }

    /// Writes the manifest if it has changes not yet written.
    pub fn flush(&mut self) -> Result<()> {
        if self.pending { self.write() } else { Ok(()) }
    }

    pub fn write(&mut self) -> Result<()> {
        let started = Instant::now();
        // One run at a time reads, merges and rewrites the file: two rewriting it at once would
        // lose each other's entries.
        let _lock = lock::manifest(self.path.parent().unwrap_or(Path::new(".")))?;
        if stamp(&self.path) != self.stamp {
            // Written by another run since: its entries, with this run's over them.
            let (mut inputs, unnamed) = read_entries(&self.path)?;
            for source in &self.ours {
                if let Some(entry) = self.inputs.remove(source) {
                    inputs.insert(source.clone(), entry);
                }
            }
            (self.inputs, self.unnamed) = (inputs, unnamed);
        }
        let mut text = serde_json::to_vec_pretty(&Written::of(self))?;
        text.push(b'\n');
        write_atomic(&self.path, &text)?;
        self.stamp = stamp(&self.path);
        self.pending = false;
        for Committed(record) in self.committed.drain(..) {
            match fs::remove_file(&record) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    return Err(e).with_context(|| format!("cannot remove {}", record.display()));
                }
                _ => {}
            }
        }
        self.written = Some((Instant::now(), started.elapsed()));
        Ok(())
    }
}

/// The manifest file's contents, borrowing the entries (fields in sorted order).
#[derive(Serialize)]
struct Written<'a> {
    events: u64,
    games: u64,
    inputs: Entries<'a>,
    rules_version: &'a str,
    tables: Value,
    tool: &'a str,
    version: &'a str,
}

struct Entries<'a>(&'a Manifest);

impl Serialize for Entries<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(untagged)]
        enum Either<'a> {
            Unnamed(&'a Value),
            Input(&'a ManifestEntry),
        }
        let m = self.0;
        s.collect_seq(m.unnamed.iter().map(Either::Unnamed).chain(m.inputs.values().map(Either::Input)))
    }
}

impl<'a> Written<'a> {
    fn of(m: &'a Manifest) -> Written<'a> {
        let unnamed = |key: &str| -> u64 { m.unnamed.iter().filter_map(|v| v.get(key).and_then(Value::as_u64)).sum() };
        Written {
            events: unnamed("events") + m.inputs.values().map(|e| e.events).sum::<u64>(),
            games: unnamed("games") + m.inputs.values().map(|e| e.games).sum::<u64>(),
            inputs: Entries(m),
            rules_version: RULES_VERSION,
            tables: json!({
                "events": "events/source=<name>/part-00000.parquet",
                "games": "games/source=<name>/part-00000.parquet",
                "summary": "summary/source=<name>/part-00000.parquet"
            }),
            tool: "threefold",
            version: TOOL_VERSION,
        }
    }
}
