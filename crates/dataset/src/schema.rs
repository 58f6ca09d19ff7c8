//! The two tables of the dataset, `games` and `events`: each declared once here, as a table of
//! columns (name beside the record field it is filled from), from which the Arrow schema and the
//! builder that keeps a batch's games and builds both tables' `RecordBatch`es from them are made.
//! `docs/format.md` documents every column; keep the two in step (`tests/cli/ingest.rs` checks).

use std::{
    borrow::Cow,
    sync::{Arc, LazyLock},
};

use arrow_array::{
    ArrayRef, RecordBatch, StringArray, UInt64Array,
    builder::{MapBuilder, MapFieldNames, StringBuilder},
};
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef, TimeUnit};

use crate::{
    column::{self, BLOCK, Column, Columns, Filling, value},
    engine::event::{Detail, Event},
    engine::summary::Summary,
    engine::vocabulary::{TimeClass, color_word, turn_letter},
    pgn::Game,
    pgn::tags,
    pgn::venue::Venue,
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
    pub const CLAIM_OPPORTUNITIES_ON_BOARD: &str = "claim_opportunities_on_board";
    pub const CLAIM_OPPORTUNITIES_BY_MOVE: &str = "claim_opportunities_by_move";
    pub const MISSED_CLAIMS: &str = "missed_claims";
    pub const PASSED_OVER_CLAIMS: &str = "passed_over_claims";
    pub const MISSED_CLAIMS_ON_BOARD: &str = "missed_claims_on_board";
    pub const MISSED_CLAIMS_BY_MOVE: &str = "missed_claims_by_move";
    pub const FIRST_MISSED_CLAIM_PLY: &str = "first_missed_claim_ply";
    pub const CLAIMANT_SCORE_AFTER_FIRST_MISSED: &str = "claimant_score_after_first_missed";
    pub const PLIES_AFTER_FIVEFOLD: &str = "plies_after_fivefold";
    pub const PLIES_AFTER_AUTOMATIC_FIVEFOLD: &str = "plies_after_automatic_fivefold";
    pub const PLIES_AFTER_AUTOMATIC_75_MOVES: &str = "plies_after_automatic_75_moves";
    pub const PSEUDO_REPETITIONS: &str = "pseudo_repetitions";
    pub const HIDDEN_REPETITIONS: &str = "hidden_repetitions";
    pub const FIRST_PLY_HALFMOVE_100: &str = "first_ply_halfmove_100";
    pub const FIRST_PLY_HALFMOVE_150: &str = "first_ply_halfmove_150";
    pub const FINAL_STATUS: &str = "final_status";
    pub const DRAW_REASON: &str = "draw_reason";
    pub const ENDING: &str = "ending";
    pub const VENUE: &str = "venue";
    pub const CLAIMANT: &str = "claimant";
    pub const FINGERPRINT: &str = "fingerprint";
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

/// The tag column of a tag called `name`: one table lookup and one comparison, not a search
/// through the names (every tag of every game is looked up).
fn tag_index(name: &[u8]) -> Option<usize> {
    let i = *TAG_SLOTS.get(tag_slot(name)?)?;
    (i != NO_SLOT && same_name(TAG_COLUMNS[usize::from(i)].0.as_bytes(), name)).then_some(usize::from(i))
}

/// `a == b`, for a tag column's name `a` (at most 16 bytes): by a few loads of overlapping
/// words rather than a call to `memcmp` (for every tag of every game: a fifth of its cost).
#[inline]
fn same_name(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().unwrap_or_default());
    let half = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().unwrap_or_default());
    match n {
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        _ => a == b,
    }
}

/// A slot in [`TAG_SLOTS`] from a name's length, first and middle bytes (no two of
/// [`TAG_COLUMNS`] share one: checked when the table is built, at compile time).
const fn tag_slot(name: &[u8]) -> Option<usize> {
    match name {
        [] => None,
        [first, ..] => Some((name.len() + *first as usize + 6 * name[name.len() / 2] as usize) % 64),
    }
}

const NO_SLOT: u8 = u8::MAX;

/// Each tag column's index at its name's [`tag_slot`].
static TAG_SLOTS: [u8; 64] = {
    let mut slots = [NO_SLOT; 64];
    let mut i = 0;
    while i < TAG_COLUMNS.len() {
        let Some(slot) = tag_slot(TAG_COLUMNS[i].0.as_bytes()) else { panic!("a tag column without a name") };
        assert!(slots[slot] == NO_SLOT, "two tag columns share a slot: change tag_slot");
        slots[slot] = i as u8;
        i += 1;
    }
    slots
};

/// `games` columns after the tags: how the game was read and replayed.
static GAME_COLUMNS: [Column<Game>; 12] = [
    Column::null(col::LICHESS_ID, value!(Str, |g| g.tag("Site").and_then(tags::lichess_id).map(Cow::Borrowed))),
    Column::null(col::TIME_CLASS, value!(Str, |g| time_class(g).map(Cow::Borrowed))),
    Column::required(col::STATUS, value!(Str, |g| Some(g.status().as_str().into()))),
    Column::required(col::REPLAY_VARIANT, value!(Str, |g| Some(g.variant.name().into()))),
    Column::null(col::ERROR_KIND, value!(Str, |g| g.error().map(|e| e.kind.as_str().into()))),
    Column::null(col::ERROR_PLY, value!(U32, |g| g.error().map(|e| e.ply))),
    Column::null(col::ERROR_TOKEN, value!(Str, |g| g.error().map(|e| e.token.as_str().into()))),
    Column::null(col::BASE_SECONDS, value!(U32, |g| g.time_control.map(|(base, _)| base))),
    Column::null(col::INCREMENT_SECONDS, value!(U32, |g| g.time_control.map(|(_, increment)| increment))),
    Column::null(col::ENDING, value!(Str, |g| g.ending.map(|e| e.as_str().into()))),
    Column::required(col::VENUE, value!(Str, |g| Some(g.venue.as_str().into()))),
    Column::required(col::CLAIMANT, value!(Str, |g| Some(g.claimant.as_str().into()))),
];

