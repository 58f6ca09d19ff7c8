//! The two tables of the dataset, `games` and `events`: each declared once here, as a table of
//! columns (name beside the record field it is filled from), from which the Arrow schema and the
//! builders that append one record at a time and finish a `RecordBatch` are made.
//! `docs/format.md` documents every column; keep the two in step (`tests/ingest.rs` checks).

use std::{
    borrow::Cow,
    sync::{Arc, LazyLock},
};

use arrow_array::{
    ArrayRef, RecordBatch,
    builder::{
        Date32Builder, Int16Builder, MapBuilder, MapFieldNames, StringBuilder, Time32MillisecondBuilder, UInt64Builder,
    },
};
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef, TimeUnit};

use crate::{
    dataset::column::{
        Column, Columns,
        Value::{Bool, F64, I32, I64, Str, U32, U32List, U64},
    },
    engine::event::{Detail, Event},
    engine::summary::Summary,
    engine::vocabulary::{color_word, turn_letter},
    pgn::Game,
    pgn::tags,
    read::key::GameKey,
};

/// Column names, for code that reads the tables back (the report).
pub mod col {
    pub const SOURCE: &str = "source";
    pub const FRAME_OFFSET: &str = "frame_offset";
    pub const BYTE_OFFSET: &str = "byte_offset";
    pub const TAGS: &str = "tags";
    pub const LICHESS_ID: &str = "lichess_id";
    pub const TIME_CLASS: &str = "time_class";
    pub const STATUS: &str = "status";
    pub const REPLAY_VARIANT: &str = "replay_variant";
    pub const VARIANT_STATE: &str = "variant_state";
    pub const ERROR_KIND: &str = "error_kind";
    pub const ERROR_PLY: &str = "error_ply";
    pub const ERROR_TOKEN: &str = "error_token";

    pub const PLIES: &str = "plies";
    pub const MAX_OCCURRENCE: &str = "max_occurrence";
    pub const FIRST_PLY_OCCURRENCE_2: &str = "first_ply_occurrence_2";
    pub const FIRST_PLY_OCCURRENCE_3: &str = "first_ply_occurrence_3";
    pub const FIRST_PLY_OCCURRENCE_5: &str = "first_ply_occurrence_5";
    pub const POSITIONS_REACHING_3: &str = "positions_reaching_3";
    pub const CLAIM_OPPORTUNITIES: &str = "claim_opportunities";
    pub const FIRST_CLAIM_PLY: &str = "first_claim_ply";
    pub const FIRST_CLAIM_COLOR: &str = "first_claim_color";
    pub const MISSED_CLAIMS: &str = "missed_claims";
    pub const FIRST_MISSED_CLAIM_PLY: &str = "first_missed_claim_ply";
    pub const CLAIMANT_SCORE_AFTER_FIRST_MISSED: &str = "claimant_score_after_first_missed";
    pub const PLIES_AFTER_FIVEFOLD: &str = "plies_after_fivefold";
    pub const PSEUDO_REPETITIONS: &str = "pseudo_repetitions";
    pub const HIDDEN_REPETITIONS: &str = "hidden_repetitions";
    pub const FIRST_PLY_HALFMOVE_100: &str = "first_ply_halfmove_100";
    pub const FIRST_PLY_HALFMOVE_150: &str = "first_ply_halfmove_150";
    pub const FINAL_STATUS: &str = "final_status";
    pub const DRAW_REASON: &str = "draw_reason";
    pub const FIRST_THREEFOLD_SPAN: &str = "first_threefold_span";
    pub const FIRST_THREEFOLD_PERPETUAL: &str = "first_threefold_perpetual";
    pub const BASE_SECONDS: &str = "base_seconds";
    pub const INCREMENT_SECONDS: &str = "increment_seconds";
    pub const HAS_CLOCKS: &str = "has_clocks";
    pub const HAS_EVALS: &str = "has_evals";
    pub const FIRST_CLAIM_CLOCK_MS: &str = "first_claim_clock_ms";
    pub const FIRST_CLAIM_EVAL_CP: &str = "first_claim_eval_cp";
    pub const FIRST_CLAIM_EVAL_MATE: &str = "first_claim_eval_mate";
    pub const FIRST_MISSED_CLAIM_CLOCK_MS: &str = "first_missed_claim_clock_ms";
    pub const FIRST_MISSED_CLAIM_EVAL_CP: &str = "first_missed_claim_eval_cp";
    pub const FIRST_MISSED_CLAIM_EVAL_MATE: &str = "first_missed_claim_eval_mate";

