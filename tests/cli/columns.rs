//! Every column of both Parquet tables, read back and compared by name with what it must hold:
//! the engine's own record of the same game and event (`threefold dump`: summary, status,
//! variant, error, every event field), and the game's tags as another reader reads them at the
//! row's key: python-chess (one Python process per file), its values typed (Elo, dates, times)
//! by this test's own reading, not the crate's tag parsers. Arrow checks a column's type, not its
//! name, so two `u32` columns written from each other's fields would pass every other test; here
//! each cell is compared with the field of its own name, with the JSON type its Arrow type
//! requires (an integer for `uint32`, a boolean for `bool`, …). A column this test does not know
//! fails it until it is added, and so does a column it knows that is missing from the file.
//!
//! A key is `(frame_offset, byte_offset)`: the compressed offset of the pzstd frame the game
//! starts in and the decompressed offset inside that frame. Besides plain text and one-frame
//! files, a pzstd file of several frames cut mid-game is checked, so that keys with a
//! `frame_offset` other than 0 must locate their games too (found here by decoding the frames one
//! by one).

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
use threefold_core::pgn::tags;

use crate::common;

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
const SUMMARY_COLUMNS: [&str; 37] = [
    "plies",
    "max_occurrence",
    "first_ply_occurrence_2",
    "first_ply_occurrence_3",
    "first_ply_occurrence_5",
    "positions_reaching_3",
    "claim_opportunities",
    "first_claim_ply",
    "first_claim_color",
    "claim_opportunities_on_board",
    "claim_opportunities_by_move",
    "missed_claims",
    "passed_over_claims",
    "missed_claims_on_board",
    "missed_claims_by_move",
    "first_missed_claim_ply",
    "claimant_score_after_first_missed",
    "plies_after_fivefold",
    "plies_after_automatic_fivefold",
    "plies_after_automatic_75_moves",
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
    "fingerprint",
];