/// The `time_class` of a game: none for engine play (no human time class); a Lichess game's own
/// label in `Event` ([`tags::lichess_time_class`]) first; then the time control read when the
/// game began, where it is of Lichess's form (the same numbers [`tags::time_class`] reads,
/// without looking for the tag again); then the tag's other forms.
fn time_class(game: &Game) -> Option<&'static str> {
    if game.venue == Venue::Engine {
        return None;
    }
    let label = (game.venue == Venue::Lichess).then(|| game.tag("Event").and_then(tags::lichess_time_class));
    let class = match (label.flatten(), game.time_control) {
        (Some(label), _) => Some(label),
        (None, Some((base, inc))) => Some(tags::time_class_of(base.into(), inc.into())),
        (None, None) => game.tag("TimeControl").and_then(tags::time_class),
    };
    class.map(TimeClass::as_str)
}

/// `games` summary columns (all null for a skipped game).
static SUMMARY_COLUMNS: [Column<Summary>; 37] = [
    Column::null(col::PLIES, value!(U32, |s| Some(s.plies))),
    Column::null(col::MAX_OCCURRENCE, value!(U32, |s| Some(s.max_occurrence))),
    Column::null(col::FIRST_PLY_OCCURRENCE_2, value!(U32, |s| s.first_ply_occurrence_2)),
    Column::null(col::FIRST_PLY_OCCURRENCE_3, value!(U32, |s| s.first_ply_occurrence_3)),
    Column::null(col::FIRST_PLY_OCCURRENCE_5, value!(U32, |s| s.first_ply_occurrence_5)),
    Column::null(col::POSITIONS_REACHING_3, value!(U32, |s| Some(s.positions_reaching_3))),
    Column::null(col::CLAIM_OPPORTUNITIES, value!(U32, |s| Some(s.claim_opportunities))),
    Column::null(col::FIRST_CLAIM_PLY, value!(U32, |s| s.first_claim_ply)),
    Column::null(col::FIRST_CLAIM_COLOR, value!(Str, |s| s.first_claim_color.map(|c| color_word(c).into()))),
    Column::null(col::CLAIM_OPPORTUNITIES_ON_BOARD, value!(U32, |s| Some(s.claim_opportunities_on_board))),
    Column::null(col::CLAIM_OPPORTUNITIES_BY_MOVE, value!(U32, |s| Some(s.claim_opportunities_by_move))),
    Column::null(col::MISSED_CLAIMS, value!(U32, |s| Some(s.missed_claims))),
    Column::null(col::PASSED_OVER_CLAIMS, value!(U32, |s| Some(s.passed_over_claims))),
    Column::null(col::MISSED_CLAIMS_ON_BOARD, value!(U32, |s| Some(s.missed_claims_on_board))),
    Column::null(col::MISSED_CLAIMS_BY_MOVE, value!(U32, |s| Some(s.missed_claims_by_move))),
    Column::null(col::FIRST_MISSED_CLAIM_PLY, value!(U32, |s| s.first_missed_claim_ply)),
    Column::null(col::CLAIMANT_SCORE_AFTER_FIRST_MISSED, value!(F64, |s| s.claimant_score_after_first_missed)),
    Column::null(col::PLIES_AFTER_FIVEFOLD, value!(U32, |s| s.plies_after_fivefold)),
    Column::null(col::PLIES_AFTER_AUTOMATIC_FIVEFOLD, value!(U32, |s| s.plies_after_automatic_fivefold)),
    Column::null(col::PLIES_AFTER_AUTOMATIC_75_MOVES, value!(U32, |s| s.plies_after_automatic_75_moves)),
    Column::null(col::PSEUDO_REPETITIONS, value!(U32, |s| Some(s.pseudo_repetitions))),
    Column::null(col::HIDDEN_REPETITIONS, value!(U32, |s| Some(s.hidden_repetitions))),
    Column::null(col::FIRST_PLY_HALFMOVE_100, value!(U32, |s| s.first_ply_halfmove_100)),
    Column::null(col::FIRST_PLY_HALFMOVE_150, value!(U32, |s| s.first_ply_halfmove_150)),
    Column::null(col::FINAL_STATUS, value!(Str, |s| Some(s.final_status.as_str().into()))),
    Column::null(col::DRAW_REASON, value!(Str, |s| s.draw_reason.map(|r| r.as_str().into()))),
    Column::null(col::FIRST_THREEFOLD_SPAN, value!(U32, |s| s.first_threefold_span)),
    Column::null(
        col::FIRST_THREEFOLD_PERPETUAL,
        value!(Str, |s| s.first_threefold_perpetual.map(|p| p.as_str().into())),
    ),
    Column::null(col::HAS_CLOCKS, value!(Bool, |s| Some(s.has_clocks))),
    Column::null(col::HAS_EVALS, value!(Bool, |s| Some(s.has_evals))),
    Column::null(col::FIRST_CLAIM_CLOCK_MS, value!(I64, |s| s.first_claim_clock_ms)),
    Column::null(col::FIRST_CLAIM_EVAL_CP, value!(I64, |s| s.first_claim_eval_cp)),
    Column::null(col::FIRST_CLAIM_EVAL_MATE, value!(I32, |s| s.first_claim_eval_mate)),
    Column::null(col::FIRST_MISSED_CLAIM_CLOCK_MS, value!(I64, |s| s.first_missed_claim_clock_ms)),
    Column::null(col::FIRST_MISSED_CLAIM_EVAL_CP, value!(I64, |s| s.first_missed_claim_eval_cp)),
    Column::null(col::FIRST_MISSED_CLAIM_EVAL_MATE, value!(I32, |s| s.first_missed_claim_eval_mate)),
    Column::null(col::FINGERPRINT, value!(U64, |s| Some(s.fingerprint))),
];

