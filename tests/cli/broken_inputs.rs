//! Broken inputs: each gives a clear error or a recorded per-game error, never a panic, and
//! nothing is silently lost. Runs the real binary on files made here.

use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Output},
};

use serde_json::Value;

use crate::common::{self, dump};

/// Runs the binary under `/usr/bin/time`: no panic, and peak RSS within [`RSS_LIMIT_KIB`] on
/// every broken input, small ones included (a corrupt zstd header could ask for a huge window).
fn threefold(args: &[&str]) -> Output {
    let mut out = Command::new("/usr/bin/time")
        .args(["-f", "%M", common::bin()])
        .args(args)
        .output()
        .expect("/usr/bin/time (Debian package time) runs the binary");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "threefold {args:?} panicked:\n{stderr}");
    assert_ne!(out.status.code(), Some(101), "threefold {args:?} panicked:\n{stderr}");
    let (rest, last) = stderr.trim_end().rsplit_once('\n').unwrap_or(("", stderr.trim_end()));
    let kib: u64 = last.trim().parse().unwrap_or_else(|_| panic!("no RSS from /usr/bin/time in {stderr:?}"));
    eprintln!("peak RSS {kib} KiB for threefold {args:?}");
    assert!(kib <= RSS_LIMIT_KIB, "peak RSS {kib} KiB for threefold {args:?}");
    // What the binary itself wrote, without time's lines.
    let rest = rest.lines().filter(|l| !l.starts_with("Command exited with non-zero status")).collect::<Vec<_>>();
    out.stderr = rest.join("\n").into_bytes();
    out
}

fn ingest(inputs: &[&Path], out: &Path) -> (Output, Value) {
    ingest_threads(inputs, out, None)
}

/// `ingest` with `--threads` (else one per core): from 2 on, plain text and pzstd files are read
/// in surveyed blocks.
fn ingest_threads(inputs: &[&Path], out: &Path, threads: Option<&str>) -> (Output, Value) {
    let mut args = vec!["ingest", "--quiet", "--out", out.to_str().unwrap()];
    if let Some(n) = threads {
        args.extend(["--threads", n]);
    }
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    let o = threefold(&args);
    let manifest = serde_json::from_slice(&fs::read(out.join("_manifest.json")).expect("manifest written")).unwrap();
    (o, manifest)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, bytes).unwrap();
    p
}

fn karpov() -> Vec<u8> {
    fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("data-samples/karpov_miles_tilburg_1986.pgn")).unwrap()
}

fn compress(cmd: &str, data: &[u8]) -> Vec<u8> {
    let mut child = Command::new(cmd)
        .arg("-c")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(data).unwrap();
    child.wait_with_output().unwrap().stdout
}

fn parquet_files(dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                all.extend(parquet_files(&p));
            } else if p.extension().is_some_and(|x| x == "parquet") {
                all.push(p);
            }
        }
    }
    all
}

/// The peak RSS limit for `ingest` on any one of these inputs: memory must not grow with the size
/// of a line, a tag, a comment, a game or the number of games beyond what one chunk holds.
const RSS_LIMIT_KIB: u64 = 256 * 1024;

/// Runs `threefold ingest` on `input` into `out` (within [`RSS_LIMIT_KIB`], as every run here),
/// checks it succeeded, and returns the manifest.
fn ingest_in_bounded_memory(input: &Path, out: &Path, what: &str) -> Value {
    let (o, manifest) = ingest(&[input], out);
    assert!(o.status.success(), "ingest of {what} failed: {}", String::from_utf8_lossy(&o.stderr));
    manifest
}

#[test]
fn empty_file_has_no_games() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = write(tmp.path(), "empty.pgn", b"");
    assert!(dump(&empty).is_empty());
    let (out, manifest) = ingest(&[&empty], &tmp.path().join("ds"));
    assert!(out.status.success());
    assert_eq!(manifest["games"], 0);
}

#[test]
fn binary_garbage_is_read_without_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let bytes: Vec<u8> = (0..1 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let garbage = write(tmp.path(), "garbage.pgn", &bytes);
    let games = dump(&garbage);
    assert!(games.iter().all(|g| g["status"] != "ok" || g["summary"]["plies"] == 0), "garbage replayed as moves?");
    let (out, _) = ingest(&[&garbage], &tmp.path().join("ds"));
    assert!(out.status.success());
}