/// The other `games` columns: the key, the tags without a column, what is derived from tags, the
/// replay's status and error, the time control.
const OTHER_GAME_COLUMNS: [&str; 16] = [
    "source",
    "frame_offset",
    "byte_offset",
    "tags",
    "lichess_id",
    "time_class",
    "status",
    "replay_variant",
    "error_kind",
    "error_ply",
    "error_token",
    "base_seconds",
    "increment_seconds",
    "ending",
    "venue",
    "claimant",
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

/// A tag as python-chess reads it, with the typed readings of its value this test makes.
#[derive(Debug)]
struct Tag {
    name: String,
    /// The value, decoded as UTF-8, else as Latin-1, its `\"` and `\\` escapes undone.
    value: String,
    int16: Value,
    /// Days since 1970-01-01.
    date: Value,
    /// Milliseconds since midnight.
    time: Value,
}

/// The tags of each game of `text` whose slice starts at `offsets[i]` (ends at the next),
/// as python-chess reads them (`chess.pgn.read_game` with a visitor that keeps every header, in
/// file order with duplicates). PGN lets tag pairs be indented or share a line, which
/// python-chess does not read: the tag section is laid out one pair a line first. The typed
/// readings are PGN's: an integer (the column is `int16`), a `YYYY.MM.DD` date (`-` or `/` also
/// taken; no unknown part; a real calendar day), an `HH:MM:SS` time.
fn python_tags(text: &[u8], offsets: &[usize], tmp: &Path) -> Vec<Vec<Tag>> {
    const SCRIPT: &str = r#"
import datetime, io, json, re, sys
import chess.pgn
text = open(sys.argv[1], "rb").read()
offsets = json.load(open(sys.argv[2]))
class Tags(chess.pgn.BaseVisitor):
    def begin_game(self):
        self.tags = []
    def visit_header(self, name, value):
        self.tags.append((name, value))
    def end_headers(self):
        return chess.pgn.SKIP
    def result(self):
        return self.tags
PAIR = re.compile(r'[ \t]*(\[[A-Za-z0-9][A-Za-z0-9_+#=:-]*\s+"(?:[^"\\]|\\.)*"\s*\])(.*)', re.S)
def one_pair_a_line(s):
    lines, out = s.split("\n"), []
    for i, line in enumerate(lines):
        if not line.strip():
            out.append(line)
            continue
        m = PAIR.match(line)
        if not m:
            out.extend(lines[i:])
            break
        while m:
            out.append(m[1])
            line = m[2]
            m = PAIR.match(line)
        if line.strip():
            out.append(line)
            out.extend(lines[i + 1:])
            break
    return "\n".join(out)
def decoded(s):
    b = s.encode("utf-8", "surrogateescape")
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b.decode("latin-1")
def int16(v):
    if re.fullmatch(r"[+-]?[0-9]+", v.strip()) and -32768 <= int(v.strip()) <= 32767:
        return int(v.strip())
def date(v):
    m = re.fullmatch(r"([+-]?[0-9]+)[./-](\+?[0-9]+)[./-](\+?[0-9]+)", v.strip())
    if not m:
        return None
    y, mo, d = int(m[1]), int(m[2]), int(m[3])
    cycles, y400 = divmod(y - 1, 400)
    try:
        day = datetime.date(y400 + 1, mo, d).toordinal() + cycles * 146097
    except ValueError:
        return None
    days = day - datetime.date(1970, 1, 1).toordinal()
    return days if -2**31 <= days < 2**31 else None
def time(v):
    m = re.fullmatch(r"([+-]?[0-9]+):([+-]?[0-9]+):([+-]?[0-9]+)", v.strip())
    if not m:
        return None
    h, mi, s = int(m[1]), int(m[2]), int(m[3])
    return (h * 3600 + mi * 60 + s) * 1000 if 0 <= h < 24 and 0 <= mi < 60 and 0 <= s <= 60 else None
games = []
for start, end in zip(offsets, offsets[1:]):
    s = text[start:end].decode("utf-8", "surrogateescape")
    # A byte-order mark is skipped at the input's start only; past it, it is text (FORMAT.md),
    # and a line break first keeps python-chess from skipping it.
    s = s.removeprefix("\ufeff") if start == 0 else "\n" + s
    tags = chess.pgn.read_game(io.StringIO(one_pair_a_line(s)), Visitor=Tags) or []
    out = []
    for name, value in tags:
        value = re.sub(r'\\([\\"])', r"\1", decoded(value))
        out.append([decoded(name), value, int16(value), date(value), time(value)])
    games.append(out)
print(json.dumps(games))
"#;
    let (text_path, offsets_path) = (tmp.join("text.pgn"), tmp.join("offsets.json"));
    std::fs::write(&text_path, text).unwrap();
    std::fs::write(&offsets_path, serde_json::to_vec(offsets).unwrap()).unwrap();
    let python = std::env::var_os("THREEFOLD_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::root().join(".venv/bin/python"));
    let out = Command::new(&python)
        .arg("-c")
        .arg(SCRIPT)
        .args([&text_path, &offsets_path])
        .output()
        .unwrap_or_else(|e| panic!("{}: {e} (python-chess is needed: set THREEFOLD_PYTHON)", python.display()));
    assert!(out.status.success(), "python-chess failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let games: Vec<Vec<Value>> = serde_json::from_slice(&out.stdout).unwrap();
    games
        .into_iter()
        .map(|tags| {
            tags.into_iter()
                .map(|t| Tag {
                    name: t[0].as_str().unwrap().to_owned(),
                    value: t[1].as_str().unwrap().to_owned(),
                    int16: t[2].clone(),
                    date: t[3].clone(),
                    time: t[4].clone(),
                })
                .collect()
        })
        .collect()
}

/// The decompressed start and length of each pzstd frame of `path`, by the frame's compressed
/// offset, each frame decoded alone; a file that is not pzstd is one frame at 0.
fn frames(path: &Path, text_len: usize) -> BTreeMap<u64, (usize, usize)> {
    let bytes = std::fs::read(path).unwrap();
    let (mut out, mut at, mut start) = (BTreeMap::new(), 0, 0);
    while bytes.len() >= at + 16
        && bytes[at..at + 8] == [0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0]
        && bytes[at + 12..at + 16] == [0x28, 0xb5, 0x2f, 0xfd]
    {
        let size = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        let len = zstd::decode_all(&bytes[at + 12..at + 12 + size]).unwrap().len();
        out.insert(at as u64, (start, len));
        (at, start) = (at + 12 + size, start + len);
    }
    if out.is_empty() {
        out.insert(0, (0, text_len));
    }
    assert_eq!(out.values().map(|f| f.1).sum::<usize>(), text_len, "{}: the frames hold the text", path.display());
    out
}

/// A pzstd file (a skippable frame holding the size before each zstd frame, as `pzstd` writes)
/// of generated PGN in 7 frames cut mid-game.
fn pzstd_file(tmp: &Path) -> PathBuf {
    let text = common::generated_pgn(29, 1 << 20).0;
    let cuts: Vec<usize> = (1..7).map(|i| text.len() * i / 7 + (i * 7919) % 1000).chain([text.len()]).collect();
    let (mut out, mut from) = (Vec::new(), 0);
    for to in cuts {
        let frame = zstd::bulk::compress(&text[from..to], 1).unwrap();
        out.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0]);
        out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        out.extend_from_slice(&frame);
        from = to;
    }
    let path = tmp.join("generated-frames.pgn.zst");
    std::fs::write(&path, out).unwrap();
    path
}

/// What a `games` column must hold for a game with `record` (from `dump`) and `tags`.
///
/// The typed tag columns are python-chess's reading (`tags`); the `tags` column, which also
/// keeps malformed tag pairs python-chess does not read (`[name"value"x]`), is `pgn-reader`'s
/// (`raw`).
fn expected_game_cell(
    name: &str,
    ty: &DataType,
    source: &str,
    record: &Value,
    tags: &[Tag],
    raw: &[(String, String)],
) -> Value {
    let first = |t: &str| tags.iter().find(|tag| tag.name == t);
    let tag = |t: &str| first(t).map(|tag| tag.value.as_str());
    if TAG_COLUMNS.contains(&name) {
        let Some(found) = first(name) else { return Value::Null };
        return match ty {
            DataType::Int16 => found.int16.clone(),
            DataType::Date32 => found.date.clone(),
            DataType::Time32(_) => found.time.clone(),
            _ => json!(found.value),
        };
    }
    if SUMMARY_COLUMNS.contains(&name) {
        return if record["summary"].is_null() { Value::Null } else { record["summary"][name].clone() };
    }
    match name {
        "source" => json!(source),
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
        // docs/events.md, "Venue and time class": none for engine play, Lichess's own label first.
        "time_class" => match record["venue"].as_str() {
            Some("engine") => Value::Null,
            venue => {
                let label = tag("Event").and_then(tags::lichess_time_class).filter(|_| venue == Some("lichess"));
                json!(label.or_else(|| tag("TimeControl").and_then(tags::time_class)))
            }
        },
        "base_seconds" | "increment_seconds" | "ending" | "venue" | "claimant" => record[name].clone(),
        "tags" => {
            // Every tag but the first of each name with a column of its own.
            let mut seen = Vec::new();
            let rest = raw.iter().filter(|(n, _)| {
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
fn expected_event_cell(name: &str, source: &str, key: (u64, u64), event: &Value) -> Value {
    match name {
        "source" => json!(source),
        "frame_offset" => json!(key.0),
        "byte_offset" => json!(key.1),
        "zobrist" => json!(u64::from_str_radix(event["zobrist"].as_str().expect("zobrist in hex"), 16).unwrap()),
        _ if EVENT_FIELDS.contains(&name) => event.get(name).cloned().unwrap_or(Value::Null),
        _ => panic!("events column {name} is not checked by this test: add it"),
    }
}

/// Every column this test knows is in the table's file (a file without one fails here, not by
/// being checked for the columns it happens to have).
fn assert_all_columns(batch: &RecordBatch, known: &[&str], what: &str) {
    let schema = batch.schema();
    let missing: Vec<&&str> = known.iter().filter(|c| schema.column_with_name(c).is_none()).collect();
    assert!(missing.is_empty(), "{what}: columns missing from the file: {missing:?}");
}

/// What [`check_file`] checked: games, events, and games whose key is in a frame after the first.
struct Checked {
    games: usize,
    events: usize,
    in_later_frames: usize,
}

/// Ingests `path` and checks every cell of both tables.
fn check_file(path: &Path, tmp: &Path) -> Checked {
    let source = "s";
    let out = tmp.join(format!("ds-{}", path.file_name().unwrap().to_string_lossy()));
    let ingest = Command::new(common::bin())
        .args(["ingest", "--quiet", "--source", source, "--out"])
        .arg(&out)
        .arg(path)
        .output()
        .unwrap();
    assert!(ingest.status.success(), "ingest {}: {}", path.display(), String::from_utf8_lossy(&ingest.stderr));
    let dump = Command::new(common::bin()).arg("dump").arg(path).output().unwrap();
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
    let frames = frames(path, text.len());
    let at = |what: &str, i: usize, name: &str| format!("{}: {what} {i}, column {name}", path.display());
    // Where a key points in the decompressed text: its frame's start plus its offset in the
    // frame, which must be inside that frame.
    let locate = |key: (u64, u64), what: String| -> usize {
        let &(start, len) = frames.get(&key.0).unwrap_or_else(|| panic!("{what}: no frame at {}", key.0));
        assert!((key.1 as usize) < len, "{what}: byte {} is past the frame at {} ({len} bytes)", key.1, key.0);
        start + key.1 as usize
    };

    let game_batches = batches(&out.join(format!("games/source={source}/part-00000.parquet")));
    let mut known: Vec<&str> = TAG_COLUMNS.to_vec();
    known.extend(SUMMARY_COLUMNS);
    known.extend(OTHER_GAME_COLUMNS);
    if let Some(first) = game_batches.first() {
        assert_all_columns(first, &known, &format!("{}: games", path.display()));
    }
    // Each game's key, and its slice of the text: from where its key points to the next game's.
    let keys: Vec<(u64, u64)> = game_batches
        .iter()
        .flat_map(|b| {
            let (frame, byte) = (b.column_by_name("frame_offset").unwrap(), b.column_by_name("byte_offset").unwrap());
            (0..b.num_rows())
                .map(|i| (cell(frame, i).as_u64().unwrap(), cell(byte, i).as_u64().unwrap()))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut offsets: Vec<usize> =
        keys.iter().enumerate().map(|(i, &key)| locate(key, at("game", i, "frame_offset/byte_offset"))).collect();
    assert!(offsets.is_sorted(), "{}: keys out of order", path.display());
    offsets.push(text.len());
    let all_tags = python_tags(&text, &offsets, tmp);
    let mut games = 0;
    for batch in game_batches {
        let schema = batch.schema();
        for i in 0..batch.num_rows() {
            let record = &records[games];
            let tags = &all_tags[games];
            let raw = raw_tags(&text[offsets[games]..offsets[games + 1]], offsets[games] == 0);
            for (field, column) in schema.fields().iter().zip(batch.columns()) {
                let name = field.name().as_str();
                let got = cell(column, i);
                if name == "byte_offset" || name == "frame_offset" {
                    // Checked through the tags read where the key points, and in order above.
                    continue;
                }
                let want = expected_game_cell(name, field.data_type(), source, record, tags, &raw);
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
    let mut known: Vec<&str> = EVENT_FIELDS.to_vec();
    known.extend(["source", "frame_offset", "byte_offset"]);
    for batch in batches(&out.join(format!("events/source={source}/part-00000.parquet"))) {
        assert_all_columns(&batch, &known, &format!("{}: events", path.display()));
        let schema = batch.schema();
        let (frame, byte) =
            (batch.column_by_name("frame_offset").unwrap(), batch.column_by_name("byte_offset").unwrap());
        for i in 0..batch.num_rows() {
            let key = (cell(frame, i).as_u64().unwrap(), cell(byte, i).as_u64().unwrap());
            let game = offsets
                .binary_search(&locate(key, at("event", events, "byte_offset")))
                .unwrap_or_else(|_| panic!("{}", at("event", events, "byte_offset")));
            assert_eq!(key, keys[game], "{}", at("event", events, "frame_offset/byte_offset"));
            let event = by_game
                .get_mut(&(game as u64))
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
    Checked { games, events, in_later_frames: keys.iter().filter(|k| k.0 > 0).count() }
}

/// The files the test command reads: the samples, the rule fixtures, generated PGN as plain text
/// and as a pzstd file of several frames; with the
/// corpus, its edge, Lichess and variant files, the world championship matches and the TCEC
/// Chess960 games.
fn files(tmp: &Path) -> (Vec<PathBuf>, bool) {
    let mut files = common::sample_files();
    let generated = tmp.join("generated.pgn");
    std::fs::write(&generated, common::generated_pgn(17, 1 << 20).0).unwrap();
    files.push(generated);
    files.push(pzstd_file(tmp));
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
        let checked = check_file(&path, tmp.path());
        games += checked.games;
        events += checked.events;
        if path.ends_with("generated-frames.pgn.zst") {
            assert!(
                checked.in_later_frames * 2 > checked.games,
                "{}: {} of {} games have a key in a frame after the first",
                path.display(),
                checked.in_later_frames,
                checked.games
            );
        }
    }
    let (least_games, least_events) = if corpus { (5_000, 1_000) } else { (1_000, 300) };
    assert!(games > least_games && events > least_events, "{games} games, {events} events");
}