/// `events` columns after the game's key (`source`, `frame_offset`, `byte_offset`). Identity columns describe the position that
/// repeats (for `claim_by_move`, the one the move would produce); the kind's own columns are null
/// in the rows of other kinds.
static EVENT_COLUMNS: [Column<Event>; 28] = [
    Column::required(col::PLY, value!(U32, |e| Some(e.ply))),
    Column::required(col::KIND, value!(Str, |e| Some(e.kind().as_str().into()))),
    Column::required(col::FULLMOVE, value!(U32, |e| Some(e.fullmove))),
    Column::required(col::TURN, value!(Str, |e| Some(turn_letter(e.turn).into()))),
    Column::required(col::HALFMOVE_CLOCK, value!(U32, |e| Some(e.halfmove_clock))),
    Column::required(col::PLACEMENT, value!(Str, |e| Some(e.identity.placement().into()))),
    Column::required(col::CASTLING, value!(Str, |e| Some(e.identity.castling().into()))),
    Column::null(col::EP, value!(Str, |e| e.identity.ep.map(|sq| sq.to_string().into()))),
    Column::required(col::FEN, value!(Str, |e| Some(e.identity.fen().into()))),
    Column::required(col::ZOBRIST, value!(U64, |e| Some(e.identity.zobrist))),
    Column::null(col::VARIANT_STATE, value!(Str, |e| e.identity.variant_state.as_deref().map(Cow::Borrowed))),
    Column::required(col::EARLIER_PLIES, value!(U32List, Event::earlier_plies)),
    Column::null(
        col::OCCURRENCE,
        value!(U32, |e| match e.detail {
            Detail::Repetition { occurrence, .. } | Detail::ClaimByMove { occurrence, .. } => Some(occurrence),
            _ => None,
        }),
    ),
    Column::null(
        col::CLAIMABLE,
        value!(Bool, |e| match e.detail {
            Detail::Repetition { claimable, .. } => Some(claimable),
            _ => None,
        }),
    ),
    Column::null(
        col::AUTOMATIC,
        value!(Bool, |e| match e.detail {
            Detail::Repetition { automatic, .. } => Some(automatic),
            _ => None,
        }),
    ),
    Column::null(
        col::CYCLE_PLIES,
        value!(U32, |e| match e.detail {
            Detail::Repetition { cycle_plies, .. } => Some(cycle_plies),
            _ => None,
        }),
    ),
    Column::null(
        col::PERPETUAL,
        value!(Str, |e| match e.detail {
            Detail::Repetition { perpetual, .. } => perpetual.map(|p| p.as_str().into()),
            _ => None,
        }),
    ),
    Column::null(
        col::SAN,
        value!(Str, |e| match &e.detail {
            Detail::ClaimByMove { san, .. } => Some(san.as_str().into()),
            _ => None,
        }),
    ),
    Column::null(
        col::UCI,
        value!(Str, |e| match &e.detail {
            Detail::ClaimByMove { uci, .. } => Some(uci.as_str().into()),
            _ => None,
        }),
    ),
    Column::null(
        col::PLAYED,
        value!(Bool, |e| match e.detail {
            Detail::ClaimByMove { played, .. } => Some(played),
            _ => None,
        }),
    ),
    Column::null(
        col::DIFFERS,
        value!(Str, |e| match e.detail {
            Detail::PseudoRepetition { differs, .. } => Some(differs.as_str().into()),
            _ => None,
        }),
    ),
    Column::null(
        col::BOARD_OCCURRENCE,
        value!(U32, |e| match e.detail {
            Detail::PseudoRepetition { board_occurrence, .. } => Some(board_occurrence),
            _ => None,
        }),
    ),
    Column::null(
        col::FIDE_OCCURRENCE,
        value!(U32, |e| match e.detail {
            Detail::PseudoRepetition { fide_occurrence, .. } | Detail::HiddenRepetition { fide_occurrence, .. } => {
                Some(fide_occurrence)
            }
            _ => None,
        }),
    ),
    Column::null(
        col::FEN_OCCURRENCE,
        value!(U32, |e| match e.detail {
            Detail::HiddenRepetition { fen_occurrence, .. } => Some(fen_occurrence),
            _ => None,
        }),
    ),
    Column::null(col::CLOCK_MS, value!(I64, |e| e.clocks.clock_ms)),
    Column::null(col::OPPONENT_CLOCK_MS, value!(I64, |e| e.clocks.opponent_clock_ms)),
    Column::null(col::EVAL_CP, value!(I64, |e| e.clocks.eval_cp)),
    Column::null(col::EVAL_MATE, value!(I32, |e| e.clocks.eval_mate)),
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

/// The three tables' schema as a short hash of every column's name, type and nullability: a partition
/// written with another is stale ([`crate::is_stale`]).
pub fn version() -> &'static str {
    static VERSION: LazyLock<String> = LazyLock::new(|| {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        for (table, schema) in [("games", games_schema()), ("events", events_schema()), ("summary", summary::schema())]
        {
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

/// Adds a block of games to a tag column: each game's value of the tag at `column` (its index
/// among the game's tags in `typed`).
fn fill_tag<'g>(filling: &mut Filling, ty: TagType, typed: &[(&'g Game, [u32; TAG_COLUMNS.len()])], column: usize) {
    let value = |&(game, ref typed): &(&'g Game, [u32; TAG_COLUMNS.len()])| -> Option<&'g str> {
        match typed[column] {
            NO_TAG => None,
            i => Some(game.tags.value(i as usize)),
        }
    };
    match ty {
        TagType::Utf8 => column::fill_strings(filling, typed, value),
        TagType::Int16 => column::fill_primitive(filling, typed, |g| value(g).and_then(tags::int16)),
        TagType::Date32 => column::fill_primitive(filling, typed, |g| value(g).and_then(tags::date32)),
        TagType::Time32 => {
            column::fill_primitive(filling, typed, |g| value(g).and_then(tags::time32).map(|s| s * 1000))
        }
    }
}

/// No tag of a game in a tag column ([`BatchBuilder`]).
const NO_TAG: u32 = u32::MAX;

/// The rows of one batch of games, both tables: the games are kept whole, each at its key
/// ([`GameKey`]), and [`BatchBuilder::finish`] builds each column of `games` and `events` in a
/// loop of its own over each block of them ([`Columns`]).
#[derive(Default)]
pub struct BatchBuilder {
    keys: Vec<GameKey>,
    games: Vec<Game>,
}

impl BatchBuilder {
    pub fn new() -> BatchBuilder {
        BatchBuilder::default()
    }

    /// A builder with room for `games` games: a chunk's games are counted before it is read,
    /// and growing the vector of games (each a few hundred bytes) copies them again and again.
    pub fn with_capacity(games: usize) -> BatchBuilder {
        BatchBuilder { keys: Vec::with_capacity(games), games: Vec::with_capacity(games) }
    }

    /// Room for `games` more games (a builder reused from chunk to chunk keeps its room: no
    /// vector of a chunk's games allocated and freed per chunk).
    pub fn reserve(&mut self, games: usize) {
        self.keys.reserve(games);
        self.games.reserve(games);
    }

    /// Appends one game, found at `key` in its input, with its events.
    pub fn append(&mut self, key: GameKey, game: Game) {
        self.keys.push(key);
        self.games.push(game);
    }

    /// The rows appended since the last call, as a batch of [`games_schema`] and one of
    /// [`events_schema`], every row under `source`. The games are handed to `spent` then, for
    /// their buffers to be used again ([`crate::pgn::GameVisitor::recycle`]).
    pub fn finish(&mut self, source: &str, spent: impl FnMut(Game)) -> Result<(RecordBatch, RecordBatch), ArrowError> {
        let games = self.games_batch(source);
        let events = self.events_batch(source);
        self.keys.clear();
        self.games.drain(..).for_each(spent);
        Ok((games?, events?))
    }

    fn games_batch(&self, source: &str) -> Result<RecordBatch, ArrowError> {
        let n = self.games.len();
        let mut columns = key_columns(source, &self.keys);
        let mut tag_columns: Vec<Filling> =
            TAG_COLUMNS.iter().map(|&(_, ty)| Filling::new(ty.data_type(), n)).collect();
        let mut map = MapBuilder::new(
            Some(MapFieldNames { entry: "key_value".into(), key: "key".into(), value: "value".into() }),
            StringBuilder::new(),
            StringBuilder::new(),
        );
        let mut game_columns = Columns::new(&GAME_COLUMNS, n);
        let mut summary_columns = Columns::new(&SUMMARY_COLUMNS, n);
        let mut typed: Vec<(&Game, [u32; TAG_COLUMNS.len()])> = Vec::with_capacity(BLOCK);
        let mut games: Vec<Option<&Game>> = Vec::with_capacity(BLOCK);
        let mut summaries: Vec<Option<&Summary>> = Vec::with_capacity(BLOCK);
        for block in self.games.chunks(BLOCK) {
            // A tag's first value goes to its own column (its index among the game's tags is
            // kept for the column's loop); every other tag (and repeat) to the map.
            typed.clear();
            typed.extend(block.iter().map(|g| (g, [NO_TAG; TAG_COLUMNS.len()])));
            // Whether a game of the block has a value in each tag column: one that none has
            // is a block of nulls at once.
            let mut present = [false; TAG_COLUMNS.len()];
            for (game, typed) in &mut typed {
                for (i, name) in game.tags.names().enumerate() {
                    // (A tag at `u32::MAX` or past it would go to the map: no slice holds that many.)
                    match (tag_index(name).filter(|&c| typed[c] == NO_TAG), u32::try_from(i)) {
                        (Some(c), Ok(i)) if i != NO_TAG => {
                            typed[c] = i;
                            present[c] = true;
                        }
                        _ => {
                            let (name, value) = game.tags.entry(i);
                            map.keys().append_value(name);
                            map.values().append_value(value);
                        }
                    }
                }
                // A map entry is appended for every row, so appending never fails.
                let _ = map.append(true);
            }
            for (c, (&(_, ty), filling)) in TAG_COLUMNS.iter().zip(&mut tag_columns).enumerate() {
                match present[c] {
                    false => filling.push_nulls(block.len()),
                    true => fill_tag(filling, ty, &typed, c),
                }
            }
            games.clear();
            games.extend(block.iter().map(Some));
            game_columns.append(&games);
            summaries.clear();
            summaries.extend(block.iter().map(|g| g.analysis.as_ref().map(|a| &a.summary)));
            summary_columns.append(&summaries);
        }
        columns.extend(tag_columns.into_iter().map(Filling::finish));
        columns.push(Arc::new(map.finish()));
        columns.extend(game_columns.finish());
        columns.extend(summary_columns.finish());
        RecordBatch::try_new(games_schema(), columns)
    }

    fn events_batch(&self, source: &str) -> Result<RecordBatch, ArrowError> {
        let keys: Vec<GameKey> =
            self.keys.iter().zip(&self.games).flat_map(|(&key, game)| events_of(game).map(move |_| key)).collect();
        let mut columns = key_columns(source, &keys);
        let events: Vec<Option<&Event>> = self.games.iter().flat_map(events_of).map(Some).collect();
        let mut event_columns = Columns::new(&EVENT_COLUMNS, events.len());
        for block in events.chunks(BLOCK) {
            event_columns.append(block);
        }
        columns.extend(event_columns.finish());
        RecordBatch::try_new(events_schema(), columns)
    }
}

fn events_of(game: &Game) -> impl Iterator<Item = &Event> {
    game.analysis.iter().flat_map(|a| &a.events)
}

/// The `source`, `frame_offset` and `byte_offset` columns of rows at `keys`.
fn key_columns(source: &str, keys: &[GameKey]) -> Vec<ArrayRef> {
    vec![
        Arc::new(StringArray::new_repeated(source, keys.len())),
        Arc::new(UInt64Array::from_iter_values(keys.iter().map(|k| k.frame_offset))),
        Arc::new(UInt64Array::from_iter_values(keys.iter().map(|k| k.byte_offset))),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_find_their_columns() {
        for (i, (name, _)) in TAG_COLUMNS.iter().enumerate() {
            assert_eq!(tag_index(name.as_bytes()), Some(i), "{name}");
        }
        for name in ["", "E", "Even", "Events", "event", "UTCDatf", "WhiteFide", "Foo", "TimeControls", "Black "] {
            assert_eq!(tag_index(name.as_bytes()), None, "{name:?}");
        }
    }

    #[test]
    fn empty_batches_match_the_schemas() {
        let (games, events) = BatchBuilder::new().finish("s", drop).unwrap();
        assert_eq!(games.num_columns(), games_schema().fields().len());
        assert_eq!(events.num_columns(), events_schema().fields().len());
    }

    #[test]
    fn a_game_with_events() {
        let pgn = "[Event \"t\"]\n[Site \"https://lichess.org/abcdefgh\"]\n[WhiteElo \"1500\"]\n[TimeControl \"60+0\"]\n[Foo \"bar\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2\n";
        let mut builder = BatchBuilder::new();
        crate::pgn::for_each_game(pgn.as_bytes(), |game| {
            builder.append(GameKey::default(), game);
            std::ops::ControlFlow::Continue(())
        })
        .unwrap();
        let (games, events) = builder.finish("s", drop).unwrap();
        assert_eq!(games.num_rows(), 1);
        assert!(events.num_rows() > 0);
    }
}

/// The `summary` table: per source, one row per (month, time class, band of 100 Elo, variant,
/// venue, claimant) of its games, holding every count the report adds up, so that a report over
/// whole months, time classes and bands need not read the games. Each count is declared once
/// ([`summary::Counts`]), with what a game adds to it; `threefold-count` fills the games in and
/// adds them up, at ingest and in a report that reads the games.
pub mod summary {
    use super::*;
    use crate::engine::{event::Perpetual, summary::DrawReason};
    use arrow_array::{
        Int32Array,
        builder::{UInt32Builder, UInt64Builder},
    };

    /// The key columns, then `skipped` and the counts ([`counts`]), then the first-threefold
    /// histogram and the example candidates.
    pub const SOURCE: &str = "source";
    pub const MONTH: &str = "month";
    pub const TIME_CLASS: &str = "time_class";
    pub const ELO_BAND: &str = "elo_band";
    pub const VARIANT: &str = "variant";
    /// The row's games' venue (`games.venue`): the rules that bind a claim differ by it.
    pub const VENUE: &str = "venue";
    /// Who could claim a threefold in the row's games (`games.claimant`): where the program did,
    /// their claims are left out of the missed-claim figures.
    pub const CLAIMANT: &str = "claimant";
    /// Whether the row's games were Lichess games: the key column before [`VENUE`], read in
    /// summaries written then.
    pub const LICHESS: &str = "lichess";
    pub const SKIPPED: &str = "skipped";
    /// Games with no moves: in no count but this one.
    pub const NO_MOVES: &str = "no_moves";
    pub const FIRST_THREEFOLD_PLY: &str = "first_threefold_ply";
    pub const EXAMPLES: &str = "examples";
    /// A HyperLogLog sketch of the row's games' fingerprints (`threefold_count`'s sketch): how many are
    /// copies, without a set of them. Null in a summary written before it existed.
    pub const FINGERPRINTS: &str = "fingerprints";

    /// The clock bands' and evaluation bands' names in column names, in the report's order.
    pub const CLOCK_BANDS: [&str; 5] = ["under_10s", "10_30s", "30_60s", "1_3min", "3min_plus"];
    pub const EVAL_BANDS: [&str; 4] = ["worse", "equal", "better", "none"];

    /// Declares the summary's counts, each once: a `u64` column named as its field of [`Counts`],
    /// in this order, what one game adds to it (a closure over a [`Game`], a `bool` or a
    /// number), added up when games, rows and parts merge. The schema, the writing, the reading
    /// and the counting of a game all come from here.
    macro_rules! counts {
        ($($name:ident: |$game:pat_param| $adds:expr,)*) => {
            /// A summary row's counts, one field per count column.
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
            pub struct Counts {
                $(pub $name: u64,)*
            }

            impl Counts {
                /// The count columns' names, in order.
                pub const NAMES: [&'static str; [$(stringify!($name)),*].len()] = [$(stringify!($name)),*];

                /// What one game adds to each count.
                pub fn of(game: &Game) -> Counts {
                    Counts { $($name: { let $game = game; u64::from($adds) },)* }
                }

                /// Adds one game's counts ([`Counts::of`], without making them).
                #[inline]
                pub fn add_game(&mut self, game: &Game) {
                    $(self.$name += { let $game = game; u64::from($adds) };)*
                }

                /// The counts in [`Counts::NAMES`] order.
                pub fn values(&self) -> [u64; Self::NAMES.len()] {
                    [$(self.$name),*]
                }

                /// The counts from values in [`Counts::NAMES`] order (a missing one is 0).
                pub fn from_values(values: impl IntoIterator<Item = u64>) -> Counts {
                    let mut values = values.into_iter();
                    Counts { $($name: values.next().unwrap_or(0),)* }
                }

                /// Adds another game's, row's or part's counts.
                pub fn add(&mut self, other: &Counts) {
                    $(self.$name += other.$name;)*
                }
            }
        };
    }

    counts! {
        // Games, repetitions and claims (what the headline rates are made of).
        games: |_| true,
        threefold: |g| g.threefold,
        fivefold: |g| g.fivefold,
        with_claim: |g| g.with_claim,
        missed: |g| g.missed,
        passed_over: |g| g.passed_over && !g.missed,
        with_claim_on_board: |g| g.on_board.0,
        missed_on_board: |g| g.on_board.1,
        with_claim_by_move: |g| g.by_move.0,
        missed_by_move: |g| g.by_move.1,
        // Drawn games by reason (`DrawReason::WITH_MOVES`, `drawn_` and the reason's name).
        drawn_stalemate: |g| g.drawn == Some(DrawReason::Stalemate),
        drawn_insufficient_material: |g| g.drawn == Some(DrawReason::InsufficientMaterial),
        drawn_fivefold: |g| g.drawn == Some(DrawReason::Fivefold),
        drawn_seventy_five_moves: |g| g.drawn == Some(DrawReason::SeventyFiveMoves),
        drawn_threefold: |g| g.drawn == Some(DrawReason::Threefold),
        drawn_threefold_by_move: |g| g.drawn == Some(DrawReason::ThreefoldByMove),
        drawn_fifty_moves: |g| g.drawn == Some(DrawReason::FiftyMoves),
        drawn_adjudication: |g| g.drawn == Some(DrawReason::Adjudication),
        drawn_timeout_vs_insufficient_material: |g| g.drawn == Some(DrawReason::TimeoutVsInsufficientMaterial),
        drawn_agreement: |g| g.drawn == Some(DrawReason::Agreement),
        drawn_agreement_or_unrecorded: |g| g.drawn == Some(DrawReason::AgreementOrUnrecorded),
        // Threefold and fivefold draws by who gave perpetual check (`Perpetual::ALL`, then none).
        repetition_draws_perpetual_white: |g| g.repetition_draw() && g.perpetual == Some(Perpetual::White),
        repetition_draws_perpetual_black: |g| g.repetition_draw() && g.perpetual == Some(Perpetual::Black),
        repetition_draws_perpetual_both: |g| g.repetition_draw() && g.perpetual == Some(Perpetual::Both),
        repetition_draws_perpetual_none: |g| g.repetition_draw() && g.perpetual.is_none(),
        // The claimant's results in games with a claim.
        claimant_games: |g| g.scored(),
        claimant_wins: |g| g.won(),
        claimant_draws: |g| g.drew(),
        claimant_losses: |g| g.lost(),
        // Claim opportunities on the board and by a declared move only.
        claim_opportunities: |g| g.claims_on_board + g.claims_by_move_only,
        claims_on_board: |g| g.claims_on_board,
        claims_by_move_only: |g| g.claims_by_move_only,
        claims_by_move_only_played: |g| g.claims_by_move_only_played,
        games_with_on_board_claims: |g| g.claims_on_board > 0,
        games_with_by_move_only_claims: |g| g.claims_by_move_only > 0,
        games_only_by_move: |g| g.claims_by_move_only > 0 && g.claims_on_board == 0,
        // The edge cases (castling, en passant, hidden repetitions): games and events.
        castling_games: |g| g.castling_events > 0,
        castling_events: |g| g.castling_events,
        en_passant_games: |g| g.en_passant_events > 0,
        en_passant_events: |g| g.en_passant_events,
        hidden_games: |g| g.hidden_events > 0,
        hidden_events: |g| g.hidden_events,
        // Games that went on after a fivefold, after the 75 moves.
        after_fivefold: |g| g.after_fivefold,
        after_75_moves: |g| g.after_75_moves,
        // Games with clocks, and the first claim's clock band: games and those that passed it over (`CLOCK_BANDS`).
        games_with_clocks: |g| g.has_clocks,
        first_claim_clock_under_10s_games: |g| g.clock(0),
        first_claim_clock_under_10s_passed_over: |g| g.clock(0) && g.first_claim_passed_over,
        first_claim_clock_10_30s_games: |g| g.clock(1),
        first_claim_clock_10_30s_passed_over: |g| g.clock(1) && g.first_claim_passed_over,
        first_claim_clock_30_60s_games: |g| g.clock(2),
        first_claim_clock_30_60s_passed_over: |g| g.clock(2) && g.first_claim_passed_over,
        first_claim_clock_1_3min_games: |g| g.clock(3),
        first_claim_clock_1_3min_passed_over: |g| g.clock(3) && g.first_claim_passed_over,
        first_claim_clock_3min_plus_games: |g| g.clock(4),
        first_claim_clock_3min_plus_passed_over: |g| g.clock(4) && g.first_claim_passed_over,
        // Games with evaluations, and the first missed claim's evaluation band: games and the claimant's results (`EVAL_BANDS`; a loss there is any score but a win or a draw).
        games_with_evals: |g| g.has_evals,
        first_missed_eval_worse_games: |g| g.eval(0),
        first_missed_eval_worse_claimant_games: |g| g.eval(0) && g.scored(),
        first_missed_eval_worse_claimant_wins: |g| g.eval(0) && g.won(),
        first_missed_eval_worse_claimant_draws: |g| g.eval(0) && g.drew(),
        first_missed_eval_worse_claimant_losses: |g| g.eval(0) && g.scored() && !g.won() && !g.drew(),
        first_missed_eval_equal_games: |g| g.eval(1),
        first_missed_eval_equal_claimant_games: |g| g.eval(1) && g.scored(),
        first_missed_eval_equal_claimant_wins: |g| g.eval(1) && g.won(),
        first_missed_eval_equal_claimant_draws: |g| g.eval(1) && g.drew(),
        first_missed_eval_equal_claimant_losses: |g| g.eval(1) && g.scored() && !g.won() && !g.drew(),
        first_missed_eval_better_games: |g| g.eval(2),
        first_missed_eval_better_claimant_games: |g| g.eval(2) && g.scored(),
        first_missed_eval_better_claimant_wins: |g| g.eval(2) && g.won(),
        first_missed_eval_better_claimant_draws: |g| g.eval(2) && g.drew(),
        first_missed_eval_better_claimant_losses: |g| g.eval(2) && g.scored() && !g.won() && !g.drew(),
        first_missed_eval_none_games: |g| g.eval(3),
        first_missed_eval_none_claimant_games: |g| g.eval(3) && g.scored(),
        first_missed_eval_none_claimant_wins: |g| g.eval(3) && g.won(),
        first_missed_eval_none_claimant_draws: |g| g.eval(3) && g.drew(),
        first_missed_eval_none_claimant_losses: |g| g.eval(3) && g.scored() && !g.won() && !g.drew(),
    }

    /// A game as the summary's counts see it: [`Counts::of`] says what it adds to each. The
    /// counting layer (`threefold-count`) fills it from a `games` row and the game's events.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct Game {
        /// A position stood on the board a third (fifth) time.
        pub threefold: bool,
        pub fivefold: bool,
        /// The player to move could claim a threefold; some claim was missed; a claim not made
        /// was passed over (the game drawn in the same repetition).
        pub with_claim: bool,
        pub missed: bool,
        pub passed_over: bool,
        /// Claim opportunities and missed claims on the board, then by a declared move.
        pub on_board: (bool, bool),
        pub by_move: (bool, bool),
        /// Why a drawn game was drawn (`None`: not drawn, or a reason not in [`DrawReason`]).
        pub drawn: Option<DrawReason>,
        /// Who gave perpetual check in the repetition that drew the game.
        pub perpetual: Option<Perpetual>,
        /// The claimant's final score: 1, ½ or 0.
        pub score: Option<f64>,
        /// Play went on after a fivefold, after the 75 moves.
        pub after_fivefold: bool,
        pub after_75_moves: bool,
        /// A clock after every replayed move; then the band of the claimant's clock at the first
        /// claim opportunity ([`CLOCK_BANDS`], [`clock_band`]), and whether that claim was
        /// passed over.
        pub has_clocks: bool,
        pub first_claim_clock: Option<usize>,
        pub first_claim_passed_over: bool,
        /// An evaluation somewhere; then the band of the claimant's evaluation at the first
        /// missed claim ([`EVAL_BANDS`], [`eval_band`]; `None` without a missed claim).
        pub has_evals: bool,
        pub first_missed_eval: Option<usize>,
        /// Claim opportunities on the board, by a declared move only, and of those how many the
        /// player then played.
        pub claims_on_board: u64,
        pub claims_by_move_only: u64,
        pub claims_by_move_only_played: u64,
        /// Events where castling rights, an en-passant right or a hidden difference told two
        /// positions apart.
        pub castling_events: u64,
        pub en_passant_events: u64,
        pub hidden_events: u64,
    }

    impl Game {
        /// A threefold or fivefold draw.
        fn repetition_draw(&self) -> bool {
            matches!(self.drawn, Some(DrawReason::Threefold | DrawReason::Fivefold))
        }

        /// The first claim fell in clock band `band` ([`CLOCK_BANDS`]).
        fn clock(&self, band: usize) -> bool {
            self.first_claim_clock == Some(band)
        }

        /// The first missed claim fell in evaluation band `band` ([`EVAL_BANDS`]).
        fn eval(&self, band: usize) -> bool {
            self.first_missed_eval == Some(band)
        }

        /// The claimant's score is known; a win, a draw, a loss.
        fn scored(&self) -> bool {
            self.score.is_some()
        }

        fn won(&self) -> bool {
            matches!(self.score, Some(1.0))
        }

        fn drew(&self) -> bool {
            matches!(self.score, Some(0.5))
        }

        fn lost(&self) -> bool {
            matches!(self.score, Some(0.0))
        }
    }

    /// The clock band of a clock of `ms` milliseconds: the lower bound in.
    pub fn clock_band(ms: i64) -> usize {
        match ms {
            ..10_000 => 0,
            10_000..30_000 => 1,
            30_000..60_000 => 2,
            60_000..180_000 => 3,
            _ => 4,
        }
    }

    /// The evaluation band of the claimant's evaluation: below -1.00 or getting mated, -1.00 to
    /// +1.00, above +1.00 or mating, none (the thresholds of `missed_claims_by_eval.sql`).
    pub fn eval_band(cp: Option<i64>, mate: Option<i32>) -> usize {
        match (cp, mate) {
            (_, Some(m)) if m < 0 => 0,
            (_, Some(m)) if m > 0 => 2,
            (_, Some(_)) => 1,
            (Some(cp), None) if cp < -100 => 0,
            (Some(cp), None) if cp > 100 => 2,
            (Some(_), None) => 1,
            (None, None) => 3,
        }
    }

    /// The count columns (uint64), in order: a summary row's [`Row::counts`].
    pub fn counts() -> &'static [&'static str] {
        &Counts::NAMES
    }

    static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
        let mut fields = vec![
            Field::new(SOURCE, DataType::Utf8, false),
            Field::new(MONTH, DataType::Utf8, true),
            Field::new(TIME_CLASS, DataType::Utf8, true),
            Field::new(ELO_BAND, DataType::Int32, true),
            Field::new(VARIANT, DataType::Utf8, false),
            Field::new(VENUE, DataType::Utf8, false),
            Field::new(CLAIMANT, DataType::Utf8, false),
            Field::new(SKIPPED, DataType::UInt64, false),
            Field::new(NO_MOVES, DataType::UInt64, false),
        ];
        fields.extend(counts().iter().map(|&name| Field::new(name, DataType::UInt64, false)));
        fields.push(Field::new_map(
            FIRST_THREEFOLD_PLY,
            "key_value",
            Arc::new(Field::new("key", DataType::UInt32, false)),
            Arc::new(Field::new("value", DataType::UInt64, true)),
            false,
            false,
        ));
        fields.push(Field::new(EXAMPLES, DataType::Utf8, false));
        fields.push(Field::new(FINGERPRINTS, DataType::Binary, true));
        Arc::new(Schema::new(fields))
    });

    /// Schema of the `summary` table.
    pub fn schema() -> SchemaRef {
        SCHEMA.clone()
    }

    /// One row: a key and its counts.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct Row {
        /// `YYYY-MM` of the game's date (`UTCDate`, else a full `Date`); `None`: undated.
        pub month: Option<String>,
        pub time_class: Option<String>,
        /// The lower of the two Elos rounded down to a multiple of 100; `None` without both.
        pub elo_band: Option<i32>,
        pub variant: String,
        /// The games' venue ([`VENUE`]).
        pub venue: String,
        /// Who could claim in the games ([`CLAIMANT`]).
        pub claimant: String,
        /// Games in a variant that is not replayed (in no count but this one).
        pub skipped: u64,
        /// Games with no moves (in no count but this one).
        pub no_moves: u64,
        pub counts: Counts,
        /// Games by the first ply of a threefold, in buckets of 10 plies (the bucket's first ply).
        pub first_threefold_ply: Vec<(u32, u64)>,
        /// The example candidates, as JSON (the report's own form).
        pub examples: String,
        /// The serialized fingerprint sketch ([`FINGERPRINTS`]).
        pub fingerprints: Option<Vec<u8>>,
    }

    /// The rows of a summary batch ([`Builder::append`], then [`Builder::finish`]), kept column
    /// by column.
    #[derive(Default)]
    pub struct Builder {
        month: Vec<Option<String>>,
        time_class: Vec<Option<String>>,
        elo_band: Vec<Option<i32>>,
        variant: Vec<String>,
        venue: Vec<String>,
        claimant: Vec<String>,
        skipped: Vec<u64>,
        no_moves: Vec<u64>,
        /// By [`counts`] column.
        counts: Vec<Vec<u64>>,
        first_threefold_ply: Vec<Vec<(u32, u64)>>,
        examples: Vec<String>,
        fingerprints: Vec<Option<Vec<u8>>>,
    }

    impl Builder {
        /// A builder with room for `rows` rows.
        pub fn with_capacity(rows: usize) -> Builder {
            Builder {
                month: Vec::with_capacity(rows),
                time_class: Vec::with_capacity(rows),
                elo_band: Vec::with_capacity(rows),
                variant: Vec::with_capacity(rows),
                venue: Vec::with_capacity(rows),
                claimant: Vec::with_capacity(rows),
                skipped: Vec::with_capacity(rows),
                no_moves: Vec::with_capacity(rows),
                counts: (0..counts().len()).map(|_| Vec::with_capacity(rows)).collect(),
                first_threefold_ply: Vec::with_capacity(rows),
                examples: Vec::with_capacity(rows),
                fingerprints: Vec::with_capacity(rows),
            }
        }

        pub fn append(&mut self, row: Row) {
            let Row {
                month,
                time_class,
                elo_band,
                variant,
                venue,
                claimant,
                skipped,
                no_moves,
                counts: row_counts,
                first_threefold_ply,
                examples,
                fingerprints,
            } = row;
            self.month.push(month);
            self.time_class.push(time_class);
            self.elo_band.push(elo_band);
            self.variant.push(variant);
            self.venue.push(venue);
            self.claimant.push(claimant);
            self.skipped.push(skipped);
            self.no_moves.push(no_moves);
            if self.counts.is_empty() {
                self.counts.resize_with(counts().len(), Vec::new);
            }
            for (column, n) in self.counts.iter_mut().zip(row_counts.values()) {
                column.push(n);
            }
            self.first_threefold_ply.push(first_threefold_ply);
            self.examples.push(examples);
            self.fingerprints.push(fingerprints);
        }

        /// The rows appended since the last call, every one under `source`.
        pub fn finish(&mut self, source: &str) -> Result<RecordBatch, ArrowError> {
            let n = self.variant.len();
            let mut columns: Vec<ArrayRef> = vec![
                Arc::new(StringArray::from_iter_values(std::iter::repeat_n(source, n))),
                Arc::new(self.month.drain(..).collect::<StringArray>()),
                Arc::new(self.time_class.drain(..).collect::<StringArray>()),
                Arc::new(self.elo_band.drain(..).collect::<Int32Array>()),
                Arc::new(StringArray::from_iter_values(self.variant.drain(..))),
                Arc::new(StringArray::from_iter_values(self.venue.drain(..))),
                Arc::new(StringArray::from_iter_values(self.claimant.drain(..))),
                Arc::new(UInt64Array::from(std::mem::take(&mut self.skipped))),
                Arc::new(UInt64Array::from(std::mem::take(&mut self.no_moves))),
            ];
            self.counts.resize_with(counts().len(), Vec::new);
            for column in &mut self.counts {
                columns.push(Arc::new(UInt64Array::from(std::mem::take(column))));
            }
            let mut map = MapBuilder::new(
                Some(MapFieldNames { entry: "key_value".into(), key: "key".into(), value: "value".into() }),
                UInt32Builder::new(),
                UInt64Builder::new(),
            );
            for buckets in self.first_threefold_ply.drain(..) {
                for (ply, games) in buckets {
                    map.keys().append_value(ply);
                    map.values().append_value(games);
                }
                map.append(true)?;
            }
            columns.push(Arc::new(map.finish()));
            columns.push(Arc::new(StringArray::from_iter_values(self.examples.drain(..))));
            columns.push(Arc::new(self.fingerprints.drain(..).collect::<arrow_array::BinaryArray>()));
            RecordBatch::try_new(schema(), columns)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// The counts' families follow what they count: a draw reason, a perpetual, a clock or
        /// evaluation band each has its column, in that list's order.
        #[test]
        fn the_counts_families_follow_their_lists() {
            let mut expected: Vec<String> = Counts::NAMES[..10].iter().map(|n| n.to_string()).collect();
            expected.extend(DrawReason::WITH_MOVES.iter().map(|r| format!("drawn_{}", r.as_str())));
            expected.extend(Perpetual::ALL.iter().map(|p| format!("repetition_draws_perpetual_{}", p.as_str())));
            expected.push("repetition_draws_perpetual_none".into());
            expected.extend(["games", "wins", "draws", "losses"].map(|o| format!("claimant_{o}")));
            expected.extend(Counts::NAMES[29..44].iter().map(|n| n.to_string()));
            expected.push("games_with_clocks".into());
            for band in CLOCK_BANDS {
                expected.push(format!("first_claim_clock_{band}_games"));
                expected.push(format!("first_claim_clock_{band}_passed_over"));
            }
            expected.push("games_with_evals".into());
            for band in EVAL_BANDS {
                for o in ["games", "claimant_games", "claimant_wins", "claimant_draws", "claimant_losses"] {
                    expected.push(format!("first_missed_eval_{band}_{o}"));
                }
            }
            assert_eq!(Counts::NAMES.as_slice(), expected.iter().map(String::as_str).collect::<Vec<_>>());
        }

        /// A row's counts are written and read back by name, in the columns' order.
        #[test]
        fn counts_round_trip_through_a_batch() {
            let counts = Counts::from_values(1..);
            assert_eq!(counts.values().to_vec(), (1..=Counts::NAMES.len() as u64).collect::<Vec<_>>());
            let mut builder = Builder::default();
            builder.append(Row { counts, variant: "standard".into(), ..Row::default() });
            let batch = builder.finish("s").unwrap();
            let read = Counts::from_values(Counts::NAMES.iter().map(|name| {
                batch.column_by_name(name).unwrap().as_any().downcast_ref::<UInt64Array>().unwrap().value(0)
            }));
            assert_eq!(read, counts);
            let mut twice = counts;
            twice.add(&counts);
            assert_eq!(twice.values().to_vec(), counts.values().iter().map(|n| 2 * n).collect::<Vec<_>>());
        }
    }
}