#[test]
fn pgn_cut_mid_game_and_mid_tag_keeps_what_was_there() {
    let tmp = tempfile::tempdir().unwrap();
    let text = karpov();
    let s = String::from_utf8_lossy(&text);
    // Cut inside the second game's movetext, after 10 moves.
    let second = s.rfind("[Event ").unwrap();
    let cut_moves = second + s[second..].find("10.").unwrap();
    let games = dump(&write(tmp.path(), "cut-moves.pgn", &text[..cut_moves]));
    assert_eq!(games.len(), 2);
    assert_eq!(games[1]["status"], "ok");
    assert_eq!(games[1]["summary"]["plies"], 18);
    // Cut inside a tag value of the second game.
    let cut_tag = second + s[second..].find("Tilburg").unwrap() + 3;
    let games = dump(&write(tmp.path(), "cut-tag.pgn", &text[..cut_tag]));
    assert_eq!(games.len(), 2, "the cut game is still a row");
    assert_eq!(games[1]["status"], "error");
    assert_eq!(games[1]["error"]["kind"], "invalid_pgn");
}

/// `dump` and `explain` give an input they cannot open or read to its end exit status 1, as
/// `ingest` does (2 is for usage and output errors); `dump` writes every whole game read before
/// the error. Both exited 2 before, and `dump` left out the games of the last megabyte it read.
#[test]
fn dump_and_explain_exit_1_on_an_unreadable_input() {
    let tmp = tempfile::tempdir().unwrap();
    // Real games, so that the first 2 MB of the compressed file hold several chunks' worth; or
    // without the corpus, the first two thirds of 8 MB of generated games, compressed.
    let what = "a truncated pgnmentor file in dump and explain (generated PGN instead)";
    let truncated = match common::corpus_file("otb/pgnmentor-players.pgn.zst", what) {
        Some(path) => write(tmp.path(), "truncated.pgn.zst", &fs::read(path).unwrap()[..2_000_000]),
        None => {
            let packed = zstd::encode_all(&common::generated_pgn(9, 8 << 20).0[..], 3).unwrap();
            write(tmp.path(), "truncated.pgn.zst", &packed[..packed.len() * 2 / 3])
        }
    };
    let missing = tmp.path().join("missing.pgn");
    let (truncated, missing) = (truncated.to_str().unwrap(), missing.to_str().unwrap());

    let out = threefold(&["dump", truncated]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error reading") && stderr.contains("truncated.pgn.zst"), "{stderr}");
    let lines = String::from_utf8(out.stdout).unwrap().lines().count();
    assert!(stderr.contains(&format!("after {lines} games")), "{stderr}");
    // Every whole game before the error is written: all games of the text the `zstd` tool
    // decodes from the truncated file, but the last, which the truncation cut.
    let text = Command::new("zstd").arg("-dc").arg(truncated).output().unwrap();
    assert!(!text.status.success() && text.stdout.len() > 1_000_000);
    let cut = write(tmp.path(), "cut.pgn", &text.stdout);
    assert_eq!(lines + 1, dump(&cut).len(), "whole games written before the error");

    // A key past the truncation: explain reads up to the error looking for it.
    let far = "999999999999";
    for args in [vec!["dump", missing], vec!["explain", missing], vec!["explain", truncated, "--game", far]] {
        let out = threefold(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.starts_with("threefold: "), "{args:?}: {stderr}");
    }
    // Usage errors stay 2: a key where no game starts (inside the first game, past the last), or
    // not a key at all.
    let good = write(tmp.path(), "good.pgn", &karpov());
    for key in ["3", far, "x"] {
        let args = ["explain", good.to_str().unwrap(), "--game", key];
        assert_eq!(threefold(&args).status.code(), Some(2), "{args:?}");
    }
    assert_eq!(threefold(&["explain", good.to_str().unwrap(), "--game", "0"]).status.code(), Some(0));
}

/// A reader that stops early (`threefold dump big.pgn.zst | head`) ends `dump` quietly with 0.
#[test]
fn dump_into_a_closed_pipe_exits_0_quietly() {
    use std::io::Read;
    let path = common::sample("lichess_db_standard_rated_2013-01-first300.pgn");
    let mut child = Command::new(common::bin())
        .arg("dump")
        .arg(&path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 4096];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // stdout closed here: the next write fails with EPIPE.
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn truncated_and_corrupt_compressed_inputs_fail_with_an_offset() {
    let tmp = tempfile::tempdir().unwrap();
    let text = karpov().repeat(200);
    let good = write(tmp.path(), "good.pgn", &text);
    for (cmd, ext) in [("zstd", "zst"), ("bzip2", "bz2"), ("gzip", "gz")] {
        let packed = compress(cmd, &text);
        let truncated = write(tmp.path(), &format!("truncated.pgn.{ext}"), &packed[..packed.len() / 2]);
        let mut flipped = packed.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0x55;
        let flipped = write(tmp.path(), &format!("flipped.pgn.{ext}"), &flipped);
        let ds = tmp.path().join(format!("ds-{ext}"));
        let (out, manifest) = ingest(&[&truncated, &flipped, &good], &ds);
        assert_eq!(out.status.code(), Some(1), "{ext}: an unreadable input makes the exit status 1");
        let inputs = manifest["inputs"].as_array().unwrap();
        let entry = |name: &str| inputs.iter().find(|e| e["path"].as_str().unwrap().ends_with(name)).unwrap().clone();
        let t = entry(&format!("truncated.pgn.{ext}"));
        assert_eq!(t["status"], "failed", "{ext}: {t}");
        assert!(t["error_offset"].as_u64().is_some(), "{ext}: {t}");
        assert!(!t["error"].as_str().unwrap().is_empty());
        let f = entry(&format!("flipped.pgn.{ext}"));
        // A flipped bit is a checksum or format error for zstd/bzip2/gzip.
        assert_eq!(f["status"], "failed", "{ext}: {f}");
        assert_eq!(entry("good.pgn")["games"], 400, "{ext}: the good input still completes");
        let names: Vec<String> = parquet_files(&ds).iter().map(|p| p.display().to_string()).collect();
        assert!(
            names.iter().all(|n| n.contains("source=good")),
            "{ext}: only the good source has Parquet files: {names:?}"
        );
    }
}

#[test]
fn impossible_fens_are_recorded_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let pgn = "[Event \"castling\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1\"]\n\n1. Kd2 *\n\n\
               [Event \"ep\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - e6 0 1\"]\n\n1. Kd2 *\n\n\
               [Event \"garbage\"]\n[FEN \"not a fen\"]\n\n1. e4 *\n";
    let games = dump(&write(tmp.path(), "fens.pgn", pgn.as_bytes()));
    assert_eq!(games.len(), 3);
    for g in &games {
        assert_eq!(g["error"]["kind"], "invalid_fen", "{g}");
        assert_eq!(g["summary"]["plies"], 0);
    }
}

#[test]
fn many_games_without_moves_are_all_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let text: String = (0..100_000).map(|i| format!("[Event \"g{i}\"]\n[Result \"*\"]\n\n*\n\n")).collect();
    let path = write(tmp.path(), "nomoves.pgn", text.as_bytes());
    let manifest = ingest_in_bounded_memory(&path, &tmp.path().join("ds"), "100,000 games without moves");
    assert_eq!(manifest["games"], 100_000);
    // Tags with no movetext and no result at all, as broadcast exports write them.
    let text: String = (0..1000).map(|i| format!("[Event \"g{i}\"]\n[Site \"x\"]\n\n")).collect();
    assert_eq!(dump(&write(tmp.path(), "tags-only.pgn", text.as_bytes())).len(), 1000);
}

