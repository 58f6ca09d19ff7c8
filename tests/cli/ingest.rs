//! `threefold ingest` end to end: the real binary on real files (the shared corpus where it is,
//! the sample data and generated PGN everywhere).

use std::{
    collections::BTreeMap,
    fs::{self, File},
    io::{Read, Write},
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

use arrow_array::{Array, RecordBatch, StringArray, UInt32Array, UInt64Array};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;

use crate::common;
use common::{python, run, s, sample};

fn ingest(args: &[&str]) -> Output {
    let mut all = vec!["ingest", "--quiet"];
    all.extend_from_slice(args);
    let out = run(&all);
    assert!(out.status.success(), "threefold {all:?} failed: {}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    out
}

fn batches(path: &Path) -> Vec<RecordBatch> {
    let file = File::open(path).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap().map(|b| b.unwrap()).collect()
}

fn part(out: &Path, table: &str, source: &str) -> PathBuf {
    out.join(table).join(format!("source={source}")).join("part-00000.parquet")
}

fn rows(path: &Path) -> u64 {
    let file = File::open(path).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    builder.metadata().file_metadata().num_rows() as u64
}

fn column<'a, T: 'static>(batch: &'a RecordBatch, name: &str) -> &'a T {
    batch.column_by_name(name).unwrap_or_else(|| panic!("no column {name}")).as_any().downcast_ref::<T>().unwrap()
}

fn manifest(out: &Path) -> Value {
    serde_json::from_slice(&fs::read(out.join("_manifest.json")).expect("manifest")).expect("manifest JSON")
}

fn manifest_entries(out: &Path) -> BTreeMap<String, Value> {
    manifest(out)["inputs"]
        .as_array()
        .expect("inputs")
        .iter()
        .map(|e| (e["path"].as_str().unwrap().to_owned(), e.clone()))
        .collect()
}

/// `(game number, ply, kind)` of every event, as `threefold dump` reports them; and the game count.
fn dump_events(path: &Path) -> (u64, Vec<(u64, u64, String)>) {
    let out = run(&["dump", s(path)]);
    assert!(out.status.success(), "dump {} failed", path.display());
    let mut games = 0;
    let mut events = Vec::new();
    for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let game: Value = serde_json::from_slice(line).unwrap();
        for e in game["events"].as_array().unwrap() {
            events.push((games, e["ply"].as_u64().unwrap(), e["kind"].as_str().unwrap().to_owned()));
        }
        games += 1;
    }
    (games, events)
}

/// The keys (`frame_offset`, `byte_offset`) of a table's rows.
fn keys(b: &RecordBatch) -> Vec<(u64, u64)> {
    let (f, o) = (column::<UInt64Array>(b, "frame_offset"), column::<UInt64Array>(b, "byte_offset"));
    (0..b.num_rows()).map(|i| (f.value(i), o.value(i))).collect()
}

/// `(game number, ply, kind)` of every event of a partition (its game numbered by its key's
/// place among the games').
fn parquet_events(out: &Path, source: &str) -> Vec<(u64, u64, String)> {
    let games: Vec<(u64, u64)> = batches(&part(out, "games", source)).iter().flat_map(keys).collect();
    assert!(games.is_sorted(), "games in key order");
    let mut events = Vec::new();
    for b in batches(&part(out, "events", source)) {
        let (p, k) = (column::<UInt32Array>(&b, "ply"), column::<StringArray>(&b, "kind"));
        for (i, key) in keys(&b).into_iter().enumerate() {
            let game = games.binary_search(&key).expect("an event's game is in games") as u64;
            events.push((game, u64::from(p.value(i)), k.value(i).to_owned()));
        }
    }
    events
}

/// Lines starting with `[Event ` (a BOM allowed before the first), counted on the decompressed
/// text as `grep -c '^\[Event '` counts them (a NUL byte also ends a line: two games of the
/// pgnmentor files follow NULs).
fn event_tag_lines(path: &Path) -> u64 {
    let (_, mut reader) = threefold::open(path).unwrap();
    let mut text = Vec::new();
    reader.read_to_end(&mut text).unwrap();
    let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&text);
    text.split(|&b| b == b'\n' || b == 0).filter(|l| l.starts_with(b"[Event ")).count() as u64
}

/// Files where `pgn-reader`'s notion of a game differs from one per `[Event` line (see the README).
const NOT_ONE_GAME_PER_EVENT_TAG: [&str; 5] = [
    // A game without tags (or a lone comment) after a blank line is a game of its own.
    "pgn-extract-test-checkmate.pgn",
    "pgn-extract-test-nomovenumbers.pgn",
    "pgn-extract-test-notags.pgn",
    "pgn-extract-test-stalemate.pgn",
    "scid-latin1.pgn",
];

/// Every file of `inputs` ingested: its games and events (game, ply, kind) as `dump` gives them.
/// Returns each source's number of games.
fn games_and_events_match_the_reader(inputs: &[&Path]) -> BTreeMap<String, u64> {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ds");
    // Small chunks, so that every file of any size is cut many times.
    let mut args: Vec<&str> = inputs.iter().map(|p| s(p)).collect();
    args.extend(["--out", s(&out), "--chunk-bytes", "4096"]);
    ingest(&args);
    let entries = manifest_entries(&out);
    let mut files = BTreeMap::new();
    for (path, entry) in &entries {
        let path = Path::new(path);
        let source = entry["source"].as_str().unwrap();
        assert_eq!(entry["status"], "ok", "{}", path.display());
        let games = rows(&part(&out, "games", source));
        let (dump_games, dump_events) = dump_events(path);
        assert_eq!(games, dump_games, "games of {} against dump", path.display());
        assert_eq!(entry["games"].as_u64(), Some(games));
        let name = path.file_name().unwrap().to_str().unwrap();
        let tags = event_tag_lines(path);
        // The rule fixtures and generated games are made to part from one game per `[Event`.
        let made = name == "generated.pgn" || path.parent().is_some_and(|d| d.ends_with("tests/oracle/rules"));
        if tags > 0 && !NOT_ONE_GAME_PER_EVENT_TAG.contains(&name) && !made {
            assert_eq!(games, tags, "games of {} against its [Event lines", path.display());
        }
        let events = parquet_events(&out, source);
        assert_eq!(events.len(), dump_events.len(), "events of {}", path.display());
        assert!(events == dump_events, "events of {} differ from dump", path.display());
        files.insert(source.to_owned(), games);
    }
    files
}

#[test]
fn whole_corpus_games_and_events_match_the_reader() {
    let Some(corpus) = common::corpus("ingest against dump on the whole corpus") else { return };
    let files = games_and_events_match_the_reader(&[&corpus]).len();
    assert!(files >= 70, "only {files} corpus files ingested");
}

#[test]
fn samples_and_rule_fixtures_games_and_events_match_the_reader() {
    let root = common::root();
    let tmp = tempfile::tempdir().unwrap();
    let generated = tmp.path().join("generated.pgn");
    let (text, games) = common::generated_pgn(11, 1 << 20);
    fs::write(&generated, text).unwrap();
    let files =
        games_and_events_match_the_reader(&[&root.join("data-samples"), &root.join("tests/oracle/rules"), &generated]);
    assert!(files.len() >= 15, "only {} files ingested", files.len());
    // Indented and one-line tag sections, header-only games: the games the generator wrote.
    assert_eq!(files["generated"], games as u64);
}

fn tree_bytes(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut all = BTreeMap::new();
    for table in ["games", "events", "summary"] {
        for entry in fs::read_dir(dir.join(table)).unwrap() {
            let part = entry.unwrap().path();
            for file in fs::read_dir(&part).unwrap() {
                let file = file.unwrap().path();
                all.insert(file.strip_prefix(dir).unwrap().to_path_buf(), fs::read(&file).unwrap());
            }
        }
    }
    all
}

#[test]
fn output_bytes_do_not_depend_on_threads() {
    let tmp = tempfile::tempdir().unwrap();
    // The corpus's Lichess files, or the samples.
    let (lichess, files) =
        match common::corpus("thread-independent output on the corpus's Lichess files (samples instead)") {
            Some(corpus) => (corpus.join("lichess"), 6),
            None => (common::root().join("data-samples"), 3),
        };
    let (one, two, eight) = (tmp.path().join("one"), tmp.path().join("two"), tmp.path().join("eight"));
    ingest(&[s(&lichess), "--out", s(&one), "--threads", "1", "--chunk-bytes", "65536"]);
    ingest(&[s(&lichess), "--out", s(&two), "--threads", "2", "--chunk-bytes", "65536"]);
    // 8 threads also encode the Parquet columns on a pool of their own.
    ingest(&[s(&lichess), "--out", s(&eight), "--threads", "8", "--chunk-bytes", "65536"]);
    let (a, b, c) = (tree_bytes(&one), tree_bytes(&two), tree_bytes(&eight));
    assert_eq!(a.len(), 3 * files, "games, events and summary of each file");
    assert!(a == b, "--threads 1 and --threads 2 wrote different files");
    assert!(a == c, "--threads 1 and --threads 8 wrote different files");
}

/// The Lichess variants' replay too: the same files whatever the thread count (a crazyhouse game
/// with drops and a declared drop, a three-check, an atomic and a racing kings game, again and
/// again over many chunks).
#[test]
fn variant_output_bytes_do_not_depend_on_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let games = [
        "[Variant \"crazyhouse\"]\n[FEN \"3rk3/8/8/8/8/8/8/4K2R[N] w - - 0 1\"]\n[Result \"1/2-1/2\"]\n\n\
         1. N@d4 Rxd4 2. Kf1 N@h4 3. Rxh4 Rd8 4. Rh1 Kf8 5. Ke1 Ke8 6. N@d4 Rxd4 7. Kf1 N@h4 \
         8. Rxh4 Rd8 9. Rh1 Kf8 10. Ke1 Ke8 11. N@d4 1/2-1/2\n",
        "[Variant \"Three-check\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Bxf7+ Kxf7 4. Qh5+ g6 5. Qf3+ 1-0\n",
        "[Variant \"Atomic\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2\n",
        "[Variant \"Racing Kings\"]\n\n1. Nf3 Nc3 2. Ne1 Nd1 3. Nf3 Nc3 4. Ne1 Nd1 *\n",
    ];
    let text: String = (0..200).map(|i| format!("[Event \"{i}\"]\n{}\n", games[i % games.len()])).collect();
    let file = tmp.path().join("variants.pgn");
    fs::write(&file, text).unwrap();
    let (one, two, eight) = (tmp.path().join("one"), tmp.path().join("two"), tmp.path().join("eight"));
    for (dir, threads) in [(&one, "1"), (&two, "2"), (&eight, "8")] {
        ingest(&[s(&file), "--out", s(dir), "--threads", threads, "--chunk-bytes", "4096"]);
    }
    let (a, b, c) = (tree_bytes(&one), tree_bytes(&two), tree_bytes(&eight));
    assert_eq!(a.len(), 3, "games, events and summary");
    assert!(a == b && a == c, "the thread count changed the variant games' files");
}

