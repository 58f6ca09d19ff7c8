//! The two tables of the dataset, `games` and `events`: each Arrow schema is declared once here and
//! mirrored by a builder that appends one record at a time and finishes a `RecordBatch`.
//! `docs/format.md` documents every column; keep the two in step (`tests/ingest.rs` checks).

use std::sync::{Arc, LazyLock};

use arrow_array::{
    Array, ArrayRef, RecordBatch, UInt64Array,
    builder::{
        BooleanBuilder, Date32Builder, Float64Builder, Int16Builder, ListBuilder, MapBuilder, MapFieldNames,
        StringBuilder, Time32MillisecondBuilder, UInt32Builder, UInt64Builder,
    },
};
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use shakmaty::Color;

use crate::{
    event::{Detail, Event},
    identity::turn_char,
    pgn::Game,
    tags,
};

/// How a tag with its own column is typed. `UTCTime` is time32 in milliseconds: Parquet has no
/// time type in seconds, and DuckDB and polars read milliseconds as TIME.
#[derive(Copy, Clone)]
enum TagType {
    Utf8,
    Int16,
    Date32,
    Time32,
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

fn u32_list_type() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::UInt32, false)))
}

fn string_map_type() -> DataType {
    let entries =
        Fields::from(vec![Field::new("key", DataType::Utf8, false), Field::new("value", DataType::Utf8, true)]);
    DataType::Map(Arc::new(Field::new("key_value", DataType::Struct(entries), false)), false)
}

/// Summary columns of `games`, in order, with their types (all nullable: null for skipped games).
const SUMMARY_COLUMNS: [(&str, DataType); 19] = [
    ("plies", DataType::UInt32),
    ("max_occurrence", DataType::UInt32),
    ("first_ply_occurrence_2", DataType::UInt32),
    ("first_ply_occurrence_3", DataType::UInt32),
    ("first_ply_occurrence_5", DataType::UInt32),
    ("positions_reaching_3", DataType::UInt32),
    ("claim_opportunities", DataType::UInt32),
    ("first_claim_ply", DataType::UInt32),
    ("first_claim_color", DataType::Utf8),
    ("missed_claims", DataType::UInt32),
    ("first_missed_claim_ply", DataType::UInt32),
    ("claimant_score_after_first_missed", DataType::Float64),
    ("plies_after_fivefold", DataType::UInt32),
    ("pseudo_repetitions", DataType::UInt32),
    ("hidden_repetitions", DataType::UInt32),
    ("first_ply_halfmove_100", DataType::UInt32),
    ("first_ply_halfmove_150", DataType::UInt32),
    ("final_status", DataType::Utf8),
    ("draw_reason", DataType::Utf8),
];

static GAMES: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields = vec![
        Field::new("source", DataType::Utf8, false),
        Field::new("game_index", DataType::UInt64, false),
        Field::new("byte_offset", DataType::UInt64, false),
    ];
    for (name, ty) in TAG_COLUMNS {
        let ty = match ty {
            TagType::Utf8 => DataType::Utf8,
            TagType::Int16 => DataType::Int16,
            TagType::Date32 => DataType::Date32,
            TagType::Time32 => DataType::Time32(TimeUnit::Millisecond),
        };
        fields.push(Field::new(name, ty, true));
    }
    fields.extend([
        Field::new("tags", string_map_type(), false),
        Field::new("lichess_id", DataType::Utf8, true),
        Field::new("time_class", DataType::Utf8, true),
        Field::new("status", DataType::Utf8, false),
        Field::new("replay_variant", DataType::Utf8, false),
        Field::new("error_kind", DataType::Utf8, true),
        Field::new("error_ply", DataType::UInt32, true),
        Field::new("error_token", DataType::Utf8, true),
    ]);
    for (name, ty) in SUMMARY_COLUMNS {
        fields.push(Field::new(name, ty, true));
    }
    Arc::new(Schema::new(fields))
});

