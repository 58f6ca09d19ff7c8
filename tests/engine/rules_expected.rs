//! The reading-rule cases of `tests/oracle/rules/` against records worked out by hand.
//!
//! `differential.sh` shows that threefold and the oracle agree on these files; agreement alone
//! would pass a misreading both share. Here the real binary's `dump` of every game and event is
//! checked row by row against `tests/oracle/expected/games.csv` and `events.csv`, each row
//! written from the Laws and `tests/oracle/FORMAT.md` by reading the game (the file's `White`
//! tag names the case). A rule file with no expected rows, or a row for a game that is not read,
//! fails the test.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::{self, dump};

const GAME_COLUMNS: [&str; 18] = [
    "file",
    "game",
    "white",
    "status",
    "variant",
    "result",
    "plies",
    "final_status",
    "draw_reason",
    "max_occurrence",
    "claim_opportunities",
    "missed_claims",
    "missed_claims_on_board",
    "missed_claims_by_move",
    "passed_over_claims",
    "first_claim_ply",
    "claimant",
    "error",
];
const EVENT_COLUMNS: [&str; 7] = ["file", "game", "ply", "kind", "occurrence", "earlier_plies", "detail"];

/// A JSON value as the CSV writes it: null is empty, strings bare.
fn cell(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn game_row(file: &str, g: &Value) -> Vec<String> {
    let summary = |name: &str| cell(g["summary"].get(name));
    let error = match &g["error"] {
        Value::Null => String::new(),
        e => format!("{}@{}:{}", cell(e.get("kind")), cell(e.get("ply")), cell(e.get("token"))),
    };
    vec![
        file.to_string(),
        cell(g.get("index")),
        cell(g.get("white")),
        cell(g.get("status")),
        cell(g.get("variant")),
        cell(g.get("result")),
        summary("plies"),
        summary("final_status"),
        summary("draw_reason"),
        summary("max_occurrence"),
        summary("claim_opportunities"),
        summary("missed_claims"),
        summary("missed_claims_on_board"),
        summary("missed_claims_by_move"),
        summary("passed_over_claims"),
        summary("first_claim_ply"),
        cell(g.get("claimant")),
        error,
    ]
}

fn event_row(file: &str, game: &str, e: &Value) -> Vec<String> {
    let flag = |name: &str, word: &str| if e[name] == Value::Bool(true) { Some(word.to_string()) } else { None };
    let kind = cell(e.get("kind"));
    let (occurrence, detail) = match kind.as_str() {
        "repetition" => {
            let flags: Vec<String> =
                [flag("claimable", "claimable"), flag("automatic", "automatic")].into_iter().flatten().collect();
            (cell(e.get("occurrence")), flags.join(" "))
        }
        "claim_by_move" => {
            let played = flag("played", " played").unwrap_or_default();
            (cell(e.get("occurrence")), format!("{}{played}", cell(e.get("san"))))
        }
        "pseudo_repetition" => (
            cell(e.get("fide_occurrence")),
            format!("differs={} board={}", cell(e.get("differs")), cell(e.get("board_occurrence"))),
        ),
        "hidden_repetition" => (cell(e.get("fide_occurrence")), format!("fen={}", cell(e.get("fen_occurrence")))),
        other => panic!("{file} game {game}: unknown event kind {other:?}"),
    };
    let earlier: Vec<String> =
        e["earlier_plies"].as_array().expect("earlier_plies is a list").iter().map(|p| p.to_string()).collect();
    vec![file.to_string(), game.to_string(), cell(e.get("ply")), kind, occurrence, earlier.join(" "), detail]
}

/// Expected rows of one CSV, grouped by file name (first column), header checked. A last column
/// `why` (games.csv: why a row reads as it does, where it changed) is prose, not compared.
fn expected(name: &str, header: &[&str]) -> BTreeMap<String, Vec<Vec<String>>> {
    let path = common::root().join("tests/oracle/expected").join(name);
    let mut reader = csv::Reader::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut got: Vec<String> = reader.headers().expect("a header row").iter().map(str::to_string).collect();
    let why = got.last().is_some_and(|h| h == "why");
    if why {
        got.pop();
    }
    assert_eq!(got, header, "{}: header", path.display());
    let mut by_file: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
    for record in reader.records() {
        let mut row: Vec<String> =
            record.unwrap_or_else(|e| panic!("{name}: {e}")).iter().map(str::to_string).collect();
        if why {
            row.pop();
        }
        by_file.entry(row[0].clone()).or_default().push(row);
    }
    by_file
}

/// Compares two row lists of one file, naming the first differing row and column.
fn compare(what: &str, header: &[&str], got: &[Vec<String>], want: &[Vec<String>]) -> Option<String> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if g != w {
            let diffs: Vec<String> = header
                .iter()
                .zip(g.iter().zip(w))
                .filter(|(_, (a, b))| a != b)
                .map(|(h, (a, b))| format!("{h}: got {a:?}, expected {b:?}"))
                .collect();
            return Some(format!("{what} row {i} ({}, game {}): {}", w[0], w[1], diffs.join("; ")));
        }
    }
    (got.len() != want.len()).then(|| format!("{what}: {} rows read, {} expected", got.len(), want.len()))
}

#[test]
fn every_rule_case_matches_its_hand_worked_records() {
    let mut games = expected("games.csv", &GAME_COLUMNS);
    let mut events = expected("events.csv", &EVENT_COLUMNS);
    let rules = common::root().join("tests/oracle/rules");
    let mut files: Vec<_> = std::fs::read_dir(&rules)
        .expect("tests/oracle/rules")
        .map(|e| e.expect("a readable folder").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    assert!(files.len() >= 14, "only {} rule files", files.len());

    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let records = dump(path);
        let got_games: Vec<_> = records.iter().map(|g| game_row(&name, g)).collect();
        let mut got_events = Vec::new();
        for g in &records {
            let index = cell(g.get("index"));
            for e in g["events"].as_array().expect("events is a list") {
                got_events.push(event_row(&name, &index, e));
            }
        }
        let want_games = games.remove(&name).unwrap_or_default();
        let want_events = events.remove(&name).unwrap_or_default();
        if want_games.is_empty() {
            failures.push(format!("{name}: no expected rows in games.csv"));
            continue;
        }
        failures.extend(compare(&name, &GAME_COLUMNS, &got_games, &want_games));
        failures.extend(compare(&format!("{name} events"), &EVENT_COLUMNS, &got_events, &want_events));
    }
    for stray in games.keys().chain(events.keys()) {
        failures.push(format!("{stray}: expected rows for a file not in tests/oracle/rules/"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
