//! Replacing a source's partition — its `games`, `events` and `summary` folders — together, even
//! across a kill.
//!
//! Each folder is swapped in by one rename ([`swap`]), but no rename replaces two folders: a kill
//! between the two swaps left new games beside old events. So a commit first writes a record,
//! `DIR/.commit-source=NAME-PID.json`, that names each new folder by its inode (a rename keeps
//! it) and holds the source's manifest entry; the record goes once the manifest lists that entry.
//! A later run that finds the record of a run no longer alive finishes the commit ([`recover`]):
//! it swaps in each folder not yet in place and records the entry. So a kill leaves the old
//! partition, or — from the next run's start — the new one with its manifest entry.

use std::{
    fs, io,
    path::{Path, PathBuf},
};

use super::manifest::{Committed, ManifestEntry};
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

const RECORD_PREFIX: &str = ".commit-source=";

/// What a commit will have done once finished.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct CommitRecord {
    source: String,
    /// The machine and process that committed: only there can one tell whether it still runs.
    host: String,
    pid: u32,
    /// The rest of the process's identity, where the system tells it (Linux; records of older
    /// versions lack it): the machine's boot, the PID namespace the number belongs to, and when
    /// the process started (clock ticks after boot), which tells it from a later process given
    /// the same number.
    #[serde(default)]
    boot: Option<String>,
    #[serde(default)]
    pid_namespace: Option<u64>,
    #[serde(default)]
    started: Option<u64>,
    /// Inodes of the new folders, in the order of the tables.
    inodes: Vec<u64>,
    entry: ManifestEntry,
}

impl CommitRecord {
    /// The record of a commit by process `pid` of this machine.
    fn new(source: &str, pid: u32, inodes: Vec<u64>, entry: ManifestEntry) -> CommitRecord {
        let here = Here::now();
        CommitRecord {
            source: source.to_owned(),
            host: here.host,
            pid,
            boot: here.boot,
            pid_namespace: here.pid_namespace,
            started: started(pid),
            inodes,
            entry,
        }
    }
}

/// The folder of `source`'s partition under `table` (a Hive partition).
pub fn final_dir(table: &Path, source: &str) -> PathBuf {
    table.join(format!("source={source}"))
}

/// The temporary folder a partition of `source` is written to by process `pid`, under `table`.
pub fn temp_dir(table: &Path, source: &str, pid: u32) -> PathBuf {
    table.join(format!(".tmp-source={source}-{pid}"))
}

