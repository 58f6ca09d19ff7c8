//! Games in Parquet as Lichess publishes them on Hugging Face (`tests/harness/parquet_input/write_lichess.py`
//! writes PGN files in that layout and those types): the same games and events as from the PGN
//! (every column but the key: `tests/harness/parquet_input/compare.py`), the sources a month's files
//! make, explain by a row's key, sharded and resumed runs, up to date, and bad input.

use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::Value;

use crate::common::{self, run, s, stderr};

/// Writes `pgn` as the month `year`/`month` of `dataset` under `root`, in `files` files of row
/// groups of `rows` rows; returns the month's folder.
fn write_month(
    python: &Path,
    pgn: &Path,
    root: &Path,
    dataset: &str,
    month: (&str, &str),
    files: u32,
    rows: u32,
) -> PathBuf {
    write_month_as(python, pgn, root, dataset, month, (files, rows), &[])
}

/// [`write_month`] with the script's further arguments (`published`: the published columns only).
fn write_month_as(
    python: &Path,
    pgn: &Path,
    root: &Path,
    dataset: &str,
    month: (&str, &str),
    (files, rows): (u32, u32),
    more: &[&str],
) -> PathBuf {
    let script = common::root().join("tests/harness/parquet_input/write_lichess.py");
    let out = Command::new(python)
        .arg(script)
        .args([s(pgn), s(root), dataset, month.0, month.1, &files.to_string(), &rows.to_string()])
        .args(more)
        .output()
        .expect("python runs");
    assert!(out.status.success(), "write_lichess.py {}: {}", pgn.display(), stderr(&out));
    root.join(dataset).join("data").join(format!("year={}", month.0)).join(format!("month={}", month.1))
}

/// Runs a comparison script on two datasets (and its further arguments); panics with its
/// report when they differ.
fn compare(python: &Path, script: &str, a: &Path, b: &Path) {
    compare_but(python, script, a, b, &[]);
}

fn compare_but(python: &Path, script: &str, a: &Path, b: &Path, more: &[&str]) {
    let out =
        Command::new(python).arg(common::root().join(script)).args([a, b]).args(more).output().expect("python runs");
    assert!(
        out.status.success(),
        "{} and {} differ:\n{}{}",
        a.display(),
        b.display(),
        String::from_utf8_lossy(&out.stdout),
        stderr(&out)
    );
}

fn manifest(out: &Path) -> Value {
    serde_json::from_slice(&fs::read(out.join("_manifest.json")).expect("a manifest")).expect("JSON")
}

fn entry(out: &Path, source: &str) -> Value {
    let manifest = manifest(out);
    let inputs = manifest["inputs"].as_array().expect("inputs");
    inputs.iter().find(|e| e["source"] == source).unwrap_or_else(|| panic!("no source {source}: {inputs:?}")).clone()
}

/// The 2013 sample (in every clone) as one month of three files of row groups of 40 rows.
fn sample_month(python: &Path, root: &Path) -> PathBuf {
    let pgn = common::sample("lichess_db_standard_rated_2013-01-first300.pgn");
    write_month(python, &pgn, root, "standard-chess-games", ("2013", "01"), 3, 40)
}

