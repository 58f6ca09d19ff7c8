//! Every column of both Parquet tables, read back and compared by name with what it must hold:
//! the engine's own record of the same game and event (`threefold dump`: summary, status,
//! variant, error, every event field), and the game's tags as `pgn-reader` reads them at the
//! row's `byte_offset`. Arrow checks a column's type, not its name, so two `u32` columns written
//! from each other's fields would pass every other test; here each cell is compared with the
//! field of its own name, with the JSON type its Arrow type requires (an integer for `uint32`,
//! a boolean for `bool`, …). A column this test does not know fails it until it is added.

use std::{
    collections::BTreeMap,
    fs::File,
    io::Read,
    ops::ControlFlow,
    path::{Path, PathBuf},
    process::Command,
};

use arrow_array::{
    Array, ArrayRef, RecordBatch,
    cast::AsArray,
    types::{Date32Type, Float64Type, Int16Type, Int32Type, Int64Type, Time32MillisecondType, UInt32Type, UInt64Type},
};
use arrow_schema::{DataType, TimeUnit};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use pgn_reader::{RawTag, Reader, Visitor};
use serde_json::{Value, json};
use threefold::internals::tags;

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_threefold");

/// Tags with a column of their own, and the typing each gets (the other tags go to `tags`).
const TAG_COLUMNS: [&str; 21] = [
    "Event",
    "Site",
    "White",
    "Black",
    "Result",
    "WhiteTitle",
    "BlackTitle",
    "WhiteElo",
    "BlackElo",
    "WhiteRatingDiff",
    "BlackRatingDiff",
    "UTCDate",
    "UTCTime",
    "ECO",
    "Opening",
    "Termination",
    "TimeControl",
    "Date",
    "Round",
    "Variant",
    "FEN",
];

/// `games` columns that hold the game summary, under the summary's own field names.
const SUMMARY_COLUMNS: [&str; 29] = [
    "plies",
    "max_occurrence",
    "first_ply_occurrence_2",
    "first_ply_occurrence_3",
    "first_ply_occurrence_5",
    "positions_reaching_3",
    "claim_opportunities",
    "first_claim_ply",
    "first_claim_color",
    "missed_claims",
    "first_missed_claim_ply",
    "claimant_score_after_first_missed",
    "plies_after_fivefold",
    "pseudo_repetitions",
    "hidden_repetitions",
    "first_ply_halfmove_100",
    "first_ply_halfmove_150",
    "final_status",
    "draw_reason",
    "first_threefold_span",
    "first_threefold_perpetual",
    "has_clocks",
    "has_evals",
    "first_claim_clock_ms",
    "first_claim_eval_cp",
    "first_claim_eval_mate",
    "first_missed_claim_clock_ms",
    "first_missed_claim_eval_cp",
    "first_missed_claim_eval_mate",
];

/// `events` columns that hold an event field of the same name in `dump`'s record.
const EVENT_FIELDS: [&str; 28] = [
    "ply",
    "kind",
    "fullmove",
    "turn",
    "halfmove_clock",
    "placement",
    "castling",
    "ep",
    "fen",
    "zobrist",
    "variant_state",
    "earlier_plies",
    "occurrence",
    "claimable",
    "automatic",
    "cycle_plies",
    "perpetual",
    "san",
    "uci",
    "played",
    "differs",
    "board_occurrence",
    "fide_occurrence",
    "fen_occurrence",
    "clock_ms",
    "opponent_clock_ms",
    "eval_cp",
    "eval_mate",
];