    pub const PLY: &str = "ply";
    pub const KIND: &str = "kind";
    pub const FULLMOVE: &str = "fullmove";
    pub const TURN: &str = "turn";
    pub const HALFMOVE_CLOCK: &str = "halfmove_clock";
    pub const PLACEMENT: &str = "placement";
    pub const CASTLING: &str = "castling";
    pub const EP: &str = "ep";
    pub const FEN: &str = "fen";
    pub const ZOBRIST: &str = "zobrist";
    pub const EARLIER_PLIES: &str = "earlier_plies";
    pub const OCCURRENCE: &str = "occurrence";
    pub const CLAIMABLE: &str = "claimable";
    pub const AUTOMATIC: &str = "automatic";
    pub const CYCLE_PLIES: &str = "cycle_plies";
    pub const PERPETUAL: &str = "perpetual";
    pub const SAN: &str = "san";
    pub const UCI: &str = "uci";
    pub const PLAYED: &str = "played";
    pub const DIFFERS: &str = "differs";
    pub const BOARD_OCCURRENCE: &str = "board_occurrence";
    pub const FIDE_OCCURRENCE: &str = "fide_occurrence";
    pub const FEN_OCCURRENCE: &str = "fen_occurrence";
    pub const CLOCK_MS: &str = "clock_ms";
    pub const OPPONENT_CLOCK_MS: &str = "opponent_clock_ms";
    pub const EVAL_CP: &str = "eval_cp";
    pub const EVAL_MATE: &str = "eval_mate";
}

/// How a tag with its own column is typed. `UTCTime` is time32 in milliseconds: Parquet has no
/// time type in seconds, and DuckDB and polars read milliseconds as TIME.
#[derive(Copy, Clone)]
enum TagType {
    Utf8,
    Int16,
    Date32,
    Time32,
}

impl TagType {
    fn data_type(self) -> DataType {
        match self {
            TagType::Utf8 => DataType::Utf8,
            TagType::Int16 => DataType::Int16,
            TagType::Date32 => DataType::Date32,
            TagType::Time32 => DataType::Time32(TimeUnit::Millisecond),
        }
    }
}

/// Tags with their own column, under their PGN names, in column order. Every other tag goes to
/// the `tags` map column.
const TAG_COLUMNS: [(&str, TagType); 21] = [
    ("Event", TagType::Utf8),
    ("Site", TagType::Utf8),
    ("White", TagType::Utf8),
    ("Black", TagType::Utf8),
    ("Result", TagType::Utf8),
    ("WhiteTitle", TagType::Utf8),
    ("BlackTitle", TagType::Utf8),
    ("WhiteElo", TagType::Int16),
    ("BlackElo", TagType::Int16),
    ("WhiteRatingDiff", TagType::Int16),
    ("BlackRatingDiff", TagType::Int16),
    ("UTCDate", TagType::Date32),
    ("UTCTime", TagType::Time32),
    ("ECO", TagType::Utf8),
    ("Opening", TagType::Utf8),
    ("Termination", TagType::Utf8),
    ("TimeControl", TagType::Utf8),
    ("Date", TagType::Utf8),
    ("Round", TagType::Utf8),
    ("Variant", TagType::Utf8),
    ("FEN", TagType::Utf8),
];

fn tag_index(name: &str) -> Option<usize> {
    TAG_COLUMNS.iter().position(|(n, _)| *n == name)
}

/// `games` columns after the tags: how the game was read and replayed.
static GAME_COLUMNS: [Column<Game>; 9] = [
    Column::null(col::LICHESS_ID, Str(|g| g.tag("Site").and_then(tags::lichess_id).map(Cow::Borrowed))),
    Column::null(col::TIME_CLASS, Str(|g| time_class(g).map(Cow::Borrowed))),
    Column::required(col::STATUS, Str(|g| Some(g.status().as_str().into()))),
    Column::required(col::REPLAY_VARIANT, Str(|g| Some(g.variant.name().into()))),
    Column::null(col::ERROR_KIND, Str(|g| g.error().map(|e| e.kind.as_str().into()))),
    Column::null(col::ERROR_PLY, U32(|g| g.error().map(|e| e.ply))),
    Column::null(col::ERROR_TOKEN, Str(|g| g.error().map(|e| e.token.as_str().into()))),
    Column::null(col::BASE_SECONDS, U32(|g| g.time_control.map(|(base, _)| base))),
    Column::null(col::INCREMENT_SECONDS, U32(|g| g.time_control.map(|(_, increment)| increment))),
];