static EVENTS: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("source", DataType::Utf8, false),
        Field::new("game_index", DataType::UInt64, false),
        Field::new("ply", DataType::UInt32, false),
        Field::new("kind", DataType::Utf8, false),
        Field::new("fullmove", DataType::UInt32, false),
        Field::new("turn", DataType::Utf8, false),
        Field::new("halfmove_clock", DataType::UInt32, false),
        Field::new("placement", DataType::Utf8, false),
        Field::new("castling", DataType::Utf8, false),
        Field::new("ep", DataType::Utf8, true),
        Field::new("fen", DataType::Utf8, false),
        Field::new("zobrist", DataType::UInt64, false),
        Field::new("earlier_plies", u32_list_type(), false),
        Field::new("occurrence", DataType::UInt32, true),
        Field::new("claimable", DataType::Boolean, true),
        Field::new("automatic", DataType::Boolean, true),
        Field::new("san", DataType::Utf8, true),
        Field::new("uci", DataType::Utf8, true),
        Field::new("played", DataType::Boolean, true),
        Field::new("differs", DataType::Utf8, true),
        Field::new("board_occurrence", DataType::UInt32, true),
        Field::new("fide_occurrence", DataType::UInt32, true),
        Field::new("fen_occurrence", DataType::UInt32, true),
    ]))
});

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

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Rows of the `games` table.
pub struct GamesBuilder {
    source: StringBuilder,
    game_index: UInt64Builder,
    byte_offset: UInt64Builder,
    tag_columns: Vec<TagColumn>,
    tags: MapBuilder<StringBuilder, StringBuilder>,
    lichess_id: StringBuilder,
    time_class: StringBuilder,
    status: StringBuilder,
    replay_variant: StringBuilder,
    error_kind: StringBuilder,
    error_ply: UInt32Builder,
    error_token: StringBuilder,
    /// Summary columns: u32 ones by index into `SUMMARY_COLUMNS` order, minus the others.
    counts: Vec<UInt32Builder>,
    first_claim_color: StringBuilder,
    claimant_score: Float64Builder,
    final_status: StringBuilder,
    draw_reason: StringBuilder,
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
            game_index: UInt64Builder::new(),
            byte_offset: UInt64Builder::new(),
            tag_columns: TAG_COLUMNS.iter().map(|&(_, ty)| TagColumn::new(ty)).collect(),
            tags: MapBuilder::new(
                Some(MapFieldNames { entry: "key_value".into(), key: "key".into(), value: "value".into() }),
                StringBuilder::new(),
                StringBuilder::new(),
            ),
            lichess_id: StringBuilder::new(),
            time_class: StringBuilder::new(),
            status: StringBuilder::new(),
            replay_variant: StringBuilder::new(),
            error_kind: StringBuilder::new(),
            error_ply: UInt32Builder::new(),
            error_token: StringBuilder::new(),
            counts: (0..15).map(|_| UInt32Builder::new()).collect(),
            first_claim_color: StringBuilder::new(),
            claimant_score: Float64Builder::new(),
            final_status: StringBuilder::new(),
            draw_reason: StringBuilder::new(),
            rows: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Appends one game: `game_index` is its position in its input (from 0), `byte_offset` where
    /// it starts in the decompressed stream.
    pub fn append(&mut self, source: &str, game_index: u64, byte_offset: u64, game: &Game) {
        self.source.append_value(source);
        self.game_index.append_value(game_index);
        self.byte_offset.append_value(byte_offset);

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
        let site = typed[tag_index("Site").unwrap_or(0)];
        let time_control = typed[tag_index("TimeControl").unwrap_or(0)];
        self.lichess_id.append_option(site.and_then(tags::lichess_id));
        self.time_class.append_option(time_control.and_then(tags::time_class));

        self.status.append_value(game.status().as_str());
        self.replay_variant.append_value(game.variant.name());
        let error = game.analysis.as_ref().and_then(|a| a.error.as_ref());
        self.error_kind.append_option(error.map(|e| e.kind.as_str()));
        self.error_ply.append_option(error.map(|e| e.ply));
        self.error_token.append_option(error.map(|e| e.token.as_str()));

        let summary = game.analysis.as_ref().map(|a| &a.summary);
        let counts: [Option<u32>; 15] = match summary {
            Some(s) => [
                Some(s.plies),
                Some(s.max_occurrence),
                s.first_ply_occurrence_2,
                s.first_ply_occurrence_3,
                s.first_ply_occurrence_5,
                Some(s.positions_reaching_3),
                Some(s.claim_opportunities),
                s.first_claim_ply,
                Some(s.missed_claims),
                s.first_missed_claim_ply,
                s.plies_after_fivefold,
                Some(s.pseudo_repetitions),
                Some(s.hidden_repetitions),
                s.first_ply_halfmove_100,
                s.first_ply_halfmove_150,
            ],
            None => [None; 15],
        };
        for (builder, value) in self.counts.iter_mut().zip(counts) {
            builder.append_option(value);
        }
        self.first_claim_color.append_option(summary.and_then(|s| s.first_claim_color).map(color_name));
        self.claimant_score.append_option(summary.and_then(|s| s.claimant_score_after_first_missed));
        self.final_status.append_option(summary.map(|s| s.final_status.as_str()));
        self.draw_reason.append_option(summary.and_then(|s| s.draw_reason).map(|r| r.as_str()));
        self.rows += 1;
    }