/// One cell as JSON: integers as numbers, dates as days, times as milliseconds, lists as
/// arrays, maps as arrays of `[key, value]`.
fn cell(column: &ArrayRef, i: usize) -> Value {
    if column.is_null(i) {
        return Value::Null;
    }
    match column.data_type() {
        DataType::Utf8 => json!(column.as_string::<i32>().value(i)),
        DataType::UInt32 => json!(column.as_primitive::<UInt32Type>().value(i)),
        DataType::UInt64 => json!(column.as_primitive::<UInt64Type>().value(i)),
        DataType::Int16 => json!(column.as_primitive::<Int16Type>().value(i)),
        DataType::Int32 => json!(column.as_primitive::<Int32Type>().value(i)),
        DataType::Int64 => json!(column.as_primitive::<Int64Type>().value(i)),
        DataType::Float64 => json!(column.as_primitive::<Float64Type>().value(i)),
        DataType::Boolean => json!(column.as_boolean().value(i)),
        DataType::Date32 => json!(column.as_primitive::<Date32Type>().value(i)),
        DataType::Time32(TimeUnit::Millisecond) => json!(column.as_primitive::<Time32MillisecondType>().value(i)),
        DataType::List(_) => {
            let items = column.as_list::<i32>().value(i);
            Value::Array((0..items.len()).map(|j| cell(&items, j)).collect())
        }
        DataType::Map(..) => {
            let entries = column.as_map().value(i);
            let (keys, values) = (entries.column(0), entries.column(1));
            Value::Array((0..entries.len()).map(|j| json!([cell(keys, j), cell(values, j)])).collect())
        }
        other => panic!("no JSON reading for column type {other}"),
    }
}

/// Whether `value` has the JSON type a cell of `ty` reads as (null only in a nullable column).
fn json_type_fits(ty: &DataType, nullable: bool, value: &Value) -> bool {
    match value {
        Value::Null => nullable,
        Value::String(_) => matches!(ty, DataType::Utf8),
        Value::Bool(_) => matches!(ty, DataType::Boolean),
        Value::Number(n) if n.is_u64() => {
            matches!(
                ty,
                DataType::UInt32
                    | DataType::UInt64
                    | DataType::Int16
                    | DataType::Int32
                    | DataType::Int64
                    | DataType::Date32
                    | DataType::Time32(_)
            )
        }
        Value::Number(n) if n.is_i64() => {
            matches!(ty, DataType::Int16 | DataType::Int32 | DataType::Int64 | DataType::Date32)
        }
        Value::Number(_) => matches!(ty, DataType::Float64),
        Value::Array(_) => matches!(ty, DataType::List(_) | DataType::Map(..)),
        Value::Object(_) => false,
    }
}

fn batches(path: &Path) -> Vec<RecordBatch> {
    let file = File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap().map(|b| b.unwrap()).collect()
}

/// The tags of the game that starts at the beginning of `text`, as `pgn-reader` reads them
/// (values decoded as UTF-8, else as Latin-1), in file order with duplicates.
fn raw_tags(text: &[u8], at_input_start: bool) -> Vec<(String, String)> {
    struct TagsOnly;
    impl Visitor for TagsOnly {
        type Tags = Vec<(String, String)>;
        type Movetext = ();
        type Output = Vec<(String, String)>;
        fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
            ControlFlow::Continue(Vec::new())
        }
        fn tag(&mut self, tags: &mut Self::Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<Self::Output> {
            let text =
                |b: &[u8]| String::from_utf8(b.to_vec()).unwrap_or_else(|_| b.iter().map(|&c| char::from(c)).collect());
            tags.push((text(name), text(&value.decode())));
            ControlFlow::Continue(())
        }
        fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
            ControlFlow::Break(tags)
        }
        fn end_game(&mut self, _: ()) -> Self::Output {
            Vec::new()
        }
    }
    // pgn-reader skips a byte-order mark where it starts reading; past the input's first byte a
    // mark is text (FORMAT.md), so a line break goes first to keep the reader from skipping it.
    let text: Vec<u8> = if at_input_start { text.to_vec() } else { [b"\n", text].concat() };
    Reader::new(&text[..]).read_game(&mut TagsOnly).unwrap().unwrap_or_default()
}