#[test]
fn stdin_gives_the_same_partition_as_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let file = sample("lichess_db_standard_rated_2013-01-first300.pgn");
    let (from_file, from_stdin) = (tmp.path().join("f"), tmp.path().join("s"));
    ingest(&[s(&file), "--out", s(&from_file), "--source", "kasparov"]);
    let mut child = Command::new(common::bin())
        .args(["ingest", "-", "--out", s(&from_stdin), "--source", "kasparov", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&fs::read(&file).unwrap()).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(rows(&part(&from_stdin, "games", "kasparov")), 300);
    assert!(tree_bytes(&from_file) == tree_bytes(&from_stdin));
    let entry = &manifest(&from_stdin)["inputs"][0];
    assert_eq!(entry["path"], "-");
}

/// The decompressed Lichess sample of the corpus (5,550 games), or where the corpus is not,
/// generated PGN of the same size; and its game count.
fn lichess_sample(dir: &Path) -> (PathBuf, u64) {
    let path = dir.join("sample.pgn");
    let (text, games) = common::lichess_sample("ingest of the corpus's Lichess sample (generated PGN instead)");
    fs::write(&path, &text).unwrap();
    (path, games as u64)
}

fn pzstd(input: &Path, output: &Path) {
    let status = Command::new("pzstd")
        .args(["-q", "-1", "-p", "2", s(input), "-o", s(output)])
        .status()
        .expect("pzstd is needed for this test (apt-get install zstd)");
    assert!(status.success());
}

