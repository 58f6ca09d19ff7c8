//! Sharded runs (`--shard K/N`, `--finish`) with the real binary, on what can go wrong around
//! them: shards started together, a file changed between two shards, a source already complete,
//! options that cannot go with sharding. Wherever a sharded run completes a source, its games and
//! events rows are compared with an unsharded run's, every row (`tests/harness/shard/compare.py`: DuckDB
//! `EXCEPT ALL` both ways), not only the manifest's counts; tests/harness/shard/sequential.sh and, on
//! Slurm, tests/harness/slurm/run.sh do the same over corpus files.

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, Output},
};

use serde_json::Value;

use crate::common::{self, python, run, s, stderr};

/// A plain-text input of a few hundred games (the Lichess sample three times).
fn input(dir: &Path) -> PathBuf {
    let text = fs::read(common::sample("lichess_db_standard_rated_2013-01-first300.pgn")).unwrap().repeat(3);
    let path = dir.join("month.pgn");
    fs::write(&path, text).unwrap();
    path
}

/// Every games and events row of dataset `a` is in `b` as often, and the other way round.
fn same_rows(a: &Path, b: &Path) {
    let out = Command::new(python())
        .arg(common::root().join("tests/harness/shard/compare.py"))
        .args([a, b])
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{} and {} hold different rows:\n{}{}",
        a.display(),
        b.display(),
        String::from_utf8_lossy(&out.stdout),
        stderr(&out)
    );
}

fn entry(out: &Path) -> Option<Value> {
    let manifest: Value = serde_json::from_slice(&fs::read(out.join("_manifest.json")).ok()?).ok()?;
    manifest["inputs"].as_array()?.iter().find(|e| e["source"] == "month").cloned()
}

fn shard(file: &Path, out: &Path, k: u32, n: u32) -> Output {
    run(&["ingest", s(file), "--out", s(out), "--shard", &format!("{k}/{n}")])
}

