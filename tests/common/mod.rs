//! Test inputs, shared by the integration tests (`mod common;`) and the unit tests (`src/lib.rs`
//! includes this file as `testdata`): the shared corpus where it is, and what every clone has
//! where it is not (the sample data, the rule fixtures and PGN generated here).
//!
//! The corpus is `$THREEFOLD_CORPUS`, else `../shared/corpus` beside the project. A test that
//! needs it asks [`corpus`], which prints one `skipped:` line when it is missing; with
//! `THREEFOLD_REQUIRE_ALL=1` (our CI) a missing corpus fails the test instead, so a skip
//! can never hide a red test there. `tests/corpus.sh` does the same for the shell parts.
#![allow(dead_code)]

use std::{
    io::Write,
    path::{Path, PathBuf},
};

/// The project's folder (the workspace's, also from a crate under `crates/`).
pub(crate) fn root() -> &'static Path {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    match dir.parent() {
        Some(crates) if crates.ends_with("crates") => crates.parent().expect("the workspace's folder"),
        _ => dir,
    }
}

/// The `threefold` binary cargo built for the integration tests (they alone run it).
pub(crate) fn bin() -> &'static str {
    // `option_env!`: the unit tests include this file too, built without the binary's path.
    match option_env!("CARGO_BIN_EXE_threefold") {
        Some(bin) => bin,
        None => panic!("only the integration tests run the threefold binary"),
    }
}

/// A path as a command's argument.
pub(crate) fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A command's stderr, as text.
pub(crate) fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `threefold ARGS`, whatever its exit status.
pub(crate) fn run(args: &[&str]) -> std::process::Output {
    std::process::Command::new(bin()).args(args).output().expect("cannot run threefold")
}