#[test]
fn multi_frame_zstd_and_multi_stream_bzip2_read_completely() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, games) = lichess_sample(tmp.path());
    let zst = tmp.path().join("pz.pgn.zst");
    pzstd(&plain, &zst);
    let frames = fs::read(&zst).unwrap().windows(4).filter(|w| *w == [0x28, 0xb5, 0x2f, 0xfd]).count();
    assert!(frames >= 2, "pzstd wrote {frames} frame(s)");

    // Two bzip2 streams back to back, as pbzip2 writes them.
    let text = fs::read(&plain).unwrap();
    let half = text.len() / 2;
    let mut bz = Vec::new();
    for part in [&text[..half], &text[half..]] {
        let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        enc.write_all(part).unwrap();
        bz.extend(enc.finish().unwrap());
    }
    let bz2 = tmp.path().join("pb.pgn.bz2");
    fs::write(&bz2, bz).unwrap();

    let out = tmp.path().join("ds");
    ingest(&[s(&zst), s(&bz2), "--out", s(&out)]);
    assert_eq!(rows(&part(&out, "games", "pz")), games);
    assert_eq!(rows(&part(&out, "games", "pb")), games);
    let entries = manifest_entries(&out);
    for e in entries.values() {
        assert_eq!(e["decompressed_bytes"].as_u64(), Some(text.len() as u64));
    }
}