/// The corpus's Lichess files and a variant file, written as the published layout, give the
/// games and events of their PGN, every column but the key; each month is one source named
/// `DATASET@YYYY-MM`.
#[test]
fn parquet_gives_the_games_and_events_of_the_same_pgn() {
    let what = "Parquet input against PGN on the corpus's Lichess files";
    let Some(python) = common::python_with(&["pyarrow", "duckdb"], what) else { return };
    let Some(corpus) = common::corpus(what) else { return };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("hf");
    let pgns = [
        (corpus.join("lichess/lichess-2021-10-01-clocks-sample.pgn"), "standard-chess-games", ("2021", "10"), 2, 150),
        (
            common::sample("lichess_db_standard_rated_2013-01-first300.pgn"),
            "standard-chess-games",
            ("2013", "01"),
            1,
            70,
        ),
        (corpus.join("variants/zh.pgn"), "crazyhouse-chess-games", ("2015", "09"), 2, 20),
    ];
    for (pgn, dataset, month, files, rows) in &pgns {
        write_month(&python, pgn, &root, dataset, *month, *files, *rows);
    }
    let from_parquet = tmp.path().join("parquet");
    let out = run(&["ingest", s(&root), "--out", s(&from_parquet)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let from_pgn = tmp.path().join("pgn");
    let mut args = vec!["ingest".to_owned()];
    args.extend(pgns.iter().map(|p| s(&p.0).to_owned()));
    args.extend(["--out".to_owned(), s(&from_pgn).to_owned(), "--quiet".to_owned()]);
    assert!(Command::new(common::bin()).args(&args).status().unwrap().success());
    compare(&python, "tests/harness/parquet_input/compare.py", &from_parquet, &from_pgn);
    for source in ["standard-chess-games@2021-10", "standard-chess-games@2013-01", "crazyhouse-chess-games@2015-09"] {
        let e = entry(&from_parquet, source);
        assert_eq!((e["status"].as_str(), e["compression"].as_str()), (Some("ok"), Some("parquet")), "{e}");
        assert!(e["path"].as_str().unwrap().ends_with(&source[source.len() - 2..]), "the month's folder: {e}");
    }
    // The published columns alone: Lichess's 2021 PGN has Date and Round tags, which the
    // published files do not carry; every other column is the PGN's.
    let published = tmp.path().join("published");
    let month = write_month_as(
        &python,
        &pgns[0].0,
        &published,
        "standard-chess-games",
        ("2021", "10"),
        (2, 150),
        &["published"],
    );
    let (from_published, from_one_pgn) = (tmp.path().join("published-ds"), tmp.path().join("pgn-2021"));
    assert!(run(&["ingest", s(&month), "--out", s(&from_published), "--quiet"]).status.success());
    assert!(run(&["ingest", s(&pgns[0].0), "--out", s(&from_one_pgn), "--quiet"]).status.success());
    compare_but(&python, "tests/harness/parquet_input/compare.py", &from_published, &from_one_pgn, &["Date,Round"]);
}

/// A game is found by its key (row group:row) in the month's folder, in one of its files, and
/// through the dataset's source; a key where no row is names the rows around it.
#[test]
fn explain_finds_a_game_by_its_row() {
    let what = "explain on Parquet input";
    let Some(python) = common::python_with(&["pyarrow"], what) else { return };
    let tmp = tempfile::tempdir().unwrap();
    let month = sample_month(&python, tmp.path());
    let out = tmp.path().join("ds");
    assert!(run(&["ingest", s(&month), "--out", s(&out), "--quiet"]).status.success());
    // Row group 3 (the first of the second file: 100 rows a file, 40 a group) row 5 is game 105
    // of the sample, counted from 0.
    let text = fs::read_to_string(common::sample("lichess_db_standard_rated_2013-01-first300.pgn")).unwrap();
    let site = text.lines().filter(|l| l.starts_with("[Site ")).nth(105).unwrap();
    let site = site.trim_start_matches("[Site \"").trim_end_matches("\"]");
    let by_source = run(&["explain", s(&out), "--source", "standard-chess-games@2013-01", "--game", "3:5"]);
    let by_folder = run(&["explain", s(&month), "--game", "3:5"]);
    for found in [&by_source, &by_folder] {
        let said = String::from_utf8_lossy(&found.stdout);
        assert!(found.status.success(), "{}", stderr(found));
        assert!(said.starts_with("Game 3:5 of ") && said.lines().next().unwrap().ends_with(site), "{said}");
    }
    // A file's own row groups count from 0.
    let file = run(&["explain", s(&month.join("train-00001-of-00003.parquet")), "--game", "0:5"]);
    assert!(String::from_utf8_lossy(&file.stdout).lines().next().unwrap().ends_with(site), "{}", stderr(&file));
    let missing = run(&["explain", s(&month), "--game", "2:40"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("games start at 2:19 and 3:0"), "{}", stderr(&missing));
}

/// Regression: the report told Lichess games apart by their source's name (`lichess…`), so a
/// month of a Hugging Face dataset (`standard-chess-games@2013-01`, after the folder it was
/// downloaded to) lost the Lichess figure, the one to read where no claim by a declared move
/// exists. A game is Lichess's by its `Site` now: the month's report, from the summary and from
/// the games, counts every game as the PGN dump's does, and the mixed source of OTB games keeps
/// none.
#[test]
fn regression_a_lichess_parquet_month_not_named_lichess_is_lichess() {
    let what = "the Lichess figure of a Parquet month";
    let Some(python) = common::python_with(&["pyarrow"], what) else { return };
    let tmp = tempfile::tempdir().unwrap();
    let month = sample_month(&python, tmp.path());
    let (from_parquet, from_pgn) = (tmp.path().join("parquet"), tmp.path().join("pgn"));
    let pgn = common::sample("lichess_db_standard_rated_2013-01-first300.pgn");
    let otb = common::sample("karpov_miles_tilburg_1986.pgn");
    assert!(run(&["ingest", s(&month), s(&otb), "--out", s(&from_parquet), "--quiet"]).status.success());
    assert!(run(&["ingest", s(&pgn), "--out", s(&from_pgn), "--quiet"]).status.success());
    let report = |dir: &Path, more: &[&str]| -> Value {
        let mut args = vec!["report", s(dir), "--json"];
        args.extend(more);
        let out = run(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        // From the summary (or every game with --scan): never by falling back to the games.
        assert!(!stderr(&out).contains("reading every game"), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).expect("JSON")
    };
    let dump = report(&from_pgn, &[]);
    assert_eq!(dump["lichess"]["games"], 300, "{}", dump["lichess"]);
    assert_eq!(dump["lichess"], dump["overall"], "the dump's games are all Lichess's");
    for more in [&[][..], &["--scan"], &["--source", "standard-chess-games@2013-01"]] {
        let month = report(&from_parquet, more);
        assert_eq!(month["lichess"], dump["lichess"], "{more:?}");
    }
    // A summary written before its `venue` column, with the boolean `lichess` key it had then;
    // and one written before that: the source's name decides.
    let summary = from_pgn.join("summary/source=lichess_db_standard_rated_2013-01-first300/part-00000.parquet");
    let older = "import pyarrow as pa, pyarrow.compute as pc, pyarrow.parquet as pq, sys; \
                 t = pq.read_table(sys.argv[1]); lichess = pc.equal(t['venue'], 'lichess'); \
                 t = t.drop_columns(['venue']).append_column('lichess', lichess); pq.write_table(t, sys.argv[1])";
    let oldest = "import pyarrow.parquet as pq, sys; t = pq.read_table(sys.argv[1]); \
                  pq.write_table(t.drop_columns(['lichess']), sys.argv[1])";
    for (script, what) in [(older, "a summary with a lichess column"), (oldest, "a summary with neither column")] {
        assert!(Command::new(&python).args(["-c", script, s(&summary)]).status().unwrap().success());
        assert_eq!(report(&from_pgn, &[])["lichess"], dump["lichess"], "{what}");
    }
    let karpov = report(&from_parquet, &["--source", "karpov_miles_tilburg_1986"]);
    assert!(karpov["overall"]["games"].as_u64() > Some(0), "{karpov}");
    assert_eq!(karpov["lichess"]["games"], 0, "{}", karpov["lichess"]);
}

/// Hugging Face's cache keeps a dataset as `datasets--OWNER--NAME/snapshots/COMMIT/data/…`, its
/// files links to `blobs/`: a month is named after NAME, so the same month in a newer snapshot
/// keeps its source and is up to date (named after the commit, it was a new source, ingested
/// again beside the old one).
#[test]
fn a_month_in_the_hugging_face_cache_keeps_its_source_across_snapshots() {
    let what = "Parquet input from Hugging Face's cache";
    let Some(python) = common::python_with(&["pyarrow"], what) else { return };
    let tmp = tempfile::tempdir().unwrap();
    let written = sample_month(&python, &tmp.path().join("written"));
    let repo = tmp.path().join("hub/datasets--Lichess--standard-chess-games");
    fs::create_dir_all(repo.join("blobs")).unwrap();
    let snapshot = |commit: &str| {
        let month = repo.join(format!("snapshots/{commit}/data/year=2013/month=01"));
        fs::create_dir_all(&month).unwrap();
        for file in files_in(&written) {
            let name = file.file_name().unwrap();
            let blob = repo.join("blobs").join(name);
            if !blob.exists() {
                fs::copy(&file, &blob).unwrap();
            }
            std::os::unix::fs::symlink(Path::new("../../../../../blobs").join(name), month.join(name)).unwrap();
        }
        repo.join("snapshots").join(commit)
    };
    let out = tmp.path().join("ds");
    let first = run(&["ingest", s(&snapshot("4f1c0d2e")), "--out", s(&out), "--quiet"]);
    assert!(first.status.success(), "{}", stderr(&first));
    assert_eq!(entry(&out, "standard-chess-games@2013-01")["games"], 300);
    let again = run(&["ingest", s(&snapshot("9a8b7c6d")), "--out", s(&out)]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stderr(&again).contains("1 up to date"), "{}", stderr(&again));
    assert_eq!(manifest(&out)["inputs"].as_array().unwrap().len(), 1, "one source");
}

/// A month whose numbered files lack one (a download that stopped part way) is read as it is,
/// with a warning naming the file; once the file is there, the next run reads the month whole.
#[test]
fn a_month_missing_a_numbered_file_says_which() {
    let what = "a month missing one of its files";
    let Some(python) = common::python_with(&["pyarrow"], what) else { return };
    let tmp = tempfile::tempdir().unwrap();
    let month = sample_month(&python, tmp.path());
    let (middle, aside) = (month.join("train-00001-of-00003.parquet"), tmp.path().join("aside.parquet"));
    fs::rename(&middle, &aside).unwrap();
    let out = tmp.path().join("ds");
    let partial = run(&["ingest", s(&month), "--out", s(&out), "--quiet"]);
    assert!(partial.status.success(), "{}", stderr(&partial));
    assert!(stderr(&partial).contains("1 of its files missing (train-00001-of-00003.parquet)"), "{}", stderr(&partial));
    assert_eq!(entry(&out, "standard-chess-games@2013-01")["games"], 200);
    fs::rename(&aside, &middle).unwrap();
    let whole = run(&["ingest", s(&month), "--out", s(&out)]);
    assert!(whole.status.success(), "{}", stderr(&whole));
    assert!(!stderr(&whole).contains("missing"), "{}", stderr(&whole));
    assert_eq!(entry(&out, "standard-chess-games@2013-01")["games"], 300);
}

/// Shards split a month by row groups and together give the unsharded run's rows, keys and all.
#[test]
fn sharded_parquet_equals_unsharded() {
    let what = "sharded Parquet input";
    let Some(python) = common::python_with(&["pyarrow", "duckdb"], what) else { return };
    let tmp = tempfile::tempdir().unwrap();
    let month = sample_month(&python, tmp.path());
    let whole = tmp.path().join("whole");
    assert!(run(&["ingest", s(&month), "--out", s(&whole), "--quiet"]).status.success());
    let sharded = tmp.path().join("sharded");
    // 9 row groups in 4 shards (2, 2, 2, 3), and in 12 (some shards get none).
    for n in [4, 12] {
        let _ = fs::remove_dir_all(&sharded);
        for k in 0..n {
            let out = run(&["ingest", s(&month), "--out", s(&sharded), "--shard", &format!("{k}/{n}")]);
            assert!(out.status.success(), "shard {k}/{n}: {}", stderr(&out));
        }
        let e = entry(&sharded, "standard-chess-games@2013-01");
        assert_eq!((e["games"].as_u64(), e["shards"].as_u64()), (Some(300), Some(n)), "{e}");
        compare(&python, "tests/harness/shard/compare.py", &sharded, &whole);
    }
}

/// A month of 30,000 games (the 2013 sample 100 times) under `root`, in `files` files of row
/// groups of 500: enough parts to kill a run between.
fn big_month(python: &Path, root: &Path, files: u32) -> PathBuf {
    let text = fs::read(common::sample("lichess_db_standard_rated_2013-01-first300.pgn")).unwrap().repeat(100);
    fs::create_dir_all(root).unwrap();
    let pgn = root.join("big.pgn");
    fs::write(&pgn, text).unwrap();
    write_month(python, &pgn, root, "standard-chess-games", ("2013", "01"), files, 500)
}

/// A run killed with parts staged resumes at the row group after the last staged game, and
/// gives the uninterrupted run's rows; the next run finds the month up to date, and a changed
/// file makes it ingest the month again.
#[test]
fn a_killed_run_resumes_by_row_group_and_a_month_is_up_to_date() {
    let what = "resuming Parquet input";
    let Some(python) = common::python_with(&["pyarrow", "duckdb"], what) else { return };
    let tmp = tempfile::tempdir().unwrap();
    let month = big_month(&python, tmp.path(), 2);
    let ingest = |out: &Path| {
        let mut cmd = Command::new(common::bin());
        cmd.args(["ingest", s(&month), "--out", s(out), "--part-games", "2000", "--threads", "1"]);
        cmd
    };
    let whole = tmp.path().join("whole");
    assert!(ingest(&whole).output().unwrap().status.success());
    let killed = tmp.path().join("killed");
    let record = killed.join(".staging/source=standard-chess-games@2013-01.json");
    let staged = |r: &Path| -> u64 {
        let v: Option<Value> = fs::read(r).ok().and_then(|b| serde_json::from_slice(&b).ok());
        v.and_then(|v| v["counts"]["games"].as_u64()).unwrap_or(0)
    };
    let mut child = ingest(&killed).stderr(std::process::Stdio::null()).spawn().unwrap();
    let mut at = 0;
    while child.try_wait().unwrap().is_none() {
        at = staged(&record);
        if at >= 6000 {
            child.kill().unwrap();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let _ = child.wait();
    assert!((6000..30_000).contains(&at), "the run ended before it could be killed with parts staged ({at} games)");
    let rerun = ingest(&killed).output().unwrap();
    assert!(rerun.status.success(), "{}", stderr(&rerun));
    // After the games staged when it was killed (a part more may have been staged since).
    assert!(stderr(&rerun).contains("resuming after "), "{}", stderr(&rerun));
    compare(&python, "tests/harness/shard/compare.py", &killed, &whole);

    let again = ingest(&killed).output().unwrap();
    assert!(stderr(&again).contains("up to date (source"), "{}", stderr(&again));
    assert_eq!(entry(&killed, "standard-chess-games@2013-01")["status"], "up_to_date");
    // One file of the month rewritten with other row groups: the month is ingested again.
    let first = month.join("train-00000-of-00002.parquet");
    let script = "import sys, pyarrow.parquet as pq; t = pq.read_table(sys.argv[1]); pq.write_table(t, sys.argv[1], row_group_size=700)";
    assert!(Command::new(&python).args(["-c", script, s(&first)]).status().unwrap().success());
    let changed = ingest(&killed).output().unwrap();
    assert!(changed.status.success() && !stderr(&changed).contains("up to date (source"), "{}", stderr(&changed));
    assert_eq!(entry(&killed, "standard-chess-games@2013-01")["games"], 30_000);
}

/// Bad input: no `movetext` column (the error lists the columns there are), a tag column of a
/// type that is no tag, a truncated file and a corrupt page fail their input and commit
/// nothing; a null or illegal movetext is a game with an error (strings dictionary-typed, as
/// pandas' categoricals are written, read as strings).
#[test]
fn bad_parquet_input_fails_or_gives_error_rows() {
    let what = "bad Parquet input";
    let Some(python) = common::python_with(&["pyarrow"], what) else { return };
    let tmp = tempfile::tempdir().unwrap();
    let month = sample_month(&python, tmp.path());
    let dir = tmp.path().join("bad");
    fs::create_dir(&dir).unwrap();
    const SCRIPT: &str = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
d, good = sys.argv[1], sys.argv[2]
pq.write_table(pa.table({"Event": ["x"], "Site": ["y"]}), f"{d}/no_movetext.parquet")
pq.write_table(pa.table({"Event": ["a"], "WhiteElo": [1500.0], "movetext": ["1. e4 e5"]}), f"{d}/float_elo.parquet")
rows = {"Event": ["a", "b", "c"], "movetext": ["1. e4 e5", None, "1. e4 e5 2. Qxf7"]}
pq.write_table(pa.table({k: pa.array(v).dictionary_encode() for k, v in rows.items()}), f"{d}/rows.parquet")
data = open(good, "rb").read()
open(f"{d}/truncated.parquet", "wb").write(data[: len(data) // 2])
corrupt = bytearray(data)
corrupt[len(data) // 3 : len(data) // 3 + 4000] = b"\xff" * 4000
open(f"{d}/corrupt.parquet", "wb").write(bytes(corrupt))
"#;
    let good = month.join("train-00000-of-00003.parquet");
    assert!(Command::new(&python).args(["-c", SCRIPT, s(&dir), s(&good)]).status().unwrap().success());
    let failing = [
        ("no_movetext", "no `movetext` column: games in Parquet need one (this file has Event, Site)"),
        ("float_elo", "column `WhiteElo` is Float64"),
        ("truncated", "not a readable Parquet file"),
        ("corrupt", "row group"),
    ];
    for (name, says) in failing {
        let out = tmp.path().join(format!("out-{name}"));
        let file = dir.join(format!("{name}.parquet"));
        let result = run(&["ingest", s(&file), "--out", s(&out)]);
        assert_eq!(result.status.code(), Some(1), "{name}: {}", stderr(&result));
        assert!(stderr(&result).contains(says), "{name}: {}", stderr(&result));
        let e = entry(&out, &format!("{name}@parquet"));
        assert_eq!((e["status"].as_str(), e["games"].as_u64()), (Some("failed"), Some(0)), "{e}");
        assert!(e["error"].as_str().unwrap().contains(says), "{e}");
        assert!(!out.join(format!("games/source={name}@parquet")).exists(), "{name}: a partition was committed");
    }
    let out = tmp.path().join("out-rows");
    assert!(run(&["ingest", s(&dir.join("rows.parquet")), "--out", s(&out), "--quiet"]).status.success());
    let e = entry(&out, "rows@parquet");
    assert_eq!((e["games"].as_u64(), e["games_with_errors"].as_u64()), (Some(3), Some(2)), "{e}");
    let dump = Command::new(&python)
        .args([
            "-c",
            "import sys, pyarrow.parquet as pq; t = pq.read_table(sys.argv[1]).sort_by('byte_offset'); print([(r['status'], r['error_kind'], r['error_token']) for r in t.select(['status', 'error_kind', 'error_token']).to_pylist()])",
            s(&out.join("games/source=rows@parquet")),
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&dump.stdout).trim(),
        "[('ok', None, None), ('error', 'invalid_pgn', 'movetext is null'), ('error', 'illegal_move', 'Qxf7')]",
        "{}",
        stderr(&dump)
    );
}

/// `dump` reads a Parquet file or month as `ingest` does, one game per row: the records of the
/// same PGN, in key order. Row groups of more rows than a piece holds are decoded once, piece
/// after piece, and may be handed from one decoder thread to another: `ingest` with several
/// threads still gives the PGN's games and events.
#[test]
fn dump_reads_parquet_as_the_pgn() {
    let what = "dump of Parquet input";
    let Some(python) = common::python_with(&["pyarrow", "duckdb"], what) else { return };
    let tmp = tempfile::tempdir().unwrap();
    // The 2013 sample eight times over (2,400 games): row groups of 2,000 rows, more than a piece.
    let sample = fs::read(common::sample("lichess_db_standard_rated_2013-01-first300.pgn")).unwrap();
    let pgn = tmp.path().join("eight.pgn");
    fs::write(&pgn, sample.repeat(8)).unwrap();
    let month = write_month(&python, &pgn, &tmp.path().join("hf"), "standard-chess-games", ("2013", "01"), 1, 2000);
    let from_pgn = run(&["dump", s(&pgn)]);
    assert!(from_pgn.status.success(), "{}", stderr(&from_pgn));
    assert_eq!(String::from_utf8_lossy(&from_pgn.stdout).lines().count(), 2400);
    for input in [month.clone(), month.join("train-00000-of-00001.parquet")] {
        let from_parquet = run(&["dump", s(&input)]);
        assert!(from_parquet.status.success(), "{}", stderr(&from_parquet));
        assert!(from_parquet.stdout == from_pgn.stdout, "dump {} differs from the PGN's", input.display());
    }
    let limited = run(&["dump", s(&month), "--limit", "1500"]);
    let lines: Vec<&[u8]> = from_pgn.stdout.split_inclusive(|&b| b == b'\n').take(1500).collect();
    assert!(limited.status.success() && limited.stdout == lines.concat(), "{}", stderr(&limited));
    for threads in ["1", "4"] {
        let (a, b) = (tmp.path().join(format!("pq-{threads}")), tmp.path().join(format!("pgn-{threads}")));
        assert!(run(&["ingest", s(&month), "--out", s(&a), "--threads", threads, "--quiet"]).status.success());
        assert!(run(&["ingest", s(&pgn), "--out", s(&b), "--threads", threads, "--quiet"]).status.success());
        compare(&python, "tests/harness/parquet_input/compare.py", &a, &b);
    }
}

/// Parquet on stdin cannot be read (its footer, at the end, says where its columns are): `dump -`
/// and `ingest -` fail with exit status 1 and say so, rather than read it as text.
#[test]
fn parquet_on_stdin_is_refused_saying_why() {
    let what = "Parquet on stdin";
    let Some(python) = common::python_with(&["pyarrow"], what) else { return };
    let tmp = tempfile::tempdir().unwrap();
    let file = sample_month(&python, tmp.path()).join("train-00000-of-00003.parquet");
    let says = "cannot be read from stdin";
    let with_stdin =
        |args: &[&str]| Command::new(common::bin()).args(args).stdin(fs::File::open(&file).unwrap()).output().unwrap();
    let dump = with_stdin(&["dump", "-"]);
    assert_eq!(dump.status.code(), Some(1), "{}", stderr(&dump));
    assert!(stderr(&dump).contains(says) && dump.stdout.is_empty(), "{}", stderr(&dump));
    let out = tmp.path().join("out");
    let ingest = with_stdin(&["ingest", "-", "--source", "piped", "--out", s(&out), "--quiet"]);
    assert_eq!(ingest.status.code(), Some(1), "{}", stderr(&ingest));
    let e = entry(&out, "piped");
    assert_eq!((e["status"].as_str(), e["games"].as_u64()), (Some("failed"), Some(0)), "{e}");
    assert!(e["error"].as_str().unwrap().contains(says), "{e}");
    // PGN on stdin is read as before.
    let pgn = common::sample("lichess_db_standard_rated_2013-01-first300.pgn");
    let piped = Command::new(common::bin()).args(["dump", "-"]).stdin(fs::File::open(&pgn).unwrap()).output().unwrap();
    assert!(piped.status.success() && piped.stdout == run(&["dump", s(&pgn)]).stdout, "{}", stderr(&piped));
}

/// The month folder `…/standard-chess-games/data/year=2013/month=01` under `root`, holding
/// copies of `files` (a month synced in part, or again).
fn month_of(root: &Path, files: &[PathBuf]) -> PathBuf {
    let month = root.join("standard-chess-games/data/year=2013/month=01");
    fs::create_dir_all(&month).unwrap();
    for file in files {
        fs::copy(file, month.join(file.file_name().unwrap())).unwrap();
    }
    month
}

/// The files of a month folder, in name order.
fn files_in(month: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(month).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

/// `a` and `b` hold the same games and events, row for row (keys too), and the same summary
/// file, byte for byte (the summary of parts merged in any grouping is the same file).
fn same_dataset(python: &Path, a: &Path, b: &Path) {
    compare(python, "tests/harness/shard/compare.py", a, b);
    let summary =
        |d: &Path| fs::read(d.join("summary/source=standard-chess-games@2013-01/part-00000.parquet")).unwrap();
    assert!(summary(a) == summary(b), "the summaries of {} and {} differ", a.display(), b.display());
    let (x, y) = (entry(a, "standard-chess-games@2013-01"), entry(b, "standard-chess-games@2013-01"));
    for key in ["games", "events", "events_by_kind", "games_with_errors", "decompressed_bytes", "fingerprint", "size"] {
        assert_eq!(x[key], y[key], "{key}: {x} against {y}");
    }
}

/// A month ingested while only its first two files were there: once the third is added, only
/// that file is read (the run says so, and the entry records 1 file read, 2 kept), appended
/// to the partition with the keys of a whole run, and the dataset is a clean run's over the
/// three files. The next run finds it up to date; a changed middle file makes the whole month
/// read again, saying which file changed.
#[test]
fn a_month_that_gained_a_file_reads_only_that_file() {
    let what = "a Parquet month that gained a file";
    let Some(python) = common::python_with(&["pyarrow", "duckdb"], what) else { return };
    let tmp = tempfile::tempdir().unwrap();
    let all = files_in(&sample_month(&python, &tmp.path().join("hf")));
    let month = month_of(&tmp.path().join("mirror"), &all[..2]);
    let out = tmp.path().join("ds");
    // Parts of about 50 games: the first run commits several, and the kept summary is a merged one.
    let ingest = |month: &Path, out: &Path| run(&["ingest", s(month), "--out", s(out), "--part-games", "50"]);
    assert!(ingest(&month, &out).status.success());
    let e = entry(&out, "standard-chess-games@2013-01");
    assert_eq!(
        (e["games"].as_u64(), e["files_read"].as_u64(), e["files_kept"].as_u64()),
        (Some(200), Some(2), Some(0))
    );

    fs::copy(&all[2], month.join(all[2].file_name().unwrap())).unwrap();
    let added = ingest(&month, &out);
    let said = stderr(&added);
    assert!(added.status.success(), "{said}");
    assert!(said.contains("1 file(s) added after the 2 ingested: reading only those"), "{said}");
    assert!(said.contains("1 file(s) read, 2 kept"), "{said}");
    let e = entry(&out, "standard-chess-games@2013-01");
    assert_eq!(
        (e["games"].as_u64(), e["files_read"].as_u64(), e["files_kept"].as_u64()),
        (Some(300), Some(1), Some(2))
    );
    let files: Vec<(&str, u64)> = e["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap(), f["row_groups"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        files,
        [("train-00000-of-00003.parquet", 3), ("train-00001-of-00003.parquet", 3), ("train-00002-of-00003.parquet", 3)]
    );
    assert!(!out.join(".staging").exists(), "staged parts left behind");
    let clean = tmp.path().join("clean");
    assert!(run(&["ingest", s(&month), "--out", s(&clean), "--quiet"]).status.success());
    same_dataset(&python, &out, &clean);

    let again = ingest(&month, &out);
    assert!(stderr(&again).contains("up to date (source"), "{}", stderr(&again));
    let e = entry(&out, "standard-chess-games@2013-01");
    assert_eq!(
        (e["status"].as_str(), e["files_read"].as_u64(), e["files_kept"].as_u64()),
        (Some("up_to_date"), Some(0), Some(3))
    );

    // The middle file rewritten with other row groups: every later key moves, so all is read.
    let script = "import sys, pyarrow.parquet as pq; t = pq.read_table(sys.argv[1]); pq.write_table(t, sys.argv[1], row_group_size=30)";
    let middle = month.join("train-00001-of-00003.parquet");
    assert!(Command::new(&python).args(["-c", script, s(&middle)]).status().unwrap().success());
    let changed = ingest(&month, &out);
    let said = stderr(&changed);
    assert!(changed.status.success(), "{said}");
    assert!(
        said.contains("train-00001-of-00003.parquet changed since it was ingested: reading all its files again"),
        "{said}"
    );
    let e = entry(&out, "standard-chess-games@2013-01");
    assert_eq!((e["files_read"].as_u64(), e["files_kept"].as_u64()), (Some(3), Some(0)), "{e}");
    let clean = tmp.path().join("clean-changed");
    let changed_month = month_of(&tmp.path().join("changed"), &files_in(&month));
    assert!(run(&["ingest", s(&changed_month), "--out", s(&clean), "--quiet"]).status.success());
    same_dataset(&python, &out, &clean);
}

/// A run that appends a month's new file, killed with parts staged, leaves the committed
/// partition as it was (the two files' rows); the next run resumes the append and gives the
/// clean run's dataset.
#[test]
fn a_killed_append_keeps_the_old_partition_and_is_resumed() {
    let what = "a killed append to a Parquet month";
    let Some(python) = common::python_with(&["pyarrow", "duckdb"], what) else { return };
    let tmp = tempfile::tempdir().unwrap();
    let all = files_in(&big_month(&python, &tmp.path().join("hf"), 3));
    let month = month_of(&tmp.path().join("mirror"), &all[..2]);
    let ingest = |out: &Path| {
        let mut cmd = Command::new(common::bin());
        cmd.args(["ingest", s(&month), "--out", s(out), "--part-games", "2000", "--threads", "1"]);
        cmd
    };
    let (out, before) = (tmp.path().join("ds"), tmp.path().join("before"));
    assert!(ingest(&out).output().unwrap().status.success());
    assert!(ingest(&before).output().unwrap().status.success());
    fs::copy(&all[2], month.join(all[2].file_name().unwrap())).unwrap();
    let record = out.join(".staging/source=standard-chess-games@2013-01.json");
    let staged = |r: &Path| -> u64 {
        let v: Option<Value> = fs::read(r).ok().and_then(|b| serde_json::from_slice(&b).ok());
        v.and_then(|v| v["counts"]["games"].as_u64()).unwrap_or(0)
    };
    let before_games = entry(&before, "standard-chess-games@2013-01")["games"].as_u64().unwrap();
    let mut child = ingest(&out).stderr(std::process::Stdio::null()).spawn().unwrap();
    let mut at = 0;
    while child.try_wait().unwrap().is_none() {
        at = staged(&record);
        if at >= before_games + 2000 {
            child.kill().unwrap();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let _ = child.wait();
    assert!(
        (before_games + 2000..30_000).contains(&at),
        "the append ended before it could be killed with a part staged ({at} games)"
    );
    // Killed: the committed partition is the two files' still, and the manifest says so.
    compare(&python, "tests/harness/shard/compare.py", &out, &before);
    assert_eq!(entry(&out, "standard-chess-games@2013-01")["games"].as_u64(), Some(before_games));
    let rerun = ingest(&out).output().unwrap();
    assert!(rerun.status.success(), "{}", stderr(&rerun));
    assert!(stderr(&rerun).contains("resuming after "), "{}", stderr(&rerun));
    let clean = tmp.path().join("clean");
    assert!(ingest(&clean).output().unwrap().status.success());
    same_dataset(&python, &out, &clean);
}