/// The `time_class` of a game: from the time control read when the game began, where it is of
/// Lichess's form (`base+increment`, the same numbers [`tags::time_class`] reads), without
/// looking for the tag again among all the game's tags.
fn time_class(game: &Game) -> Option<&'static str> {
    match game.time_control {
        Some((base, inc)) => Some(tags::time_class_of(base.into(), inc.into())),
        None => game.tag("TimeControl").and_then(tags::time_class),
    }
}

/// `games` summary columns (all null for a skipped game).
static SUMMARY_COLUMNS: [Column<Summary>; 29] = [
    Column::null(col::PLIES, U32(|s| Some(s.plies))),
    Column::null(col::MAX_OCCURRENCE, U32(|s| Some(s.max_occurrence))),
    Column::null(col::FIRST_PLY_OCCURRENCE_2, U32(|s| s.first_ply_occurrence_2)),
    Column::null(col::FIRST_PLY_OCCURRENCE_3, U32(|s| s.first_ply_occurrence_3)),
    Column::null(col::FIRST_PLY_OCCURRENCE_5, U32(|s| s.first_ply_occurrence_5)),
    Column::null(col::POSITIONS_REACHING_3, U32(|s| Some(s.positions_reaching_3))),
    Column::null(col::CLAIM_OPPORTUNITIES, U32(|s| Some(s.claim_opportunities))),
    Column::null(col::FIRST_CLAIM_PLY, U32(|s| s.first_claim_ply)),
    Column::null(col::FIRST_CLAIM_COLOR, Str(|s| s.first_claim_color.map(|c| color_word(c).into()))),
    Column::null(col::MISSED_CLAIMS, U32(|s| Some(s.missed_claims))),
    Column::null(col::FIRST_MISSED_CLAIM_PLY, U32(|s| s.first_missed_claim_ply)),
    Column::null(col::CLAIMANT_SCORE_AFTER_FIRST_MISSED, F64(|s| s.claimant_score_after_first_missed)),
    Column::null(col::PLIES_AFTER_FIVEFOLD, U32(|s| s.plies_after_fivefold)),
    Column::null(col::PSEUDO_REPETITIONS, U32(|s| Some(s.pseudo_repetitions))),
    Column::null(col::HIDDEN_REPETITIONS, U32(|s| Some(s.hidden_repetitions))),
    Column::null(col::FIRST_PLY_HALFMOVE_100, U32(|s| s.first_ply_halfmove_100)),
    Column::null(col::FIRST_PLY_HALFMOVE_150, U32(|s| s.first_ply_halfmove_150)),
    Column::null(col::FINAL_STATUS, Str(|s| Some(s.final_status.as_str().into()))),
    Column::null(col::DRAW_REASON, Str(|s| s.draw_reason.map(|r| r.as_str().into()))),
    Column::null(col::FIRST_THREEFOLD_SPAN, U32(|s| s.first_threefold_span)),
    Column::null(col::FIRST_THREEFOLD_PERPETUAL, Str(|s| s.first_threefold_perpetual.map(|p| p.as_str().into()))),
    Column::null(col::HAS_CLOCKS, Bool(|s| Some(s.has_clocks))),
    Column::null(col::HAS_EVALS, Bool(|s| Some(s.has_evals))),
    Column::null(col::FIRST_CLAIM_CLOCK_MS, I64(|s| s.first_claim_clock_ms)),
    Column::null(col::FIRST_CLAIM_EVAL_CP, I64(|s| s.first_claim_eval_cp)),
    Column::null(col::FIRST_CLAIM_EVAL_MATE, I32(|s| s.first_claim_eval_mate)),
    Column::null(col::FIRST_MISSED_CLAIM_CLOCK_MS, I64(|s| s.first_missed_claim_clock_ms)),
    Column::null(col::FIRST_MISSED_CLAIM_EVAL_CP, I64(|s| s.first_missed_claim_eval_cp)),
    Column::null(col::FIRST_MISSED_CLAIM_EVAL_MATE, I32(|s| s.first_missed_claim_eval_mate)),
];

