//! Putting a sharded source in place once all its shards are written.
//!
//! Each shard (`--shard K/N`) stages its parts under its own name (`source=NAME,shard=K-of-N`, see
//! [`crate::partition`]) and, when its span is done, marks its staging record complete
//! with its share of the manifest entry. No file is written by two shards, and no shard touches
//! the manifest. The source becomes visible in one commit ([`crate::commit`]), made by
//! whoever finds every shard complete while holding the source's lock: the last shard to finish,
//! or `threefold ingest --out DIR --finish`. Its parts are renamed into the new partition in shard
//! order, so that the partition lists the games in input order as one run's would.

use std::{
    collections::BTreeMap,
    fs,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result};

use super::{
    Dataset, TABLES, commit, lock,
    manifest::{InputStatus, ManifestEntry},
    partition::{Staging, Summarize, merge_summary, parts_present, read_record, record_path, staging_dir, unit_name},
};

/// What became of a sharded source.
#[derive(Debug)]
pub enum Finished {
    /// Every shard was complete: the source is committed, with this entry.
    Committed(Box<ManifestEntry>),
    /// These shards are not complete yet (or were written from another file, or with other
    /// rules or settings than the rest).
    Waiting(Vec<u32>),
    /// Another run holds the source (it finishes it).
    Busy(String),
}

/// Commits `source`, written by `n` shards, if every shard is complete. The shards must agree
/// with shard `by` (the one that asks), or without one with the shard written last (a file
/// changed between shards: the newer file's shards are the ones to keep).
pub fn finish(dataset: &mut Dataset, source: &str, n: u32, by: Option<u32>, summarize: Summarize) -> Result<Finished> {
    let root = dataset.root().to_owned();
    // Another shard may be looking at the records right now (and see this one's as not yet
    // complete): wait for it a little, so that the last shard to complete is the one that
    // commits. A run that holds the source for longer is writing it whole: leave it the source.
    let mut tries = 0;
    let _lock = loop {
        match lock::try_source(&root, source)? {
            Ok(lock) => break lock,
            Err(_) if tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            Err(holder) => return Ok(Finished::Busy(holder)),
        }
    };
    let units: Vec<String> = (0..n).map(|k| unit_name(source, Some((k, n)))).collect();
    let records: Vec<Option<Staging>> = units.iter().map(|unit| read_record(&root, unit)).collect();
    // The shards must agree with the first on everything but their number.
    let same = |a: &Staging, b: &Staging| {
        let (mut a, mut b) = (a.key.clone(), b.key.clone());
        (a.shard, b.shard) = (None, None);
        a == b
    };
    let written = |k: u32| fs::metadata(record_path(&root, &units[k as usize])).and_then(|m| m.modified()).ok();
    let by = by.or_else(|| (0..n).filter(|&k| records[k as usize].is_some()).max_by_key(|&k| written(k)));
    let reference = by.and_then(|k| records[k as usize].clone());
    let missing: Vec<u32> = (0..n)
        .filter(|&k| {
            let ok = records[k as usize].as_ref().is_some_and(|r| {
                r.complete.is_some()
                    && reference.as_ref().is_some_and(|first| same(first, r))
                    && parts_present(&root, &units[k as usize], r)
            });
            !ok
        })
        .collect();
    if !missing.is_empty() {
        return Ok(Finished::Waiting(missing));
    }
    let records: Vec<Staging> = records.into_iter().flatten().collect();
    let entry = merged_entry(&records, n);
    let pid = std::process::id();
    let mut temps = Vec::new();
    for table in TABLES {
        let parent = root.join(table);
        let temp = commit::temp_dir(&parent, source, pid);
        fs::create_dir_all(&temp).with_context(|| format!("cannot create {}", temp.display()))?;
        let mut number = 0u32;
        for (unit, record) in units.iter().zip(&records) {
            let staging = staging_dir(&parent, unit);
            for part in 0..record.parts {
                let from = staging.join(format!("part-{part:05}.parquet"));
                let to = temp.join(format!("part-{number:05}.parquet"));
                fs::rename(&from, &to)
                    .with_context(|| format!("cannot rename {} to {}", from.display(), to.display()))?;
                number += 1;
            }
        }
        temps.push(temp);
    }
    merge_summary(&temps[2], source, summarize)?;
    let temp_refs: Vec<&Path> = temps.iter().map(PathBuf::as_path).collect();
    let committed = commit::begin(&root, source, &temp_refs, &entry)?;
    for (temp, table) in temps.iter().zip(TABLES) {
        commit::swap(temp, &commit::final_dir(&root.join(table), source))?;
    }
    for unit in &units {
        for table in TABLES {
            let _ = fs::remove_dir_all(staging_dir(&root.join(table), unit));
        }
        let _ = fs::remove_file(record_path(&root, unit));
    }
    let _ = fs::remove_dir(root.join(".staging"));
    dataset.update_manifest(entry.clone(), Some(committed))?;
    Ok(Finished::Committed(Box::new(entry)))
}

/// The source's entry: the first shard's, with every count summed over the shards.
fn merged_entry(records: &[Staging], n: u32) -> ManifestEntry {
    let shares: Vec<&ManifestEntry> = records.iter().filter_map(|r| r.complete.as_ref()).collect();
    let mut entry = shares[0].clone();
    let sum = |f: fn(&ManifestEntry) -> u64| shares.iter().map(|e| f(e)).sum::<u64>();
    entry.games = sum(|e| e.games);
    entry.events = sum(|e| e.events);
    entry.games_with_errors = sum(|e| e.games_with_errors);
    entry.skipped_variants = sum(|e| e.skipped_variants);
    entry.decompressed_bytes = sum(|e| e.decompressed_bytes);
    entry.seconds = (shares.iter().map(|e| e.seconds).sum::<f64>() * 1000.0).round() / 1000.0;
    let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
    for share in &shares {
        for (kind, count) in &share.events_by_kind {
            *kinds.entry(kind.clone()).or_default() += count;
        }
    }
    entry.events_by_kind = kinds;
    entry.status = InputStatus::Ok;
    entry.shards = Some(n);
    entry
}

/// The sharded sources with staging records in the dataset, and their number of shards.
pub fn pending(dataset: &Dataset) -> Result<BTreeMap<String, u32>> {
    let dir = dataset.root().join(".staging");
    let mut found = BTreeMap::new();
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(found),
        Err(e) => return Err(e).with_context(|| format!("cannot list {}", dir.display())),
    };
    for entry in entries {
        let name = entry.with_context(|| format!("cannot list {}", dir.display()))?.file_name();
        let name = name.to_string_lossy();
        let parsed = name.strip_prefix("source=").and_then(|rest| rest.strip_suffix(".json")).and_then(|rest| {
            let (source, shard) = rest.split_once(",shard=")?;
            let (_, n) = shard.split_once("-of-")?;
            Some((source.to_owned(), n.parse::<u32>().ok()?))
        });
        if let Some((source, n)) = parsed {
            found.insert(source, n);
        }
    }
    Ok(found)
}