/// Three shards started at once into one dataset all succeed, and the last to complete commits
/// the source once, with every game.
#[test]
fn shards_started_together_commit_the_source_once() {
    let tmp = tempfile::tempdir().unwrap();
    let file = input(tmp.path());
    let whole = tmp.path().join("whole");
    assert!(run(&["ingest", s(&file), "--out", s(&whole), "--quiet"]).status.success());
    let games = entry(&whole).unwrap()["games"].as_u64().unwrap();
    let out = tmp.path().join("sharded");
    // Spawned first, waited for after: the three run at once.
    let children: Vec<_> = (0..3)
        .map(|k| {
            Command::new(common::bin())
                .args(["ingest", s(&file), "--out", s(&out), "--shard", &format!("{k}/3")])
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (k, child) in children.into_iter().enumerate() {
        let child = child.wait_with_output().unwrap();
        assert!(child.status.success(), "shard {k}: {}", stderr(&child));
    }
    // The last shard to complete committed the source: nothing is left for --finish.
    let e = entry(&out).expect("the source is in the manifest");
    assert_eq!((e["games"].as_u64(), e["shards"].as_u64(), e["status"].as_str()), (Some(games), Some(3), Some("ok")));
    assert!(!out.join(".staging").exists(), "no staging record is left");
    same_rows(&out, &whole);
    // The shards' summaries (a row per key in each shard's parts) add up to the unsharded run's
    // figures, the report's every one.
    let report = |dir: &Path| -> Value {
        let out = run(&["report", s(dir), "--json", "--by", "time-class"]);
        assert!(out.status.success() && !stderr(&out).contains("reading every game"), "{}", stderr(&out));
        let mut report: Value = serde_json::from_slice(&out.stdout).unwrap();
        report.as_object_mut().unwrap().remove("dataset");
        report
    };
    assert_eq!(report(&out), report(&whole), "the sharded summary's report differs from the unsharded run's");
    // The shards' parts' summaries are merged at the commit: one file, the unsharded run's.
    assert_eq!(summary_files(&out), summary_files(&whole));
}

/// The summary files of a dataset's one source, with their bytes.
fn summary_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let folder = fs::read_dir(dir.join("summary")).unwrap().next().expect("a summary folder").unwrap().path();
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

/// A source written in many parts gets one summary file at its commit, the same bytes as a
/// one-part run's: its rows do not multiply with the parts (a monthly dump has about ninety).
#[test]
fn regression_a_source_of_many_parts_has_one_summary_file() {
    let tmp = tempfile::tempdir().unwrap();
    let file = input(tmp.path());
    let whole = tmp.path().join("whole");
    assert!(run(&["ingest", s(&file), "--out", s(&whole), "--quiet"]).status.success());
    let parts = tmp.path().join("parts");
    let small = ["--part-games", "100", "--chunk-bytes", "16384"];
    let out = run(&[&["ingest", s(&file), "--out", s(&parts), "--quiet"][..], &small].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let games = fs::read_dir(parts.join("games")).unwrap().next().unwrap().unwrap().path();
    assert!(fs::read_dir(games).unwrap().count() >= 5, "the input is written in several parts");
    assert_eq!(summary_files(&parts), summary_files(&whole));
    assert_eq!(summary_files(&parts).len(), 1);
    same_rows(&parts, &whole);
}

/// A file changed between two shards: the shards disagree on its fingerprint, so the source is
/// not committed from both; `--finish` names the shard to run again (exit 1), and once it has
/// run, the source is the changed file's.
#[test]
fn a_file_changed_between_shards_is_not_committed_from_both() {
    let tmp = tempfile::tempdir().unwrap();
    let file = input(tmp.path());
    let out = tmp.path().join("ds");
    assert!(shard(&file, &out, 0, 2).status.success());
    // More games at the end: another size, another fingerprint.
    let mut text = fs::read(&file).unwrap();
    text.extend(fs::read(common::sample("karpov_miles_tilburg_1986.pgn")).unwrap());
    fs::write(&file, &text).unwrap();
    let second = shard(&file, &out, 1, 2);
    assert!(second.status.success(), "{}", stderr(&second));
    assert!(entry(&out).is_none(), "nothing committed from shards of two different files");
    let waiting = run(&["ingest", "--out", s(&out), "--finish"]);
    assert_eq!(waiting.status.code(), Some(1), "{}", stderr(&waiting));
    assert!(stderr(&waiting).contains("shard(s) 0 of 2 missing"), "{}", stderr(&waiting));

    assert!(shard(&file, &out, 0, 2).status.success());
    let whole = tmp.path().join("whole");
    assert!(run(&["ingest", s(&file), "--out", s(&whole), "--quiet"]).status.success());
    assert_eq!(entry(&out).unwrap()["games"], entry(&whole).unwrap()["games"]);
    same_rows(&out, &whole);
}

/// Once the source is complete, a shard run again finds it up to date and changes nothing.
#[test]
fn a_shard_of_a_complete_source_is_up_to_date() {
    let tmp = tempfile::tempdir().unwrap();
    let file = input(tmp.path());
    let out = tmp.path().join("ds");
    for k in 0..2 {
        assert!(shard(&file, &out, k, 2).status.success());
    }
    let before = fs::read(out.join("games/source=month/part-00000.parquet")).unwrap();
    let again = shard(&file, &out, 1, 2);
    assert!(again.status.success());
    assert!(stderr(&again).contains("up to date"), "{}", stderr(&again));
    assert_eq!(fs::read(out.join("games/source=month/part-00000.parquet")).unwrap(), before);
    let done = run(&["ingest", "--out", s(&out), "--finish"]);
    assert!(done.status.success() && stderr(&done).contains("0 sharded source(s) found"), "{}", stderr(&done));
    let whole = tmp.path().join("whole");
    assert!(run(&["ingest", s(&file), "--out", s(&whole), "--quiet"]).status.success());
    same_rows(&out, &whole);
}

/// What cannot be sharded is a usage error (exit 2) before any work.
#[test]
fn options_that_cannot_go_with_a_shard_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let file = input(tmp.path());
    let out = tmp.path().join("ds");
    let sums = tmp.path().join("sha256sums.txt");
    fs::write(&sums, format!("{}  month.pgn\n", "0".repeat(64))).unwrap();
    for args in [
        vec!["ingest", "-", "--source", "x", "--out", s(&out), "--shard", "0/2"],
        vec!["ingest", s(&file), "--out", s(&out), "--shard", "0/2", "--verify-sha256", s(&sums)],
        vec!["ingest", s(&file), "--out", s(&out), "--shard", "2/2"],
        vec!["ingest", s(&file), "--out", s(&out), "--finish"],
        vec!["ingest", "--out", s(&out)],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    assert!(!out.join("games").exists(), "nothing written");
}