#[test]
fn a_truncated_input_fails_alone_and_leaves_no_parquet() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, games) = lichess_sample(tmp.path());
    let zst = tmp.path().join("whole.pgn.zst");
    pzstd(&plain, &zst);
    let bytes = fs::read(&zst).unwrap();
    let cut = tmp.path().join("cut.pgn.zst");
    fs::write(&cut, &bytes[..bytes.len() * 3 / 4]).unwrap();
    let out = tmp.path().join("ds");
    let result = run(&["ingest", "--quiet", s(&cut), s(&zst), "--out", s(&out)]);
    assert_eq!(result.status.code(), Some(1), "{}", String::from_utf8_lossy(&result.stderr));
    let entries = manifest_entries(&out);
    let failed = &entries[s(&std::path::absolute(&cut).unwrap())];
    assert_eq!(failed["status"], "failed");
    assert!(failed["error_offset"].as_u64().unwrap() > 1 << 20, "{failed}");
    assert!(failed["error"].as_str().unwrap().contains("cut.pgn.zst"));
    assert_eq!(failed["games"], 0);
    // Nothing of the failed source, not even a temporary file; the other input is complete.
    for table in ["games", "events", "summary"] {
        let names: Vec<String> = fs::read_dir(out.join(table))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["source=whole".to_owned()], "{table}");
    }
    assert_eq!(rows(&part(&out, "games", "whole")), games);
}

#[test]
fn a_missing_file_is_reported_in_the_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ds");
    let result =
        run(&["ingest", "--quiet", "no-such-file.pgn", s(&sample("tcec-chess960-game35.pgn")), "--out", s(&out)]);
    assert_eq!(result.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&result.stderr).contains("no-such-file.pgn"));
    let failed: Vec<Value> = manifest_entries(&out).into_values().filter(|e| e["status"] == "failed").collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["error_offset"], 0);
    assert_eq!(rows(&part(&out, "games", "tcec-chess960-game35")), 1);
}