#[test]
fn ten_thousand_plies_of_shuffling() {
    let tmp = tempfile::tempdir().unwrap();
    let moves = "Nf3 Nf6 Ng1 Ng8 ".repeat(2500);
    let path = write(tmp.path(), "shuffle.pgn", format!("[Event \"s\"]\n\n{moves}*\n").as_bytes());
    let manifest = ingest_in_bounded_memory(&path, &tmp.path().join("ds"), "10,000 plies of shuffling");
    assert_eq!(manifest["games"], 1);
    let games = dump(&path);
    let s = &games[0]["summary"];
    assert_eq!(s["plies"], 10_000);
    assert_eq!(s["max_occurrence"], 2501);
    assert_eq!(s["first_ply_occurrence_5"], 16);
    let longest =
        games[0]["events"].as_array().unwrap().iter().map(|e| e["earlier_plies"].as_array().unwrap().len()).max();
    assert_eq!(longest, Some(16), "earlier plies are capped");
}

/// Regression: a game of hundreds of thousands of shuffling plies (3 MB of text) took 626 MB to
/// ingest (its events are kept per game) and minutes to dump. No game the Laws allow is longer
/// than 17,697 plies: replay stops after 20,000 with a recorded error, the events before kept.
#[test]
fn a_game_longer_than_the_laws_allow_stops_after_20000_plies() {
    let tmp = tempfile::tempdir().unwrap();
    let moves = "Nf3 Nf6 Ng1 Ng8 ".repeat(100_000);
    let path = write(
        tmp.path(),
        "endless.pgn",
        format!("[Event \"s\"]\n\n{moves}*\n\n[Event \"next\"]\n\n1. e4 *\n").as_bytes(),
    );
    let manifest = ingest_in_bounded_memory(&path, &tmp.path().join("ds"), "400,000 plies of shuffling");
    assert_eq!(manifest["games"], 2);
    let games = dump(&path);
    assert_eq!(games[0]["status"], "error");
    assert_eq!(games[0]["error"], serde_json::json!({ "kind": "too_long", "ply": 20_000, "token": "Nf3" }));
    assert_eq!(games[0]["summary"]["plies"], 20_000);
    let last = games[0]["events"].as_array().unwrap().iter().map(|e| e["ply"].as_u64().unwrap()).max();
    assert_eq!(last, Some(20_000));
    assert_eq!(games[1]["status"], "ok", "the next game is read as usual");
}