/// Records in `root` the commit of `source`'s new folders, `temps` (one per table, in order),
/// with its manifest `entry`; the caller then [`swap`]s each into place.
pub fn begin(root: &Path, source: &str, temps: &[&Path], entry: &ManifestEntry) -> Result<Committed> {
    let pid = std::process::id();
    let inodes =
        temps.iter().map(|temp| inode(temp)?.context("a new partition folder is missing")).collect::<Result<_>>()?;
    let record = CommitRecord::new(source, pid, inodes, entry.clone());
    let path = root.join(format!("{RECORD_PREFIX}{source}-{pid}.json"));
    // Written whole in the new folder, then renamed: a kill leaves a complete record or none (and
    // a half-written one in a temporary folder, which the next run for the source removes).
    // Not synced: it guards against a killed process, whose writes the system keeps, and the
    // file system's journal keeps the rename before the swaps that follow (a sync per input
    // is a large share of a small input's cost: docs/performance.md).
    let temp = temps.first().context("no table to commit")?.join(".commit.json.tmp");
    if let Err(e) = fs::write(&temp, serde_json::to_vec_pretty(&record)?).and_then(|_| fs::rename(&temp, &path)) {
        let _ = fs::remove_file(&temp);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(Committed(path))
}

/// Finishes the commits that runs no longer alive recorded in `root` (for the folders of
/// `tables`): returns each one's manifest entry with its record, to be removed once the manifest
/// lists the entry. A record whose folders are gone (replaced since) is removed at once.
pub fn recover(root: &Path, tables: &[&str]) -> Result<Vec<(ManifestEntry, Committed)>> {
    let mut finished = Vec::new();
    for (path, record) in abandoned(root)? {
        if finish(root, tables, &record)
            .with_context(|| format!("cannot finish the interrupted commit {}", path.display()))?
        {
            finished.push((record.entry, Committed(path)));
        } else {
            fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    Ok(finished)
}

/// The sources whose commit a run no longer alive left unfinished in `root` (the next `ingest`
/// into the dataset finishes them).
pub fn interrupted(root: &Path) -> Result<Vec<String>> {
    Ok(abandoned(root)?.into_iter().map(|(_, record)| record.source).collect())
}

/// The commit records in `root` of runs on this machine no longer alive, by path.
fn abandoned(root: &Path) -> Result<Vec<(PathBuf, CommitRecord)>> {
    let (mut records, here) = (Vec::new(), Here::now());
    for dir_entry in fs::read_dir(root).with_context(|| format!("cannot list {}", root.display()))? {
        let path = dir_entry?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if !name.starts_with(RECORD_PREFIX) || !name.ends_with(".json") {
            continue;
        }
        let record: CommitRecord =
            match fs::read(&path).map_err(anyhow::Error::from).and_then(|b| Ok(serde_json::from_slice(&b)?)) {
                Ok(record) => record,
                // Not one of ours, or not complete (records are written atomically): left alone.
                Err(_) => continue,
            };
        if here.outlived(&record) {
            records.push((path, record));
        }
    }
    records.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(records)
}

/// Puts the record's folders in place where they are not yet; false if they are gone.
fn finish(root: &Path, tables: &[&str], record: &CommitRecord) -> Result<bool> {
    // A record of an earlier version names the first tables only (no `summary`).
    if record.inodes.len() > tables.len() || record.inodes.is_empty() {
        bail!("{} folders recorded for {} tables", record.inodes.len(), tables.len());
    }
    let mut folders = Vec::new();
    for (table, &ino) in tables.iter().zip(&record.inodes) {
        let table = root.join(table);
        let (temp, final_dir) = (temp_dir(&table, &record.source, record.pid), final_dir(&table, &record.source));
        let (in_place, temp_ino) = (inode(&final_dir)? == Some(ino), inode(&temp)?);
        // Every folder must still be the recorded one, in place or not: else a later run
        // replaced the partition, and this record is out of date.
        if !in_place && temp_ino != Some(ino) {
            return Ok(false);
        }
        folders.push((temp, final_dir, in_place, temp_ino.is_some()));
    }
    for (temp, final_dir, in_place, temp_exists) in folders {
        if !in_place {
            swap(&temp, &final_dir)?;
        } else if temp_exists {
            // Swapped in; the temporary name holds the previous partition.
            fs::remove_dir_all(&temp).with_context(|| format!("cannot remove {}", temp.display()))?;
        }
    }
    Ok(true)
}

fn inode(path: &Path) -> Result<Option<u64>> {
    match fs::symlink_metadata(path) {
        #[cfg(unix)]
        Ok(m) => Ok(Some(std::os::unix::fs::MetadataExt::ino(&m))),
        #[cfg(not(unix))]
        Ok(_) => bail!("interrupted commits are finished on Unix only"),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// This machine, boot and PID namespace (each empty where the system does not tell).
struct Here {
    host: String,
    boot: Option<String>,
    pid_namespace: Option<u64>,
}

impl Here {
    fn now() -> Here {
        let read = |path| fs::read_to_string(path).ok().map(|s: String| s.trim().to_owned());
        #[cfg(unix)]
        let pid_namespace = fs::metadata("/proc/self/ns/pid").ok().map(|m| std::os::unix::fs::MetadataExt::ino(&m));
        #[cfg(not(unix))]
        let pid_namespace = None;
        Here {
            host: read("/proc/sys/kernel/hostname").unwrap_or_default(),
            boot: read("/proc/sys/kernel/random/boot_id"),
            pid_namespace,
        }
    }

    /// Whether the process that wrote `record` is known to have ended, so that its commit is
    /// for this run to finish. Another machine's (a dataset on a shared file system), or another
    /// PID namespace's on this machine (a container that shares its host name), cannot be told
    /// from here: left to it.
    fn outlived(&self, record: &CommitRecord) -> bool {
        if record.host != self.host {
            return false;
        }
        if differ(&record.boot, &self.boot) {
            // The machine restarted since: every process of that boot has ended (and its number
            // may well belong to another process now).
            return true;
        }
        if differ(&record.pid_namespace, &self.pid_namespace) {
            return false;
        }
        // A process that runs under the number but started at another time took the number
        // after the committing process ended.
        !alive(record.pid) || differ(&record.started, &started(record.pid))
    }
}

/// Both known, and not the same.
fn differ<T: PartialEq>(a: &Option<T>, b: &Option<T>) -> bool {
    a.is_some() && b.is_some() && a != b
}

/// When process `pid` started, in clock ticks after boot (Linux `/proc/PID/stat`, field 22).
fn started(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, field 2, is in parentheses and may hold spaces or parentheses itself.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_ascii_whitespace().nth(19)?.parse().ok()
}

/// Whether process `pid` (not this one) of this machine still runs: its commit may be under way.
fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        // An earlier run that had this process's number.
        return false;
    }
    #[cfg(target_os = "linux")]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
        // SAFETY: signal 0 only checks that the process exists.
        let rc = unsafe { libc::kill(pid, 0) };
        rc == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(target_os = "linux"))]
    {
        true
    }
}

/// Puts the temporary folder in place of the final one: where the system can, in one atomic
/// exchange, so that a reader or a crash never sees the folder missing or half replaced;
/// otherwise by moving the old one aside first.
pub fn swap(temp: &Path, final_dir: &Path) -> Result<()> {
    let had_old = final_dir.exists();
    if had_old && exchange(temp, final_dir)? {
        // The temporary name now holds the previous partition.
        return fs::remove_dir_all(temp).with_context(|| format!("cannot remove the previous {}", temp.display()));
    }
    let old = match (final_dir.file_name(), final_dir.parent()) {
        (Some(name), Some(parent)) => parent.join(format!(".old-{}-{}", name.to_string_lossy(), std::process::id())),
        _ => bail!("internal error: bad partition path {}", final_dir.display()),
    };
    if had_old {
        fs::rename(final_dir, &old).with_context(|| format!("cannot move aside {}", final_dir.display()))?;
    }
    fs::rename(temp, final_dir)
        .with_context(|| format!("cannot rename {} to {}", temp.display(), final_dir.display()))?;
    if had_old {
        fs::remove_dir_all(&old).with_context(|| format!("cannot remove {}", old.display()))?;
    }
    Ok(())
}

/// Exchanges two directories atomically (Linux `renameat2` with `RENAME_EXCHANGE`). `Ok(false)`
/// when the kernel or file system cannot, so the caller falls back to two renames.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> Result<bool> {
    use std::{ffi::CString, os::unix::ffi::OsStrExt};
    let path = |p: &Path| CString::new(p.as_os_str().as_bytes()).context("path with a NUL byte");
    let (ca, cb) = (path(a)?, path(b)?);
    // SAFETY: both are valid NUL-terminated paths, relative to the working directory.
    let rc = unsafe { renameat2(libc::AT_FDCWD, ca.as_ptr(), libc::AT_FDCWD, cb.as_ptr(), libc::RENAME_EXCHANGE) };
    if rc == 0 {
        return Ok(true);
    }
    match io::Error::last_os_error().raw_os_error() {
        Some(libc::EINVAL | libc::ENOSYS | libc::ENOTSUP) => Ok(false),
        _ => Err(io::Error::last_os_error())
            .with_context(|| format!("cannot exchange {} and {}", a.display(), b.display())),
    }
}