/// An output error part-way through a run: here a file size limit (`ulimit -f`, with SIGXFSZ
/// ignored so that the write fails with EFBIG as on a full disk or a quota, instead of killing
/// the process) that the small inputs' files stay under and the Lichess sample's games file
/// (about 260 KB) exceeds. The sources committed before it must be in the manifest.
#[test]
fn an_output_error_keeps_the_committed_sources_in_the_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ds");
    let (bilbao, karpov) = (sample("tcec-chess960-game35.pgn"), sample("karpov_miles_tilburg_1986.pgn"));
    let what = "an output error on the corpus's Lichess sample (generated PGN instead)";
    let big =
        common::corpus_file("lichess/lichess_db_standard_rated_2013-01-sample.pgn.zst", what).unwrap_or_else(|| {
            let path = tmp.path().join("lichess_db_standard_rated_2013-01-sample.pgn");
            fs::write(&path, common::generated_pgn(3, 4 << 20).0).unwrap();
            path
        });
    // 64 blocks: 32 KiB in sh's 512-byte blocks (64 KiB where a shell counts KiB); the small
    // inputs' files are about 16 KB.
    let result = Command::new("sh")
        .args(["-c", "trap '' XFSZ; ulimit -f 64 && exec \"$0\" \"$@\"", common::bin(), "ingest", "--quiet"])
        .args([s(&bilbao), s(&karpov), s(&big), "--out", s(&out)])
        .output()
        .expect("cannot run sh");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "an output error is exit status 2: {stderr}");
    assert!(stderr.contains("lichess_db_standard_rated_2013-01-sample"), "{stderr}");
    let m = manifest(&out);
    let entries = manifest_entries(&out);
    assert_eq!(entries.len(), 2, "{m}");
    for (path, source, games) in [(&bilbao, "tcec-chess960-game35", 1), (&karpov, "karpov_miles_tilburg_1986", 2)] {
        let entry = &entries[s(&std::path::absolute(path).unwrap())];
        assert_eq!(entry["status"], "ok", "{entry}");
        assert_eq!(entry["source"], source);
        assert_eq!(entry["games"], games);
        assert_eq!(rows(&part(&out, "games", source)), games);
        assert_eq!(rows(&part(&out, "events", source)), entry["events"].as_u64().unwrap());
    }
    assert_eq!(m["games"], 3);
    // The failed source left nothing, not even a temporary file.
    for table in ["games", "events", "summary"] {
        let mut names: Vec<String> = fs::read_dir(out.join(table))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["source=karpov_miles_tilburg_1986", "source=tcec-chess960-game35"], "{table}");
    }
    assert!(out.join("views.sql").is_file(), "the views are there for the committed partitions");

    // Rerunning the same job without the limit completes it (the inputs committed before are
    // up to date), and the manifest is that of one uninterrupted run.
    ingest(&[s(&bilbao), s(&karpov), s(&big), "--out", s(&out)]);
    let whole = tmp.path().join("whole");
    ingest(&[s(&bilbao), s(&karpov), s(&big), "--out", s(&whole)]);
    let statuses: Vec<Value> =
        manifest(&out)["inputs"].as_array().unwrap().iter().map(|e| e["status"].clone()).collect();
    assert_eq!(statuses, ["up_to_date", "ok", "up_to_date"], "karpov, big, tcec");
    let strip = |mut m: Value| {
        for e in m["inputs"].as_array_mut().unwrap() {
            e.as_object_mut().unwrap().remove("seconds");
            e["status"] = Value::from("ok");
        }
        m
    };
    assert_eq!(strip(manifest(&out)), strip(manifest(&whole)));
    assert!(tree_bytes(&out) == tree_bytes(&whole));
}

#[test]
fn reingesting_a_source_replaces_its_partition() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ds");
    ingest(&[s(&sample("lichess_db_standard_rated_2013-01-first300.pgn")), "--out", s(&out), "--source", "x"]);
    ingest(&[s(&sample("karpov_miles_tilburg_1986.pgn")), "--out", s(&out), "--source", "x"]);
    ingest(&[s(&sample("tcec-chess960-game35.pgn")), "--out", s(&out), "--source", "bilbao"]);
    assert_eq!(rows(&part(&out, "games", "x")), 2);
    for table in ["games", "events", "summary"] {
        let mut names: Vec<String> = fs::read_dir(out.join(table))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["source=bilbao", "source=x"]);
    }
    let m = manifest(&out);
    assert_eq!(m["inputs"].as_array().unwrap().len(), 2);
    assert_eq!(m["games"], 3);
}