    /// The rows appended since the last call, as a batch of [`games_schema`].
    pub fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(self.source.finish()),
            Arc::new(self.game_index.finish()),
            Arc::new(self.byte_offset.finish()),
        ];
        columns.extend(self.tag_columns.iter_mut().map(TagColumn::finish));
        columns.push(Arc::new(self.tags.finish()));
        for b in [
            &mut self.lichess_id,
            &mut self.time_class,
            &mut self.status,
            &mut self.replay_variant,
            &mut self.error_kind,
        ] {
            columns.push(Arc::new(b.finish()));
        }
        columns.push(Arc::new(self.error_ply.finish()));
        columns.push(Arc::new(self.error_token.finish()));
        // Summary columns in SUMMARY_COLUMNS order.
        let counts: Vec<ArrayRef> = self.counts.iter_mut().map(|b| Arc::new(b.finish()) as ArrayRef).collect();
        columns.extend_from_slice(&counts[..8]);
        columns.push(Arc::new(self.first_claim_color.finish()));
        columns.extend_from_slice(&counts[8..10]);
        columns.push(Arc::new(self.claimant_score.finish()));
        columns.extend_from_slice(&counts[10..]);
        columns.push(Arc::new(self.final_status.finish()));
        columns.push(Arc::new(self.draw_reason.finish()));
        self.rows = 0;
        RecordBatch::try_new(games_schema(), columns)
    }
}

/// Rows of the `events` table.
pub struct EventsBuilder {
    source: StringBuilder,
    game_index: UInt64Builder,
    ply: UInt32Builder,
    kind: StringBuilder,
    fullmove: UInt32Builder,
    turn: StringBuilder,
    halfmove_clock: UInt32Builder,
    placement: StringBuilder,
    castling: StringBuilder,
    ep: StringBuilder,
    fen: StringBuilder,
    zobrist: UInt64Builder,
    earlier_plies: ListBuilder<UInt32Builder>,
    occurrence: UInt32Builder,
    claimable: BooleanBuilder,
    automatic: BooleanBuilder,
    san: StringBuilder,
    uci: StringBuilder,
    played: BooleanBuilder,
    differs: StringBuilder,
    board_occurrence: UInt32Builder,
    fide_occurrence: UInt32Builder,
    fen_occurrence: UInt32Builder,
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
            game_index: UInt64Builder::new(),
            ply: UInt32Builder::new(),
            kind: StringBuilder::new(),
            fullmove: UInt32Builder::new(),
            turn: StringBuilder::new(),
            halfmove_clock: UInt32Builder::new(),
            placement: StringBuilder::new(),
            castling: StringBuilder::new(),
            ep: StringBuilder::new(),
            fen: StringBuilder::new(),
            zobrist: UInt64Builder::new(),
            earlier_plies: ListBuilder::new(UInt32Builder::new()).with_field(Field::new(
                "item",
                DataType::UInt32,
                false,
            )),
            occurrence: UInt32Builder::new(),
            claimable: BooleanBuilder::new(),
            automatic: BooleanBuilder::new(),
            san: StringBuilder::new(),
            uci: StringBuilder::new(),
            played: BooleanBuilder::new(),
            differs: StringBuilder::new(),
            board_occurrence: UInt32Builder::new(),
            fide_occurrence: UInt32Builder::new(),
            fen_occurrence: UInt32Builder::new(),
            rows: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Appends one event of the game at `game_index`.
    pub fn append(&mut self, source: &str, game_index: u64, event: &Event) {
        self.source.append_value(source);
        self.game_index.append_value(game_index);
        self.ply.append_value(event.ply);
        self.kind.append_value(event.kind().as_str());
        self.fullmove.append_value(event.fullmove);
        self.turn.append_value(turn_char(event.turn).encode_utf8(&mut [0; 4]));
        self.halfmove_clock.append_value(event.halfmove_clock);
        let id = &event.identity;
        self.placement.append_value(id.placement());
        self.castling.append_value(id.castling());
        self.ep.append_option(id.ep.map(|sq| sq.to_string()));
        self.fen.append_value(id.fen());
        self.zobrist.append_value(id.zobrist);
        self.earlier_plies.values().append_slice(event.earlier_plies());
        self.earlier_plies.append(true);

        let (mut occurrence, mut claimable, mut automatic, mut played) = (None, None, None, None);
        let (mut san, mut uci, mut differs) = (None, None, None);
        let (mut board, mut fide, mut fen) = (None, None, None);
        match &event.detail {
            Detail::Repetition { occurrence: o, claimable: c, automatic: a, .. } => {
                (occurrence, claimable, automatic) = (Some(*o), Some(*c), Some(*a));
            }
            Detail::ClaimByMove { san: s, uci: u, occurrence: o, played: p, .. } => {
                (san, uci, occurrence, played) = (Some(s.as_str()), Some(u.as_str()), Some(*o), Some(*p));
            }
            Detail::PseudoRepetition { differs: d, board_occurrence: b, fide_occurrence: f, .. } => {
                (differs, board, fide) = (Some(d.as_str()), Some(*b), Some(*f));
            }
            Detail::HiddenRepetition { fen_occurrence: n, fide_occurrence: f, .. } => {
                (fen, fide) = (Some(*n), Some(*f));
            }
        }
        self.occurrence.append_option(occurrence);
        self.claimable.append_option(claimable);
        self.automatic.append_option(automatic);
        self.san.append_option(san);
        self.uci.append_option(uci);
        self.played.append_option(played);
        self.differs.append_option(differs);
        self.board_occurrence.append_option(board);
        self.fide_occurrence.append_option(fide);
        self.fen_occurrence.append_option(fen);
        self.rows += 1;
    }