/// glibc's `renameat2` where the C library has it (glibc 2.28 on; also what an `LD_PRELOAD`
/// wrapper such as the crash tests' catches), else the system call itself (Linux 3.15): looked
/// up when running, not linked, so the binary needs no glibc newer than 2.17 (the wheel's
/// manylinux_2_17), as Rust's standard library does for its own newer calls.
#[cfg(target_os = "linux")]
unsafe fn renameat2(
    olddirfd: libc::c_int,
    oldpath: *const libc::c_char,
    newdirfd: libc::c_int,
    newpath: *const libc::c_char,
    flags: libc::c_uint,
) -> libc::c_int {
    type RenameAt2 = unsafe extern "C" fn(
        libc::c_int,
        *const libc::c_char,
        libc::c_int,
        *const libc::c_char,
        libc::c_uint,
    ) -> libc::c_int;
    static WRAPPER: std::sync::OnceLock<Option<RenameAt2>> = std::sync::OnceLock::new();
    let wrapper = *WRAPPER.get_or_init(|| {
        // SAFETY: a NUL-terminated name; a non-null result is glibc's renameat2, of this type.
        let found = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"renameat2".as_ptr()) };
        (!found.is_null()).then(|| unsafe { std::mem::transmute::<*mut libc::c_void, RenameAt2>(found) })
    });
    match wrapper {
        // SAFETY: the caller's arguments, passed on as they are.
        Some(f) => unsafe { f(olddirfd, oldpath, newdirfd, newpath, flags) },
        // SAFETY: the same arguments; the system call returns 0 or -1 with errno set, as the wrapper.
        None => unsafe {
            libc::syscall(libc::SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags) as libc::c_int
        },
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> Result<bool> {
    Ok(false)
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use serde_json::{Value, json};

    fn entry(source: &str, games: u64, events: u64) -> ManifestEntry {
        ManifestEntry { source: source.into(), games, events, ..Default::default() }
    }

    use super::*;
    use crate::Dataset;

    const TABLES: [&str; 3] = ["games", "events", "summary"];

    /// The number of a process that has ended.
    fn dead_pid() -> u32 {
        let mut child = Command::new("true").spawn().unwrap();
        child.wait().unwrap();
        child.id()
    }

    fn read(dir: &Path) -> String {
        fs::read_to_string(dir.join("part")).unwrap()
    }

    fn folder(dir: &Path, text: &str) {
        fs::create_dir_all(dir).unwrap();
        fs::write(dir.join("part"), text).unwrap();
    }

    /// Names in `dir` that start with `.`: temporary folders or records left over.
    fn hidden(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            // The lock files' folder stays (the locks are released with their process).
            .filter(|n| n.starts_with('.') && n != ".locks")
            .collect();
        names.sort();
        names
    }

    fn manifest(root: &Path) -> Value {
        serde_json::from_slice(&fs::read(root.join("_manifest.json")).unwrap()).unwrap()
    }

    /// A dataset whose source `x` has an old partition, and the new one written under the
    /// temporary names of process `pid`, recorded as a commit.
    fn half_committed(root: &Path, pid: u32) -> PathBuf {
        half_committed_tables(root, pid, &TABLES)
    }

    /// The same, for the folders of `tables` only.
    fn half_committed_tables(root: &Path, pid: u32, tables: &[&str]) -> PathBuf {
        let mut dataset = Dataset::open(root).unwrap();
        dataset.update_manifest(entry("x", 1, 0), None).unwrap();
        drop(dataset);
        let mut inodes = Vec::new();
        for &table in tables {
            folder(&root.join(table).join("source=x"), "old");
            let temp = temp_dir(&root.join(table), "x", pid);
            folder(&temp, "new");
            inodes.push(inode(&temp).unwrap().unwrap());
        }
        let record = CommitRecord::new("x", pid, inodes, entry("x", 2, 5));
        let path = root.join(format!("{RECORD_PREFIX}x-{pid}.json"));
        fs::write(&path, serde_json::to_vec(&record).unwrap()).unwrap();
        path
    }

    /// A run killed at any point of a commit — before the first swap, between an exchange and
    /// the removal of the previous folder, between the two tables' swaps (which left new games
    /// beside old events), after both — has its commit finished by the next run that opens the
    /// dataset: the new partition in both tables, the entry in the manifest, nothing left over.
    #[test]
    fn a_killed_commit_is_finished_when_the_dataset_is_opened_again() {
        for swapped in 0..=6 {
            let tmp = tempfile::tempdir().unwrap();
            let root = fs::canonicalize(tmp.path()).unwrap();
            let pid = dead_pid();
            let record = half_committed(&root, pid);
            // The steps a commit takes, up to the kill: an exchange, then the removal of the
            // previous folder, for each table in turn.
            for (step, table) in [0, 0, 1, 1, 2, 2].into_iter().map(|t| TABLES[t]).enumerate().take(swapped) {
                let (temp, final_dir) = (temp_dir(&root.join(table), "x", pid), root.join(table).join("source=x"));
                if step % 2 == 0 {
                    assert!(exchange(&temp, &final_dir).unwrap() || cfg!(not(target_os = "linux")));
                } else {
                    fs::remove_dir_all(&temp).unwrap();
                }
            }
            assert!(record.exists());

            assert_eq!(interrupted(&root).unwrap(), ["x"]);
            let dataset = Dataset::open(&root).unwrap();
            assert!(interrupted(&root).unwrap().is_empty());
            for table in TABLES {
                assert_eq!(read(&root.join(table).join("source=x")), "new", "{table}, killed after {swapped} steps");
                assert!(hidden(&root.join(table)).is_empty(), "{table}: {:?}", hidden(&root.join(table)));
            }
            assert!(hidden(&root).is_empty(), "{:?}", hidden(&root));
            assert_eq!(manifest(&root)["inputs"][0]["games"], 2, "killed after {swapped} steps");
            drop(dataset);
        }
    }

    /// A record of a version before the summary names two folders, games and events: a kill
    /// between their swaps is finished as before (the partition then has no summary, which the
    /// report reads around and the next ingest of the input writes).
    #[test]
    fn a_record_of_the_two_tables_before_the_summary_is_finished() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        let pid = dead_pid();
        let record = half_committed_tables(&root, pid, &TABLES[..2]);
        let (temp, final_dir) = (temp_dir(&root.join("games"), "x", pid), root.join("games").join("source=x"));
        assert!(exchange(&temp, &final_dir).unwrap() || cfg!(not(target_os = "linux")));
        let dataset = Dataset::open(&root).unwrap();
        assert!(!record.exists());
        for table in &TABLES[..2] {
            assert_eq!(read(&root.join(table).join("source=x")), "new", "{table}");
            assert!(hidden(&root.join(table)).is_empty(), "{table}: {:?}", hidden(&root.join(table)));
        }
        assert_eq!(manifest(&root)["inputs"][0]["games"], 2);
        drop(dataset);
    }

    /// Rewrites the record at `path` with `change`.
    fn edit(path: &Path, change: impl FnOnce(&mut serde_json::Map<String, Value>)) {
        let mut record: Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
        change(record.as_object_mut().unwrap());
        fs::write(path, serde_json::to_vec(&record).unwrap()).unwrap();
    }

    /// A running process's commit is its own to finish; so is another machine's, and another
    /// PID namespace's on this machine (a container that shares the host name), whose numbers
    /// mean nothing here. A record of an older version (no boot, namespace or start) is judged
    /// by its number alone.
    #[test]
    fn a_live_runs_commit_is_left_alone() {
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        for case in ["running", "another machine", "another namespace", "older version, running"] {
            let tmp = tempfile::tempdir().unwrap();
            let root = fs::canonicalize(tmp.path()).unwrap();
            let pid = if case.ends_with("running") { child.id() } else { dead_pid() };
            let record = half_committed(&root, pid);
            edit(&record, |r| match case {
                "another machine" => {
                    drop(r.insert("host".into(), json!(format!("not-{}", r["host"].as_str().unwrap()))))
                }
                "another namespace" => {
                    let ns = r["pid_namespace"].as_u64().expect("the PID namespace is known on Linux");
                    r.insert("pid_namespace".into(), json!(ns + 1));
                }
                "older version, running" => {
                    ["boot", "pid_namespace", "started"].iter().for_each(|k| drop(r.remove(*k)))
                }
                _ => {}
            });
            assert!(interrupted(&root).unwrap().is_empty(), "{case}");
            drop(Dataset::open(&root).unwrap());
            assert!(record.exists(), "{case}");
            assert_eq!(read(&root.join("games").join("source=x")), "old", "{case}");
            assert_eq!(manifest(&root)["inputs"][0]["games"], 1, "{case}");
        }
        let _ = child.kill();
        let _ = child.wait();
    }

    /// A commit's process has ended if the machine restarted since, or if the process that has
    /// its number now started at another time (numbers are reused, and start again from 1 after
    /// a restart), although a process runs under that number: the commit is finished. So is an
    /// older version's whose number no process has.
    #[test]
    fn a_commit_whose_number_another_process_took_is_finished() {
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        for case in ["machine restarted", "number taken by a later process", "older version, ended"] {
            let tmp = tempfile::tempdir().unwrap();
            let root = fs::canonicalize(tmp.path()).unwrap();
            let pid = if case.ends_with("ended") { dead_pid() } else { child.id() };
            let record = half_committed(&root, pid);
            edit(&record, |r| match case {
                "machine restarted" => drop(r.insert("boot".into(), json!("an earlier boot"))),
                "number taken by a later process" => {
                    let started = r["started"].as_u64().expect("a process's start is known on Linux");
                    r.insert("started".into(), json!(started.saturating_sub(1)));
                }
                _ => ["boot", "pid_namespace", "started"].iter().for_each(|k| drop(r.remove(*k))),
            });
            assert_eq!(interrupted(&root).unwrap(), ["x"], "{case}");
            drop(Dataset::open(&root).unwrap());
            assert!(!record.exists(), "{case}");
            for table in TABLES {
                assert_eq!(read(&root.join(table).join("source=x")), "new", "{case}");
            }
            assert_eq!(manifest(&root)["inputs"][0]["games"], 2, "{case}");
        }
        let _ = child.kill();
        let _ = child.wait();
    }

    /// A record whose folders were replaced since (a later run ingested the source again) is
    /// dropped without touching the partition or the manifest.
    #[test]
    fn an_out_of_date_record_is_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        let pid = dead_pid();
        let record = half_committed(&root, pid);
        for table in TABLES {
            fs::remove_dir_all(temp_dir(&root.join(table), "x", pid)).unwrap();
        }
        drop(Dataset::open(&root).unwrap());
        assert!(!record.exists());
        assert_eq!(read(&root.join("events").join("source=x")), "old");
        assert_eq!(manifest(&root)["inputs"][0]["games"], 1);
    }

    /// A commit leaves its record until the manifest lists its entry, then nothing.
    #[test]
    fn the_record_goes_once_the_manifest_lists_the_entry() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        let mut dataset = Dataset::open(&root).unwrap();
        let entry = entry("y", 0, 0);
        let key = super::super::partition::ResumeKey {
            size: None,
            fingerprint: None,
            rules_version: String::new(),
            schema_version: String::new(),
            part_games: 10,
            chunk_bytes: 1,
            shard: None,
            kept_files: None,
            venue: None,
        };
        let committed = dataset
            .partition("y", "source=y", key, &None, crate::partition::empty_summary)
            .unwrap()
            .commit(&entry)
            .unwrap();
        assert_eq!(hidden(&root), [format!("{RECORD_PREFIX}y-{}.json", std::process::id())]);
        dataset.update_manifest(entry, Some(committed)).unwrap();
        assert!(hidden(&root).is_empty(), "{:?}", hidden(&root));
        assert!(dataset.has_partition("y"));
        for table in TABLES {
            assert!(hidden(&root.join(table)).is_empty());
        }
    }

    /// An exchange swaps two directories whole, or, where the file system cannot, changes nothing
    /// (the caller then renames).
    #[test]
    fn exchange_swaps_directories_or_leaves_them() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        folder(&a, "new");
        folder(&b, "old");
        let swapped = exchange(&a, &b).unwrap();
        let expected = if swapped { ("old", "new") } else { ("new", "old") };
        assert_eq!((read(&a).as_str(), read(&b).as_str()), expected);
        if cfg!(target_os = "linux") {
            eprintln!("RENAME_EXCHANGE supported here: {swapped}");
        }
    }
}