/// A run killed between swapping in a partition's games folder and its events folder left new
/// games beside old events. Its commit record lets the next `ingest` into the dataset, of any
/// source, finish that commit: here the killed run re-ingested source `x` (300 games → 2)
/// and was killed right after the games folder's swap, before writing its manifest entry.
#[test]
fn the_next_run_finishes_a_commit_killed_between_the_two_tables() {
    let by_source = |out: &Path| -> BTreeMap<String, Value> {
        manifest_entries(out).into_values().map(|e| (e["source"].as_str().unwrap().to_owned(), e)).collect()
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ds");
    ingest(&[s(&sample("lichess_db_standard_rated_2013-01-first300.pgn")), "--out", s(&out), "--source", "x"]);
    let out = fs::canonicalize(&out).unwrap();
    // The killed run's new partition, as it wrote it under its temporary names.
    let fresh = tmp.path().join("fresh");
    ingest(&[s(&sample("karpov_miles_tilburg_1986.pgn")), "--out", s(&fresh), "--source", "x"]);
    let expected = tree_bytes(&fresh);
    let entry = by_source(&fresh)["x"].clone();
    let mut child = Command::new("true").spawn().unwrap();
    child.wait().unwrap();
    let pid = child.id();
    let mut inodes = Vec::new();
    for table in ["games", "events", "summary"] {
        let temp = out.join(table).join(format!(".tmp-source=x-{pid}"));
        fs::rename(fresh.join(table).join("source=x"), &temp).unwrap();
        inodes.push(std::os::unix::fs::MetadataExt::ino(&fs::metadata(&temp).unwrap()));
    }
    let record = out.join(format!(".commit-source=x-{pid}.json"));
    let host = fs::read_to_string("/proc/sys/kernel/hostname").unwrap().trim().to_owned();
    let text = serde_json::json!({ "source": "x", "host": host, "pid": pid, "inodes": inodes, "entry": entry });
    fs::write(&record, serde_json::to_vec(&text).unwrap()).unwrap();
    // Killed after the games folder's exchange: new games in place, the old ones under the
    // temporary name; the events folder not swapped yet.
    let (games, games_temp) = (out.join("games/source=x"), out.join(format!("games/.tmp-source=x-{pid}")));
    let aside = out.join("games/aside");
    fs::rename(&games, &aside).unwrap();
    fs::rename(&games_temp, &games).unwrap();
    fs::rename(&aside, &games_temp).unwrap();
    assert_eq!(rows(&part(&out, "games", "x")), 2);
    assert_eq!(by_source(&out)["x"]["games"], 300, "the manifest still describes the old run");
    let report = run(&["report", s(&out)]);
    let warning = String::from_utf8_lossy(&report.stderr);
    assert!(report.status.success() && warning.contains("commit of source(s) x unfinished"), "{warning}");
    // The old run's events match none of the new run's two games: left out, and said.
    assert!(warning.contains("belong to no game of the games table"), "{warning}");

    ingest(&[s(&sample("tcec-chess960-game35.pgn")), "--out", s(&out), "--source", "bilbao"]);
    let got: BTreeMap<PathBuf, Vec<u8>> =
        tree_bytes(&out).into_iter().filter(|(p, _)| !p.to_string_lossy().contains("bilbao")).collect();
    assert!(got == expected, "source x is the killed run's new partition, both tables");
    let entries = by_source(&out);
    assert_eq!(entries["x"], entry);
    assert_eq!(entries.len(), 2);
    for dir in [out.clone(), out.join("games"), out.join("events"), out.join("summary")] {
        let hidden: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            // The lock files' folder stays (the locks are released with their process).
            .filter(|n| n.to_string_lossy().starts_with('.') && n != ".locks")
            .collect();
        assert!(hidden.is_empty(), "{}: {hidden:?}", dir.display());
    }
}

#[test]
fn refuses_a_directory_that_is_not_a_dataset() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("precious.txt"), "keep me").unwrap();
    let result = run(&["ingest", "--quiet", s(&sample("karpov_miles_tilburg_1986.pgn")), "--out", s(tmp.path())]);
    assert_eq!(result.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&result.stderr).contains("not a threefold dataset"));
    assert!(!tmp.path().join("games").exists());
}

#[test]
fn byte_offsets_point_at_the_games() {
    let tmp = tempfile::tempdir().unwrap();
    // The corpus's Lichess games with clocks, or the sample's (Lichess dump format both).
    let (file, games) = match common::corpus_file(
        "lichess/lichess-2021-10-01-clocks-sample.pgn",
        "byte offsets in the corpus's clock sample (the Lichess sample instead)",
    ) {
        Some(file) => (file, 999),
        None => (sample("lichess_db_standard_rated_2013-01-first300.pgn"), 300),
    };
    let source = file.file_stem().unwrap().to_str().unwrap().to_owned();
    let out = tmp.path().join("ds");
    ingest(&[s(&file), "--out", s(&out), "--chunk-bytes", "10000"]);
    let text = fs::read(&file).unwrap();
    let mut n = 0;
    for b in batches(&part(&out, "games", &source)) {
        let offsets = column::<UInt64Array>(&b, "byte_offset");
        let sites = column::<StringArray>(&b, "Site");
        for i in 0..b.num_rows() {
            let at = &text[offsets.value(i) as usize..];
            assert!(at.starts_with(b"[Event "), "game {n} at {}", offsets.value(i));
            let site = format!("[Site \"{}\"]", sites.value(i));
            assert!(at[..2000.min(at.len())].windows(site.len()).any(|w| w == site.as_bytes()));
            n += 1;
        }
    }
    assert_eq!(n, games);
}

