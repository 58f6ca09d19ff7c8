//! Nightly runs over a folder of dumps, with the real binary: what is done is not done again
//! (`up_to_date`), a changed or new file is, a rules or schema change makes a partition stale,
//! `--verify-sha256` fails a wrong file only, and runs started together into one dataset all
//! succeed and leave the dataset one run leaves.

use std::{
    collections::BTreeMap,
    fs,
    os::unix::fs::MetadataExt,
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, SystemTime},
};

use serde_json::Value;

use crate::common::{self, run, s};

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(out.status.success(), "threefold {args:?}: {}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A mirror folder: three sample files under names of their own.
fn mirror(dir: &Path) -> Vec<PathBuf> {
    fs::create_dir_all(dir).unwrap();
    ["karpov_miles_tilburg_1986.pgn", "tcec-chess960-game35.pgn", "lichess_db_standard_rated_2013-01-first300.pgn"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let to = dir.join(format!("month-{i}.pgn"));
            fs::copy(common::sample(name), &to).unwrap();
            to
        })
        .collect()
}

/// Every Parquet file of the dataset with its inode and modification time.
fn files(out: &Path) -> BTreeMap<PathBuf, (u64, SystemTime)> {
    let mut all = BTreeMap::new();
    for table in ["games", "events"] {
        for part in fs::read_dir(out.join(table)).unwrap() {
            for file in fs::read_dir(part.unwrap().path()).unwrap() {
                let path = file.unwrap().path();
                let meta = fs::metadata(&path).unwrap();
                all.insert(path.strip_prefix(out).unwrap().to_path_buf(), (meta.ino(), meta.modified().unwrap()));
            }
        }
    }
    all
}

/// Every Parquet file's bytes.
fn bytes(out: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files(out).into_keys().map(|p| (p.clone(), fs::read(out.join(p)).unwrap())).collect()
}

fn statuses(out: &Path) -> BTreeMap<String, String> {
    let manifest: Value = serde_json::from_slice(&fs::read(out.join("_manifest.json")).unwrap()).unwrap();
    manifest["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["source"].as_str().unwrap().to_owned(), e["status"].as_str().unwrap().to_owned()))
        .collect()
}

fn edit_manifest(out: &Path, change: impl Fn(&mut Value)) {
    let path = out.join("_manifest.json");
    let mut manifest: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    for entry in manifest["inputs"].as_array_mut().unwrap() {
        change(entry);
    }
    fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
}

#[test]
fn a_second_run_skips_what_is_up_to_date_and_ingests_what_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, out) = (tmp.path().join("mirror"), tmp.path().join("ds"));
    let inputs = mirror(&dir);
    ok(&["ingest", s(&dir), "--out", s(&out)]);
    let before = files(&out);
    assert_eq!(before.len(), 6);

    // Nothing changed: nothing is read, no Parquet file is touched.
    let said = ok(&["ingest", s(&dir), "--out", s(&out)]);
    assert!(said.contains("0 ingested, 3 up to date"), "{said}");
    assert_eq!(files(&out), before);
    assert!(statuses(&out).values().all(|s| s == "up_to_date"), "{:?}", statuses(&out));

    // Touched without a change (a copy made again): still up to date.
    fs::File::options()
        .write(true)
        .open(&inputs[0])
        .unwrap()
        .set_modified(SystemTime::now() + Duration::from_secs(5))
        .unwrap();
    let said = ok(&["ingest", s(&dir), "--out", s(&out)]);
    assert!(said.contains("0 ingested, 3 up to date"), "{said}");
    assert_eq!(files(&out), before);

    // One file changed (a game more) and one new: those two are ingested, nothing else.
    let mut text = fs::read(&inputs[1]).unwrap();
    text.extend_from_slice(b"\n[Event \"more\"]\n\n1. e4 e5 *\n");
    fs::write(&inputs[1], text).unwrap();
    fs::copy(common::sample("karpov_miles_tilburg_1986.pgn"), dir.join("month-3.pgn")).unwrap();
    let said = ok(&["ingest", s(&dir), "--out", s(&out)]);
    assert!(said.contains("2 ingested, 2 up to date"), "{said}");
    let after = files(&out);
    for (path, stamp) in &before {
        let changed = path.to_string_lossy().contains("month-1");
        assert_eq!(after[path] == *stamp, !changed, "{}", path.display());
    }
    assert_eq!(after.len(), 8);

    // --force ingests everything again, to the same rows.
    let rows = bytes(&out);
    let said = ok(&["ingest", s(&dir), "--out", s(&out), "--force"]);
    assert!(said.contains("4 ingested, 0 up to date"), "{said}");
    assert!(bytes(&out) == rows);
}