    /// The rows appended since the last call, as a batch of [`events_schema`].
    pub fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.source.finish()),
            Arc::new(self.game_index.finish()),
            Arc::new(self.ply.finish()),
            Arc::new(self.kind.finish()),
            Arc::new(self.fullmove.finish()),
            Arc::new(self.turn.finish()),
            Arc::new(self.halfmove_clock.finish()),
            Arc::new(self.placement.finish()),
            Arc::new(self.castling.finish()),
            Arc::new(self.ep.finish()),
            Arc::new(self.fen.finish()),
            Arc::new(self.zobrist.finish()),
            Arc::new(self.earlier_plies.finish()),
            Arc::new(self.occurrence.finish()),
            Arc::new(self.claimable.finish()),
            Arc::new(self.automatic.finish()),
            Arc::new(self.san.finish()),
            Arc::new(self.uci.finish()),
            Arc::new(self.played.finish()),
            Arc::new(self.differs.finish()),
            Arc::new(self.board_occurrence.finish()),
            Arc::new(self.fide_occurrence.finish()),
            Arc::new(self.fen_occurrence.finish()),
        ];
        self.rows = 0;
        RecordBatch::try_new(events_schema(), columns)
    }
}

/// `batch` (of either table) with `base` added to its `game_index` column: workers number the
/// games of a chunk from 0, the writer knows where the chunk starts.
pub fn offset_game_index(batch: &RecordBatch, base: u64) -> Result<RecordBatch, ArrowError> {
    if base == 0 {
        return Ok(batch.clone());
    }
    let i = batch.schema().index_of("game_index")?;
    let Some(column) = batch.column(i).as_any().downcast_ref::<UInt64Array>() else {
        return Err(ArrowError::SchemaError("game_index is not uint64".into()));
    };
    let shifted: Vec<u64> = column.values().iter().map(|v| v + base).collect();
    let mut columns = batch.columns().to_vec();
    columns[i] = Arc::new(UInt64Array::from(shifted));
    RecordBatch::try_new(batch.schema(), columns)
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
            games.append("s", 0, 0, &game);
            for e in &game.analysis.as_ref().unwrap().events {
                events.append("s", 0, e);
            }
            std::ops::ControlFlow::Continue(())
        })
        .unwrap();
        let g = games.finish().unwrap();
        assert_eq!(g.num_rows(), 1);
        assert!(events.finish().unwrap().num_rows() > 0);
    }
}