#[test]
fn duckdb_polars_and_pyarrow_read_the_dataset() {
    let python = python();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ds");
    // The samples, and the corpus's Lichess files where it is.
    let samples = common::root().join("data-samples");
    let mut inputs = vec![s(&samples).to_owned()];
    if let Some(corpus) = common::corpus("DuckDB, polars and pyarrow on the corpus's Lichess files") {
        inputs.push(s(&corpus.join("lichess")).to_owned());
    }
    let sources = if inputs.len() == 2 { 9 } else { 3 };
    let mut args: Vec<&str> = inputs.iter().map(String::as_str).collect();
    args.extend(["--out", s(&out)]);
    ingest(&args);
    let m = manifest(&out);
    let script = r#"
import sys, duckdb, polars as pl, pyarrow.dataset as ds
out = sys.argv[1]
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")  # nothing but the result on stdout
con.execute(open(out + "/views.sql").read())
g = con.execute("select count(*), count(distinct source) from games").fetchone()
e = con.execute("select count(*) from events").fetchone()[0]
j = con.execute("select count(*) from events join games using (source, frame_offset, byte_offset)").fetchone()[0]
k = con.execute("select count(*) from events where source = 'karpov_miles_tilburg_1986' and kind = 'pseudo_repetition'").fetchone()[0]
t = con.execute("select typeof(WhiteElo), typeof(UTCDate), typeof(UTCTime), typeof(earlier_plies) from games, events limit 1").fetchone()
p = pl.scan_parquet(out + "/games/**/*.parquet", hive_partitioning=True).select(pl.len()).collect().item()
a = ds.dataset(out + "/events", format="parquet", partitioning="hive").count_rows()
# The summary view: every game in one row's counts, each source's games and Karpov-Miles's castling case.
sm = con.execute("select sum(games + skipped + no_moves), count(distinct source) from summary").fetchone()
sj = con.execute("select count(*) from (select source, count(*) n from games group by 1) join (select source, sum(games + skipped + no_moves) n from summary group by 1) using (source, n)").fetchone()[0]
sk = con.execute("select sum(castling_games) from summary where source = 'karpov_miles_tilburg_1986'").fetchone()[0]
print(g[0], g[1], e, j, k, p, a, *t, sm[0], sm[1], sj, sk)
"#;
    let result = Command::new(&python).arg("-c").arg(script).arg(&out).output().expect("cannot run python");
    assert!(result.status.success(), "python failed:\n{}", String::from_utf8_lossy(&result.stderr));
    let text = String::from_utf8(result.stdout).unwrap();
    let f: Vec<&str> = text.split_whitespace().collect();
    let (games, events) = (m["games"].to_string(), m["events"].to_string());
    assert_eq!(f[0], games);
    assert_eq!(f[1], sources.to_string());
    assert_eq!(f[2], events);
    assert_eq!(f[3], events, "every event joins its game");
    assert_ne!(f[4], "0", "the Karpov–Miles pseudo repetition");
    assert_eq!(f[5], games);
    assert_eq!(f[6], events);
    assert_eq!(&f[7..11], ["SMALLINT", "DATE", "TIME", "UINTEGER[]"]);
    assert_eq!(f[11], games, "the summary counts every game");
    assert_eq!((f[12], f[13]), (sources.to_string().as_str(), sources.to_string().as_str()), "each source's games");
    assert_eq!(f[14], "1", "Karpov–Miles, round 13");
}

/// The column tables of the format docs (`docs/format.md`), as (name, type) pairs:
/// `| `a`, `b` | string, uint64 | … |`, where a name written `_3` abbreviates the first name
/// with its last `_` part replaced.
fn readme_columns(table: &str) -> Vec<(String, String)> {
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/format.md")).unwrap();
    let start =
        readme.find(&format!("## `{table}`")).unwrap_or_else(|| panic!("docs/format.md has no `{table}` table"));
    let mut out = Vec::new();
    for line in readme[start..].lines().skip(4) {
        if !line.starts_with("| `") {
            break;
        }
        let cells: Vec<&str> = line.split(" | ").collect();
        let names: Vec<String> =
            cells[0].trim_start_matches("| ").split(", ").map(|n| n.trim_matches('`').to_owned()).collect();
        let types: Vec<&str> =
            if cells[1].starts_with("map<") { vec![cells[1]] } else { cells[1].split(", ").collect() };
        let first = names[0].clone();
        for (i, name) in names.iter().enumerate() {
            let name = match name.strip_prefix('_') {
                Some(suffix) => format!("{}_{suffix}", &first[..first.rfind('_').unwrap()]),
                None => name.clone(),
            };
            out.push((name, types.get(i).copied().unwrap_or(types[0]).to_owned()));
        }
    }
    out
}