/// What a `games` column must hold for a game with `record` (from `dump`) and `tags`.
fn expected_game_cell(name: &str, ty: &DataType, source: &str, record: &Value, tags: &[(String, String)]) -> Value {
    let tag = |t: &str| tags.iter().find(|(n, _)| n == t).map(|(_, v)| v.as_str());
    if TAG_COLUMNS.contains(&name) {
        let value = tag(name);
        return match ty {
            DataType::Int16 => json!(value.and_then(tags::int16)),
            DataType::Date32 => json!(value.and_then(tags::date32)),
            DataType::Time32(_) => json!(value.and_then(tags::time32).map(|s| s * 1000)),
            _ => json!(value),
        };
    }
    if SUMMARY_COLUMNS.contains(&name) {
        return if record["summary"].is_null() { Value::Null } else { record["summary"][name].clone() };
    }
    match name {
        "source" => json!(source),
        // The corpus's pzstd file is one frame: every key is in the frame at 0.
        "frame_offset" => json!(0),
        "status" => record["status"].clone(),
        "replay_variant" => record["variant"].clone(),
        "error_kind" | "error_ply" | "error_token" => {
            if record["error"].is_null() {
                Value::Null
            } else {
                record["error"][&name["error_".len()..]].clone()
            }
        }
        "lichess_id" => json!(tag("Site").and_then(tags::lichess_id)),
        "time_class" => json!(tag("TimeControl").and_then(tags::time_class)),
        "base_seconds" | "increment_seconds" => record[name].clone(),
        "tags" => {
            // Every tag but the first of each name with a column of its own.
            let mut seen = Vec::new();
            let rest = tags.iter().filter(|(n, _)| {
                let typed = TAG_COLUMNS.contains(&n.as_str()) && !seen.contains(n);
                if typed {
                    seen.push(n.clone());
                }
                !typed
            });
            Value::Array(rest.map(|(n, v)| json!([n, v])).collect())
        }
        _ => panic!("games column {name} is not checked by this test: add it"),
    }
}

/// What an `events` column must hold for event `event` of the game with `record`.
fn expected_event_cell(name: &str, source: &str, key: u64, event: &Value) -> Value {
    match name {
        "source" => json!(source),
        "frame_offset" => json!(0),
        "byte_offset" => json!(key),
        "zobrist" => json!(u64::from_str_radix(event["zobrist"].as_str().expect("zobrist in hex"), 16).unwrap()),
        _ if EVENT_FIELDS.contains(&name) => event.get(name).cloned().unwrap_or(Value::Null),
        _ => panic!("events column {name} is not checked by this test: add it"),
    }
}