#[test]
fn a_partition_of_other_rules_is_stale_and_ingested_again() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, out) = (tmp.path().join("mirror"), tmp.path().join("ds"));
    mirror(&dir);
    ok(&["ingest", s(&dir), "--out", s(&out)]);
    let before = files(&out);
    edit_manifest(&out, |e| {
        if e["source"] == "month-2" {
            e["rules_version"] = Value::from("FIDE Laws of Chess 2018");
        }
    });
    let report = run(&["report", s(&out), "--json"]);
    let said = String::from_utf8_lossy(&report.stderr);
    assert!(said.contains("stale partition(s)") && said.contains("month-2"), "{said}");
    let json: Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(json["stale_sources"], serde_json::json!(["month-2"]));

    let said = ok(&["ingest", s(&dir), "--out", s(&out)]);
    assert!(said.contains("1 ingested, 2 up to date"), "{said}");
    let after = files(&out);
    for (path, stamp) in &before {
        assert_eq!(after[path] == *stamp, !path.to_string_lossy().contains("month-2"), "{}", path.display());
    }
    let report = run(&["report", s(&out), "--json"]);
    assert!(!String::from_utf8_lossy(&report.stderr).contains("stale"));
}

#[test]
fn verify_sha256_fails_the_file_with_a_wrong_hash_only() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, out) = (tmp.path().join("mirror"), tmp.path().join("ds"));
    let inputs = mirror(&dir);
    let sha = |p: &Path| {
        use sha2::{Digest, Sha256};
        Sha256::digest(fs::read(p).unwrap()).iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    let sums = tmp.path().join("sha256sums.txt");
    let wrong = "0".repeat(64);
    let lines = [
        format!("{}  month-0.pgn", sha(&inputs[0])),
        format!("{wrong}  month-1.pgn"),
        format!("{} *month-2.pgn", sha(&inputs[2])),
    ];
    fs::write(&sums, lines.join("\n") + "\n").unwrap();
    let got = run(&["ingest", "--quiet", s(&dir), "--out", s(&out), "--verify-sha256", s(&sums)]);
    assert_eq!(got.status.code(), Some(1), "{}", String::from_utf8_lossy(&got.stderr));
    let said = String::from_utf8_lossy(&got.stderr);
    assert!(said.contains("month-1.pgn: its SHA-256 is") && said.contains(&wrong), "{said}");
    let st = statuses(&out);
    assert_eq!((st["month-0"].as_str(), st["month-1"].as_str(), st["month-2"].as_str()), ("ok", "failed", "ok"));
    assert!(!out.join("games/source=month-1").exists(), "nothing of the wrong file is committed");
    let manifest: Value = serde_json::from_slice(&fs::read(out.join("_manifest.json")).unwrap()).unwrap();
    let month0 = manifest["inputs"].as_array().unwrap().iter().find(|e| e["source"] == "month-0").unwrap();
    assert_eq!(month0["sha256"], Value::from(sha(&inputs[0])));

    // An input not listed is an error before any work.
    fs::write(&sums, format!("{}  month-0.pgn\n", sha(&inputs[0]))).unwrap();
    let got = run(&["ingest", "--quiet", s(&dir), "--out", s(&tmp.path().join("other")), "--verify-sha256", s(&sums)]);
    assert_eq!(got.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&got.stderr).contains("month-1.pgn is not listed in"));
}

/// Runs started together into one dataset (a nightly run over a backfill's inputs, a Slurm
/// array's tasks): all exit 0, each source is written by one of them, and the dataset is the one
/// a single run leaves.
#[test]
fn runs_started_together_all_succeed_and_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mirror");
    mirror(&dir);
    // A larger file, so that the runs overlap.
    fs::write(dir.join("generated.pgn"), common::generated_pgn(7, 8 << 20).0).unwrap();
    let single = tmp.path().join("single");
    ok(&["ingest", "--quiet", s(&dir), "--out", s(&single)]);
    let mut waited = 0;
    for round in 0..3 {
        let out = tmp.path().join(format!("together-{round}"));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let (dir, out) = (dir.clone(), out.clone());
                std::thread::spawn(move || {
                    Command::new(common::bin()).args(["ingest", "--quiet", s(&dir), "--out", s(&out)]).output().unwrap()
                })
            })
            .collect();
        for h in handles {
            let got = h.join().unwrap();
            let said = String::from_utf8_lossy(&got.stderr).into_owned();
            assert!(got.status.success(), "round {round}: {}\n{said}", got.status);
            waited += said.matches("is being written by").count();
        }
        assert!(bytes(&out) == bytes(&single), "round {round}: the dataset of one run");
        assert_eq!(statuses(&out).len(), 4);
    }
    // The runs did overlap: some found a source another one was writing.
    assert!(waited > 0, "no run found a source held by another");
}