#[test]
fn huge_tag_and_huge_comment_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let big_tag =
        format!("[Event \"a\"]\n[Annotator \"{}\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. d4 *\n", "x".repeat(10 << 20));
    let tag = write(tmp.path(), "tag.pgn", big_tag.as_bytes());
    drop(big_tag);
    let games = dump(&tag);
    assert_eq!(games.len(), 2, "both games are rows");
    assert_eq!(games[1]["summary"]["plies"], 1);
    let manifest = ingest_in_bounded_memory(&tag, &tmp.path().join("ds-tag"), "a 10 MB tag value");
    assert_eq!(manifest["games"], 2);
    let big_comment = format!("[Event \"a\"]\n\n1. e4 {{{}}} e5 *\n", "y".repeat(100 << 20));
    let comment = write(tmp.path(), "comment.pgn", big_comment.as_bytes());
    drop(big_comment);
    let games = dump(&comment);
    assert_eq!(games.len(), 1);
    assert_eq!(games[0]["summary"]["plies"], 2);
    let manifest = ingest_in_bounded_memory(&comment, &tmp.path().join("ds-comment"), "a 100 MB comment");
    assert_eq!(manifest["games"], 1);
}

#[test]
fn unreadable_input_in_a_directory_fails_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("in");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("a.pgn"), karpov()).unwrap();
    // A dangling link cannot be opened, even by root.
    std::os::unix::fs::symlink(dir.join("missing-target"), dir.join("b.pgn")).unwrap();
    let (out, manifest) = ingest(&[&dir], &tmp.path().join("ds"));
    assert_eq!(out.status.code(), Some(1));
    let inputs = manifest["inputs"].as_array().unwrap();
    assert!(
        inputs.iter().any(|e| e["status"] == "failed" && e["path"].as_str().unwrap().ends_with("b.pgn")),
        "{manifest}"
    );
    assert!(inputs.iter().any(|e| e["status"] == "ok" && e["games"] == 2), "{manifest}");
}

#[test]
fn real_illegal_moves_are_rows_with_their_error() {
    // Two games of the pgnmentor files have illegal moves; nothing else of the file is lost.
    let Some(path) = common::corpus_file("otb/pgnmentor-players.pgn.zst", "illegal moves in the pgnmentor files")
    else {
        return;
    };
    let games = dump(&path);
    assert_eq!(games.len(), 398_438);
    let find = |white: &str, black: &str| {
        games.iter().find(|g| g["white"] == white && g["black"] == black && g["status"] == "error").cloned()
    };
    let gelfand = find("Gelfand,B", "Gareev,T").expect("Gelfand-Gareev, World Blitz 2019");
    assert_eq!(gelfand["error"]["kind"], "illegal_move");
    let schleining = find("Schleining,Z", "Paehtz,E").expect("Schleining-Paehtz, Dresden 2014");
    assert_eq!(schleining["error"]["kind"], "illegal_move");
}