/// Ingests `path` and checks every cell of both tables; returns (games, events) checked.
fn check_file(path: &Path, tmp: &Path) -> (usize, usize) {
    let source = "s";
    let out = tmp.join(format!("ds-{}", path.file_name().unwrap().to_string_lossy()));
    let ingest = Command::new(BIN)
        .args(["ingest", "--quiet", "--source", source, "--out"])
        .arg(&out)
        .arg(path)
        .output()
        .unwrap();
    assert!(ingest.status.success(), "ingest {}: {}", path.display(), String::from_utf8_lossy(&ingest.stderr));
    let dump = Command::new(BIN).arg("dump").arg(path).output().unwrap();
    assert!(dump.status.success(), "dump {}", path.display());
    let records: Vec<Value> = dump
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let (_, mut reader) = threefold::open(path).unwrap();
    let mut text = Vec::new();
    reader.read_to_end(&mut text).unwrap();
    let at = |what: &str, i: usize, name: &str| format!("{}: {what} {i}, column {name}", path.display());

    let game_batches = batches(&out.join(format!("games/source={source}/part-00000.parquet")));
    // Each game's slice of the text: from its offset to the next game's.
    let mut offsets: Vec<usize> = game_batches
        .iter()
        .flat_map(|b| {
            let column = b.column_by_name("byte_offset").unwrap();
            (0..b.num_rows()).map(|i| cell(column, i).as_u64().unwrap() as usize).collect::<Vec<_>>()
        })
        .collect();
    assert!(offsets.is_sorted() && offsets.last().is_none_or(|&o| o <= text.len()), "{}: byte offsets", path.display());
    offsets.push(text.len());
    let mut games = 0;
    for batch in game_batches {
        let schema = batch.schema();
        for i in 0..batch.num_rows() {
            let record = &records[games];
            let tags = raw_tags(&text[offsets[games]..offsets[games + 1]], offsets[games] == 0);
            for (field, column) in schema.fields().iter().zip(batch.columns()) {
                let name = field.name().as_str();
                let got = cell(column, i);
                if name == "byte_offset" {
                    // Checked through the tags read at it, and in order above.
                    continue;
                }
                let want = expected_game_cell(name, field.data_type(), source, record, &tags);
                assert!(
                    json_type_fits(field.data_type(), field.is_nullable(), &want),
                    "{}: {want} for {}",
                    at("game", games, name),
                    field.data_type()
                );
                assert_eq!(got, want, "{} (tags {tags:?})", at("game", games, name));
            }
            for (name, field) in [("White", "white"), ("Black", "black"), ("Result", "result")] {
                assert_eq!(cell(batch.column_by_name(name).unwrap(), i), record[field], "{}", at("game", games, name));
            }
            games += 1;
        }
    }
    assert_eq!(games, records.len(), "{}: games", path.display());

    let mut by_game: BTreeMap<u64, std::slice::Iter<'_, Value>> =
        records.iter().map(|r| (r["index"].as_u64().unwrap(), r["events"].as_array().unwrap().iter())).collect();
    let mut events = 0;
    for batch in batches(&out.join(format!("events/source={source}/part-00000.parquet"))) {
        let schema = batch.schema();
        for i in 0..batch.num_rows() {
            let key = cell(batch.column_by_name("byte_offset").unwrap(), i).as_u64().unwrap();
            let game = offsets
                .binary_search(&(key as usize))
                .unwrap_or_else(|_| panic!("{}", at("event", events, "byte_offset"))) as u64;
            let event = by_game
                .get_mut(&game)
                .and_then(Iterator::next)
                .unwrap_or_else(|| panic!("{}", at("event", events, "byte_offset")));
            for (field, column) in schema.fields().iter().zip(batch.columns()) {
                let name = field.name().as_str();
                let want = expected_event_cell(name, source, key, event);
                assert!(
                    json_type_fits(field.data_type(), field.is_nullable(), &want),
                    "{}: {want} for {}",
                    at("event", events, name),
                    field.data_type()
                );
                assert_eq!(cell(column, i), want, "{}", at("event", events, name));
            }
            events += 1;
        }
    }
    let left: usize = by_game.values().map(|it| it.len()).sum();
    assert_eq!(left, 0, "{}: {left} events of dump are not in Parquet", path.display());
    (games, events)
}

/// The files the test command reads: the samples, the rule fixtures and generated PGN; with the
/// corpus, its edge, Lichess and variant files, the world championship matches and the TCEC
/// Chess960 games.
fn files(tmp: &Path) -> (Vec<PathBuf>, bool) {
    let mut files = common::sample_files();
    let generated = tmp.join("generated.pgn");
    std::fs::write(&generated, common::generated_pgn(17, 1 << 20).0).unwrap();
    files.push(generated);
    if let Some(corpus) = common::corpus("every Parquet column against dump on corpus files") {
        for dir in ["edge", "lichess", "variants"] {
            let mut more: Vec<PathBuf> =
                std::fs::read_dir(corpus.join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
            more.sort();
            files.extend(more);
        }
        files.push(corpus.join("otb/world-championship-matches.pgn"));
        files.push(corpus.join("engine/tcec-chess960.pgn.zst"));
        return (files, true);
    }
    (files, false)
}

#[test]
fn every_parquet_column_holds_the_engines_record() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut games, mut events) = (0, 0);
    let (files, corpus) = files(tmp.path());
    for path in files {
        let (g, e) = check_file(&path, tmp.path());
        games += g;
        events += e;
    }
    let (least_games, least_events) = if corpus { (5_000, 1_000) } else { (1_000, 300) };
    assert!(games > least_games && events > least_events, "{games} games, {events} events");
}