/// A killed `--force` run leaves staged parts of an input that is up to date; the next run, which
/// skips the input, removes them (the crash test found them left behind).
#[test]
fn regression_staged_parts_of_an_up_to_date_input_are_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, out) = (tmp.path().join("mirror"), tmp.path().join("ds"));
    mirror(&dir);
    ok(&["ingest", "--quiet", s(&dir), "--out", s(&out)]);
    let staged = ["games/.staging-source=month-0", "events/.staging-source=month-0"].map(|d| out.join(d));
    for d in &staged {
        fs::create_dir_all(d).unwrap();
        fs::write(d.join("part-00000.parquet.tmp"), b"").unwrap();
    }
    fs::create_dir_all(out.join(".staging")).unwrap();
    fs::write(out.join(".staging/source=month-0.json"), b"{}").unwrap();
    let said = ok(&["ingest", s(&dir), "--out", s(&out)]);
    assert!(said.contains("0 ingested, 3 up to date"), "{said}");
    for d in &staged {
        assert!(!d.exists(), "{} left", d.display());
    }
    assert!(!out.join(".staging").exists());
}

/// `--venue` gives every game of the inputs its venue (the column, and no human time class for
/// engine play), the manifest records it, and a run with another venue (or none) reads the
/// input again instead of calling it up to date.
#[test]
fn a_venue_given_on_the_command_line_is_recorded_and_another_reads_the_input_again() {
    let tmp = tempfile::tempdir().unwrap();
    let (lichess, out) = (common::sample("lichess_db_standard_rated_2013-01-first300.pgn"), tmp.path().join("ds"));
    let ingest = |venue: Option<&str>| {
        let mut args = vec!["ingest", s(&lichess), "--out", s(&out), "--source", "m"];
        args.extend(venue.map(|v| ["--venue", v]).into_iter().flatten());
        ok(&args)
    };
    let venues = || -> BTreeMap<(String, Option<String>), usize> {
        let mut seen = BTreeMap::new();
        for path in fs::read_dir(out.join("games/source=m")).unwrap().map(|e| e.unwrap().path()) {
            let file = fs::File::open(&path).unwrap();
            let reader =
                parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
            for batch in reader {
                let batch = batch.unwrap();
                let column = |name: &str| {
                    let c = batch.column_by_name(name).unwrap();
                    c.as_any().downcast_ref::<arrow_array::StringArray>().unwrap().clone()
                };
                let (venue, class) = (column("venue"), column("time_class"));
                for i in 0..batch.num_rows() {
                    let class = (!arrow_array::Array::is_null(&class, i)).then(|| class.value(i).to_owned());
                    *seen.entry((venue.value(i).to_owned(), class)).or_default() += 1;
                }
            }
        }
        seen
    };
    let entry = || -> Value {
        let manifest: Value = serde_json::from_slice(&fs::read(out.join("_manifest.json")).unwrap()).unwrap();
        manifest["inputs"][0].clone()
    };

    ingest(None);
    assert_eq!(entry().get("venue"), None);
    let by_tags = venues();
    assert!(by_tags.keys().all(|(venue, class)| venue == "lichess" && class.is_some()), "{by_tags:?}");
    assert!(ingest(None).contains("0 ingested, 1 up to date"));

    let said = ingest(Some("engine"));
    assert!(said.contains("1 ingested, 0 up to date"), "{said}");
    assert_eq!(entry()["venue"], "engine");
    assert_eq!(venues(), BTreeMap::from([(("engine".to_owned(), None), by_tags.values().sum())]));
    assert!(ingest(Some("engine")).contains("0 ingested, 1 up to date"));

    assert!(ingest(None).contains("1 ingested, 0 up to date"));
    assert_eq!(venues(), by_tags);

    let refused = run(&["ingest", s(&lichess), "--out", s(&out), "--venue", "moon"]);
    assert!(!refused.status.success());
    assert!(common::stderr(&refused).contains("one of otb, lichess, online, engine, unknown"));
}