/// `events` columns after the game's key (`source`, `frame_offset`, `byte_offset`). Identity columns describe the position that
/// repeats (for `claim_by_move`, the one the move would produce); the kind's own columns are null
/// in the rows of other kinds.
static EVENT_COLUMNS: [Column<Event>; 28] = [
    Column::required(col::PLY, U32(|e| Some(e.ply))),
    Column::required(col::KIND, Str(|e| Some(e.kind().as_str().into()))),
    Column::required(col::FULLMOVE, U32(|e| Some(e.fullmove))),
    Column::required(col::TURN, Str(|e| Some(turn_letter(e.turn).into()))),
    Column::required(col::HALFMOVE_CLOCK, U32(|e| Some(e.halfmove_clock))),
    Column::required(col::PLACEMENT, Str(|e| Some(e.identity.placement().into()))),
    Column::required(col::CASTLING, Str(|e| Some(e.identity.castling().into()))),
    Column::null(col::EP, Str(|e| e.identity.ep.map(|sq| sq.to_string().into()))),
    Column::required(col::FEN, Str(|e| Some(e.identity.fen().into()))),
    Column::required(col::ZOBRIST, U64(|e| Some(e.identity.zobrist))),
    Column::null(col::VARIANT_STATE, Str(|e| e.identity.variant_state.as_deref().map(Cow::Borrowed))),
    Column::required(col::EARLIER_PLIES, U32List(Event::earlier_plies)),
    Column::null(
        col::OCCURRENCE,
        U32(|e| match e.detail {
            Detail::Repetition { occurrence, .. } | Detail::ClaimByMove { occurrence, .. } => Some(occurrence),
            _ => None,
        }),
    ),
    Column::null(
        col::CLAIMABLE,
        Bool(|e| match e.detail {
            Detail::Repetition { claimable, .. } => Some(claimable),
            _ => None,
        }),
    ),
    Column::null(
        col::AUTOMATIC,
        Bool(|e| match e.detail {
            Detail::Repetition { automatic, .. } => Some(automatic),
            _ => None,
        }),
    ),
    Column::null(
        col::CYCLE_PLIES,
        U32(|e| match e.detail {
            Detail::Repetition { cycle_plies, .. } => Some(cycle_plies),
            _ => None,
        }),
    ),
    Column::null(
        col::PERPETUAL,
        Str(|e| match e.detail {
            Detail::Repetition { perpetual, .. } => perpetual.map(|p| p.as_str().into()),
            _ => None,
        }),
    ),
    Column::null(
        col::SAN,
        Str(|e| match &e.detail {
            Detail::ClaimByMove { san, .. } => Some(san.as_str().into()),
            _ => None,
        }),
    ),
    Column::null(
        col::UCI,
        Str(|e| match &e.detail {
            Detail::ClaimByMove { uci, .. } => Some(uci.as_str().into()),
            _ => None,
        }),
    ),
    Column::null(
        col::PLAYED,
        Bool(|e| match e.detail {
            Detail::ClaimByMove { played, .. } => Some(played),
            _ => None,
        }),
    ),
    Column::null(
        col::DIFFERS,
        Str(|e| match e.detail {
            Detail::PseudoRepetition { differs, .. } => Some(differs.as_str().into()),
            _ => None,
        }),
    ),
    Column::null(
        col::BOARD_OCCURRENCE,
        U32(|e| match e.detail {
            Detail::PseudoRepetition { board_occurrence, .. } => Some(board_occurrence),
            _ => None,
        }),
    ),
    Column::null(
        col::FIDE_OCCURRENCE,
        U32(|e| match e.detail {
            Detail::PseudoRepetition { fide_occurrence, .. } | Detail::HiddenRepetition { fide_occurrence, .. } => {
                Some(fide_occurrence)
            }
            _ => None,
        }),
    ),
    Column::null(
        col::FEN_OCCURRENCE,
        U32(|e| match e.detail {
            Detail::HiddenRepetition { fen_occurrence, .. } => Some(fen_occurrence),
            _ => None,
        }),
    ),
    Column::null(col::CLOCK_MS, I64(|e| e.clocks.clock_ms)),
    Column::null(col::OPPONENT_CLOCK_MS, I64(|e| e.clocks.opponent_clock_ms)),
    Column::null(col::EVAL_CP, I64(|e| e.clocks.eval_cp)),
    Column::null(col::EVAL_MATE, I32(|e| e.clocks.eval_mate)),
];