#[test]
fn a_200_mb_line_without_newline_stays_in_bounded_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = b"[Event \"long\"]\n\n1. e4 ".to_vec();
    text.extend(std::iter::repeat_n(b"e5 ".iter().copied(), (200 << 20) / 3).flatten());
    let path = write(tmp.path(), "line.pgn", &text);
    drop(text);
    for threads in ["1", "2"] {
        let (o, _) = ingest_threads(&[&path], &tmp.path().join(format!("ds{threads}")), Some(threads));
        assert!(o.status.success(), "a 200 MB line, {threads} threads: {}", String::from_utf8_lossy(&o.stderr));
    }
}

/// A file that is not PGN but has no game start in it (JSON lines: each a `{` comment) would be
/// one game held in memory whole: past 208 MiB without a game start the input fails, with the
/// offset of the game (here the file's start), on both ways of reading it.
#[test]
fn no_game_start_for_hundreds_of_megabytes_fails_the_input_in_bounded_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let line = b"{\"id\": \"abcd1234\", \"moves\": \"e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O\"}\n";
    let text = line.repeat((240 << 20) / line.len());
    let path = write(tmp.path(), "games.jsonl", &text);
    drop(text);
    for threads in ["1", "2"] {
        let (o, manifest) = ingest_threads(&[&path], &tmp.path().join(format!("ds{threads}")), Some(threads));
        assert_eq!(o.status.code(), Some(1), "{threads} threads: {}", String::from_utf8_lossy(&o.stderr));
        let entry = &manifest["inputs"][0];
        assert_eq!(entry["status"], "failed", "{entry}");
        assert_eq!(entry["error_offset"], 0, "{entry}");
        assert!(entry["error"].as_str().unwrap().contains("no game starts within 208 MiB"), "{entry}");
        assert!(!tmp.path().join(format!("ds{threads}/games/source=games")).exists());
    }
}

/// With 2 threads or more, plain text is read in blocks; a line across many blocks was copied
/// once more to be read (400 MB for this one) before it was read where it lies.
#[test]
fn regression_a_200_mb_line_across_blocks_is_not_copied_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = b"[Event \"long\"]\n\n1. e4 ".to_vec();
    text.extend(std::iter::repeat_n(b"e5 ".iter().copied(), (200 << 20) / 3).flatten());
    text.extend_from_slice(b"\n\n[Event \"next\"]\n\n1. d4 *\n");
    let path = write(tmp.path(), "line.pgn", &text);
    drop(text);
    let out = tmp.path().join("ds");
    let (o, manifest) = ingest_threads(&[&path], &out, Some("2"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(manifest["games"], 2);
}

/// Found by fuzzing (`compressed_input`): a bzip2 file of 2.5 KB that unpacks to megabytes of
/// `0` took minutes, because every `0` made the movetext scanner look for the end of its token
/// (a null move `0000`?), which was the end of the run. Quadratic, that is some 10^13 steps
/// here; linear, a few milliseconds.
///
/// Not a timing test: the bound (two minutes, for a run of milliseconds on a shared machine) only
/// turns a return of the quadratic scan from a hang into a failure.
#[test]
fn regression_zero_run_quadratic_scan() {
    let tmp = tempfile::tempdir().unwrap();
    let zeros = write(tmp.path(), "zeros.pgn", &vec![b'0'; 8 << 20]);
    let mut child =
        Command::new(common::bin()).arg("dump").arg(&zeros).stdout(std::process::Stdio::piped()).spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("dump of 8 MB of zeros still running after two minutes: the quadratic scan is back");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let games: Vec<Value> = reader.join().unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0]["summary"]["plies"], 0);
}

/// Tag values never reach the terminal raw: a `White` tag holding an escape sequence
/// that would retitle the terminal is printed escaped by `explain`.
#[test]
fn regression_a_tag_with_an_escape_sequence_does_not_drive_the_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let pgn =
        "[Event \"x\"]\n[White \"A\u{1b}]0;owned\u{7}B\"]\n[Black \"\u{9b}31mC\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 *\n";
    let file = write(tmp.path(), "escape.pgn", pgn.as_bytes());
    let out = threefold(&["explain", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
    assert!(text.contains("A\\u{1b}]0;owned\\u{7}B - \\u{9b}31mC"), "{text}");
}