fn type_name(t: &arrow_schema::DataType) -> String {
    use arrow_schema::{DataType::*, TimeUnit};
    match t {
        Utf8 => "string".into(),
        UInt64 => "uint64".into(),
        UInt32 => "uint32".into(),
        Int16 => "int16".into(),
        Float64 => "float64".into(),
        Int32 => "int32".into(),
        Int64 => "int64".into(),
        Boolean => "bool".into(),
        Binary => "binary".into(),
        Date32 => "date32".into(),
        Time32(TimeUnit::Millisecond) => "time32[ms]".into(),
        Map(entries, _) => match entries.data_type() {
            Struct(fields) if fields.len() == 2 => {
                format!("map<{}, {}>", type_name(fields[0].data_type()), type_name(fields[1].data_type()))
            }
            other => format!("map of {other:?}"),
        },
        List(f) => format!("list<{}>", type_name(f.data_type())),
        other => format!("{other:?}"),
    }
}

#[test]
fn schema_matches_the_format_docs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ds");
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("data-samples");
    ingest(&[s(&samples), "--out", s(&out)]);
    for table in ["games", "events", "summary"] {
        let file = fs::File::open(part(&out, table, "karpov_miles_tilburg_1986")).unwrap();
        let schema = ParquetRecordBatchReaderBuilder::try_new(file).unwrap().schema().clone();
        let actual: Vec<(String, String)> =
            schema.fields().iter().map(|f| (f.name().clone(), type_name(f.data_type()))).collect();
        assert_eq!(actual, readme_columns(table), "docs/format.md's `{table}` table must list every column in order");
    }
}

/// `explain` names a game as the tables do (a regression: `game_index` counted from 0 and `explain
/// --game` from 1 showed another game): for games in every frame of a pzstd file (entered at
/// the frame) and across plain text (entered at a byte), `explain DIR --source S --game KEY` with
/// a row's key shows that row's players.
#[test]
fn explain_shows_the_game_a_rows_key_names() {
    let tmp = tempfile::tempdir().unwrap();
    // Three copies of the Lichess sample (or the corpus's clocks sample), in pzstd frames of a
    // few games each, and as plain text.
    let file = common::corpus_file("lichess/lichess-2021-10-01-clocks-sample.pgn", "explain on the clocks sample")
        .unwrap_or_else(|| sample("lichess_db_standard_rated_2013-01-first300.pgn"));
    let text = fs::read(&file).unwrap().repeat(3);
    let plain = tmp.path().join("plain.pgn");
    fs::write(&plain, &text).unwrap();
    let framed = tmp.path().join("framed.pgn.zst");
    let mut out = Vec::new();
    for piece in text.chunks(100_000) {
        let frame = zstd::bulk::compress(piece, 1).unwrap();
        out.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0]);
        out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        out.extend_from_slice(&frame);
    }
    fs::write(&framed, out).unwrap();
    for (input, source) in [(&framed, "framed"), (&plain, "plain")] {
        let ds = tmp.path().join(source);
        ingest(&[s(input), "--out", s(&ds), "--source", source]);
        let mut checked = 0;
        let mut frames = std::collections::BTreeSet::new();
        for b in batches(&part(&ds, "games", source)) {
            let (white, black) = (column::<StringArray>(&b, "White"), column::<StringArray>(&b, "Black"));
            for (i, (frame, byte)) in keys(&b).into_iter().enumerate().step_by(23) {
                let key = if frame == 0 { byte.to_string() } else { format!("{frame}:{byte}") };
                let shown = run(&["explain", s(&ds), "--source", source, "--game", &key]);
                assert!(shown.status.success(), "explain {key}: {}", String::from_utf8_lossy(&shown.stderr));
                let second = String::from_utf8_lossy(&shown.stdout).lines().nth(1).unwrap_or_default().to_owned();
                assert!(
                    second.starts_with(&format!("{} - {},", white.value(i), black.value(i))),
                    "{source} {key}: {second}"
                );
                frames.insert(frame);
                checked += 1;
            }
        }
        assert!(checked >= 20, "{source}: {checked} games checked");
        if source == "framed" {
            assert!(frames.len() >= 5, "games of {} frames checked", frames.len());
        }
    }
}