fn string_map_type() -> DataType {
    let entries =
        Fields::from(vec![Field::new("key", DataType::Utf8, false), Field::new("value", DataType::Utf8, true)]);
    DataType::Map(Arc::new(Field::new("key_value", DataType::Struct(entries), false)), false)
}

static GAMES: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields = vec![
        Field::new(col::SOURCE, DataType::Utf8, false),
        Field::new(col::FRAME_OFFSET, DataType::UInt64, false),
        Field::new(col::BYTE_OFFSET, DataType::UInt64, false),
    ];
    fields.extend(TAG_COLUMNS.iter().map(|&(name, ty)| Field::new(name, ty.data_type(), true)));
    fields.push(Field::new(col::TAGS, string_map_type(), false));
    fields.extend(GAME_COLUMNS.iter().map(Column::field));
    fields.extend(SUMMARY_COLUMNS.iter().map(Column::field));
    Arc::new(Schema::new(fields))
});

static EVENTS: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields = vec![
        Field::new(col::SOURCE, DataType::Utf8, false),
        Field::new(col::FRAME_OFFSET, DataType::UInt64, false),
        Field::new(col::BYTE_OFFSET, DataType::UInt64, false),
    ];
    fields.extend(EVENT_COLUMNS.iter().map(Column::field));
    Arc::new(Schema::new(fields))
});

/// The tables' schema as a short hash of every column's name, type and nullability: a partition
/// written with another is stale ([`crate::dataset::is_stale`]).
pub fn version() -> &'static str {
    static VERSION: LazyLock<String> = LazyLock::new(|| {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        for (table, schema) in [("games", games_schema()), ("events", events_schema())] {
            hash.update(table);
            for field in schema.fields() {
                hash.update(format!(";{}:{}:{}", field.name(), field.data_type(), field.is_nullable()));
            }
        }
        hash.finalize()[..8].iter().map(|b| format!("{b:02x}")).collect()
    });
    &VERSION
}

/// Schema of the `games` table: one row per game.
pub fn games_schema() -> SchemaRef {
    GAMES.clone()
}

/// Schema of the `events` table: one row per repetition event.
pub fn events_schema() -> SchemaRef {
    EVENTS.clone()
}

enum TagColumn {
    Utf8(StringBuilder),
    Int16(Int16Builder),
    Date32(Date32Builder),
    Time32(Time32MillisecondBuilder),
}

impl TagColumn {
    fn new(ty: TagType) -> TagColumn {
        match ty {
            TagType::Utf8 => TagColumn::Utf8(StringBuilder::new()),
            TagType::Int16 => TagColumn::Int16(Int16Builder::new()),
            TagType::Date32 => TagColumn::Date32(Date32Builder::new()),
            TagType::Time32 => TagColumn::Time32(Time32MillisecondBuilder::new()),
        }
    }

    fn append(&mut self, value: Option<&str>) {
        match self {
            TagColumn::Utf8(b) => b.append_option(value),
            TagColumn::Int16(b) => b.append_option(value.and_then(tags::int16)),
            TagColumn::Date32(b) => b.append_option(value.and_then(tags::date32)),
            TagColumn::Time32(b) => b.append_option(value.and_then(tags::time32).map(|s| s * 1000)),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            TagColumn::Utf8(b) => Arc::new(b.finish()),
            TagColumn::Int16(b) => Arc::new(b.finish()),
            TagColumn::Date32(b) => Arc::new(b.finish()),
            TagColumn::Time32(b) => Arc::new(b.finish()),
        }
    }
}

/// Rows of the `games` table.
pub struct GamesBuilder {
    source: StringBuilder,
    frame_offset: UInt64Builder,
    byte_offset: UInt64Builder,
    tag_columns: Vec<TagColumn>,
    tags: MapBuilder<StringBuilder, StringBuilder>,
    game: Columns<Game>,
    summary: Columns<Summary>,
    rows: usize,
}

impl Default for GamesBuilder {
    fn default() -> Self {
        GamesBuilder::new()
    }
}