/// Runs `threefold ARGS`, which must succeed (else the test fails with its stderr).
pub(crate) fn run_ok(args: &[&str]) -> std::process::Output {
    let out = run(args);
    assert!(
        out.status.success(),
        "threefold {args:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `threefold dump PATH`: one JSON record per game.
pub(crate) fn dump(path: &Path) -> Vec<serde_json::Value> {
    let out = run_ok(&["dump", path.to_str().expect("a UTF-8 path")]);
    String::from_utf8(out.stdout)
        .expect("dump writes UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

/// The Python interpreter with `tests/requirements.txt` (DuckDB, pyarrow, python-chess):
/// `$THREEFOLD_PYTHON`, else the project's `.venv`, which `bash scripts/test.sh` creates.
pub(crate) fn python() -> PathBuf {
    let python =
        std::env::var_os("THREEFOLD_PYTHON").map(PathBuf::from).unwrap_or_else(|| root().join(".venv/bin/python"));
    assert!(
        python.exists(),
        "no Python with DuckDB at {}: run `bash scripts/test.sh`, or create it with \
         `python3 -m venv .venv && .venv/bin/pip install -r tests/requirements.txt`, or set THREEFOLD_PYTHON",
        python.display()
    );
    python
}

/// Where the corpus is looked for.
pub(crate) fn corpus_dir() -> PathBuf {
    match std::env::var_os("THREEFOLD_CORPUS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => root().join("../shared/corpus"),
    }
}

/// The corpus folder, or `None` after printing that `what` is skipped (it goes to the
/// terminal even when the test harness captures output, so that the run lists every skip).
/// Panics instead when `THREEFOLD_REQUIRE_ALL=1`.
pub(crate) fn corpus(what: &str) -> Option<PathBuf> {
    let dir = corpus_dir();
    if dir.is_dir() {
        return Some(dir);
    }
    skip(what, &format!("corpus not found at {}; set THREEFOLD_CORPUS", dir.display()));
    None
}

/// Prints one `skipped: WHAT (WHY)` line (to the terminal, and to the test command's list of
/// skips); panics instead when `THREEFOLD_REQUIRE_ALL=1`.
pub(crate) fn skip(what: &str, why: &str) {
    if std::env::var("THREEFOLD_REQUIRE_ALL").is_ok_and(|v| v == "1") {
        panic!("{why}, and THREEFOLD_REQUIRE_ALL=1: {what} cannot be skipped");
    }
    let line = format!("skipped: {what} ({why})\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
    // The test command lists every skip at its end.
    if let Some(log) = std::env::var_os("THREEFOLD_SKIP_LOG") {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(log);
        let _ = file.and_then(|mut f| f.write_all(line.as_bytes()));
    }
}

/// The tests' Python (`$THREEFOLD_PYTHON`, else the project's `.venv`, as
/// `tests/requirements.txt` installs it) when it imports `modules`, or `None` after saying that
/// `what` is skipped ([`skip`]).
pub(crate) fn python_with(modules: &[&str], what: &str) -> Option<PathBuf> {
    let python =
        std::env::var_os("THREEFOLD_PYTHON").map(PathBuf::from).unwrap_or_else(|| root().join(".venv/bin/python"));
    let imports = format!("import {}", modules.join(", "));
    let ok = std::process::Command::new(&python).args(["-c", &imports]).output().is_ok_and(|o| o.status.success());
    if !ok {
        skip(what, &format!("no Python at {} that can `{imports}`; set THREEFOLD_PYTHON", python.display()));
        return None;
    }
    Some(python)
}

/// A file of the corpus by its path inside it, or `None` as [`corpus`] says.
pub(crate) fn corpus_file(relative: &str, what: &str) -> Option<PathBuf> {
    corpus(what).map(|dir| dir.join(relative))
}

/// The PGN files of every clone: `data-samples/` and `tests/oracle/rules/`, sorted.
pub(crate) fn sample_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["data-samples", "tests/oracle/rules"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root().join(d)).unwrap_or_else(|e| panic!("{d}: {e}")))
        .map(|e| e.expect("a readable folder").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "data-samples/ and tests/oracle/rules/ hold only {} PGN files", files.len());
    files
}

/// A file of `data-samples/`.
pub(crate) fn sample(name: &str) -> PathBuf {
    let path = root().join("data-samples").join(name);
    assert!(path.is_file(), "missing sample {}", path.display());
    path
}

/// About 4 MB of PGN and its number of games: the corpus's decompressed Lichess sample (5,550
/// games), or where the corpus is not (printing that `what` is skipped), generated PGN.
pub(crate) fn lichess_sample(what: &str) -> (Vec<u8>, usize) {
    match corpus_file("lichess/lichess_db_standard_rated_2013-01-sample.pgn.zst", what) {
        Some(path) => {
            let packed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (zstd::decode_all(&packed[..]).unwrap(), 5550)
        }
        None => generated_pgn(5, 4 << 20),
    }
}

/// Plain PGN files to check the splitter on: the corpus's folders `dirs` when the corpus is
/// there (else `what` is skipped), then the sample files, and texts generated in the forms that
/// make PGN hard to cut (CRLF, comments across lines, escape lines, header-only games, no blank
/// line between games), written under `tmp`. The corpus's first, sorted.
pub(crate) fn splitter_files(dirs: &[&str], what: &str, tmp: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(corpus) = corpus(what) {
        files = dirs
            .iter()
            .flat_map(|d| {
                let dir = corpus.join(d);
                std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            })
            .map(|e| e.expect("a readable corpus folder").path())
            .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
            .collect();
        files.sort();
        assert!(files.len() > 40, "the test corpus is small: {} files", files.len());
    }
    files.extend(sample_files());
    for (seed, bytes) in [(1, 3 << 20), (2, 200_000), (3, 20_000)] {
        let path = tmp.join(format!("generated-{seed}.pgn"));
        std::fs::write(&path, generated_pgn(seed, bytes).0).unwrap();
        files.push(path);
    }
    files
}

/// A small deterministic generator (xorshift).
pub(crate) struct Rng(pub u64);

impl Rng {
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// The games of the sample files, each as its text from its `[Event` line to the next.
fn sample_games() -> Vec<String> {
    let mut games = Vec::new();
    for name in
        ["lichess_db_standard_rated_2013-01-first300.pgn", "karpov_miles_tilburg_1986.pgn", "tcec-chess960-game35.pgn"]
    {
        let text = std::fs::read_to_string(sample(name)).unwrap();
        let mut current = String::new();
        for line in text.lines() {
            if line.starts_with("[Event ") && !current.trim().is_empty() {
                games.push(std::mem::take(&mut current));
            }
            current.push_str(line);
            current.push('\n');
        }
        if !current.trim().is_empty() {
            games.push(current);
        }
    }
    assert!(games.len() > 300, "{} sample games", games.len());
    games
}

/// Places in `movetext` where a line may be cut: after a space outside comments and
/// variations' comments, before the last token (so that the result stays last).
fn cut_points(movetext: &str) -> Vec<usize> {
    let (mut depth, mut out) = (0, Vec::new());
    let bytes = movetext.trim_end().as_bytes();
    let last_space = bytes.iter().rposition(|&b| b == b' ' || b == b'\n').unwrap_or(0);
    for (i, &b) in bytes.iter().enumerate().take(last_space) {
        match b {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b' ' if depth == 0 => out.push(i + 1),
            _ => {}
        }
    }
    out
}

/// Real games of `data-samples/` in a random order, in the forms that make PGN hard to cut into
/// games, until `min_bytes` are written: CRLF line ends, indented tag lines, a blank line inside
/// a tag section (ChessBase), no blank line between games, header-only games, tags and moves on
/// one line, comments across lines holding what looks like a tag line, `;` comments, `%` escape
/// lines, variations, a byte-order mark. Returns the text and how many games it holds (the
/// number a correct splitter finds). The same `seed` gives the same text.
pub(crate) fn generated_pgn(seed: u64, min_bytes: usize) -> (Vec<u8>, usize) {
    let games = sample_games();
    let mut rng = Rng(seed | 1);
    let mut out = String::new();
    if rng.below(2) == 0 {
        out.push('\u{feff}');
    }
    let mut n = 0;
    while out.len() < min_bytes {
        n += 1;
        let mut game = match rng.below(20) {
            0 => format!("[Event \"header only {n}\"]\n[Site \"?\"]\n\n"),
            1 => format!("[Event \"one line {n}\"] [Site \"?\"] 1. e4 {{ a [bracket] }} e5 2. Nf3 Nc6 *\n\n"),
            _ => {
                let base = &games[rng.below(games.len())];
                let (tags, movetext) = base.split_once("\n\n").unwrap_or((base.as_str(), ""));
                let mut tags = tags.to_owned();
                if rng.below(8) == 0 {
                    // ChessBase writes a blank line inside a game's tags.
                    let second = tags.find('\n').map_or(tags.len(), |i| i + 1);
                    tags.insert(second, '\n');
                }
                if rng.below(8) == 0 {
                    // Indented tag lines, after a blank line (right after movetext they are not
                    // a game start).
                    tags = format!("\n{}", tags.lines().map(|l| format!("  {l}\n")).collect::<String>().trim_end());
                }
                let mut movetext = movetext.to_owned();
                let cuts = cut_points(&movetext);
                let inserts = [
                    "{ a comment\n[Event \"not a game\"]\nover lines } ",
                    "\n%escape { [Event \"no\"]\n",
                    "; a { b\n",
                    "(1... e6 { x } 2. d4) ",
                    "{ open [brace\n\n} ",
                    "$1 ",
                ];
                let mut at: Vec<usize> =
                    (0..rng.below(4)).filter(|_| !cuts.is_empty()).map(|_| cuts[rng.below(cuts.len())]).collect();
                at.sort_unstable();
                at.dedup();
                for &i in at.iter().rev() {
                    movetext.insert_str(i, inserts[rng.below(inserts.len())]);
                }
                // A blank line in movetext outside a comment (an escape line after a `;`
                // comment's end) starts a game of its own: not what this generator means.
                movetext = movetext.replace(";\n\n%", ";\n%").replace("b\n\n%", "b\n%");
                let gap = match rng.below(6) {
                    0 => "",
                    1 => "\n\n",
                    _ => "\n",
                };
                format!("{tags}\n\n{}\n{gap}", movetext.trim_end())
            }
        };
        if rng.below(6) == 0 {
            game = game.replace('\n', "\r\n");
        }
        out.push_str(&game);
    }
    (out.into_bytes(), n)
}