impl GamesBuilder {
    pub fn new() -> GamesBuilder {
        GamesBuilder {
            source: StringBuilder::new(),
            frame_offset: UInt64Builder::new(),
            byte_offset: UInt64Builder::new(),
            tag_columns: TAG_COLUMNS.iter().map(|&(_, ty)| TagColumn::new(ty)).collect(),
            tags: MapBuilder::new(
                Some(MapFieldNames { entry: "key_value".into(), key: "key".into(), value: "value".into() }),
                StringBuilder::new(),
                StringBuilder::new(),
            ),
            game: Columns::new(&GAME_COLUMNS),
            summary: Columns::new(&SUMMARY_COLUMNS),
            rows: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Appends one game, found at `key` in its input ([`GameKey`]).
    pub fn append(&mut self, source: &str, key: GameKey, game: &Game) {
        self.source.append_value(source);
        self.frame_offset.append_value(key.frame_offset);
        self.byte_offset.append_value(key.byte_offset);

        // A tag's first value goes to its own column; every other tag (and repeat) to the map.
        let mut typed: [Option<&str>; TAG_COLUMNS.len()] = [None; TAG_COLUMNS.len()];
        for (name, value) in game.tags.iter() {
            match tag_index(name) {
                Some(i) if typed[i].is_none() => typed[i] = Some(value),
                _ => {
                    self.tags.keys().append_value(name);
                    self.tags.values().append_value(value);
                }
            }
        }
        // A map entry is appended for every row, so appending never fails.
        let _ = self.tags.append(true);
        for (column, value) in self.tag_columns.iter_mut().zip(typed) {
            column.append(value);
        }
        self.game.append(Some(game));
        self.summary.append(game.analysis.as_ref().map(|a| &a.summary));
        self.rows += 1;
    }

    /// The rows appended since the last call, as a batch of [`games_schema`].
    pub fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(self.source.finish()),
            Arc::new(self.frame_offset.finish()),
            Arc::new(self.byte_offset.finish()),
        ];
        columns.extend(self.tag_columns.iter_mut().map(TagColumn::finish));
        columns.push(Arc::new(self.tags.finish()));
        columns.extend(self.game.finish());
        columns.extend(self.summary.finish());
        self.rows = 0;
        RecordBatch::try_new(games_schema(), columns)
    }
}

/// Rows of the `events` table.
pub struct EventsBuilder {
    source: StringBuilder,
    frame_offset: UInt64Builder,
    byte_offset: UInt64Builder,
    event: Columns<Event>,
    rows: usize,
}

impl Default for EventsBuilder {
    fn default() -> Self {
        EventsBuilder::new()
    }
}

impl EventsBuilder {
    pub fn new() -> EventsBuilder {
        EventsBuilder {
            source: StringBuilder::new(),
            frame_offset: UInt64Builder::new(),
            byte_offset: UInt64Builder::new(),
            event: Columns::new(&EVENT_COLUMNS),
            rows: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Appends one event of the game at `key`.
    pub fn append(&mut self, source: &str, key: GameKey, event: &Event) {
        self.source.append_value(source);
        self.frame_offset.append_value(key.frame_offset);
        self.byte_offset.append_value(key.byte_offset);
        self.event.append(Some(event));
        self.rows += 1;
    }

    /// The rows appended since the last call, as a batch of [`events_schema`].
    pub fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(self.source.finish()),
            Arc::new(self.frame_offset.finish()),
            Arc::new(self.byte_offset.finish()),
        ];
        columns.extend(self.event.finish());
        self.rows = 0;
        RecordBatch::try_new(events_schema(), columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_batches_match_the_schemas() {
        assert_eq!(GamesBuilder::new().finish().unwrap().num_columns(), games_schema().fields().len());
        assert_eq!(EventsBuilder::new().finish().unwrap().num_columns(), events_schema().fields().len());
    }

    #[test]
    fn a_game_with_events() {
        let pgn = "[Event \"t\"]\n[Site \"https://lichess.org/abcdefgh\"]\n[WhiteElo \"1500\"]\n[TimeControl \"60+0\"]\n[Foo \"bar\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2\n";
        let mut games = GamesBuilder::new();
        let mut events = EventsBuilder::new();
        crate::pgn::for_each_game(pgn.as_bytes(), |game| {
            games.append("s", GameKey::default(), &game);
            for e in &game.analysis.as_ref().unwrap().events {
                events.append("s", GameKey::default(), e);
            }
            std::ops::ControlFlow::Continue(())
        })
        .unwrap();
        let g = games.finish().unwrap();
        assert_eq!(g.num_rows(), 1);
        assert!(events.finish().unwrap().num_rows() > 0);
    }
}
